/**
 * The properties of every resource, object type and function of the plugin's schema (./schema), with their
 * descriptions. Each table is `satisfies Props<T>` of the TypeScript type the dynamic resources and the SDK functions
 * use, so the compiler rejects a property the TypeScript side lacks or misses; each description is the TSDoc of that
 * TypeScript member, word for word (tests/unit/nativeSchema.test.ts compares them), so the registry's docs and the
 * TypeScript docs say the same thing. Secret and replace-on-change marks are tested against the TypeScript side too.
 */
import type { AppLogLine, BuildLogEntry } from "../client";
import type { AppSecretsOutputs } from "../appSecrets";
import type { ProjectOutputs } from "../project";
import type { ServiceAccountOutputs } from "../serviceAccount";
import type { VolumeSizeOutputs } from "../volumeSize";
import type { ApiKeyInfo, GetApiKeysArgs, GetApiKeysOutputResult } from "../functions/apiKeys";
import type { GetAppLogsArgs, GetAppLogsResult } from "../functions/appLogs";
import type { GetBuildLogsArgs, GetBuildLogsResult } from "../functions/buildLogs";
import type { GetInvoicesArgs, GetInvoicesResult, InvoiceResult } from "../functions/invoices";
import type { CancelRunArgs, CancelRunResult } from "../functions/runs";
import { SETTINGS } from "../settings";

/** The package's name in type tokens (`pims:index:<Name>`). */
export const PACKAGE = "pims";

/** A type of the schema (the subset this package uses). */
export interface TypeSpec {
  type?: "string" | "integer" | "number" | "boolean" | "array" | "object";
  items?: TypeSpec;
  additionalProperties?: TypeSpec;
  $ref?: string;
}

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

/** A table of properties: exactly the members of the TypeScript type `T`. */
export type Props<T> = { [K in keyof Required<T>]: PropertySpec };

const str = (description: string): PropertySpec => ({ type: "string", description });
const int = (description: string): PropertySpec => ({ type: "integer", description });
const num = (description: string): PropertySpec => ({ type: "number", description });
const bool = (description: string): PropertySpec => ({ type: "boolean", description });
const strList = (description: string): PropertySpec => ({ type: "array", items: { type: "string" }, description });
const strMap = (description: string): PropertySpec => ({
  type: "object",
  additionalProperties: { type: "string" },
  description,
});
/** A list of one of the object types of {@link OBJECT_TYPES}. */
const list = (name: keyof typeof OBJECT_TYPES, description: string): PropertySpec => ({
  type: "array",
  items: { $ref: `#/types/${PACKAGE}:index:${name}` },
  description,
});

