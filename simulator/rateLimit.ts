/**
 * A token bucket per bearer token, as a rate-limited service keeps one per credential: each bucket holds up to
 * `burst` requests and refills at `rate` per second. A request that finds its bucket empty is refused with 429 and
 * a Retry-After saying when one request will be allowed again.
 */

export interface RateLimit {
  /** Requests per second, refilled continuously; > 0. */
  rate: number;
  /** Bucket size: requests allowed at once after a quiet spell; >= 1. */
  burst: number;
  /** Form of the Retry-After header: whole seconds (default) or an HTTP date. */
  retryAfter?: "seconds" | "date";
}

interface Bucket {
  tokens: number;
  /** performance.now() of the last refill. */
  at: number;
}

export function validateRateLimit(limit: RateLimit): void {
  if (!(Number.isFinite(limit.rate) && limit.rate > 0))
    throw new Error(`rate limit: rate must be a number > 0, got ${limit.rate}`);
  if (!(Number.isFinite(limit.burst) && limit.burst >= 1))
    throw new Error(`rate limit: burst must be a number >= 1, got ${limit.burst}`);
  if (limit.retryAfter !== undefined && limit.retryAfter !== "seconds" && limit.retryAfter !== "date") {
    throw new Error(`rate limit: retryAfter must be "seconds" or "date", got ${String(limit.retryAfter)}`);
  }
}

/** The Retry-After value for a wait: seconds rounded up (at least 1), or the HTTP date of the next whole second. */
export function retryAfterValue(waitMs: number, form: "seconds" | "date", nowMs = Date.now()): string {
  if (form === "date") return new Date(Math.ceil((nowMs + waitMs) / 1000) * 1000).toUTCString();
  return String(Math.max(1, Math.ceil(waitMs / 1000)));
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private limit: RateLimit | undefined;

  constructor(
    limit: RateLimit | undefined,
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.set(limit);
  }

  /** Changes the limit (undefined: no limit); every bucket starts full again. */
  set(limit: RateLimit | undefined): void {
    if (limit) validateRateLimit(limit);
    this.limit = limit && { ...limit };
    this.buckets.clear();
  }

  get current(): RateLimit | undefined {
    return this.limit && { ...this.limit };
  }

  /**
   * Takes one request from the key's bucket. Returns undefined when it is allowed, otherwise the Retry-After
   * header value.
   */
  take(key: string): string | undefined {
    const limit = this.limit;
    if (!limit) return undefined;
    const now = this.clock();
    const bucket = this.buckets.get(key) ?? { tokens: limit.burst, at: now };
    bucket.tokens = Math.min(limit.burst, bucket.tokens + ((now - bucket.at) / 1000) * limit.rate);
    bucket.at = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return undefined;
    }
    const waitMs = ((1 - bucket.tokens) / limit.rate) * 1000;
    return retryAfterValue(waitMs, limit.retryAfter ?? "seconds");
  }
}
