/**
 * The one home of "try again": what a failed attempt proves, whether and when a request is repeated, and the one
 * progress line that says so. Three mechanisms apply these decisions, each where it has to live:
 * - the HTTP retries of one request (axios-retry, installed here by `installRetry`), bounded by a count;
 * - the request scheduler (./scheduler), which repeats a request refused with 429 in its place in the queue, bounded by
 *   time (`rateLimitVerdict`);
 * - a create whose outcome is unknown (provider/serviceAccount/create.ts), which looks at the service before it may
 *   repeat (`createFailureKind`).
 *
 * What a failure proves, by its {@link AttemptOutcome}:
 * - `refused`: a 429. The service did nothing; repeat any request, after `Retry-After`, until a time bound.
 * - `unsent`: the request never reached the service (connection refused, host not found). Repeat any request.
 * - `answered`: 408, 502, 503, 504 (and for a create, any 5xx): the service answered, so it has finished with the
 *   request, but it may have done it. Repeat an idempotent request (GET, PATCH with an absolute body, DELETE); a create
 *   is repeated only after a look shows it did nothing.
 * - `lost`: no answer (a timeout, a connection dropped after sending). The request may still be running on the service,
 *   so a look taken now proves nothing. Repeat an idempotent request; never repeat a create in the same operation.
 * - `final`: anything else (other 4xx, 500, 501). Never repeated.
 */
import type { AxiosError, AxiosInstance } from "axios";
import axiosRetry from "axios-retry";
import { NetworkError, PimsError, ServerError, TimeoutError } from "./errors";
import { formatDuration } from "./values";

/**
 * Every number of the retry policy, written once: the client (./client, `installRetry` below), the creates of
 * provider/serviceAccount/create.ts and the settings table (provider/settings.ts, which documents the ones a user can
 * change) read them here.
 */
export const RETRY_DEFAULTS = {
  /** Retries of one request after its first attempt (five attempts in all). PIMS_MAX_RETRIES. */
  retries: 4,
  /** First backoff delay in ms; doubles each retry. PIMS_RETRY_MIN_DELAY_MS. */
  minDelayMs: 250,
  /** Largest backoff delay in ms (the cap of every backoff, creates included). */
  maxDelayMs: 8_000,
  /** Largest `Retry-After` honoured by the HTTP retries, in ms. */
  maxRetryAfterMs: 30_000,
  /** Per-attempt timeout in ms. PIMS_TIMEOUT_MS. */
  timeoutMs: 30_000,
  /** Repeats of a create after an answered failure that the listing shows created nothing. */
  createRetries: 7,
  /** Longest pause between two looks at the listing while a create whose answer was lost is watched, in ms. */
  lostCreateMaxPauseMs: 5_000,
  /** Least time a create whose answer was lost is watched for, in ms (else twice the timeout). */
  lostCreateMinWatchMs: 10_000,
} as const;

/** Network codes of an attempt that got no answer within the timeout (axios' `ECONNABORTED`, the OS' `ETIMEDOUT`). */
export const TIMEOUT_CODES: ReadonlySet<string> = new Set(["ECONNABORTED", "ETIMEDOUT"]);

export interface RetryOptions {
  /** Retries after the first attempt. Default `RETRY_DEFAULTS.retries`. */
  retries?: number;
  /** First backoff delay in ms; doubles each retry. Default `RETRY_DEFAULTS.minDelayMs`. */
  minDelayMs?: number;
  /** Largest backoff delay in ms. Default `RETRY_DEFAULTS.maxDelayMs`. */
  maxDelayMs?: number;
  /** Largest Retry-After honoured, in ms. Default `RETRY_DEFAULTS.maxRetryAfterMs`. */
  maxRetryAfterMs?: number;
  /** Called before each retry (attempt = the retry's number, from 1). For progress lines: see {@link retryLine}. */
  onRetry?: (info: RetryInfo) => void;
}

