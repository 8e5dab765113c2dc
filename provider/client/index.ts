/**
 * The typed HTTP client for the ten PIMS operations, one module per job:
 * - ./client: `PimsClient` (setup, the operations, the one request path)
 * - ./errors: the `PimsError` family (a 401 or 403 names where the token came from), `ArgumentError`
 * - ./callErrors: the error of one call, made from what failed (redacted; the URL of a 404)
 * - ./retry: the one home of "try again" (what a failure proves, repeats, progress lines, `RETRY_DEFAULTS`)
 * - ./scheduler: the process's request scheduler (concurrency cap, pace learnt from 429s, repeats of a 429)
 * - ./recorder: the wire recorder (`PIMS_WIRE_RECORD`: request shapes, never a value)
 * - ./log: the one sink of progress and warning lines, and the rule telling them apart
 * - ./parse: liberal reading of bodies and records; ./token: the one-time token of a new service account and the one
 *   expiry parser (`readExpiry`)
 * - ./logsQuery: app-log filter checks; ./baseUrl: the base address (normalization, validation, plain http)
 * - ./types: wire types; ./values: small value helpers (quoting, whole numbers, lists, RFC 3339, durations)
 */
export * from "./types";
export * from "./errors";
export type { RetryInfo, RetryOptions } from "./retry";
export { retryLine } from "./retry";
export { PimsClient, type ClientOptions } from "./client";
export type { Shape, WireRecord, WireSink } from "./recorder";
export { MAX_LOG_PAGE_SIZE, validateLogsQuery } from "./logsQuery";
export { progress, warning } from "./log";
export { isRfc3339 } from "./values";
export { plainText } from "./parse";
export { fingerprint, normalizeExpiry, readExpiry, readServiceAccountToken } from "./token";
export { BASE_URL_RULE, baseUrlProblem, normalizeBaseUrl } from "./baseUrl";
