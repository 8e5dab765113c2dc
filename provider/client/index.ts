/**
 * Typed HTTP client for the ten PIMS operations. One instance per (baseUrl, token); nothing is read from the
 * environment or at module load. Errors are `PimsError`s (see ./errors), retries follow ./retry.
 */
import * as http from "node:http";
import * as https from "node:https";
import axios, { type AxiosAdapter, type AxiosInstance, type AxiosResponse } from "axios";
import { errorForStatus, NetworkError, PimsError, redact, TimeoutError, ValidationError } from "./errors";
import { installRetry, type RetryOptions } from "./retry";
import type {
  ApiKey,
  AppLogLine,
  AppLogPage,
  AppLogsQuery,
  AppSecretsMap,
  BuildLogEntry,
  BuildLogs,
  CreateProjectRequest,
  CreateServiceAccountRequest,
  Invoice,
  ServiceAccount,
  ServiceAccountToken,
} from "./types";

export * from "./types";
export * from "./errors";
export type { RetryOptions } from "./retry";
export { NOT_SENT_CODES } from "./retry";

export interface ClientOptions extends RetryOptions {
  /** Service base address, e.g. `https://api.example.com`; paths (`/v2/...`) are appended. */
  baseUrl: string;
  /** Service-account token sent as `Authorization: Bearer <token>`. */
  token: string;
  /** Per-attempt timeout in ms. Default 30000. */
  timeoutMs?: number;
  /** Replaces axios' transport (tests, proxies). */
  adapter?: AxiosAdapter;
  /** Extra User-Agent product, e.g. `pulumi-pims/0.1.0`. */
  userAgent?: string;
}

/** Largest page the service serves. */
export const MAX_LOG_PAGE_SIZE = 1000;
const LOG_STREAMS = ["stdout", "stderr"] as const;
const LOG_DIRECTIONS = ["forward", "backward"] as const;

interface Call {
  action: string;
  method: "GET" | "POST" | "PATCH" | "DELETE";
  path: string;
  body?: unknown;
  query?: Record<string, string | number | undefined>;
}

// One keep-alive agent pair per process: connections are reused across client instances.
const httpAgent = new http.Agent({ keepAlive: true, maxSockets: 16 });
const httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 16 });

const seg = (s: string): string => encodeURIComponent(s);

export class PimsClient {
  private readonly http: AxiosInstance;
  private readonly token: string;

  constructor(options: ClientOptions) {
    if (!options.baseUrl) throw new Error("PimsClient: baseUrl is required");
    if (!options.token) throw new Error("PimsClient: token is required");
    this.token = options.token;
    this.http = axios.create({
      baseURL: options.baseUrl.replace(/\/+$/, ""),
      timeout: options.timeoutMs ?? 30_000,
      httpAgent,
      httpsAgent,
      adapter: options.adapter,
      responseType: "text",
      transformResponse: [(data: unknown) => data], // keep the raw text: we parse it ourselves
      validateStatus: (s) => s >= 200 && s < 300,
      maxRedirects: 0,
      headers: {
        Authorization: `Bearer ${options.token}`,
        Accept: "application/json, text/plain",
        "Content-Type": "application/json",
        "User-Agent": options.userAgent ?? "pulumi-pims",
      },
    });
    installRetry(this.http, options);
  }

  // 1
  /** Lists the API keys of a project, sorted by `expiresAt` ascending (`never` last), as the service sends them. */
  async listApiKeys(projectId: string): Promise<ApiKey[]> {
    const c: Call = { action: `listing API keys of project ${projectId}`, method: "GET", path: `/v2/projects/${seg(projectId)}/api-keys` };
    const res = await this.call(c);
    return this.listBody(c, res, true).map(normalizeApiKey);
  }