// ---- resources ------------------------------------------------------------------------------------------
export const PROJECT = {
  name: str(
    "Name of the project: 2 to 50 characters (counted as a person counts them). Changing it replaces " +
      "the project: a new project is created and the old one stays in the service (the service has no " +
      "rename or delete operation).",
  ),
  projectId: str("The id the service gave the project, e.g. `p-1a2b3c4d`; also the resource id."),
} satisfies Props<ProjectOutputs>;
export const SERVICE_ACCOUNT = {
  projectId: str("Id of the project that owns the account, e.g. `p-1a2b3c4d`."),
  name: str("Name of the account: 1 to 100 characters."),
  description: str('Description: at most 500 characters. Default "".'),
  grants: strList("Ids of the projects the account may access: 1 to 50, no duplicates. Order does not matter."),
  expiresIn: int(
    "Lifetime of the token in seconds: an integer from 0 to 31536000 (one year). 0 = the token never " + "expires.",
  ),
  rotationTrigger: str(
    "Any string; changing it rotates the token: a new account with a new token (a manual rotation), " +
      'e.g. a date (`"2025-06"`) or a counter. Omit it when you do not rotate manually.',
  ),
  rotateBeforeExpiry: int(
    "Automatic rotation window in whole seconds (≥ 0, less than `expiresIn`; with " +
      "`keepPreviousToken`, at least half of `expiresIn`): once the token's expiry minus this window " +
      "has passed, the next `pulumi up` rotates the token (0 = once the token has expired). No effect " +
      "on a token that never expires. Changing it alone updates the resource in place (no call, same " +
      "token), unless the new window is already reached. Rotation happens only when you run `pulumi " +
      "up`: schedule one within the window.",
  ),
  keepPreviousToken: bool(
    "Overlapping rotation. When true, a rotation keeps the account it replaces (and its token) live " +
      "until the next rotation: the newest token is `token`, the one before it `previousToken`, and " +
      "each rotation creates one account and deletes only the one two rotations old. Consumers that " +
      "read the token before a rotation (apps, other stacks, CI) keep working until the next one. " +
      "Turning it on replaces nothing and mints no token; turning it off deletes the previous account. " +
      "Default false: a rotation replaces the account and deletes the old one in the same update.",
  ),
  serviceAccountId: str(
    "The current account's id. (With `keepPreviousToken` the resource's own id stays that of the " + "first account.)",
  ),
  createdAt: str("When the current account was created, RFC 3339."),
  createdByUserId: str("Id of the user who created the current account."),
  tokenId: str("Id of the current token."),
  tokenExpiresAt: str("When the current token expires, RFC 3339, or `never`."),
  token: str("The current token's secret, sent as `Authorization: Bearer <token>`. Issued once; a secret " + "output."),
  previousServiceAccountId: str("With `keepPreviousToken`, after a rotation: the previous account's id."),
  previousTokenId: str("With `keepPreviousToken`, after a rotation: the previous token's id."),
  previousTokenExpiresAt: str(
    "With `keepPreviousToken`, after a rotation: when the previous token expires, RFC 3339, or " + "`never`.",
  ),
  previousToken: str(
    "With `keepPreviousToken`, after a rotation: the previous token's secret, valid until the next " +
      "rotation. A secret output.",
  ),
  retiredServiceAccountIds: strList(
    "Accounts of this resource that a rotation retired but could not delete yet (their ids, in " +
      "`projectId`). The next `pulumi up` (or `destroy`) deletes them. Normally absent.",
  ),
} satisfies Props<ServiceAccountOutputs>;
export const VOLUME_SIZE = {
  projectId: str("Id of the project that owns the volume, e.g. `p-1a2b3c4d`. Changing it replaces the resource."),
  volumeId: str(
    "Id of an existing volume in that project, e.g. `default-us-east-1`. Changing it replaces the " + "resource.",
  ),
  sizeGb: int(
    "Size of the volume in GB: an integer, at least 50. It can only grow: a value smaller than the " +
      "current one fails at preview. Above 1024 GB the service allows it only for a protected project " +
      "(otherwise it refuses the update with its own message).",
  ),
} satisfies Props<VolumeSizeOutputs>;
export const APP_SECRETS = {
  projectId: str("Id of the project that owns the app, e.g. `p-1a2b3c4d`. Changing it replaces the resource."),
  appId: str("Id of the app, e.g. `p-1a2b3c4d-web`. Changing it replaces the resource."),
  secrets: strMap(
    "The app's secrets: name → value. At least one entry. Each name matches `^[A-Za-" +
      "z_][A-Za-z0-9_]*$` (a letter or underscore, then letters, digits or underscores) and has at most" +
      " 256 characters; each value is a string. The whole map is stored as a secret in the state, in " +
      "inputs and outputs alike.",
  ),
  secretNames: strList("The names of `secrets`, sorted (not secret: for display)."),
} satisfies Props<AppSecretsOutputs>;
export const API_KEY = {
  id: str("Unique id of the key."),
  name: str("Name of the key (for a service account's key: the account's name)."),
  description: str("Description of the key."),
  apiKey: str("The key value. Sensitive."),
  projectId: str("Project the key belongs to."),
  principalId: str("Present when the key was created for a service account."),
  source: str("Origin of the key, as the service reports it."),
  status: str("Status of the key, as the service reports it."),
  createdAt: str("Creation time, RFC 3339."),
  updatedAt: str("Last update time, RFC 3339."),
  expiresAt: str("RFC 3339 timestamp, or the literal `never`."),
  neverExpires: bool(
    "True when the key never expires: `expiresAt` is `never` (any case), or 0 (as `expiresIn` 0 means).",
  ),
  expiresAtEpochMs: num(
    "`expiresAt` in milliseconds since the epoch, read as RFC 3339, epoch seconds or epoch milliseconds (numbers or " +
      "digits); null when the key never expires or the date cannot be read.",
  ),
} satisfies Props<ApiKeyInfo>;
export const INVOICE = {
  id: str("Unique id of the invoice."),
  accountCountry: str("Country of the billing account."),
  accountName: str("Name on the billing account."),
  amountDue: int("In the smallest currency unit."),
  currency: str("Currency of the invoice, as the service sends it (e.g. `eur`)."),
  createdAt: str("When the invoice was created, as the service sends it."),
  fileUrl: str("URL of the invoice as a PDF."),
  paymentStatus: str("Payment status, as the service reports it."),
  amountDueMajor: num("`amountDue` in major units of `currency` (e.g. 1999 USD cents → 19.99; 500 JPY → 500)."),
  currencyDigits: int("Minor-unit digits of `currency` used for `amountDueMajor` (ISO 4217; 2 for unknown codes)."),
} satisfies Props<InvoiceResult>;
export const APP_LOG_LINE = {
  logId: str("Id of the line."),
  appId: str("App the line belongs to."),
  projectId: str("Project of the app."),
  containerId: str("Container that wrote the line."),
  containerName: str("Name of that container."),
  runId: str("Run that wrote the line."),
  lineNumber: int("Number of the line within its run."),
  logLine: str("The text of the line."),
  stream: str("`stdout` or `stderr`."),
  timestamp: str("When the line was written, as the service sends it."),
} satisfies Props<AppLogLine>;
export const BUILD_LOG_ENTRY = {
  id: str("Id of the entry, when the service sends one."),
  createdAt: str("When the entry was written, as the service sends it."),
  log: str("The text of the entry."),
} satisfies Props<BuildLogEntry>;
export const GET_API_KEYS_ARGS = {
  projectId: str("Project whose API keys are listed, e.g. `p-1a2b3c4d`."),
} satisfies Props<GetApiKeysArgs>;
export const GET_API_KEYS_RESULT = {
  keys: list(
    "ApiKey",
    "The project's keys in the service's order: `expiresAt` ascending, keys that never expire last.",
  ),
} satisfies Props<GetApiKeysOutputResult>;
export const GET_INVOICES_ARGS = {
  projectId: str("Project whose invoices are listed."),
} satisfies Props<GetInvoicesArgs>;
export const GET_INVOICES_RESULT = {
  invoices: list("Invoice", "The project's invoices in the service's order."),
} satisfies Props<GetInvoicesResult>;
export const GET_APP_LOGS_ARGS = {
  projectId: str("Project of the app."),
  appId: str("App whose logs are read, e.g. `p-1a2b3c4d-web`."),
  before: str("Only lines before this instant (RFC 3339 timestamp or Date). Sent as `beforeDate`."),
  after: str("Only lines after this instant (RFC 3339 timestamp or Date). Sent as `afterDate`."),
  containerId: str("Only lines of this container (id or name). Sent as `container`."),
  runId: str("Only lines of this run."),
  search: str("Only lines containing this term."),
  stream: str("Only this output stream: `stdout` or `stderr`."),
  direction: str(
    "Paging direction: `backward` (the service's default) reads newest first, `forward` oldest first." +
      " With a `limit`, it decides which end of the range you get.",
  ),
  pageSize: int("Lines per request, 1 to 1000. Default: `limit`, capped at 1000 (fewest requests)."),
  limit: int("Most lines returned, 1 to 100000. Default 1000 (DEFAULT_LOG_LIMIT)."),
} satisfies Props<GetAppLogsArgs>;
export const GET_APP_LOGS_RESULT = {
  lines: list(
    "AppLogLine",
    "The matching lines in paging order (newest first for `backward`, oldest first for `forward`).",
  ),
  truncated: bool("True when `limit` was reached while more matching lines existed."),
} satisfies Props<GetAppLogsResult>;
export const GET_BUILD_LOGS_ARGS = {
  projectId: str("Project of the app."),
  appId: str("App that was built."),
  buildId: str("Build whose logs are read."),
} satisfies Props<GetBuildLogsArgs>;
export const GET_BUILD_LOGS_RESULT = {
  projectId: str("Project of the app."),
  appId: str("App that was built."),
  buildId: str("The build."),
  status: str("Status as the service reports it, e.g. `building`, `success`, `build_failure` (`unknown` when absent)."),
  finished: bool("True when `status` is final (see `BUILD_TERMINAL_STATUSES`)."),
  succeeded: bool("True when `status` is `success` or `ready`."),
  logs: list("BuildLogEntry", "Log entries so far, oldest first."),
} satisfies Props<GetBuildLogsResult>;
export const CANCEL_RUN_ARGS = {
  projectId: str("Project of the app."),
  appId: str("App the run belongs to."),
  runId: str("The run to cancel."),
} satisfies Props<CancelRunArgs>;
export const CANCEL_RUN_RESULT = {
  message: str("The service's message describing the result, e.g. `run run-1 cancelled`."),
} satisfies Props<CancelRunResult>;

