/** The simulator's token bucket on a fake clock, and both Retry-After forms. */
import { RateLimiter, retryAfterValue } from "../../../simulator/rateLimit";

describe("RateLimiter", () => {
  it("gives each key a full bucket, refills at the rate, caps at the burst", () => {
    let now = 0;
    const limiter = new RateLimiter({ rate: 10, burst: 3 }, () => now);
    expect([limiter.take("a"), limiter.take("a"), limiter.take("a")]).toEqual([undefined, undefined, undefined]);
    expect(limiter.take("a")).toBe("1");
    expect(limiter.take("b")).toBeUndefined();
    now += 100; // one request back at 10/s
    expect(limiter.take("a")).toBeUndefined();
    expect(limiter.take("a")).toBe("1");
    now += 60_000; // refills only up to the burst
    const after = [0, 1, 2, 3].map(() => limiter.take("a"));
    expect(after).toEqual([undefined, undefined, undefined, "1"]);
  });

  it("under a steady stream allows burst + rate × elapsed requests, and refuses the rest", () => {
    // A request every 25 ms for 2 s at 20/s with a burst of 5: the clock is the test's, so the count is exact (the
    // simulator's own clock is performance.now(), which a loaded machine's request loop cannot pace).
    let now = 0;
    const limiter = new RateLimiter({ rate: 20, burst: 5 }, () => now);
    let allowed = 0;
    let refused = 0;
    for (; now <= 2000; now += 25) {
      if (limiter.take("k") === undefined) allowed++;
      else refused++;
    }
    expect(allowed).toBe(5 + 20 * 2);
    expect(refused).toBe(2000 / 25 + 1 - allowed);
  });

  it("says how long until one request is allowed, in whole seconds rounded up", () => {
    let now = 0;
    const limiter = new RateLimiter({ rate: 0.25, burst: 1 }, () => now);
    limiter.take("k");
    expect(limiter.take("k")).toBe("4");
    now += 2500;
    expect(limiter.take("k")).toBe("2");
  });

  it("allows everything without a limit, and starts over when the limit changes", () => {
    const now = 0;
    const limiter = new RateLimiter(undefined, () => now);
    for (let i = 0; i < 100; i++) expect(limiter.take("k")).toBeUndefined();
    limiter.set({ rate: 1, burst: 1 });
    expect(limiter.take("k")).toBeUndefined();
    expect(limiter.take("k")).toBe("1");
    limiter.set({ rate: 1, burst: 2 });
    expect(limiter.take("k")).toBeUndefined();
    expect(limiter.current).toEqual({ rate: 1, burst: 2 });
  });

  it("rejects limits that mean nothing", () => {
    expect(() => new RateLimiter({ rate: -1, burst: 1 })).toThrow("rate must be a number > 0");
    expect(() => new RateLimiter({ rate: 1, burst: 0 })).toThrow("burst must be a number >= 1");
    expect(() => new RateLimiter({ rate: 1, burst: 1, retryAfter: "minutes" as "date" })).toThrow(
      'retryAfter must be "seconds" or "date"',
    );
  });
});

describe("retryAfterValue", () => {
  it("writes seconds (at least 1) or the HTTP date of the next whole second", () => {
    expect(retryAfterValue(10, "seconds")).toBe("1");
    expect(retryAfterValue(1001, "seconds")).toBe("2");
    const now = Date.parse("2030-01-01T00:00:00.300Z");
    expect(retryAfterValue(1500, "date", now)).toBe("Tue, 01 Jan 2030 00:00:02 GMT");
    expect(retryAfterValue(700, "date", now)).toBe("Tue, 01 Jan 2030 00:00:01 GMT");
  });
});
