/** Pure functions of the client: retry decisions, Retry-After, backoff, error mapping, redaction, parsing helpers. */
import { AxiosError, AxiosHeaders, type AxiosResponse, type InternalAxiosRequestConfig } from "axios";
import fc from "fast-check";
import {
  AuthError,
  ConflictError,
  errorForStatus,
  isPimsError,
  isRfc3339,
  NetworkError,
  NotFoundError,
  PaymentError,
  PimsError,
  plainText,
  RateLimitError,
  redact,
  ServerError,
  TimeoutError,
  ValidationError,
} from "../../../provider/client";
import { backoffMs, describeFailure, isRetryable, retryAfterMs } from "../../../provider/client/retry";

function axiosError(method: string, opts: { status?: number; code?: string; retryAfter?: string } = {}): AxiosError {
  const config = { method, headers: new AxiosHeaders(), url: "/v2/x" } as InternalAxiosRequestConfig;
  const response =
    opts.status === undefined
      ? undefined
      : ({
          status: opts.status,
          statusText: "",
          data: "",
          headers: opts.retryAfter === undefined ? {} : { "retry-after": opts.retryAfter },
          config,
        } as AxiosResponse);
  return new AxiosError("failed", opts.code, config, undefined, response);
}

describe("isRetryable", () => {
  // A 429 never reaches isRetryable: the scheduler repeats it (tests/sim/client/retry.test.ts,
  // tests/sim/client/throttling.test.ts).
  it.each([408, 502, 503, 504])("retries %i for GET, PATCH and DELETE", (status) => {
    for (const m of ["get", "patch", "delete"]) expect(isRetryable(axiosError(m, { status }))).toBe(true);
  });
  it.each([400, 401, 402, 403, 404, 405, 409, 422, 500, 501])("never retries %i", (status) => {
    for (const m of ["get", "patch", "delete", "post"]) expect(isRetryable(axiosError(m, { status }))).toBe(false);
  });
  it("a POST only when the request never left", () => {
    for (const status of [408, 502, 503, 504]) expect(isRetryable(axiosError("post", { status }))).toBe(false);
    for (const code of ["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"])
      expect(isRetryable(axiosError("post", { code }))).toBe(true);
    for (const code of ["ECONNRESET", "ECONNABORTED", "ETIMEDOUT", "EPIPE"])
      expect(isRetryable(axiosError("post", { code }))).toBe(false);
    expect(isRetryable(axiosError("post"))).toBe(false);
  });
  it("network failures and timeouts for idempotent methods, never a cancellation", () => {
    for (const code of ["ECONNRESET", "ECONNABORTED", "ETIMEDOUT", "ECONNREFUSED", undefined])
      expect(isRetryable(axiosError("get", { code }))).toBe(true);
    expect(isRetryable(axiosError("get", { code: "ERR_CANCELED" }))).toBe(false);
  });
});

describe("retryAfterMs", () => {
  it("reads delta-seconds and HTTP dates, ignores garbage", () => {
    expect(retryAfterMs(axiosError("get", { status: 429, retryAfter: "0" }))).toBe(0);
    expect(retryAfterMs(axiosError("get", { status: 429, retryAfter: " 2 " }))).toBe(2000);
    expect(retryAfterMs(axiosError("get", { status: 429, retryAfter: "1.5" }))).toBe(1500);
    expect(retryAfterMs(axiosError("get", { status: 429, retryAfter: "-3" }))).toBe(0);
    const now = Date.parse("2024-05-01T12:00:00Z");
    expect(retryAfterMs(axiosError("get", { status: 429, retryAfter: "Wed, 01 May 2024 12:00:07 GMT" }), now)).toBe(
      7000,
    );
    expect(retryAfterMs(axiosError("get", { status: 429, retryAfter: "Wed, 01 May 2024 11:00:00 GMT" }), now)).toBe(0);
    expect(retryAfterMs(axiosError("get", { status: 429, retryAfter: "soon" }))).toBeUndefined();
    expect(retryAfterMs(axiosError("get", { status: 429, retryAfter: "" }))).toBeUndefined();
    expect(retryAfterMs(axiosError("get", { status: 429 }))).toBeUndefined();
    expect(retryAfterMs(axiosError("get", { code: "ECONNRESET" }))).toBeUndefined();
  });
});

describe("backoffMs", () => {
  it("equal jitter: within [ceiling/2, ceiling], ceiling doubling up to the cap", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 1, max: 100_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, min, extra, r) => {
          const max = min + extra;
          const ceiling = Math.min(max, min * 2 ** (attempt - 1));
          const d = backoffMs(attempt, { minDelayMs: min, maxDelayMs: max }, () => r);
          return d >= Math.floor(ceiling / 2) && d <= ceiling && d > 0;
        },
      ),
    );
    expect(backoffMs(1, { minDelayMs: 250, maxDelayMs: 8000 }, () => 0)).toBe(125);
    expect(backoffMs(3, { minDelayMs: 250, maxDelayMs: 8000 }, () => 0.999999)).toBe(1000);
    expect(backoffMs(10, { minDelayMs: 250, maxDelayMs: 8000 }, () => 0.999999)).toBe(8000);
  });
});

describe("describeFailure", () => {
  it("names the status, timeout or network code", () => {
    expect(describeFailure(axiosError("get", { status: 503 }))).toBe("HTTP 503");
    expect(describeFailure(axiosError("get", { code: "ECONNABORTED" }))).toBe("timeout");
    expect(describeFailure(axiosError("get", { code: "ETIMEDOUT" }))).toBe("timeout");
    expect(describeFailure(axiosError("get", { code: "ECONNRESET" }))).toBe("ECONNRESET");
    expect(describeFailure(axiosError("get"))).toBe("network error");
  });
});

