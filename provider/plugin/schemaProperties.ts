/**
 * The types of every property of the plugin's schema (./schema) but the resources' (each kind declares its own:
 * ../kindDeclaration): one table per object type and function argument or result, each typed by the TypeScript type
 * the SDK functions use (the compiler rejects a property the TypeScript side lacks or misses) and naming the interface
 * whose TSDoc describes its members. The descriptions are not written here: `npm run schema`
 * (scripts/generate/write-schema.ts) reads them from that TSDoc, so the registry's docs and the TypeScript docs are one
 * text. The provider's settings (configVariables) are rendered from the settings' table (provider/settings/table.ts),
 * which describes them once.
 */
import type { AppLogLine, BuildLogEntry } from "../client";
import type { ApiKeyInfo, GetApiKeysArgs, GetApiKeysOutputResult } from "../functions/apiKeys";
import type { GetAppLogsArgs, GetAppLogsResult } from "../functions/appLogs";
import type { GetBuildLogsArgs, GetBuildLogsResult } from "../functions/buildLogs";
import type { GetInvoicesArgs, GetInvoicesResult, InvoiceResult } from "../functions/invoices";
import type { CancelRunArgs, CancelRunResult } from "../functions/runs";
import type { TokenDelivery } from "../serviceAccount/deliveryRules";
import {
  CONFIG_KEYS,
  SETTINGS,
  settingDefault,
  type ConfigKey,
  type SettingKind,
  type SettingName,
  type SettingSpec,
  type SettingsTable,
} from "../settings";
import { BOOL, INT, NUM, STR, table, type TypeSpec } from "../kindDeclaration";
import { nativeToken } from "./tokens";

export type { PropertyTable, Props, TypeSpec } from "../kindDeclaration";

/** A property of the schema: its type, description and marks. */
export interface PropertySpec extends TypeSpec {
  description: string;
  /** Stored and shown as a secret (the provider returns it as one; generated SDKs add `additionalSecretOutputs`). */
  secret?: boolean;
  /** A change replaces the resource, whatever its other inputs (generated SDKs add `replaceOnChanges`). */
  replaceOnChanges?: boolean;
  /** Where a provider setting comes from when it is not given. */
  defaultInfo?: { environment: string[] };
}

/** A list of one of the object types of {@link OBJECT_TYPES}. */
const list = (name: keyof typeof OBJECT_TYPES): TypeSpec => ({
  type: "array",
  items: { $ref: `#/types/${nativeToken(name)}` },
});

// ---- object types and functions ---------------------------------------------------------------------
export const TOKEN_DELIVERY = table<TokenDelivery>("TokenDelivery", {
  ageRecipients: { type: "array", items: STR },
  command: { type: "array", items: STR },
  commandTimeoutSeconds: INT,
  file: STR,
});
export const API_KEY = table<ApiKeyInfo>("ApiKeyInfo", {
  id: STR,
  name: STR,
  description: STR,
  apiKey: STR,
  projectId: STR,
  principalId: STR,
  source: STR,
  status: STR,
  createdAt: STR,
  updatedAt: STR,
  expiresAt: STR,
  neverExpires: BOOL,
  expiresAtEpochMs: NUM,
});
export const INVOICE = table<InvoiceResult>("InvoiceResult", {
  id: STR,
  accountCountry: STR,
  accountName: STR,
  amountDue: INT,
  currency: STR,
  createdAt: STR,
  fileUrl: STR,
  paymentStatus: STR,
  amountDueMajor: NUM,
  currencyDigits: INT,
});
export const APP_LOG_LINE = table<AppLogLine>("AppLogLine", {
  logId: STR,
  appId: STR,
  projectId: STR,
  containerId: STR,
  containerName: STR,
  runId: STR,
  lineNumber: INT,
  logLine: STR,
  stream: STR,
  timestamp: STR,
});
export const BUILD_LOG_ENTRY = table<BuildLogEntry>("BuildLogEntry", {
  id: STR,
  createdAt: STR,
  log: STR,
});
export const GET_API_KEYS_ARGS = table<GetApiKeysArgs>("GetApiKeysArgs", {
  projectId: STR,
});
export const GET_API_KEYS_RESULT = table<GetApiKeysOutputResult>("GetApiKeysOutputResult", {
  keys: list("ApiKey"),
});
export const GET_INVOICES_ARGS = table<GetInvoicesArgs>("GetInvoicesArgs", {
  projectId: STR,
});
export const GET_INVOICES_RESULT = table<GetInvoicesResult>("GetInvoicesResult", {
  invoices: list("Invoice"),
});
export const GET_APP_LOGS_ARGS = table<GetAppLogsArgs>("GetAppLogsArgs", {
  projectId: STR,
  appId: STR,
  before: STR,
  after: STR,
  containerId: STR,
  runId: STR,
  search: STR,
  stream: STR,
  direction: STR,
  pageSize: INT,
  limit: INT,
});
export const GET_APP_LOGS_RESULT = table<GetAppLogsResult>("GetAppLogsResult", {
  lines: list("AppLogLine"),
  truncated: BOOL,
});
export const GET_BUILD_LOGS_ARGS = table<GetBuildLogsArgs>("GetBuildLogsArgs", {
  projectId: STR,
  appId: STR,
  buildId: STR,
});
export const GET_BUILD_LOGS_RESULT = table<GetBuildLogsResult>("GetBuildLogsResult", {
  projectId: STR,
  appId: STR,
  buildId: STR,
  status: STR,
  finished: BOOL,
  succeeded: BOOL,
  logs: list("BuildLogEntry"),
});
export const CANCEL_RUN_ARGS = table<CancelRunArgs>("CancelRunArgs", {
  projectId: STR,
  appId: STR,
  runId: STR,
});
export const CANCEL_RUN_RESULT = table<CancelRunResult>("CancelRunResult", {
  message: STR,
});