  // 2
  /** Creates a service account. The response carries the one-time token: keep it, it is never returned again. */
  async createServiceAccount(projectId: string, req: CreateServiceAccountRequest): Promise<ServiceAccount & { token: ServiceAccountToken }> {
    const c: Call = {
      action: `creating service account ${JSON.stringify(req.name)} in project ${projectId}`,
      method: "POST",
      path: `/v2/projects/${seg(projectId)}/service-accounts`,
      body: req,
    };
    const res = await this.call(c);
    const body = parseJson(res.data);
    if (!isObject(body)) throw this.unexpected(c, res, "a JSON service account object", { sensitive: true });
    const account = normalizeServiceAccount(body);
    if (!account.token) throw this.unexpected(c, res, "the one-time token", { detail: "the response carried no token" });
    return account as ServiceAccount & { token: ServiceAccountToken };
  }

  // 3
  /** Deletes a service account; its token stops working. */
  async deleteServiceAccount(projectId: string, serviceAccountId: string): Promise<{ message: string }> {
    const res = await this.call({
      action: `deleting service account ${serviceAccountId} in project ${projectId}`,
      method: "DELETE",
      path: `/v2/projects/${seg(projectId)}/service-accounts/${seg(serviceAccountId)}`,
    });
    const body = parseJson(res.data);
    return { message: isObject(body) && typeof body.message === "string" ? body.message : plainText(res.data) };
  }

  // 4
  /** Resizes a volume (≥ 50 GB; above 1024 GB only for a protected project). Returns the service's confirmation. */
  async resizeVolume(projectId: string, volumeId: string, newSizeGb: number): Promise<string> {
    const res = await this.call({
      action: `resizing volume ${volumeId} in project ${projectId} to ${newSizeGb} GB`,
      method: "PATCH",
      path: `/v2/projects/${seg(projectId)}/volumes/${seg(volumeId)}/resize`,
      body: { newSizeGb },
    });
    return plainText(res.data);
  }

  // 5
  /** Creates a project and returns its id (the service answers with the id as plain text). */
  async createProject(req: CreateProjectRequest): Promise<string> {
    const c: Call = { action: `creating project ${JSON.stringify(req.name)}`, method: "POST", path: "/v2/projects", body: req };
    const res = await this.call(c);
    const body = parseJson(res.data);
    // The seed says plain text; accept a JSON string, and an object carrying the id, too.
    const id = isObject(body) ? (optString(body.id) ?? optString(body.projectId) ?? "").trim() : plainText(res.data);
    if (!id) throw this.unexpected(c, res, "a project id", { detail: "the response carried no project id" });
    if (!PLAIN_ID.test(id)) throw this.unexpected(c, res, "a project id");
    return id;
  }

  // 6
  /** Lists the invoices of a project. */
  async listInvoices(projectId: string): Promise<Invoice[]> {
    const c: Call = { action: `listing invoices of project ${projectId}`, method: "GET", path: `/v2/projects/${seg(projectId)}/invoices` };
    const res = await this.call(c);
    return this.listBody(c, res).map(normalizeInvoice);
  }

  // 7
  /** Reads one page of app logs. A 204 or an empty body is an empty last page. */
  async getAppLogsPage(projectId: string, appId: string, query: AppLogsQuery = {}): Promise<AppLogPage> {
    validateLogsQuery(query);
    const c: Call = {
      action: `reading logs of app ${appId} in project ${projectId}`,
      method: "GET",
      path: `/v2/projects/${seg(projectId)}/apps/${seg(appId)}/logs`,
      query: { ...query },
    };
    const res = await this.call(c);
    const body = parseJson(res.data);
    if (body === undefined) return { hasMore: false, logs: [] };
    if (!isObject(body)) throw this.unexpected(c, res, "a JSON log page");
    const logs = asArray(body.logs).map(normalizeLogLine);
    const next = optString(body.nextPageToken);
    return { hasMore: body.hasMore === true && next !== undefined, logs, ...(next !== undefined ? { nextPageToken: next } : {}) };
  }

  /** Every log line matching `query`, page by page, following `nextToken` while `hasMore`. */
  async *iterateAppLogs(projectId: string, appId: string, query: AppLogsQuery = {}): AsyncGenerator<AppLogLine, void, undefined> {
    let nextToken = query.nextToken;
    for (;;) {
      const page = await this.getAppLogsPage(projectId, appId, { ...query, nextToken });
      yield* page.logs;
      if (!page.hasMore || !page.nextPageToken || page.nextPageToken === nextToken) return;
      nextToken = page.nextPageToken;
    }
  }

