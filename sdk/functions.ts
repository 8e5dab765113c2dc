/**
 * Read-only functions (API keys, invoices, app logs, build logs) and one imperative action (cancelRun).
 *
 * These are plain async functions that run in the program process — dynamic providers do not serve functions
 * (GUIDE §3.8). Each `getX(args, opts?)` returns a Promise; each `getXOutput(args, opts?)` takes
 * `pulumi.Input`s and returns a `pulumi.Output`, as generated Pulumi SDKs do.
 *
 * Credentials are read at call time, in this order: `opts.token` / `opts.baseUrl`, then stack config
 * `pims:token` / `pims:baseUrl` (when running inside a Pulumi program), then the `PIMS_TOKEN` /
 * `PIMS_BASE_URL` environment variables. Missing credentials fail with the same `MissingCredentialsError` the
 * resources use.
 *
 * `@pulumi/pulumi` is loaded only when it is needed (Output forms, stack config), so scripts and the `pims`
 * command-line tool that pass credentials explicitly start quickly.
 */
import type * as pulumi from "@pulumi/pulumi";
import {
  BUILD_TERMINAL_STATUSES,
  MAX_LOG_PAGE_SIZE,
  ValidationError,
  validateLogsQuery,
  isRfc3339,
  type ApiKey,
  type AppLogLine,
  type AppLogsQuery,
  type BuildLogEntry,
  type ClientOptions,
  type Invoice,
  type LogDirection,
  type LogStream,
  type PimsClient,
  type RetryOptions,
} from "../provider/client";
import { clientFor, type ConfiguredCredentials } from "../provider/credentials";

// ---- shared ------------------------------------------------------------------------------------------------

/**
 * Per-call options: explicit credentials (for scripts and tests) and client tuning. Everything is optional;
 * by default credentials come from stack config (`pims:token`, `pims:baseUrl`) or the environment
 * (`PIMS_TOKEN`, `PIMS_BASE_URL`).
 */
export interface PimsCallOptions extends RetryOptions {
  /** Service address; overrides `pims:baseUrl` and `PIMS_BASE_URL`. */
  baseUrl?: string;
  /** Service-account token; overrides `pims:token` and `PIMS_TOKEN`. Sensitive: never log it. */
  token?: string;
  /** Per-attempt timeout in ms. Default 30000 (or `PIMS_TIMEOUT_MS`). */
  timeoutMs?: number;
  /** User-Agent sent to the service. Default `pulumi-pims`. */
  userAgent?: string;
}

function loadPulumi(): typeof pulumi {
  // Loaded lazily: the Promise forms and the CLI do not need the Pulumi runtime.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require("@pulumi/pulumi") as typeof pulumi;
}

/** `pims:<key>` from stack config, or undefined outside a Pulumi program (or when it cannot be read). */
function stackConfig(key: "token" | "baseUrl"): string | undefined {
  try {
    return new (loadPulumi().Config)("pims").get(key);
  } catch {
    return undefined;
  }
}

function clientForCall(opts: PimsCallOptions = {}): PimsClient {
  const { baseUrl, token, ...tuning } = opts;
  const configured: ConfiguredCredentials = {
    token: token ?? stackConfig("token"),
    baseUrl: baseUrl ?? stackConfig("baseUrl"),
  };
  const extra: Partial<ClientOptions> = {};
  for (const [k, v] of Object.entries(tuning)) if (v !== undefined) (extra as Record<string, unknown>)[k] = v;
  return clientFor(configured, extra);
}

/** A ValidationError for an argument, raised before any request is sent. */
function badArgument(fn: string, field: string, rule: string): ValidationError {
  return new ValidationError({ action: `checking ${fn} arguments`, method: "-", path: "(not sent)", serverMessage: `${field} ${rule}` });
}

function requireId(fn: string, field: string, value: unknown): string {
  if (typeof value !== "string" || value.trim() === "") {
    throw badArgument(fn, field, `is required and must be a non-empty string (got ${JSON.stringify(value)})`);
  }
  return value;
}

/** Applies `fn` to the resolved inputs, as generated `getXOutput` functions do. */
function outputOf<A extends object, R>(args: A, fn: (resolved: pulumi.Unwrap<A>) => Promise<R>): pulumi.Output<R> {
  const p = loadPulumi();
  return p.output(args).apply((resolved) => fn(resolved as pulumi.Unwrap<A>)) as unknown as pulumi.Output<R>;
}