/** One repeat about to happen: what, why, and when. Never a header or a body. */
export interface RetryInfo {
  /** The retry's number, from 1. */
  attempt: number;
  /** Retries allowed in all, when bounded by a count. */
  of?: number;
  /** HTTP method of the request, e.g. `GET`. */
  method: string;
  /** Path of the request (ids only, never a credential). */
  path: string;
  /** What the failed attempt got, e.g. `HTTP 503`, `timeout`, `ECONNRESET`. */
  reason: string;
  /** How long until the repeat, in ms. */
  delayMs: number;
}

/** What a failed attempt proves about the request (see the module comment). */
export type AttemptOutcome = "refused" | "unsent" | "answered" | "lost" | "final";

/** Statuses that say the service has finished with the request and a repeat may succeed. */
const TRANSIENT_STATUS = new Set([408, 502, 503, 504]);
/** Codes that prove the request never reached the server. */
export const NOT_SENT_CODES: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
]);

/** What a failure with this status (or, without an answer, this network code) proves. */
export function outcomeOf(status: number | undefined, code: string | undefined): AttemptOutcome {
  if (status === 429) return "refused";
  if (status !== undefined) return TRANSIENT_STATUS.has(status) ? "answered" : "final";
  if (code === "ERR_CANCELED") return "final";
  return code !== undefined && NOT_SENT_CODES.has(code) ? "unsent" : "lost";
}

/**
 * Whether an HTTP attempt is repeated at once (with backoff) by the client. A POST creates something: it is repeated
 * only when the request never reached the service (`unsent`); its other failures go to the caller, which may look
 * first. A 429 (`refused`) never gets here: the scheduler, which is the client's transport (./client), repeats it in
 * its place in the queue, and past its time bound fails with a `RateLimitTimeoutError`, which carries no request
 * config, so axios-retry hands it on without asking (tests/sim/client/retry.test.ts: one request, no count-bounded
 * retry).
 */
export function isRetryable(error: AxiosError): boolean {
  const outcome = outcomeOf(error.response?.status, error.response ? undefined : error.code);
  if (outcome === "final") return false;
  if ((error.config?.method ?? "get").toUpperCase() === "POST") return outcome === "unsent";
  return true;
}

/**
 * How a failed create left things, for the caller that must not leave an account nobody holds:
 * - `answered`: a 5xx, or a 2xx whose body could not be read — the service has finished with it, and may have created
 *   the account: a look now tells;
 * - `lost`: no answer — it may still create the account later: a look now proves nothing;
 * - `none`: the failure proves nothing was created (4xx, 429 past its bound, connection refused).
 */
export function createFailureKind(e: unknown): "answered" | "lost" | "none" {
  if (e instanceof TimeoutError) return "lost";
  if (e instanceof NetworkError) return outcomeOf(undefined, e.code) === "lost" ? "lost" : "none";
  if (e instanceof ServerError) return "answered";
  return e instanceof PimsError && e.status !== undefined && e.status >= 200 && e.status < 300 ? "answered" : "none";
}