/** The object types function results are made of, by name (`pims:index:<name>`). */
export const OBJECT_TYPES = {
  ApiKey: {
    description: "An API key of a project, as the service sends it, plus its expiry as a number.",
    properties: API_KEY,
  },
  Invoice: { description: "An invoice of a project, plus its amount in major units.", properties: INVOICE },
  AppLogLine: { description: "One line of an app's logs.", properties: APP_LOG_LINE },
  BuildLogEntry: { description: "One entry of a build's logs.", properties: BUILD_LOG_ENTRY },
  TokenDelivery: {
    description:
      "Where a ServiceAccount's new tokens go instead of the state (its `tokenDelivery`): set exactly one of " +
      "`ageRecipients` (sealed), `command` (with `commandTimeoutSeconds`) and `file`. A bad recipient, an empty argv " +
      "or a relative path is refused at preview, with no call to the service.",
    properties: TOKEN_DELIVERY,
  },
};

/**
 * The provider's settings: stack config `pims:<key>` for the default provider, arguments of an explicit
 * `pulumi:providers:pims`, then the environment variable named in `defaultInfo`.
 */
/**
 * A setting's description for the schema's config (`config`) or a `pims.Provider` argument's TSDoc (`argument`,
 * written by `npm run docs:settings`): its doc, then where a missing value comes from, first match wins, and the
 * default ({@link settingDefault}, the renderer docs/settings.md uses too).
 */
export function settingDescription(name: SettingName, spec: SettingSpec, audience: "config" | "argument"): string {
  const from = [...(audience === "argument" ? [`stack config \`pims:${name}\``] : []), `\`${spec.env}\``];
  if (spec.default !== undefined && spec.default !== "required") from.push(settingDefault(spec));
  const rule = spec.kind === "count" ? ` A whole number${spec.unit ?? ""} >= ${spec.min ?? 0}.` : "";
  return `${spec.doc}${rule} Default: ${from.join(", else ")}.`;
}

/** The schema type of each kind of setting. */
const SETTING_TYPES: Record<SettingKind, TypeSpec> = {
  secret: STR,
  url: STR,
  flag: BOOL,
  count: INT,
  list: STR,
  path: STR,
  text: STR,
};

/** The provider's config variables (and an explicit provider's inputs), rendered from `table` (the settings' one). */
export function configVariables(table: SettingsTable = SETTINGS): Record<ConfigKey, PropertySpec> {
  const one = (key: ConfigKey): PropertySpec => ({
    ...SETTING_TYPES[table[key].kind],
    ...(table[key].kind === "secret" ? { secret: true } : {}),
    description: settingDescription(key, table[key], "config"),
    defaultInfo: { environment: [table[key].env] },
  });
  return Object.fromEntries(CONFIG_KEYS.map((key) => [key, one(key)])) as Record<ConfigKey, PropertySpec>;
}