  /** Collects at most `limit` lines (required: logs can be unbounded). */
  async collectAppLogs(projectId: string, appId: string, query: AppLogsQuery, limit: number): Promise<AppLogLine[]> {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be a positive integer (got ${limit})`);
    const out: AppLogLine[] = [];
    const pageSize = query.pageSize ?? Math.min(MAX_LOG_PAGE_SIZE, Math.max(limit, 1));
    for await (const line of this.iterateAppLogs(projectId, appId, { ...query, pageSize })) {
      out.push(line);
      if (out.length >= limit) break;
    }
    return out;
  }

  // 8
  /** Reads a build's logs and status. */
  async getBuildLogs(projectId: string, appId: string, buildId: string): Promise<BuildLogs> {
    const c: Call = {
      action: `reading logs of build ${buildId} of app ${appId} in project ${projectId}`,
      method: "GET",
      path: `/v2/projects/${seg(projectId)}/apps/${seg(appId)}/builds/${seg(buildId)}/logs`,
    };
    const res = await this.call(c);
    const body = parseJson(res.data);
    if (!isObject(body)) throw this.unexpected(c, res, "a JSON build logs object");
    const o = body;
    return {
      app_id: optString(o.app_id) ?? appId,
      build_id: optString(o.build_id) ?? buildId,
      project_id: optString(o.project_id) ?? projectId,
      status: optString(o.status) ?? "unknown",
      logs: asArray(o.logs).map(normalizeBuildLogEntry),
    };
  }

  // 9
  /** Sends secrets of an app. Whether the service merges or replaces is not documented: send the full map. */
  async updateAppSecrets(projectId: string, appId: string, secrets: AppSecretsMap): Promise<string> {
    const res = await this.call({
      action: `updating secrets of app ${appId} in project ${projectId}`,
      method: "PATCH",
      path: `/v2/projects/${seg(projectId)}/apps/${seg(appId)}/secrets`,
      body: secrets,
    });
    return plainText(res.data);
  }

  // 10
  /** Requests cancellation of a run; returns the service's message. */
  async cancelRun(projectId: string, appId: string, runId: string): Promise<string> {
    const res = await this.call({
      action: `cancelling run ${runId} of app ${appId} in project ${projectId}`,
      method: "DELETE",
      path: `/v2/projects/${seg(projectId)}/apps/${seg(appId)}/runs/${seg(runId)}`,
    });
    const body = parseJson(res.data);
    return isObject(body) && typeof body.message === "string" ? body.message : plainText(res.data);
  }

  private async call(c: Call): Promise<AxiosResponse<string>> {
    const params: Record<string, string> = {};
    for (const [k, v] of Object.entries(c.query ?? {})) if (v !== undefined && v !== "") params[k] = String(v);
    try {
      return await this.http.request<string>({ method: c.method, url: c.path, params, data: c.body === undefined ? undefined : JSON.stringify(c.body) });
    } catch (e) {
      throw this.toPimsError(c, e);
    }
  }

  /** The array of a list response: an empty body is an empty list; anything but a JSON array is an error. */
  private listBody(c: Call, res: AxiosResponse<string>, sensitive = false): unknown[] {
    const body = parseJson(res.data);
    if (body === undefined) return [];
    if (Array.isArray(body)) return body;
    throw this.unexpected(c, res, "a JSON array", { sensitive });
  }

  /**
   * A 2xx whose body is not what the operation returns (wrong baseUrl, proxy page, API change). The message says
   * what came instead: the type of a JSON body, the start of a text body (a login or proxy page) — never the body
   * of an operation whose answer may carry secrets (`sensitive`: API keys, the one-time token). Redacted.
   */
  private unexpected(c: Call, res: AxiosResponse<string>, expected: string, opts: { detail?: string; sensitive?: boolean } = {}): PimsError {
    const secrets = [this.token];
    const text = typeof res.data === "string" ? res.data.trim() : "";
    const body = parseJson(text);
    let got: string;
    if (!text) got = "an empty body";
    else if (typeof body !== "string" || text.startsWith('"')) got = `a JSON ${Array.isArray(body) ? "array" : body === null ? "null" : typeof body === "object" ? "object" : typeof body}`;
    else if (opts.sensitive) got = `${text.length} characters of text`;
    else got = JSON.stringify(text.length > 100 ? `${text.slice(0, 100)}…` : text);
    return new PimsError({
      action: redact(c.action, secrets),
      method: c.method,
      path: redact(c.path, secrets),
      status: res.status,
      serverMessage: redact(opts.detail ?? `unexpected response, expected ${expected}, got ${got}`, secrets),
    });
  }

  private toPimsError(c: Call, e: unknown): PimsError {
    const secrets = [this.token];
    const base = { action: redact(c.action, secrets), method: c.method, path: redact(c.path, secrets) };
    if (!axios.isAxiosError(e)) {
      return new PimsError({ ...base, serverMessage: redact(e instanceof Error ? e.message : String(e), secrets) });
    }
    const attempts = 1 + (retryCount(e.config) ?? 0);
    if (e.response) {
      return errorForStatus({ ...base, status: e.response.status, serverMessage: redact(serverMessage(e.response.data, e.response.statusText), secrets), attempts });
    }
    if (e.code === "ECONNABORTED" || e.code === "ETIMEDOUT") {
      return new TimeoutError({ ...base, code: e.code, serverMessage: "timed out waiting for the service", attempts });
    }
    return new NetworkError({ ...base, code: e.code, serverMessage: `could not reach the service (${e.code ?? "network error"})`, attempts });
  }
}

function retryCount(config: unknown): number | undefined {
  if (!isObject(config)) return undefined;
  const state = config["axios-retry"];
  return isObject(state) && typeof state.retryCount === "number" ? state.retryCount : undefined;
}

/** Checks app-log filters before any call. Throws `ValidationError` naming the field and the rule. */
export function validateLogsQuery(q: AppLogsQuery): void {
  const bad = (field: string, rule: string): never => {
    throw new ValidationError({ action: "checking app log filters", method: "GET", path: "(not sent)", serverMessage: `${field} ${rule}` });
  };
  if (q.pageSize !== undefined && (!Number.isInteger(q.pageSize) || q.pageSize < 1 || q.pageSize > MAX_LOG_PAGE_SIZE)) bad("pageSize", `must be an integer from 1 to ${MAX_LOG_PAGE_SIZE} (got ${q.pageSize})`);
  if (q.stream !== undefined && !(LOG_STREAMS as readonly string[]).includes(q.stream)) bad("stream", `must be one of ${LOG_STREAMS.join(", ")} (got ${JSON.stringify(q.stream)})`);
  if (q.direction !== undefined && !(LOG_DIRECTIONS as readonly string[]).includes(q.direction)) bad("direction", `must be one of ${LOG_DIRECTIONS.join(", ")} (got ${JSON.stringify(q.direction)})`);
  for (const f of ["beforeDate", "afterDate"] as const) {
    const v = q[f];
    if (v !== undefined && !isRfc3339(v)) bad(f, `must be an RFC 3339 timestamp such as 2024-05-01T12:00:00Z (got ${JSON.stringify(v)})`);
  }
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** A full RFC 3339 date-time (date, time and zone), with a real calendar date and time of day. */
export function isRfc3339(v: string): boolean {
  const m = RFC3339.exec(v);
  if (!m) return false;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth && hour <= 23 && minute <= 59 && second <= 59;
}

/** What a project id can look like: one word of at most 200 characters, no spaces, quotes, slashes or markup. */
const PLAIN_ID = /^[^\s<>"'`/\\{}[\]]{1,200}$/;

// ---- liberal parsing -------------------------------------------------------------------------------------

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const optString = (v: unknown): string | undefined => (typeof v === "string" ? v : typeof v === "number" ? String(v) : undefined);
const str = (v: unknown): string => optString(v) ?? "";
const num = (v: unknown): number => (typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v)) ? Number(v) : 0);