// ---- 1. API keys -------------------------------------------------------------------------------------------

/** Arguments of {@link getApiKeys}. */
export interface GetApiKeysArgs {
  /** Project whose API keys are listed, e.g. `p-1a2b3c4d`. */
  projectId: string;
}

/** Arguments of {@link getApiKeysOutput}. */
export interface GetApiKeysOutputArgs {
  /** Project whose API keys are listed, e.g. `p-1a2b3c4d`. */
  projectId: pulumi.Input<string>;
}

/**
 * An API key as the service sends it, plus its expiry as a number. Safe to carry in an Output (no `Date`).
 *
 * `apiKey` is sensitive: {@link getApiKeysOutput} marks its whole result secret; with {@link getApiKeys} it is
 * the caller's job to keep the value out of logs and outputs (wrap it with `pulumi.secret`).
 */
export interface ApiKeyInfo extends ApiKey {
  /** True when `expiresAt` is the literal `never`. */
  neverExpires: boolean;
  /** `expiresAt` in milliseconds since the epoch; null when the key never expires or the date cannot be read. */
  expiresAtEpochMs: number | null;
}

/** An API key returned by {@link getApiKeys}: {@link ApiKeyInfo} plus the expiry as a `Date`. */
export interface ApiKeyResult extends ApiKeyInfo {
  /** `expiresAt` as a Date; null when the key never expires or the date cannot be read. */
  expiresAtDate: Date | null;
}

/** Result of {@link getApiKeys}. */
export interface GetApiKeysResult {
  /** The project's keys in the service's order: `expiresAt` ascending, keys that never expire last. */
  keys: ApiKeyResult[];
}

/** Result of {@link getApiKeysOutput} (an Output cannot carry `Date` values, so there is no `expiresAtDate`). */
export interface GetApiKeysOutputResult {
  /** The project's keys in the service's order: `expiresAt` ascending, keys that never expire last. */
  keys: ApiKeyInfo[];
}

function apiKeyInfo(key: ApiKey): ApiKeyInfo {
  const neverExpires = key.expiresAt.trim().toLowerCase() === "never";
  const ms = neverExpires ? NaN : Date.parse(key.expiresAt);
  return { ...key, neverExpires, expiresAtEpochMs: Number.isNaN(ms) ? null : ms };
}

/**
 * Lists the API keys of a project (operation 1), in the service's order (`expiresAt` ascending, `never` last).
 *
 * @remarks Each key's `apiKey` value is **sensitive**. This Promise form returns it in plain text: do not
 * export it as a stack output or log it without `pulumi.secret(...)`. Prefer {@link getApiKeysOutput} in Pulumi
 * programs: its result is a secret Output.
 *
 * @example
 * ```ts
 * import * as pims from "pulumi-pims";
 * const { keys } = await pims.getApiKeys({ projectId: "p-1a2b3c4d" });
 * const expiring = keys.filter((k) => k.expiresAtDate && k.expiresAtDate.getTime() < Date.now() + 7 * 86400_000);
 * console.log(expiring.map((k) => k.name));
 * ```
 */
export async function getApiKeys(args: GetApiKeysArgs, opts?: PimsCallOptions): Promise<GetApiKeysResult> {
  const projectId = requireId("getApiKeys", "projectId", args?.projectId);
  const keys = await clientForCall(opts).listApiKeys(projectId);
  return {
    keys: keys.map((k) => {
      const info = apiKeyInfo(k);
      return { ...info, expiresAtDate: info.expiresAtEpochMs === null ? null : new Date(info.expiresAtEpochMs) };
    }),
  };
}

/**
 * Output form of {@link getApiKeys}. The whole result is a **secret** Output (it carries the key values), so
 * anything derived from it stays encrypted in state and masked in the CLI's output.
 *
 * @example
 * ```ts
 * import * as pims from "pulumi-pims";
 * const keys = pims.getApiKeysOutput({ projectId: project.id });
 * export const keyNames = keys.apply((r) => r.keys.map((k) => k.name)); // secret too
 * ```
 */
