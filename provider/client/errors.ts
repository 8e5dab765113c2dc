/**
 * One error family for every failure of a PIMS call. Each error knows what the caller was doing (`action`),
 * the HTTP method and path (ids only: the token travels in a header and is scrubbed from every text),
 * the HTTP status when there was one, and the service's own `message`.
 *
 * `toString()` reads like: `creating service account "ci" in project p-1: 422 name too long`. A 404 also names the
 * full URL that was called (`... 404 Not Found (DELETE https://host/v2/projects/p-1/service-accounts/sa-1)`): a wrong
 * base address makes every route 404, and only the URL tells that apart from a missing object.
 */

/** The kinds of {@link PimsError}, one per subclass. */
export type PimsErrorKind =
  | "not_found"
  | "auth"
  | "payment"
  | "validation"
  | "conflict"
  | "rate_limit"
  | "server"
  | "network"
  | "timeout"
  | "http";

/** What a {@link PimsError} is made from. */
export interface PimsErrorInit {
  /** What the caller was doing. */
  action: string;
  /** HTTP method. */
  method: string;
  /** Path called (ids only). */
  path: string;
  /** Full URL called: base address + path, without query (ids only, never the token). */
  url?: string;
  /** HTTP status, when there was a response. */
  status?: number;
  /** The service's own `message`, or what this package says went wrong. */
  serverMessage?: string;
  /** Low-level code for network failures, e.g. ECONNREFUSED. */
  code?: string;
  /** Attempts made, retries included. */
  attempts?: number;
  /**
   * Where the token came from (`pims:token`, `PIMS_TOKEN`, a provider's `token`): a 401 or 403 names it and what to
   * check. Never the token itself.
   */
  tokenSource?: string;
}

/** A failed PIMS call (or a call refused before it was sent): see the subclasses for each kind. */
export class PimsError extends Error {
  /** What kind of failure this is: one value per subclass, `http` for a status no subclass covers. */
  readonly kind: PimsErrorKind = "http";
  /** What the caller was doing, e.g. `deleting service account sa-1 in project p-1`. */
  readonly action: string;
  /** HTTP method of the call. */
  readonly method: string;
  /** Path called, e.g. `/v2/projects/p-1/service-accounts/sa-1` (ids only, never the token). */
  readonly path: string;
  /** Full URL called (base address + path, no query), when known. */
  readonly url?: string;
  /** HTTP status, when there was a response. */
  readonly status?: number;
  /** The service's own `message`, or what this package says went wrong. */
  readonly serverMessage?: string;
  /** Low-level code of a network failure, e.g. `ECONNREFUSED`. */
  readonly code?: string;
  /** Attempts made, retries included. */
  readonly attempts: number;
  /** Where the token came from, when the caller said (a 401 or 403 names it). */
  readonly tokenSource?: string;

  /** @param init What failed, where, and how. */
  constructor(init: PimsErrorInit) {
    const detail =
      init.status !== undefined
        ? `${init.status} ${init.serverMessage ?? ""}`.trim()
        : (init.serverMessage ?? init.code ?? "request failed");
    const where = init.status === 404 && init.url ? ` (${init.method} ${init.url})` : "";
    const hint = credentialHint(init.status, init.tokenSource);
    super(`${init.action}: ${detail}${where}${hint ? ` (${hint})` : ""}`);
    this.name = new.target.name;
    this.action = init.action;
    this.method = init.method;
    this.path = init.path;
    this.url = init.url;
    this.status = init.status;
    this.serverMessage = init.serverMessage;
    this.code = init.code;
    this.attempts = init.attempts ?? 1;
    this.tokenSource = init.tokenSource;
  }

  /** The message: action, status and the service's message (and the URL for a 404). */
  override toString(): string {
    return this.message;
  }
}

