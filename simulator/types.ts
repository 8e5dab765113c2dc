/**
 * The service's records as its interface documents them, written for the simulator alone: the simulator must not
 * share types with the client it is used to test, or the two could never disagree. Where the documentation leaves
 * a member unnamed (the members of a service account's `token`, the entries of build logs) these are the
 * simulator's own choices; the `quirky` profile answers with other shapes (see README.md).
 */

/** An entry of `GET /v2/projects/{project_id}/api-keys`. */
export interface ApiKey {
  id: string;
  name: string;
  description: string;
  /** The key value; the simulator shows a masked form (`pims_...abcd`). */
  apiKey: string;
  projectId: string;
  /** Present when the key was created for a service account. */
  principalId?: string;
  source: string;
  status: string;
  createdAt: string;
  updatedAt: string;
  /** RFC 3339, or the literal `never`. */
  expiresAt: string;
}

/** The initial token of a service account, in the `default` profile's layout. */
export interface ServiceAccountToken {
  id: string;
  /** Usable as a bearer token; returned once, in the creation answer. */
  secret: string;
  /** RFC 3339, or `never` for an account created with expiresIn 0. */
  expiresAt: string;
}

/** A service account as `POST /v2/projects/{project_id}/service-accounts` answers it. */
export interface ServiceAccount {
  id: string;
  name: string;
  description: string;
  projectId: string;
  /** Project ids the account has access to. */
  grants: string[];
  createdAt: string;
  createdByUserId: string;
  /** Only in the creation answer. */
  token?: ServiceAccountToken;
}

/** An entry of `GET /v2/projects/{project_id}/invoices`. */
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

/** One line of `GET /v2/projects/{project_id}/apps/{app_id}/logs`. */
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

/** One page of app logs. */
export interface AppLogPage {
  hasMore: boolean;
  logs: AppLogLine[];
  /** Omitted when there are no more results (the `quirky` profile sends null instead). */
  nextPageToken?: string;
}

/** One entry of a build's logs. */
export interface BuildLogEntry {
  id?: string;
  createdAt: string;
  log: string;
}

/** The answer of `GET /v2/projects/{project_id}/apps/{app_id}/builds/{build_id}/logs`. */
export interface BuildLogs {
  app_id: string;
  build_id: string;
  project_id: string;
  status: string;
  logs: BuildLogEntry[];
}