export function getApiKeysOutput(args: GetApiKeysOutputArgs, opts?: PimsCallOptions): pulumi.Output<GetApiKeysOutputResult> {
  const out = outputOf(args, async (a) => {
    const { keys } = await getApiKeys({ projectId: a.projectId }, opts);
    // Dates do not survive an Output: drop expiresAtDate, keep expiresAtEpochMs.
    return { keys: keys.map(({ expiresAtDate: _dropped, ...info }) => info) };
  });
  return loadPulumi().secret(out);
}

// ---- 6. invoices -------------------------------------------------------------------------------------------

/**
 * ISO 4217 minor-unit digits of the currencies that do not use 2. `Intl.NumberFormat` is not used for this:
 * it reports CLDR display digits, which differ from ISO 4217 for several currencies (e.g. HUF, IDR, COP, PKR
 * display 0 digits but have 2 minor units; IQD has 3), and would misplace the decimal point by 100×.
 */
const ISO_4217_DIGITS: Readonly<Record<string, number>> = {
  BIF: 0, CLP: 0, DJF: 0, GNF: 0, ISK: 0, JPY: 0, KMF: 0, KRW: 0, PYG: 0, RWF: 0, UGX: 0, UYI: 0, VND: 0,
  VUV: 0, XAF: 0, XOF: 0, XPF: 0,
  BHD: 3, IQD: 3, JOD: 3, KWD: 3, LYD: 3, OMR: 3, TND: 3,
  CLF: 4, UYW: 4,
};

/**
 * Number of minor-unit digits of a currency (ISO 4217): 0 for JPY, KRW, …; 3 for BHD, KWD, …; 4 for CLF, UYW;
 * 2 for every other code, unknown or malformed ones included. Case-insensitive.
 *
 * @example
 * ```ts
 * currencyDigits("jpy"); // 0
 * currencyDigits("EUR"); // 2
 * ```
 */
export function currencyDigits(currency: string): number {
  return ISO_4217_DIGITS[currency.trim().toUpperCase()] ?? 2;
}

/**
 * Converts an amount in the smallest currency unit to major units, e.g. `toMajorUnits(1234, "eur") === 12.34`.
 *
 * @example
 * ```ts
 * toMajorUnits(500, "JPY"); // 500
 * toMajorUnits(1500, "KWD"); // 1.5
 * ```
 */
export function toMajorUnits(amount: number, currency: string): number {
  const digits = currencyDigits(currency);
  return Number((amount / 10 ** digits).toFixed(digits));
}

/** Arguments of {@link getInvoices}. */
export interface GetInvoicesArgs {
  /** Project whose invoices are listed. */
  projectId: string;
}

/** Arguments of {@link getInvoicesOutput}. */
export interface GetInvoicesOutputArgs {
  /** Project whose invoices are listed. */
  projectId: pulumi.Input<string>;
}

/** An invoice as the service sends it, plus the amount in major units. */
export interface InvoiceResult extends Invoice {
  /** `amountDue` in major units of `currency` (e.g. 1999 USD cents → 19.99; 500 JPY → 500). */
  amountDueMajor: number;
  /** Minor-unit digits of `currency` used for `amountDueMajor` (ISO 4217; 2 for unknown codes). */
  currencyDigits: number;
}

/** Result of {@link getInvoices} and {@link getInvoicesOutput}. */
export interface GetInvoicesResult {
  /** The project's invoices in the service's order. */
  invoices: InvoiceResult[];
}

/**
 * Lists the invoices of a project (operation 6). Each invoice also gets `amountDueMajor`, the amount in
 * major units (`amountDue / 10^digits`, digits from ISO 4217: 0 for JPY, 3 for KWD, 2 by default).
 *
 * @example
 * ```ts
 * import * as pims from "pulumi-pims";
 * const { invoices } = await pims.getInvoices({ projectId: "p-1a2b3c4d" });
 * const unpaid = invoices.filter((i) => i.paymentStatus !== "paid");
 * for (const i of unpaid) console.log(`${i.id}: ${i.amountDueMajor} ${i.currency.toUpperCase()}`);
 * ```
 */
export async function getInvoices(args: GetInvoicesArgs, opts?: PimsCallOptions): Promise<GetInvoicesResult> {
  const projectId = requireId("getInvoices", "projectId", args?.projectId);
  const invoices = await clientForCall(opts).listInvoices(projectId);
  return {
    invoices: invoices.map((i) => ({ ...i, amountDueMajor: toMajorUnits(i.amountDue, i.currency), currencyDigits: currencyDigits(i.currency) })),
  };
}