/** Jittered exponential backoff ("equal jitter": never 0, never above the cap). */
export function backoffMs(
  attempt: number,
  opts: Required<Pick<RetryOptions, "minDelayMs" | "maxDelayMs">>,
  random = Math.random,
): number {
  const ceiling = Math.min(opts.maxDelayMs, opts.minDelayMs * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/**
 * `Retry-After` in ms: delta-seconds or an HTTP date (relative to `now`), never below 0; undefined when absent or
 * unreadable.
 */
export function parseRetryAfter(raw: unknown, now: number): number | undefined {
  if (typeof raw !== "string" && typeof raw !== "number") return undefined;
  const text = String(raw).trim();
  if (text === "") return undefined;
  const seconds = Number(text);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  if (!/[a-z]/i.test(text)) return undefined; // an HTTP date names its day and month
  const date = Date.parse(text);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

/** Retry-After of an axios error's response in ms, or undefined. */
export function retryAfterMs(error: AxiosError, now = Date.now()): number | undefined {
  return parseRetryAfter(error.response?.headers?.["retry-after"], now);
}

/** What an axios failure got, as a progress line says it: `HTTP 503`, `timeout`, `ECONNRESET`. */
export function describeFailure(error: AxiosError): string {
  if (error.response) return `HTTP ${error.response.status}`;
  if (error.code && TIMEOUT_CODES.has(error.code)) return "timeout";
  return error.code ?? "network error";
}

/**
 * The one progress-line format of every wait and repeat: `<who>: <subject>: <what happened>; <what next>`, e.g.
 * `pulumi-pims: GET /v2/projects/p-1/invoices: HTTP 503; retry 1 of 4 in 250 ms`. Only methods, paths (ids), counts
 * and reasons: never a header, a body or a credential.
 */
export function progressLine(who: string, subject: string, happened: string, next: string): string {
  return `${who}: ${subject}: ${happened}; ${next}`;
}

/**
 * The progress line of a repeat, in the one format of every wait and repeat:
 * `<who>: <METHOD> <path>: <reason>; retry <n> of <m> in <delay>`.
 */
export function retryLine(info: RetryInfo, who = "pulumi-pims"): string {
  const n = info.of !== undefined ? `${info.attempt} of ${info.of}` : `${info.attempt}`;
  return progressLine(who, `${info.method} ${info.path}`, info.reason, `retry ${n} in ${formatDuration(info.delayMs)}`);
}

/**
 * A request refused with 429 again: repeat it (after the `Retry-After`, or `defaultPauseMs`), or give up because it has
 * been refused for longer than `boundMs`, or the service asks to wait beyond it. `detail` says why it gave up.
 */
export function rateLimitVerdict(r: {
  waitedMs: number;
  retryAfterMs: number | undefined;
  boundMs: number;
  attempts: number;
  defaultPauseMs: number;
}): { repeat: true; waitMs: number } | { repeat: false; detail: string } {
  const left = r.boundMs - r.waitedMs;
  if (left > 0 && (r.retryAfterMs === undefined || r.retryAfterMs <= left))
    return { repeat: true, waitMs: Math.min(r.retryAfterMs ?? r.defaultPauseMs, left) };
  const attempts = `${r.attempts} attempt${r.attempts === 1 ? "" : "s"}`;
  const limit =
    `the ${formatDuration(r.boundMs)} limit for rate-limited requests (pims:rateLimitTimeoutMs or ` +
    "PIMS_RATE_LIMIT_TIMEOUT_MS)";
  const detail =
    left <= 0
      ? `still rate limited (HTTP 429) after ${formatDuration(r.waitedMs)} (${attempts}); gave up at ${limit}`
      : `rate limited (HTTP 429) and asked to wait ${formatDuration(r.retryAfterMs ?? 0)}, beyond ${limit}; gave up ` +
        `after ${attempts}`;
  return { repeat: false, detail };
}

/** Installs the HTTP retries of one request on an axios instance (see {@link isRetryable}). */
export function installRetry(instance: AxiosInstance, options: RetryOptions = {}): void {
  const minDelayMs = options.minDelayMs ?? RETRY_DEFAULTS.minDelayMs;
  const maxDelayMs = options.maxDelayMs ?? RETRY_DEFAULTS.maxDelayMs;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? RETRY_DEFAULTS.maxRetryAfterMs;
  const retries = options.retries ?? RETRY_DEFAULTS.retries;
  const chosenDelay = new WeakMap<object, number>();
  axiosRetry(instance, {
    retries,
    shouldResetTimeout: true, // the timeout is per attempt
    retryCondition: isRetryable,
    retryDelay: (attempt, error) => {
      const after = retryAfterMs(error);
      const backoff = backoffMs(attempt, { minDelayMs, maxDelayMs });
      // The server's Retry-After when it asks for longer than the backoff (capped); never less than the backoff,
      // so a `Retry-After: 0` on every answer does not turn the retries into a burst.
      const delay = after !== undefined ? Math.max(backoff, Math.min(after, maxRetryAfterMs)) : backoff;
      if (error.config) chosenDelay.set(error.config, delay);
      return delay;
    },
    onRetry: (attempt, error, config) => {
      options.onRetry?.({
        attempt,
        of: retries,
        method: (config.method ?? "get").toUpperCase(),
        path: config.url ?? "",
        reason: describeFailure(error),
        delayMs: chosenDelay.get(config) ?? 0,
      });
    },
  });
}
