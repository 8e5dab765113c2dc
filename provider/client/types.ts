/**
 * Wire types for every record the PIMS service exchanges (records and request bodies of the ten operations).
 * Fields the service documents as optional, and anything the real service may omit or send as null, are optional here;
 * the client normalizes null to absent so callers never see `null` for an optional field.
 */

/** An API key of a project (`GET /v2/projects/{project_id}/api-keys`). */
export interface ApiKey {
  id: string;
  name: string;
  description: string;
  /** The key value. Sensitive. */
  apiKey: string;
  projectId: string;
  /** Present when the key was created for a service account. */
  principalId?: string;
  source: string;
  status: string;
  createdAt: string;
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
  id: string;
  name: string;
  description: string;
  projectId: string;
  grants: string[];
  createdAt: string;
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
  id: string;
  accountCountry: string;
  accountName: string;
  /** In the smallest currency unit. */
  amountDue: number;
  currency: string;
  createdAt: string;
  fileUrl: string;
  paymentStatus: string;
}

export type LogStream = "stdout" | "stderr";
export type LogDirection = "forward" | "backward";

/** One app log line (`GET /v2/projects/{project_id}/apps/{app_id}/logs`). */
export interface AppLogLine {
  logId: string;
  appId: string;
  projectId: string;
  containerId: string;
  containerName: string;
  runId: string;
  lineNumber: number;
  logLine: string;
  stream: LogStream;
  timestamp: string;
}

/** One page of app logs (`GET /v2/projects/{project_id}/apps/{app_id}/logs`). */
export interface AppLogPage {
  hasMore: boolean;
  logs: AppLogLine[];
  /** Absent when there are no more results. */
  nextPageToken?: string;
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
  id?: string;
  createdAt: string;
  log: string;
}

/** Build statuses seen from the real service; others may appear. */
export const BUILD_TERMINAL_STATUSES: readonly string[] = ["success", "ready", "build_failure", "init_failure", "failure", "cancelled", "init_timeout"];

/** Result of `GET /v2/projects/{project_id}/apps/{app_id}/builds/{build_id}/logs`. */
export interface BuildLogs {
  app_id: string;
  build_id: string;
  project_id: string;
  status: string;
  logs: BuildLogEntry[];
}

/** Mapping of secret names to values (`PATCH /v2/projects/{project_id}/apps/{app_id}/secrets`). */
export type AppSecretsMap = Record<string, string>;

/** Every error body of the service. */
export interface ErrorBody {
  message: string;
}
