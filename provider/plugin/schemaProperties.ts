/**
 * The types of every property of the plugin's schema (./schema): one table per resource, object type and function
 * argument or result, each typed by the TypeScript type the dynamic resources and the SDK functions use (the compiler
 * rejects a property the TypeScript side lacks or misses) and naming the interface whose TSDoc describes its members.
 * The descriptions are not written here: `npm run schema` (scripts/generate/write-schema.ts) reads them from that
 * TSDoc, so the registry's docs and the TypeScript docs are one text. The provider's settings (CONFIG) are described
 * here: they are stack config keys, which no TypeScript interface documents.
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
import { nativeToken } from "./tokens";

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

/** A table of property types: exactly the members of the TypeScript type `T`. */
export type Props<T> = { [K in keyof Required<T>]: TypeSpec };

/** Property types, and the TypeScript interface (in provider/ or sdk/nodejs/) whose members' TSDoc describes them. */
export interface PropertyTable {
  tsdoc: string;
  properties: Record<string, TypeSpec>;
}

const table = <T>(tsdoc: string, properties: Props<T>): PropertyTable => ({ tsdoc, properties });

const STR: TypeSpec = { type: "string" };
const INT: TypeSpec = { type: "integer" };
const NUM: TypeSpec = { type: "number" };
const BOOL: TypeSpec = { type: "boolean" };
const STR_LIST: TypeSpec = { type: "array", items: STR };
const STR_MAP: TypeSpec = { type: "object", additionalProperties: STR };
/** A list of one of the object types of {@link OBJECT_TYPES}. */
const list = (name: keyof typeof OBJECT_TYPES): TypeSpec => ({
  type: "array",
  items: { $ref: `#/types/${nativeToken(name)}` },
});

// ---- resources ------------------------------------------------------------------------------------------
export const PROJECT = table<ProjectOutputs>("ProjectOutputs", {
  name: STR,
  projectId: STR,
  unreadInputs: STR_LIST,
});
export const SERVICE_ACCOUNT = table<ServiceAccountOutputs>("ServiceAccountOutputs", {
  projectId: STR,
  name: STR,
  description: STR,
  grants: STR_LIST,
  expiresIn: INT,
  rotationTrigger: STR,
  rotateBeforeExpiry: INT,
  keepPreviousToken: BOOL,
  adoptServiceAccountId: STR,
  serviceAccountId: STR,
  createdAt: STR,
  createdByUserId: STR,
  tokenId: STR,
  tokenExpiresAt: STR,
  token: STR,
  tokenHeld: BOOL,
  previousServiceAccountId: STR,
  previousTokenId: STR,
  previousTokenExpiresAt: STR,
  previousToken: STR,
  retiredServiceAccountIds: STR_LIST,
  unreadInputs: STR_LIST,
});
export const VOLUME_SIZE = table<VolumeSizeOutputs>("VolumeSizeInputs", {
  projectId: STR,
  volumeId: STR,
  sizeGb: INT,
});
export const APP_SECRETS = table<AppSecretsOutputs>("AppSecretsOutputs", {
  projectId: STR,
  appId: STR,
  secrets: STR_MAP,
  secretNames: STR_LIST,
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
