/**
 * Wire types for every record the PIMS service exchanges (records and request bodies of the ten operations).
 * Fields the service documents as optional, and anything the real service may omit or send as null, are optional here;
 * the client normalizes null to absent so callers never see `null` for an optional field.
 */

/**
 * An API key of a project (`GET /v2/projects/{project_id}/api-keys`). Every member is always there, as a string:
 * one the service sends as `null` (or leaves out) reads `""`, except `principalId`, which is absent when the key
 * belongs to no service account (`null`, `""` or missing), and `expiresAt`, which reads `never` when the key does not
 * expire (`never`, `null` or missing). So `null` never reaches a program: test `principalId === undefined` and
 * `expiresAt === "never"`.
 */
export interface ApiKey {
  /** Unique id of the key. */
  id: string;
  /** Name of the key (for a service account's key: the account's name). */
  name: string;
  /** Description of the key. */
  description: string;
  /** The key value. Sensitive. */
  apiKey: string;
  /** Project the key belongs to. */
  projectId: string;
  /** Present when the key was created for a service account. */
  principalId?: string;
  /** Origin of the key, as the service reports it. */
  source: string;
  /** Status of the key, as the service reports it. */
  status: string;
  /** Creation time, RFC 3339. */
  createdAt: string;
  /** Last update time, RFC 3339. */
  updatedAt: string;
  /** RFC 3339 timestamp, or the literal `never`. */
  expiresAt: string;
}

/** The one-time token returned when a service account is created. */
export interface ServiceAccountToken {
  /** The token's own id; "" when the answer carried none. */
  id: string;
  /** The token value: returned once, at creation, and never again. */
  secret: string;
  /** RFC 3339 expiry, `never` (e.g. created with expiresIn 0), or "" when the answer did not say. */
  expiresAt: string;
}

/** A service account (`POST` and `DELETE` under `/v2/projects/{project_id}/service-accounts`). */
export interface ServiceAccount {
  /** Unique id of the account. */
  id: string;
  /** Name of the account. */
  name: string;
  /** Description of the account. */
  description: string;
  /** Project that owns the account. */
  projectId: string;
  /** Ids of the projects the account may access. */
  grants: string[];
  /** Creation time, RFC 3339. */
  createdAt: string;
  /** Id of the user who created the account. */
  createdByUserId: string;
  /** Only in the creation response. */
  token?: ServiceAccountToken;
}

/** Body of `POST /v2/projects/{project_id}/service-accounts`. */
export interface CreateServiceAccountRequest {
  /** 1 to 100 characters. */
  name: string;
  /** At most 500 characters. */
  description?: string;
  /** 1 to 50 project ids. */
  grants: string[];
  /** Token lifetime in seconds, 0 to 31536000; 0 = never expires. */
  expiresIn: number;
}

/** Body of `POST /v2/projects`. */
export interface CreateProjectRequest {
  /** 2 to 50 characters. */
  name: string;
}

/** An invoice (`GET /v2/projects/{project_id}/invoices`). */
export interface Invoice {
  /** Unique id of the invoice. */
  id: string;
  /** Country of the billing account. */
  accountCountry: string;
  /** Name on the billing account. */
  accountName: string;
  /** In the smallest currency unit. */
  amountDue: number;
  /** Currency of the invoice, as the service sends it (e.g. `eur`). */
  currency: string;
  /** When the invoice was created, as the service sends it. */
  createdAt: string;
  /** URL of the invoice as a PDF. */
  fileUrl: string;
  /** Payment status, as the service reports it. */
  paymentStatus: string;
}

/** Output stream of a log line. */
export type LogStream = "stdout" | "stderr";
/** Paging direction of app logs: `forward` in time, or `backward` (newest first). */
export type LogDirection = "forward" | "backward";

/** One app log line (`GET /v2/projects/{project_id}/apps/{app_id}/logs`). */
export interface AppLogLine {
  /** Id of the line. */
  logId: string;
  /** App the line belongs to. */
  appId: string;
  /** Project of the app. */
  projectId: string;
  /** Container that wrote the line. */
  containerId: string;
  /** Name of that container. */
  containerName: string;
  /** Run that wrote the line. */
  runId: string;
  /** Number of the line within its run. */
  lineNumber: number;
  /** The text of the line. */
  logLine: string;
  /** `stdout` or `stderr`. */
  stream: LogStream;
  /** When the line was written, as the service sends it. */
  timestamp: string;
}

/** One page of app logs (`GET /v2/projects/{project_id}/apps/{app_id}/logs`). */
export interface AppLogPage {
  /** Whether more lines can be read with `nextPageToken`. */
  hasMore: boolean;
  /** The lines of this page. */
  logs: AppLogLine[];
  /** Absent when there are no more results. */
  nextPageToken?: string;
}

/** A page of app logs as the client's page iterator yields it. */
export interface AppLogPageInfo extends AppLogPage {
  /** Whether another page follows (a caller that stops at a limit learns whether lines were left). */
  more: boolean;
}

/** What `DELETE /v2/projects/{project_id}/service-accounts/{service_account_id}` answers. */
export interface DeleteServiceAccountResult {
  /** The service's confirmation (its plain text when it sent no JSON message). */
  message: string;
}

/** Filters of `GET /v2/projects/{project_id}/apps/{app_id}/logs`, with the service's real query parameter names. */
export interface AppLogsQuery {
  /** Only logs before this RFC 3339 timestamp. */
  beforeDate?: string;
  /** Only logs after this RFC 3339 timestamp. */
  afterDate?: string;
  /** Only this container. */
  container?: string;
  /** Only this run. */
  runId?: string;
  /** Only lines containing this term. */
  search?: string;
  /** Only this output stream. */
  stream?: LogStream;
  /** Default `backward` (newest first). */
  direction?: LogDirection;
  /** Lines per page, 1 to 1000; the service's default is 200. */
  pageSize?: number;
  /** Token from a previous page's nextPageToken. */
  nextToken?: string;
}

/** One entry of a build's logs. */
export interface BuildLogEntry {
  /** Id of the entry, when the service sends one. */
  id?: string;
  /** When the entry was written, as the service sends it. */
  createdAt: string;
  /** The text of the entry. */
  log: string;
}

/**
 * Final build statuses seen from the real service that mean success. The one list of build statuses (others may
 * appear).
 */
export const BUILD_SUCCESS_STATUSES: readonly string[] = ["success", "ready"];
/** Final build statuses seen from the real service that mean failure. */
export const BUILD_FAILURE_STATUSES: readonly string[] = [
  "build_failure",
  "init_failure",
  "failure",
  "cancelled",
  "init_timeout",
];
/** Every final build status: polling can stop. */
export const BUILD_TERMINAL_STATUSES: readonly string[] = [...BUILD_SUCCESS_STATUSES, ...BUILD_FAILURE_STATUSES];

/** Result of `GET /v2/projects/{project_id}/apps/{app_id}/builds/{build_id}/logs`. */
export interface BuildLogs {
  /** App of the build. */
  app_id: string;
  /** The build. */
  build_id: string;
  /** Project of the app. */
  project_id: string;
  /** Status of the build (e.g. `building`, `success`, `build_failure`); others may appear. */
  status: string;
  /** The build's log entries. */
  logs: BuildLogEntry[];
}

/** Mapping of secret names to values (`PATCH /v2/projects/{project_id}/apps/{app_id}/secrets`). */
export type AppSecretsMap = Record<string, string>;

/** Every error body of the service. */
export interface ErrorBody {
  /** What went wrong, in the service's words. */
  message: string;
}