/**
 * Output form of {@link getInvoices}.
 *
 * @example
 * ```ts
 * import * as pims from "pulumi-pims";
 * export const openInvoices = pims.getInvoicesOutput({ projectId: project.id })
 *   .apply((r) => r.invoices.filter((i) => i.paymentStatus !== "paid").map((i) => i.id));
 * ```
 */
export function getInvoicesOutput(args: GetInvoicesOutputArgs, opts?: PimsCallOptions): pulumi.Output<GetInvoicesResult> {
  return outputOf(args, (a) => getInvoices({ projectId: a.projectId }, opts));
}

// ---- 7. app logs -------------------------------------------------------------------------------------------

/** Lines {@link getAppLogs} returns when no `limit` is given. */
export const DEFAULT_LOG_LIMIT = 1000;
/** Largest `limit` {@link getAppLogs} accepts (the lines are held in memory). */
export const MAX_LOG_LIMIT = 100_000;

/** Arguments of {@link getAppLogs}. Every filter is optional. */
export interface GetAppLogsArgs {
  /** Project of the app. */
  projectId: string;
  /** App whose logs are read, e.g. `p-1a2b3c4d-web`. */
  appId: string;
  /** Only lines before this instant (RFC 3339 timestamp or Date). Sent as `beforeDate`. */
  before?: string | Date;
  /** Only lines after this instant (RFC 3339 timestamp or Date). Sent as `afterDate`. */
  after?: string | Date;
  /** Only lines of this container (id or name). Sent as `container`. */
  containerId?: string;
  /** Only lines of this run. */
  runId?: string;
  /** Only lines containing this term. */
  search?: string;
  /** Only this output stream: `stdout` or `stderr`. */
  stream?: LogStream;
  /**
   * Paging direction: `backward` (the service's default) reads newest first, `forward` oldest first. With a
   * `limit`, it decides which end of the range you get.
   */
  direction?: LogDirection;
  /** Lines per request, 1 to 1000. Default: `limit`, capped at 1000 (fewest requests). */
  pageSize?: number;
  /** Most lines returned, 1 to 100000. Default 1000 ({@link DEFAULT_LOG_LIMIT}). */
  limit?: number;
}

/** Arguments of {@link getAppLogsOutput}: {@link GetAppLogsArgs} as Inputs. */
export interface GetAppLogsOutputArgs {
  /** Project of the app. */
  projectId: pulumi.Input<string>;
  /** App whose logs are read. */
  appId: pulumi.Input<string>;
  /** Only lines before this RFC 3339 timestamp. */
  before?: pulumi.Input<string>;
  /** Only lines after this RFC 3339 timestamp. */
  after?: pulumi.Input<string>;
  /** Only lines of this container (id or name). */
  containerId?: pulumi.Input<string>;
  /** Only lines of this run. */
  runId?: pulumi.Input<string>;
  /** Only lines containing this term. */
  search?: pulumi.Input<string>;
  /** Only this output stream: `stdout` or `stderr`. */
  stream?: pulumi.Input<LogStream>;
  /** `backward` (default, newest first) or `forward` (oldest first). */
  direction?: pulumi.Input<LogDirection>;
  /** Lines per request, 1 to 1000. */
  pageSize?: pulumi.Input<number>;
  /** Most lines returned, 1 to 100000. Default 1000. */
  limit?: pulumi.Input<number>;
}

/** Result of {@link getAppLogs} and {@link getAppLogsOutput}. */
export interface GetAppLogsResult {
  /** The matching lines in paging order (newest first for `backward`, oldest first for `forward`). */
  lines: AppLogLine[];
  /** True when `limit` was reached while more matching lines existed. */
  truncated: boolean;
}

function isoInstant(fn: string, field: string, v: string | Date | undefined): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (v instanceof Date) {
    if (Number.isNaN(v.getTime())) throw badArgument(fn, field, "must be a valid Date");
    return v.toISOString();
  }
  if (typeof v !== "string" || !isRfc3339(v)) {
    throw badArgument(fn, field, `must be an RFC 3339 timestamp such as 2024-05-01T12:00:00Z (got ${JSON.stringify(v)})`);
  }
  return v;
}

/**
 * Checks {@link GetAppLogsArgs} without sending anything and returns the service query and the limit.
 * Throws a `ValidationError` naming the field and the rule.
 */
