/**
 * pulumi-pims: Pulumi resources and functions for the Project Infrastructure Management Service.
 *
 * Resources: Project, ServiceAccount, VolumeSize, AppSecrets. Functions: getApiKeys, getInvoices, getAppLogs,
 * getBuildLogs, cancelRun (each also as getXOutput). Credentials: `pims:token` (secret) and `pims:baseUrl`
 * stack config, or PIMS_TOKEN / PIMS_BASE_URL.
 */
import { runPluginEntry } from "../../provider/plugin/runPlugin";

// `pulumi package add` runs this package as a plugin through `@pulumi/pulumi/cmd/run-plugin`, which requires this
// file: only then is the export the plugin's entry instead (provider/plugin/runPlugin.ts explains).
//
// This swap must stay ABOVE every `export`. Node's ES-module loader learns this CommonJS file's names by reading it
// statically (cjs-module-lexer), and an assignment to `module.exports` discards every `export *` re-export it has seen
// before it; placed after them (0.4.0), `import { Project } from "pulumi-pims"` failed in ES-module programs. No
// `exports` map instead: it would close every deep path, and the shim stored in every user's state since 0.1.0
// requires `pulumi-pims/bin/provider`. tests/unit/sdk/esModule.test.ts holds both: the names an ES module sees, and the
// plugin entry.
const pluginEntry = runPluginEntry(module);
if (pluginEntry !== undefined) module.exports = pluginEntry;

export * from "./project";
export * from "./serviceAccount";
export * from "./volumeSize";
export * from "./appSecrets";
export * from "./providerResource";
export * from "./functions";
export {
  PimsClient,
  PimsError,
  NotFoundError,
  AuthError,
  PaymentError,
  ValidationError,
  ArgumentError,
  ConflictError,
  RateLimitError,
  ServerError,
  NetworkError,
  TimeoutError,
  isPimsError,
  BUILD_TERMINAL_STATUSES,
  retryLine,
} from "../../provider/client";
export { InvalidBaseUrlError, MissingCredentialsError, PimsConfigurationError } from "../../provider/configErrors";
export { UncertainCreateError } from "../../provider/serviceAccount/create";
export { createEscRotator } from "./escAdapter";
export type {
  EscRotatedToken,
  EscRotator,
  EscRotatorMessage,
  EscRotatorOptions,
  EscRotatorResponse,
} from "./escAdapter";
export type { EscSettingTexts } from "../../provider/settings";
export type { OrphanCandidate } from "../../provider/serviceAccount/listing";
export type { TokenDelivery } from "../../provider/serviceAccount/deliveryRules";
export type { CredentialsAudience, CredentialsOptions } from "../../provider/configErrors";
export type {
  ClientOptions,
  PimsErrorInit,
  PimsErrorKind,
  RetryInfo,
  Shape,
  WireRecord,
  WireSink,
} from "../../provider/client";
export type { InputOf, Inputs, OutputProps } from "./inputs";
export type {
  ApiKey,
  AppLogLine,
  AppLogPage,
  AppLogPageInfo,
  AppLogsQuery,
  AppSecretsMap,
  BuildLogEntry,
  BuildLogs,
  CreateProjectRequest,
  CreateServiceAccountRequest,
  DeleteServiceAccountResult,
  ErrorBody,
  Invoice,
  LogDirection,
  LogStream,
  ServiceAccountToken,
  ServiceAccount as ServiceAccountRecord,
} from "../../provider/client/types";