describe("errorForStatus and the error family", () => {
  const init = { action: "doing it", method: "GET", path: "/v2/x", serverMessage: "why" };
  it.each([
    [404, NotFoundError, "not_found"],
    [401, AuthError, "auth"],
    [403, AuthError, "auth"],
    [405, AuthError, "auth"],
    [402, PaymentError, "payment"],
    [400, ValidationError, "validation"],
    [422, ValidationError, "validation"],
    [409, ConflictError, "conflict"],
    [429, RateLimitError, "rate_limit"],
    [500, ServerError, "server"],
    [503, ServerError, "server"],
    [418, PimsError, "http"],
  ] as const)("%i → %p (%s)", (status, cls, kind) => {
    const e = errorForStatus({ ...init, status });
    expect(e).toBeInstanceOf(cls);
    expect(e.kind).toBe(kind);
    expect(e.name).toBe(cls.name);
    expect(e.toString()).toBe(`doing it: ${status} why`);
    expect(e.attempts).toBe(1);
    expect(isPimsError(e)).toBe(true);
  });
  it("without a status: the message, else the code", () => {
    expect(new NetworkError({ action: "a", method: "GET", path: "/", code: "ECONNRESET" }).toString()).toBe(
      "a: ECONNRESET",
    );
    expect(new TimeoutError({ action: "a", method: "GET", path: "/", serverMessage: "timed out" }).toString()).toBe(
      "a: timed out",
    );
    expect(new PimsError({ action: "a", method: "GET", path: "/" }).toString()).toBe("a: request failed");
    expect(new PimsError({ action: "a", method: "GET", path: "/", status: 500 }).toString()).toBe("a: 500");
    expect(new TimeoutError({ action: "a", method: "GET", path: "/" })).toBeInstanceOf(NetworkError);
    expect(isPimsError(new Error("x"))).toBe(false);
  });
});

describe("the URL in errors", () => {
  const init = {
    action: "deleting service account sa-1 in project p-1",
    method: "DELETE",
    path: "/v2/projects/p-1/service-accounts/sa-1",
    serverMessage: "Not Found",
  };
  it("a 404 names the full URL that was called", () => {
    const url = "http://127.0.0.1:1234/v2/v2/projects/p-1/service-accounts/sa-1";
    const e = errorForStatus({ ...init, status: 404, url });
    expect(e).toBeInstanceOf(NotFoundError);
    expect(e.url).toBe(url);
    expect(e.message).toBe(`deleting service account sa-1 in project p-1: 404 Not Found (DELETE ${url})`);
  });
  it("other statuses keep the URL as a field only", () => {
    const e = errorForStatus({ ...init, status: 500, url: "http://h/v2/x" });
    expect(e.url).toBe("http://h/v2/x");
    expect(e.message).toBe("deleting service account sa-1 in project p-1: 500 Not Found");
  });
});

describe("redact", () => {
  it("replaces every occurrence of each secret and any bearer value", () => {
    expect(redact("a SECRET1 b SECRET1 c s2s2", ["SECRET1", "s2s2", undefined])).toBe(
      "a [REDACTED] b [REDACTED] c [REDACTED]",
    );
    expect(redact("Authorization: Bearer abc.DEF-123_~+/=", [])).toBe("Authorization: Bearer [REDACTED]");
    expect(redact("abc is short", ["abc"])).toBe("abc is short"); // < 4 characters: would match by chance
  });
});

describe("plainText", () => {
  it.each([
    ["p-1", "p-1"],
    ["  p-1 \r\n", "p-1"],
    ['"p-1"', "p-1"],
    [' "p-1"\n', "p-1"],
    ['" p-1 "', "p-1"],
    ['"unterminated', '"unterminated'],
    ['"a" "b"', '"a" "b"'],
    ["", ""],
  ])("%j → %j", (input, out) => expect(plainText(input)).toBe(out));
  it("non-strings", () => {
    expect(plainText(undefined)).toBe("");
    expect(plainText(null)).toBe("");
    expect(plainText(42)).toBe("42");
  });
});

describe("isRfc3339", () => {
  it.each([
    "2024-05-01T12:00:00Z",
    "2024-05-01t12:00:00z",
    "2024-05-01 12:00:00+02:00",
    "2024-02-29T00:00:00.123456789-05:30",
    "1999-12-31T23:59:59Z",
  ])("accepts %s", (v) => expect(isRfc3339(v)).toBe(true));
  it.each([
    "2024-05-01",
    "2024-05-01T12:00:00",
    "2024-05-01T12:00Z",
    "2023-02-29T00:00:00Z",
    "2024-04-31T00:00:00Z",
    "2024-00-10T00:00:00Z",
    "2024-05-01T24:00:00Z",
    "2024-05-01T12:60:00Z",
    "05/01/2024",
    "1714557600000",
    " 2024-05-01T12:00:00Z",
  ])("rejects %s", (v) => expect(isRfc3339(v)).toBe(false));
  it("agrees with Date.parse on what it accepts", () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date("1970-01-01T00:00:00Z"), max: new Date("2100-01-01T00:00:00Z"), noInvalidDate: true }),
        (d) => {
          const s = d.toISOString();
          return isRfc3339(s) && Date.parse(s) === d.getTime();
        },
      ),
    );
  });
});