function appLogsQueryFor(args: GetAppLogsArgs): { query: AppLogsQuery; limit: number } {
  const fn = "getAppLogs";
  requireId(fn, "projectId", args?.projectId);
  requireId(fn, "appId", args.appId);
  const limit = args.limit ?? DEFAULT_LOG_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LOG_LIMIT) {
    throw badArgument(fn, "limit", `must be an integer from 1 to ${MAX_LOG_LIMIT} (got ${limit})`);
  }
  const query: AppLogsQuery = {
    beforeDate: isoInstant(fn, "before", args.before),
    afterDate: isoInstant(fn, "after", args.after),
    container: args.containerId,
    runId: args.runId,
    search: args.search,
    stream: args.stream,
    direction: args.direction,
    pageSize: args.pageSize ?? Math.min(limit, MAX_LOG_PAGE_SIZE),
  };
  for (const k of Object.keys(query) as Array<keyof AppLogsQuery>) if (query[k] === undefined) delete query[k];
  validateLogsQuery(query); // pageSize, stream, direction: the client's rules
  return { query, limit };
}

/**
 * Reads an app's logs (operation 7), following `nextToken` page by page while the service says `hasMore`, and
 * stopping at `limit` lines (default 1000). Filters map to the service's query names: before → `beforeDate`,
 * after → `afterDate`, containerId → `container`, runId, search, stream, direction, pageSize.
 *
 * Bad arguments (`pageSize` outside 1–1000, `stream` not stdout/stderr, `direction` not forward/backward,
 * `limit` outside 1–100000, unreadable timestamps) are rejected before any request. When the app has no
 * matching lines (the service answers 204), the result is empty.
 *
 * @example
 * ```ts
 * import * as pims from "pulumi-pims";
 * const { lines, truncated } = await pims.getAppLogs({
 *   projectId: "p-1a2b3c4d", appId: "p-1a2b3c4d-web",
 *   stream: "stderr", after: new Date(Date.now() - 3600_000), limit: 500,
 * });
 * for (const l of lines) console.log(l.timestamp, l.containerName, l.logLine);
 * if (truncated) console.log("(more lines exist)");
 * ```
 */
export async function getAppLogs(args: GetAppLogsArgs, opts?: PimsCallOptions): Promise<GetAppLogsResult> {
  const { query, limit } = appLogsQueryFor(args);
  const client = clientForCall(opts);
  const lines: AppLogLine[] = [];
  let nextToken: string | undefined;
  for (;;) {
    const page = await client.getAppLogsPage(args.projectId, args.appId, { ...query, ...(nextToken !== undefined ? { nextToken } : {}) });
    const room = limit - lines.length;
    if (page.logs.length > room) {
      lines.push(...page.logs.slice(0, room));
      return { lines, truncated: true };
    }
    lines.push(...page.logs);
    const more = page.hasMore && page.nextPageToken !== undefined && page.nextPageToken !== nextToken;
    if (!more) return { lines, truncated: false };
    if (lines.length >= limit) return { lines, truncated: true };
    nextToken = page.nextPageToken;
  }
}

/**
 * Output form of {@link getAppLogs}.
 *
 * @example
 * ```ts
 * import * as pims from "pulumi-pims";
 * export const recentErrors = pims.getAppLogsOutput({ projectId: project.id, appId, stream: "stderr", limit: 20 })
 *   .apply((r) => r.lines.map((l) => l.logLine));
 * ```
 */
export function getAppLogsOutput(args: GetAppLogsOutputArgs, opts?: PimsCallOptions): pulumi.Output<GetAppLogsResult> {
  return outputOf(args, (a) => getAppLogs(a, opts));
}

// ---- 8. build logs -----------------------------------------------------------------------------------------

/** Build statuses that mean the build finished successfully. */
export const BUILD_SUCCESS_STATUSES: readonly string[] = ["success", "ready"];

/** True when a build status is final (success or failure): polling can stop. */
export function isBuildFinished(status: string): boolean {
  return BUILD_TERMINAL_STATUSES.includes(status.toLowerCase());
}

/** True when a build status means success (`success`, `ready`). */
export function isBuildSuccessful(status: string): boolean {
  return BUILD_SUCCESS_STATUSES.includes(status.toLowerCase());
}

/** Arguments of {@link getBuildLogs}. */
export interface GetBuildLogsArgs {
  /** Project of the app. */
  projectId: string;
  /** App that was built. */
  appId: string;
  /** Build whose logs are read. */
  buildId: string;
}

