/**
 * The PIMS client: setup, the ten operations, and the one request path (`call`) that turns every failure into a
 * `PimsError` (./callErrors) after the retries of ./retry. One instance per (baseUrl, token); nothing is read from the
 * environment or at module load.
 */
import * as http from "node:http";
import * as https from "node:https";
import axios, { type AxiosAdapter, type AxiosInstance, type AxiosResponse } from "axios";
import { callError, unexpectedAnswer, unreadableTokenError, type Call, type Caller } from "./callErrors";
import { baseUrlProblem, normalizeBaseUrl } from "./baseUrl";
import { measuringServiceClock, type ServiceClock } from "./clock";
import { validateLogsQuery } from "./logsQuery";
import {
  asArray,
  messageOf,
  normalizeApiKey,
  normalizeBuildLogEntry,
  normalizeInvoice,
  normalizeLogLine,
  normalizeServiceAccount,
  optString,
  parseJson,
  plainText,
  PLAIN_ID,
} from "./parse";
import { installRetry, RETRY_DEFAULTS, type RetryOptions } from "./retry";
import { processScheduler, type Scheduler } from "./scheduler";
import { recordingAdapter, type WireSink } from "./recorder";
import { readServiceAccountToken } from "./token";
import type {
  ApiKey,
  AppLogLine,
  AppLogPage,
  AppLogPageInfo,
  AppLogsQuery,
  AppSecretsMap,
  BuildLogs,
  CreateProjectRequest,
  CreateServiceAccountRequest,
  DeleteServiceAccountResult,
  Invoice,
  ServiceAccount,
} from "./types";
import { isPlainObject, quote } from "./values";

/** How a {@link PimsClient} reaches the service: address, token, timeouts and retry tuning. */
export interface ClientOptions extends RetryOptions {
  /**
   * Service base address, e.g. `https://api.example.com` (a trailing `/v2` is accepted); paths (`/v2/...`) are
   * appended.
   */
  baseUrl: string;
  /** Service-account token sent as `Authorization: Bearer <token>`. */
  token: string;
  /** Where the token came from (`pims:token`, `PIMS_TOKEN`, …): a 401 or 403 names it. provider/settings.ts sets it. */
  tokenSource?: string;
  /** Per-attempt timeout in ms. Default `RETRY_DEFAULTS.timeoutMs` (./retry; docs/settings.md shows it). */
  timeoutMs?: number;
  /** Replaces axios' transport (tests, proxies). */
  adapter?: AxiosAdapter;
  /** Extra User-Agent product, e.g. `pulumi-pims/0.1.0`. */
  userAgent?: string;
  /** Wire recording (./recorder): a file to append one JSON line per attempt to, or a sink. Never holds a value. */
  record?: string | WireSink;
  /**
   * Caps and paces every attempt, and repeats 429 answers (./scheduler). Default: the process's, shared by all clients.
   * @internal for tests
   */
  scheduler?: Scheduler;
}

// One keep-alive agent pair per process: connections are reused across client instances.
const httpAgent = new http.Agent({ keepAlive: true, maxSockets: 16 });
const httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 16 });

const seg = (s: string): string => encodeURIComponent(s);

/**
 * Typed client of the ten PIMS operations, for one base address and token. Every request goes through the process's
 * request scheduler; failures are {@link PimsError}s, the token scrubbed from every text.
 */
export class PimsClient {
  private readonly http: AxiosInstance;
  /** What the errors of ./callErrors need: the token (to redact it), the base address, where the token came from. */
  private readonly who: Caller;
  /** The normalized base address (no trailing slash, no trailing `/v2`). */
  readonly baseUrl: string;
  /** The service's clock as this client's answers showed it (./clock). */
  private readonly clock: ServiceClock;