/** 404: the project, account, app, volume, build or run does not exist. */
export class NotFoundError extends PimsError {
  /** Always `not_found`. */
  override readonly kind = "not_found";
}
/** 401, 403, 405: the token is missing, invalid, expired or not allowed to do this. Never retried. */
export class AuthError extends PimsError {
  /** Always `auth`. */
  override readonly kind = "auth";
}
/** 402: the subscription needs payment. Never retried. */
export class PaymentError extends PimsError {
  /** Always `payment`. */
  override readonly kind = "payment";
}
/** 400, 422: the service rejected the input; `serverMessage` says which rule. */
export class ValidationError extends PimsError {
  /** Always `validation`. */
  override readonly kind = "validation";
}
/** 409: the request conflicts with the current state (e.g. a run that already finished). */
export class ConflictError extends PimsError {
  /** Always `conflict`. */
  override readonly kind = "conflict";
}
/** 429 after every retry was spent. */
export class RateLimitError extends PimsError {
  /** Always `rate_limit`. */
  override readonly kind = "rate_limit";
}
/** 5xx after every retry was spent (or not retried, for a POST that may have reached the server). */
export class ServerError extends PimsError {
  /** Always `server`. */
  override readonly kind = "server";
}
/** The connection failed or was dropped before a response arrived. */
export class NetworkError extends PimsError {
  /** `network`, or `timeout` for a {@link TimeoutError}. */
  override readonly kind: PimsErrorKind = "network";
}
/** No response within the per-attempt timeout. */
export class TimeoutError extends NetworkError {
  /** Always `timeout`. */
  override readonly kind = "timeout";
}

/**
 * What a 401 or 403 says of the credential: which one was used (its source, never its value) and what to check.
 * A 403 may also be a rule of the service (the service's message says which): the hint names both.
 */
function credentialHint(status: number | undefined, tokenSource: string | undefined): string | undefined {
  if (tokenSource === undefined) return undefined;
  if (status === 401)
    return (
      `the token set in ${tokenSource} was refused: check that it is the whole token of a live service account of ` +
      "this service and that it has not expired"
    );
  if (status === 403)
    return (
      `the token set in ${tokenSource} is valid but not allowed to do this: check the grants of its service ` +
      "account, or the service's reason above"
    );
  return undefined;
}

/** Picks the error class for an HTTP status. */
export function errorForStatus(init: PimsErrorInit & { status: number }): PimsError {
  const s = init.status;
  if (s === 404) return new NotFoundError(init);
  if (s === 401 || s === 403 || s === 405) return new AuthError(init);
  if (s === 402) return new PaymentError(init);
  if (s === 400 || s === 422) return new ValidationError(init);
  if (s === 409) return new ConflictError(init);
  if (s === 429) return new RateLimitError(init);
  if (s >= 500) return new ServerError(init);
  return new PimsError(init);
}

/** Replaces every occurrence of each secret in `text` with `[REDACTED]`. */
export function redact(text: string, secrets: ReadonlyArray<string | undefined>): string {
  let out = text;
  for (const s of secrets) {
    if (s && s.length >= 4) out = out.split(s).join("[REDACTED]");
  }
  return out.replace(/Bearer\s+[A-Za-z0-9._~+/=-]+/g, "Bearer [REDACTED]");
}

/** The message of anything thrown: an Error's message, else the value as text. */
export const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** True when `e` is a {@link PimsError} (any kind). */
export function isPimsError(e: unknown): e is PimsError {
  return e instanceof PimsError;
}

/**
 * An argument refused before any request was sent (an SDK function's, an app-log filter, the CLI's): a rule of this
 * package, not an answer of the service, so it has no status, method or path. The message reads
 * `<action>: <field> <rule>`, e.g. `checking getInvoices arguments: projectId must not be empty`.
 */
export class ArgumentError extends Error {
  /** Always `argument`. */
  readonly kind = "argument";
  /** What was being checked, e.g. `checking getInvoices arguments`. */
  readonly action: string;
  /** The argument, e.g. `projectId`. */
  readonly field: string;
  /** The rule it breaks, e.g. `must not be empty`. */
  readonly rule: string;

  /** @param action What was being checked. @param field The argument. @param rule The rule it breaks. */
  constructor(action: string, field: string, rule: string) {
    super(`${action}: ${field} ${rule}`);
    this.name = new.target.name;
    this.action = action;
    this.field = field;
    this.rule = rule;
  }

  /** The message: what was checked, the argument and the rule. */
  override toString(): string {
    return this.message;
  }
}

/**
 * A successful create-service-account answer (2xx) that names the new account (`accountId`) but carries no token
 * secret that can be identified unambiguously. The account exists on the service and nobody holds its token: the
 * caller must delete it. `members` lists the member names seen in the token object (names only, never values).
 */
export class UnreadableTokenError extends PimsError {
  /** Id of the account the service created. */
  readonly accountId: string;
  /** Member names seen in the token object (names only, never values). */
  readonly members: readonly string[];
  /** @param init What failed, plus the account's id and the member names seen. */
  constructor(init: PimsErrorInit & { accountId: string; members: readonly string[] }) {
    super(init);
    this.accountId = init.accountId;
    this.members = init.members;
  }
}