/** Arguments of {@link getBuildLogsOutput}. */
export interface GetBuildLogsOutputArgs {
  /** Project of the app. */
  projectId: pulumi.Input<string>;
  /** App that was built. */
  appId: pulumi.Input<string>;
  /** Build whose logs are read. */
  buildId: pulumi.Input<string>;
}

/** Result of {@link getBuildLogs} and {@link getBuildLogsOutput}. */
export interface GetBuildLogsResult {
  /** Project of the app. */
  projectId: string;
  /** App that was built. */
  appId: string;
  /** The build. */
  buildId: string;
  /** Status as the service reports it, e.g. `building`, `success`, `build_failure` (`unknown` when absent). */
  status: string;
  /** True when `status` is final (see `BUILD_TERMINAL_STATUSES`). */
  finished: boolean;
  /** True when `status` is `success` or `ready`. */
  succeeded: boolean;
  /** Log entries so far, oldest first. */
  logs: BuildLogEntry[];
}

/**
 * Reads a build's logs and status (operation 8).
 *
 * @example
 * ```ts
 * import * as pims from "pulumi-pims";
 * const build = await pims.getBuildLogs({ projectId: "p-1a2b3c4d", appId: "p-1a2b3c4d-web", buildId: "build-42" });
 * if (build.finished && !build.succeeded) console.error(build.logs.map((e) => e.log).join("\n"));
 * ```
 */
export async function getBuildLogs(args: GetBuildLogsArgs, opts?: PimsCallOptions): Promise<GetBuildLogsResult> {
  const fn = "getBuildLogs";
  const projectId = requireId(fn, "projectId", args?.projectId);
  const appId = requireId(fn, "appId", args.appId);
  const buildId = requireId(fn, "buildId", args.buildId);
  const r = await clientForCall(opts).getBuildLogs(projectId, appId, buildId);
  return {
    projectId: r.project_id,
    appId: r.app_id,
    buildId: r.build_id,
    status: r.status,
    finished: isBuildFinished(r.status),
    succeeded: isBuildSuccessful(r.status),
    logs: r.logs,
  };
}

/**
 * Output form of {@link getBuildLogs}.
 *
 * @example
 * ```ts
 * import * as pims from "pulumi-pims";
 * export const buildStatus = pims.getBuildLogsOutput({ projectId: project.id, appId, buildId }).apply((b) => b.status);
 * ```
 */
export function getBuildLogsOutput(args: GetBuildLogsOutputArgs, opts?: PimsCallOptions): pulumi.Output<GetBuildLogsResult> {
  return outputOf(args, (a) => getBuildLogs(a, opts));
}

// ---- 10. cancel a run --------------------------------------------------------------------------------------

/** Arguments of {@link cancelRun}. */
export interface CancelRunArgs {
  /** Project of the app. */
  projectId: string;
  /** App the run belongs to. */
  appId: string;
  /** The run to cancel. */
  runId: string;
}

/** Result of {@link cancelRun}. */
export interface CancelRunResult {
  /** The service's message describing the result, e.g. `run run-1 cancelled`. */
  message: string;
}

/**
 * Requests cancellation of an ongoing run (operation 10) and returns the service's message.
 *
 * @remarks This is an imperative action, not a read: calling it from a Pulumi program would cancel the run on
 * every `pulumi preview` and `pulumi up`. Programs rarely want that; the usual way is the command-line tool,
 * `pims runs cancel <project> <app> <run>`, or a one-off script. A run that already finished is refused by the
 * service (a `ConflictError` carrying its message); an unknown run is a `NotFoundError`.
 *
 * @example
 * ```ts
 * import { cancelRun } from "pulumi-pims";
 * const { message } = await cancelRun({ projectId: "p-1a2b3c4d", appId: "p-1a2b3c4d-web", runId: "run-9f8e" });
 * console.log(message);
 * ```
 */
export async function cancelRun(args: CancelRunArgs, opts?: PimsCallOptions): Promise<CancelRunResult> {
  const fn = "cancelRun";
  const projectId = requireId(fn, "projectId", args?.projectId);
  const appId = requireId(fn, "appId", args.appId);
  const runId = requireId(fn, "runId", args.runId);
  return { message: await clientForCall(opts).cancelRun(projectId, appId, runId) };
}
