/**
 * Read-only functions (API keys, invoices, app logs, build logs) and one imperative action (cancelRun), as plain
 * async functions in the program process: dynamic providers do not serve functions. Each `getX(args, opts?)` returns
 * a Promise; each `getXOutput(args, opts?)` takes `pulumi.Input`s and returns a `pulumi.Output`, as generated Pulumi
 * SDKs do. Credentials and options: see {@link PimsCallOptions}.
 *
 * One module per endpoint family; this barrel lists the public names (helpers the CLI shares stay unexported here).
 */
export type { PimsCallOptions } from "./call";
export { getApiKeys, getApiKeysOutput } from "./apiKeys";
export type {
  ApiKeyInfo,
  ApiKeyResult,
  GetApiKeysArgs,
  GetApiKeysOutputArgs,
  GetApiKeysOutputResult,
  GetApiKeysResult,
} from "./apiKeys";
export { currencyDigits, toMajorUnits } from "../../../provider/functions/currency";
export { getInvoices, getInvoicesOutput } from "./invoices";
export type { GetInvoicesArgs, GetInvoicesOutputArgs, GetInvoicesResult, InvoiceResult } from "./invoices";
export { DEFAULT_LOG_LIMIT, MAX_LOG_LIMIT, getAppLogs, getAppLogsOutput } from "./appLogs";
export type { GetAppLogsArgs, GetAppLogsOutputArgs, GetAppLogsResult } from "./appLogs";
export {
  BUILD_SUCCESS_STATUSES,
  getBuildLogs,
  getBuildLogsOutput,
  isBuildFinished,
  isBuildSuccessful,
} from "./buildLogs";
export type { GetBuildLogsArgs, GetBuildLogsOutputArgs, GetBuildLogsResult } from "./buildLogs";
export { cancelRun, cancelRunOutput } from "./runs";
export type { CancelRunArgs, CancelRunOutputArgs, CancelRunResult } from "./runs";