/** The object types function results are made of, by name (`pims:index:<name>`). */
export const OBJECT_TYPES = {
  ApiKey: {
    description: "An API key of a project, as the service sends it, plus its expiry as a number.",
    properties: API_KEY,
  },
  Invoice: { description: "An invoice of a project, plus its amount in major units.", properties: INVOICE },
  AppLogLine: { description: "One line of an app's logs.", properties: APP_LOG_LINE },
  BuildLogEntry: { description: "One entry of a build's logs.", properties: BUILD_LOG_ENTRY },
};

/**
 * The provider's settings: stack config `pims:<key>` for the default provider, arguments of an explicit
 * `pulumi:providers:pims`, then the environment variable named in `defaultInfo`.
 */
export const CONFIG: Record<
  "token" | "baseUrl" | "allowInsecureHttp" | "maxConcurrency" | "rateLimitTimeoutMs" | "goneProjects",
  PropertySpec
> = {
  token: {
    type: "string",
    secret: true,
    description:
      "Service-account token for every call (sent as `Authorization: Bearer <token>`). Always a secret: set it with " +
      "`pulumi config set --secret pims:token`. Default: the environment variable `PIMS_TOKEN`.",
    defaultInfo: { environment: ["PIMS_TOKEN"] },
  },
  baseUrl: {
    type: "string",
    description:
      "Service address, e.g. `https://pims.example.com` (a trailing `/v2` is accepted and removed). Default: the " +
      "environment variable `PIMS_BASE_URL`.",
    defaultInfo: { environment: ["PIMS_BASE_URL"] },
  },
  allowInsecureHttp: {
    type: "boolean",
    description:
      "Allow a plain `http://` base address to a host other than this machine (a private network, or a proxy that " +
      "terminates TLS): the token then crosses the network unencrypted. Default: `PIMS_ALLOW_INSECURE_HTTP`, else " +
      "false.",
    defaultInfo: { environment: [SETTINGS.allowInsecureHttp.env] },
  },
  maxConcurrency: {
    type: "integer",
    description:
      "Requests in flight at once in this provider's process (each explicit provider is a process of its own, so " +
      "the caps add up). A whole number >= 1. Default: `PIMS_MAX_CONCURRENCY`, else 8.",
    defaultInfo: { environment: [SETTINGS.maxConcurrency.env] },
  },
  rateLimitTimeoutMs: {
    type: "integer",
    description:
      "How long, in milliseconds, one request may keep being refused with HTTP 429 before it fails (a 429 means the " +
      "request did nothing, so waiting is safe). A whole number >= 0. Default: `PIMS_RATE_LIMIT_TIMEOUT_MS`, else " +
      "5 minutes.",
    defaultInfo: { environment: [SETTINGS.rateLimitTimeoutMs.env] },
  },
  goneProjects: {
    type: "string",
    description:
      "Projects you confirm were deleted outside Pulumi (a JSON list or comma-separated ids): deleting a " +
      "ServiceAccount of such a project, which answers 404, drops it from the state with a warning instead of " +
      "failing. Default: `PIMS_GONE_PROJECTS`.",
    defaultInfo: { environment: ["PIMS_GONE_PROJECTS"] },
  },
};