  constructor(options: ClientOptions) {
    if (!options.baseUrl) throw new Error("PimsClient: baseUrl is required");
    if (!options.token) throw new Error("PimsClient: token is required");
    const problem = baseUrlProblem(options.baseUrl, "baseUrl");
    if (problem) throw new Error(`PimsClient: ${problem}`);
    this.baseUrl = normalizeBaseUrl(options.baseUrl);
    this.who = { token: options.token, baseUrl: this.baseUrl, tokenSource: options.tokenSource };
    const scheduler = options.scheduler ?? processScheduler();
    const measured = measuringServiceClock(axios.getAdapter(options.adapter ?? axios.defaults.adapter));
    this.clock = measured.clock;
    const transport = recordingAdapter(measured.adapter, options.record);
    this.http = axios.create({
      baseURL: this.baseUrl,
      timeout: options.timeoutMs ?? RETRY_DEFAULTS.timeoutMs,
      httpAgent,
      httpsAgent,
      // Each attempt (the retries of ./retry too) waits for a slot and the pace of the scheduler, which repeats an
      // attempt answered 429 until its time bound: a 429 never reaches the count-bounded retries.
      adapter: (config) =>
        scheduler.schedule(() => transport(config), {
          method: (config.method ?? "get").toUpperCase(),
          path: config.url ?? "",
        }),
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

  /**
   * The service's clock minus ours in ms, from the `Date` header of this client's last answer (undefined before one, or
   * when the service sends none).
   */
  serviceSkewMs(): number | undefined {
    return this.clock.skewMs();
  }

  // GET /v2/projects/{project_id}/api-keys
  /** Lists the API keys of a project, sorted by `expiresAt` ascending (`never` last), as the service sends them. */
  async listApiKeys(projectId: string): Promise<ApiKey[]> {
    const c: Call = {
      action: `listing API keys of project ${projectId}`,
      method: "GET",
      path: `/v2/projects/${seg(projectId)}/api-keys`,
    };
    const res = await this.call(c);
    return this.listBody(c, res, true).map(normalizeApiKey);
  }

  // POST /v2/projects/{project_id}/service-accounts
  /**
   * Creates a service account. The response carries the one-time token: keep it, it is never returned again.
   * Any 2xx is success. An answer naming the new account without a readable token throws `UnreadableTokenError`
   * (the account exists: the caller must delete it); one naming no account is ambiguous and throws a `PimsError`.
   */
  async createServiceAccount(
    projectId: string,
    req: CreateServiceAccountRequest,
  ): Promise<ServiceAccount & Required<Pick<ServiceAccount, "token">>> {
    const c: Call = {
      action: `creating service account ${quote(req.name, 100)} in project ${projectId}`,
      method: "POST",
      path: `/v2/projects/${seg(projectId)}/service-accounts`,
      body: req,
    };
    const res = await this.call(c);
    const body = parseJson(res.data);
    if (!isPlainObject(body))
      throw unexpectedAnswer(this.who, c, res, "a JSON service account object", { sensitive: true });
    const account = normalizeServiceAccount(body);
    const reading = readServiceAccountToken(body);
    if (reading.token) return { ...account, token: reading.token };
    if (!account.id)
      throw unexpectedAnswer(this.who, c, res, "the one-time token", { detail: "the response carried no token" });
    const accountMembers = reading.hadTokenMember ? [] : Object.keys(body);
    throw unreadableTokenError(this.who, c, res, { id: account.id, members: reading.members, accountMembers });
  }

  // DELETE /v2/projects/{project_id}/service-accounts/{service_account_id}
  /** Deletes a service account; its token stops working. */
  async deleteServiceAccount(projectId: string, serviceAccountId: string): Promise<DeleteServiceAccountResult> {
    const res = await this.call({
      action: `deleting service account ${serviceAccountId} in project ${projectId}`,
      method: "DELETE",
      path: `/v2/projects/${seg(projectId)}/service-accounts/${seg(serviceAccountId)}`,
    });
    return { message: messageOf(res.data) };
  }

  // PATCH /v2/projects/{project_id}/volumes/{volume_id}/resize
  /** Resizes a volume (≥ 50 GB; above 1024 GB only for a protected project). Returns the service's confirmation. */
  async resizeVolume(projectId: string, volumeId: string, newSizeGb: number): Promise<string> {
    const res = await this.call({
      action: `resizing volume ${volumeId} in project ${projectId} to ${newSizeGb} GB`,
      method: "PATCH",
      path: `/v2/projects/${seg(projectId)}/volumes/${seg(volumeId)}/resize`,
      body: { newSizeGb },
      ruleOn403: true,
    });
    return plainText(res.data);
  }

  // POST /v2/projects
  /** Creates a project and returns its id (the service answers with the id as plain text). */
  async createProject(req: CreateProjectRequest): Promise<string> {
    const c: Call = {
      action: `creating project ${quote(req.name, 100)}`,
      method: "POST",
      path: "/v2/projects",
      body: req,
    };
    const res = await this.call(c);
    const body = parseJson(res.data);
    // Documented as the id in plain text; a JSON string, and an object carrying the id, are accepted too.
    const id = isPlainObject(body)
      ? (optString(body.id) ?? optString(body.projectId) ?? "").trim()
      : plainText(res.data);
    if (!id) throw unexpectedAnswer(this.who, c, res, "a project id", { detail: "the response carried no project id" });
    if (!PLAIN_ID.test(id)) throw unexpectedAnswer(this.who, c, res, "a project id");
    return id;
  }

  // GET /v2/projects/{project_id}/invoices
  /** Lists the invoices of a project. */
  async listInvoices(projectId: string): Promise<Invoice[]> {
    const c: Call = {
      action: `listing invoices of project ${projectId}`,
      method: "GET",
      path: `/v2/projects/${seg(projectId)}/invoices`,
    };
    const res = await this.call(c);
    return this.listBody(c, res).map(normalizeInvoice);
  }

  // GET /v2/projects/{project_id}/apps/{app_id}/logs
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
    if (!isPlainObject(body)) throw unexpectedAnswer(this.who, c, res, "a JSON log page");
    const logs = asArray(body.logs).map(normalizeLogLine);
    const next = optString(body.nextPageToken);
    return {
      hasMore: body.hasMore === true && next !== undefined,
      logs,
      ...(next !== undefined ? { nextPageToken: next } : {}),
    };
  }

  /**
   * The one app-log paging loop: every page matching `query`, following `nextToken` while `hasMore`. A page is
   * fetched only when the previous one was consumed; `more` says whether another page follows (callers that stop at
   * a limit learn from it whether lines were left, without a request).
   */
  async *iterateAppLogPages(
    projectId: string,
    appId: string,
    query: AppLogsQuery = {},
  ): AsyncGenerator<AppLogPageInfo, void, undefined> {
    let nextToken = query.nextToken;
    for (;;) {
      const page = await this.getAppLogsPage(projectId, appId, { ...query, nextToken });
      const more = page.hasMore && !!page.nextPageToken && page.nextPageToken !== nextToken;
      yield { ...page, more };
      if (!more) return;
      nextToken = page.nextPageToken;
    }
  }

  /** Every log line matching `query`, page by page (see iterateAppLogPages). */
  async *iterateAppLogs(
    projectId: string,
    appId: string,
    query: AppLogsQuery = {},
  ): AsyncGenerator<AppLogLine, void, undefined> {
    for await (const page of this.iterateAppLogPages(projectId, appId, query)) yield* page.logs;
  }

  // GET /v2/projects/{project_id}/apps/{app_id}/builds/{build_id}/logs
  /** Reads a build's logs and status. */
  async getBuildLogs(projectId: string, appId: string, buildId: string): Promise<BuildLogs> {
    const c: Call = {
      action: `reading logs of build ${buildId} of app ${appId} in project ${projectId}`,
      method: "GET",
      path: `/v2/projects/${seg(projectId)}/apps/${seg(appId)}/builds/${seg(buildId)}/logs`,
    };
    const res = await this.call(c);
    const body = parseJson(res.data);
    if (!isPlainObject(body)) throw unexpectedAnswer(this.who, c, res, "a JSON build logs object");
    const o = body;
    return {
      app_id: optString(o.app_id) ?? appId,
      build_id: optString(o.build_id) ?? buildId,
      project_id: optString(o.project_id) ?? projectId,
      status: optString(o.status) ?? "unknown",
      logs: asArray(o.logs).map(normalizeBuildLogEntry),
    };
  }

  // PATCH /v2/projects/{project_id}/apps/{app_id}/secrets
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

  // DELETE /v2/projects/{project_id}/apps/{app_id}/runs/{run_id}
  /** Requests cancellation of a run; returns the service's message. */
  async cancelRun(projectId: string, appId: string, runId: string): Promise<string> {
    const res = await this.call({
      action: `cancelling run ${runId} of app ${appId} in project ${projectId}`,
      method: "DELETE",
      path: `/v2/projects/${seg(projectId)}/apps/${seg(appId)}/runs/${seg(runId)}`,
    });
    return messageOf(res.data);
  }

  private async call(c: Call): Promise<AxiosResponse<string>> {
    const params: Record<string, string> = {};
    for (const [k, v] of Object.entries(c.query ?? {})) if (v !== undefined && v !== "") params[k] = String(v);
    try {
      return await this.http.request<string>({
        method: c.method,
        url: c.path,
        params,
        data: c.body === undefined ? undefined : JSON.stringify(c.body),
      });
    } catch (e) {
      throw callError(this.who, c, e);
    }
  }

  /** The array of a list response: an empty body is an empty list; anything but a JSON array is an error. */
  private listBody(c: Call, res: AxiosResponse<string>, sensitive = false): unknown[] {
    const body = parseJson(res.data);
    if (body === undefined) return [];
    if (Array.isArray(body)) return body;
    throw unexpectedAnswer(this.who, c, res, "a JSON array", { sensitive });
  }
}