/** JSON body, or undefined for an empty body (e.g. 204). */
function parseJson(data: unknown): unknown {
  if (typeof data !== "string") return data ?? undefined;
  const t = data.trim();
  if (!t) return undefined;
  try {
    return JSON.parse(t);
  } catch {
    return t;
  }
}

/** A plain-text body, trimmed, with one level of JSON string quoting removed. */
export function plainText(data: unknown): string {
  const t = typeof data === "string" ? data.trim() : data === undefined || data === null ? "" : JSON.stringify(data);
  if (t.length >= 2 && t.startsWith('"') && t.endsWith('"')) {
    try {
      const v: unknown = JSON.parse(t);
      if (typeof v === "string") return v.trim();
    } catch {
      // not JSON: fall through
    }
  }
  return t;
}

function serverMessage(data: unknown, statusText: string): string {
  const body = parseJson(data);
  if (isObject(body) && typeof body.message === "string" && body.message) return body.message;
  if (typeof body === "string" && body) return body.length > 300 ? `${body.slice(0, 300)}…` : body;
  return statusText || "no message";
}

function normalizeApiKey(v: unknown): ApiKey {
  const o = isObject(v) ? v : {};
  const principalId = optString(o.principalId);
  return {
    id: str(o.id),
    name: str(o.name),
    description: str(o.description),
    apiKey: str(o.apiKey),
    projectId: str(o.projectId),
    ...(principalId ? { principalId } : {}),
    source: str(o.source),
    status: str(o.status),
    createdAt: str(o.createdAt),
    updatedAt: str(o.updatedAt),
    expiresAt: str(o.expiresAt) || "never",
  };
}

