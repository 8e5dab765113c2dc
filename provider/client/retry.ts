/**
 * The one retry policy of the client, expressed with axios-retry.
 *
 * Retried: network failures and timeouts, 408, 429 (honouring Retry-After, capped), 502, 503, 504. A 429 never
 * reaches these retries in practice: the request scheduler (./scheduler) repeats it until its time bound, and then
 * fails with an error axios-retry passes through.
 * Never retried: any other 4xx (auth, payment, validation, conflict, not found) and 500/501.
 * A POST creates something, so it is retried only when the request cannot have reached the server
 * (connection refused, host not found) or on 429 (the server said it did nothing).
 * Delays: jittered exponential backoff, or the server's Retry-After when larger, never above the caps.
 */
import type { AxiosError, AxiosInstance } from "axios";
import axiosRetry from "axios-retry";
import { parseRetryAfter } from "./scheduler";

export interface RetryOptions {
  /** Retries after the first attempt. Default 4 (five attempts in all). */
  retries?: number;
  /** First backoff delay in ms; doubles each retry. Default 250. */
  minDelayMs?: number;
  /** Largest backoff delay in ms. Default 8000. */
  maxDelayMs?: number;
  /** Largest Retry-After honoured, in ms. Default 30000. */
  maxRetryAfterMs?: number;
  /** Called before each retry (attempt = the retry's number, from 1). For progress messages. */
  onRetry?: (info: { attempt: number; method: string; path: string; reason: string; delayMs: number }) => void;
}

const RETRYABLE_STATUS = new Set([408, 429, 502, 503, 504]);
/** Codes that prove the request never reached the server. */
export const NOT_SENT_CODES: ReadonlySet<string> = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);
const TIMEOUT_CODES = new Set(["ECONNABORTED", "ETIMEDOUT"]);

export function isRetryable(error: AxiosError): boolean {
  const method = (error.config?.method ?? "get").toUpperCase();
  const status = error.response?.status;
  if (status !== undefined) {
    if (method === "POST") return status === 429;
    return RETRYABLE_STATUS.has(status);
  }
  if (error.code === "ERR_CANCELED") return false;
  if (method === "POST") return error.code !== undefined && NOT_SENT_CODES.has(error.code);
  return true; // dropped connection, reset, timeout: safe to repeat an idempotent request
}

/** Retry-After in ms (delta-seconds or HTTP date), or undefined. */
export function retryAfterMs(error: AxiosError, now = Date.now()): number | undefined {
  return parseRetryAfter(error.response?.headers?.["retry-after"], now);
}

export function backoffMs(attempt: number, opts: Required<Pick<RetryOptions, "minDelayMs" | "maxDelayMs">>, random = Math.random): number {
  const ceiling = Math.min(opts.maxDelayMs, opts.minDelayMs * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2)); // "equal jitter": never 0, never above the cap
}

export function describeFailure(error: AxiosError): string {
  if (error.response) return `HTTP ${error.response.status}`;
  if (error.code && TIMEOUT_CODES.has(error.code)) return "timeout";
  return error.code ?? "network error";
}

export function installRetry(instance: AxiosInstance, options: RetryOptions = {}): void {
  const minDelayMs = options.minDelayMs ?? 250;
  const maxDelayMs = options.maxDelayMs ?? 8000;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? 30_000;
  const chosenDelay = new WeakMap<object, number>();
  axiosRetry(instance, {
    retries: options.retries ?? 4,
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
      if (!options.onRetry) return;
      options.onRetry({
        attempt,
        method: (config.method ?? "get").toUpperCase(),
        path: config.url ?? "",
        reason: describeFailure(error),
        delayMs: chosenDelay.get(config) ?? 0,
      });
    },
  });
}
