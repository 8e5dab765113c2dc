/**
 * The `PimsError` of one call of ./client, made from what failed: every text redacted of the token, the full URL that
 * a 404 shows, where the token came from on a 401 or 403, the attempts the retries of ./retry made. Nothing here
 * sends a request: ./client's `call` and the operations that read an answer's body build their errors with these.
 */
import axios, { type AxiosResponse } from "axios";
import {
  errorForStatus,
  NetworkError,
  PimsError,
  redact,
  TimeoutError,
  UnreadableTokenError,
  errorText,
} from "./errors";
import { parseJson, serverMessage } from "./parse";
import { TIMEOUT_CODES } from "./retry";
import { RateLimitTimeoutError } from "./scheduler";
import { isPlainObject, quote } from "./values";

/** One request of an operation, as ./client describes it. */
export interface Call {
  action: string;
  method: "GET" | "POST" | "PATCH" | "DELETE";
  path: string;
  body?: unknown;
  query?: Record<string, string | number | undefined>;
  /** A 403 of this operation is a documented rule of the service, not a credential problem: no credential hint. */
  ruleOn403?: true;
}

/** Who called: the token (to redact, never shown), the base address (for URLs), where the token came from. */
export interface Caller {
  token: string;
  baseUrl: string;
  tokenSource?: string;
}

/** What every error of `c` starts from: action and path redacted, and the full URL (base address + path, no query). */
function basics(who: Caller, c: Call): { action: string; method: string; path: string; url: string } {
  const secrets = [who.token];
  return {
    action: redact(c.action, secrets),
    method: c.method,
    path: redact(c.path, secrets),
    url: redact(`${who.baseUrl}${c.path}`, secrets),
  };
}

/** The error of a request that failed (an HTTP status, a 429 past its bound, a timeout, a network failure). */
export function callError(who: Caller, c: Call, e: unknown): PimsError {
  const secrets = [who.token];
  const base = basics(who, c);
  if (e instanceof RateLimitTimeoutError) {
    const last = axios.isAxiosError(e.cause) ? e.cause.response : undefined;
    const said = last ? serverMessage(last.data, last.statusText) : "rate limited";
    return errorForStatus({
      ...base,
      status: 429,
      serverMessage: redact(`${said}; ${e.detail}`, secrets),
      attempts: e.attempts,
    });
  }
  if (!axios.isAxiosError(e)) {
    return new PimsError({ ...base, serverMessage: redact(errorText(e), secrets) });
  }
  const attempts = 1 + (retryCount(e.config) ?? 0);
  if (e.response) {
    return errorForStatus({
      ...base,
      status: e.response.status,
      serverMessage: redact(serverMessage(e.response.data, e.response.statusText), secrets),
      attempts,
      tokenSource: c.ruleOn403 && e.response.status === 403 ? undefined : who.tokenSource,
    });
  }
  if (e.code !== undefined && TIMEOUT_CODES.has(e.code)) {
    return new TimeoutError({ ...base, code: e.code, serverMessage: "timed out waiting for the service", attempts });
  }
  return new NetworkError({
    ...base,
    code: e.code,
    serverMessage: `could not reach the service (${e.code ?? "network error"})`,
    attempts,
  });
}

/**
 * A 2xx whose body is not what the operation returns (wrong baseUrl, proxy page, API change). The message says
 * what came instead: the type of a JSON body, the start of a text body (a login or proxy page) — never the body
 * of an operation whose answer may carry secrets (`sensitive`: API keys, the one-time token). Redacted.
 */
export function unexpectedAnswer(
  who: Caller,
  c: Call,
  res: AxiosResponse<string>,
  expected: string,
  opts: { detail?: string; sensitive?: boolean } = {},
): PimsError {
  const text = typeof res.data === "string" ? res.data.trim() : "";
  const body = parseJson(text);
  const kind = Array.isArray(body)
    ? "array"
    : body === null
      ? "null"
      : typeof body === "object"
        ? "object"
        : typeof body;
  let got: string;
  if (!text) got = "an empty body";
  else if (typeof body !== "string" || text.startsWith('"')) got = `a JSON ${kind}`;
  else if (opts.sensitive) got = `${text.length} characters of text`;
  else got = quote(text, 100);
  return new PimsError({
    ...basics(who, c),
    status: res.status,
    serverMessage: redact(opts.detail ?? `unexpected response, expected ${expected}, got ${got}`, [who.token]),
  });
}

/**
 * The account exists and nobody holds its token. Names only (members of the token object, or of the account when
 * it carried no token object), never a value: any of them may be the secret.
 */
export function unreadableTokenError(
  who: Caller,
  c: Call,
  res: AxiosResponse<string>,
  account: { id: string; members: string[]; accountMembers: string[] },
): UnreadableTokenError {
  const names = (list: string[]): string =>
    list.length === 0
      ? "none"
      : list
          .slice(0, 20)
          .map((n) => quote(n, 40))
          .join(", ") + (list.length > 20 ? ", …" : "");
  const seen =
    account.accountMembers.length > 0
      ? `no token object; members of the account: ${names(account.accountMembers)}`
      : `members of its token object: ${names(account.members)}`;
  return new UnreadableTokenError({
    ...basics(who, c),
    status: res.status,
    serverMessage: redact(
      `the response names service account ${quote(account.id, 100)} but no token secret could be identified in ` +
        `it (${seen}; values not shown). The account exists and its token is lost; please report these member ` +
        "names to the pulumi-pims maintainers",
      [who.token],
    ),
    accountId: account.id,
    members: account.members,
  });
}

/** Retries axios-retry made for this request (its state on the request's config). */
function retryCount(config: unknown): number | undefined {
  if (!isPlainObject(config)) return undefined;
  const state = config["axios-retry"];
  return isPlainObject(state) && typeof state.retryCount === "number" ? state.retryCount : undefined;
}