/** The token object's member names are not documented: accept the plausible spellings. */
function normalizeToken(v: unknown): ServiceAccountToken | undefined {
  if (typeof v === "string" && v) return { id: "", secret: v, expiresAt: "" };
  if (!isObject(v)) return undefined;
  const secret = optString(v.secret ?? v.value ?? v.token ?? v.key);
  if (!secret) return undefined;
  return {
    id: str(v.id ?? v.tokenId ?? v.token_id),
    secret,
    expiresAt: str(v.expiresAt ?? v.expires_at ?? v.expiry) || "never",
  };
}

function normalizeServiceAccount(v: unknown): ServiceAccount {
  const o = isObject(v) ? v : {};
  const token = normalizeToken(o.token);
  return {
    id: str(o.id),
    name: str(o.name),
    description: str(o.description),
    projectId: str(o.projectId),
    grants: asArray(o.grants).filter((g): g is string => typeof g === "string"),
    createdAt: str(o.createdAt),
    createdByUserId: str(o.createdByUserId),
    ...(token ? { token } : {}),
  };
}

function normalizeInvoice(v: unknown): Invoice {
  const o = isObject(v) ? v : {};
  return {
    id: str(o.id),
    accountCountry: str(o.accountCountry),
    accountName: str(o.accountName),
    amountDue: num(o.amountDue),
    currency: str(o.currency),
    createdAt: str(o.createdAt),
    fileUrl: str(o.fileUrl),
    paymentStatus: str(o.paymentStatus),
  };
}

function normalizeLogLine(v: unknown): AppLogLine {
  const o = isObject(v) ? v : {};
  return {
    logId: str(o.logId),
    appId: str(o.appId),
    projectId: str(o.projectId),
    containerId: str(o.containerId),
    containerName: str(o.containerName),
    runId: str(o.runId),
    lineNumber: num(o.lineNumber),
    logLine: str(o.logLine),
    stream: o.stream === "stderr" ? "stderr" : "stdout",
    timestamp: str(o.timestamp),
  };
}

function normalizeBuildLogEntry(v: unknown): BuildLogEntry {
  if (typeof v === "string") return { createdAt: "", log: v };
  const o = isObject(v) ? v : {};
  const id = optString(o.id);
  return { ...(id ? { id } : {}), createdAt: str(o.createdAt), log: str(o.log ?? o.message ?? o.line) };
}
