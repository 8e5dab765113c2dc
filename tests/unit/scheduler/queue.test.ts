/**
 * The process-wide request scheduler on a fake clock: concurrency cap, FIFO order, both Retry-After forms, and the time
 * bound on 429 retries. Pacing and progress lines: scheduler.pacing.test.ts. No network, no sleep.
 */
import { parseRetryAfter } from "../../../provider/client/retry";
import { formatDuration } from "../../../provider/client/values";
import { processScheduler, RateLimitTimeoutError, Scheduler, throttleOf } from "../../../provider/client/scheduler";
import { clientFor, schedulerSettings } from "../../../provider/settings";
import { VolumeSizeProvider } from "../../../provider/volumeSize";
import { FakeService, info, refusal, refusedOnce, setup, START } from "../../kit/sim/scheduler";

describe("Scheduler: concurrency and order", () => {
  it("never has more than maxConcurrency requests in flight, and uses all of them", async () => {
    const { clock, scheduler } = setup({ maxConcurrency: 3 });
    const service = new FakeService(clock, undefined, 100);
    const results = Promise.all(Array.from({ length: 20 }, (_, i) => scheduler.schedule(() => service.call(i), info)));
    await clock.advance(10);
    expect(scheduler.stats()).toMatchObject({ inFlight: 3, waiting: 17 });
    await clock.advance(2000);
    expect(await results).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(service.maxInFlight).toBe(3);
    expect(clock.now() - START).toBeGreaterThanOrEqual(700); // 20 requests of 100 ms, 3 at a time: 7 rounds
    expect(scheduler.stats()).toMatchObject({ inFlight: 0, waiting: 0, started: 20, refused: 0, rate: Infinity });
  });

  it("starts requests in arrival order; a refused request keeps its place ahead of later ones", async () => {
    const { clock, scheduler } = setup({ maxConcurrency: 1 });
    const starts: string[] = [];
    const refuse = refusedOnce("1");
    const done = Promise.all(
      ["a", "b", "c", "d"].map((name) =>
        scheduler.schedule(async () => {
          starts.push(name);
          if (name === "b") refuse();
          return name;
        }, info),
      ),
    );
    await clock.advance(5000);
    expect(await done).toEqual(["a", "b", "c", "d"]);
    expect(starts).toEqual(["a", "b", "b", "c", "d"]);
  });

  it("applies a higher cap from configure() at once; rejects caps that mean nothing", async () => {
    const { clock, scheduler } = setup({ maxConcurrency: 1 });
    const service = new FakeService(clock, undefined, 1000);
    const all = Promise.all(Array.from({ length: 4 }, (_, i) => scheduler.schedule(() => service.call(i), info)));
    await clock.advance(1);
    expect(scheduler.stats().inFlight).toBe(1);
    scheduler.configure({ maxConcurrency: 4 });
    await clock.advance(1);
    expect(scheduler.stats().inFlight).toBe(4);
    await clock.advance(2000);
    await all;
    expect(() => scheduler.configure({ maxConcurrency: 0 })).toThrow(RangeError);
    expect(() => scheduler.configure({ maxConcurrency: 1.5 })).toThrow(
      "maxConcurrency must be a whole number >= 1 (got 1.5)",
    );
    expect(() => scheduler.configure({ rateLimitTimeoutMs: -1 })).toThrow(RangeError);
    expect(scheduler.settings).toEqual({ maxConcurrency: 4, rateLimitTimeoutMs: 300_000, progressIntervalMs: 5000 });
  });

  it("passes other failures through unchanged, once, and frees the slot", async () => {
    const { clock, scheduler } = setup({ maxConcurrency: 1 });
    const boom = Object.assign(new Error("boom"), { response: { status: 503, headers: {} } });
    let calls = 0;
    const failing = scheduler
      .schedule(async () => {
        calls++;
        throw boom;
      }, info)
      .catch((e: unknown) => e);
    const throwing = scheduler
      .schedule(() => {
        throw new Error("sync");
      }, info)
      .catch((e: unknown) => e);
    const next = scheduler.schedule(async () => "ok", info);
    await clock.advance(1);
    expect(await failing).toBe(boom);
    expect(await throwing).toEqual(new Error("sync"));
    await expect(next).resolves.toBe("ok");
    expect(calls).toBe(1);
    expect(scheduler.stats()).toMatchObject({ refused: 0, rate: Infinity, inFlight: 0 });
  });

  it("is one instance per process", () => {
    expect(processScheduler()).toBe(processScheduler());
    expect(processScheduler().settings.maxConcurrency).toBe(8);
  });
});

describe("Scheduler: Retry-After", () => {
  it.each([
    ["seconds", (): string => "3"],
    ["an HTTP date", (): string => new Date(START + 3000).toUTCString()],
  ])("pauses every request until the time the service named (%s)", async (_form, header) => {
    const { clock, scheduler } = setup({ maxConcurrency: 4 });
    const starts: Array<[number, number]> = [];
    const refuse = refusedOnce(header());
    const all = Promise.all(
      Array.from({ length: 3 }, (_, i) =>
        scheduler.schedule(async () => {
          starts.push([i, clock.now() - START]);
          if (i === 0) refuse();
          return i;
        }, info),
      ),
    );
    await clock.advance(2999);
    // 0, 1 and 2 went out together; 0 was refused and waits, with everybody, for the 3 s the service asked.
    expect(starts).toEqual([
      [0, 0],
      [1, 0],
      [2, 0],
    ]);
    const more = scheduler.schedule(async () => {
      starts.push([3, clock.now() - START]);
      return 3;
    }, info);
    await clock.advance(1);
    expect(starts.slice(3)).toEqual([[0, 3000]]); // the refused one first, at 3 s
    await clock.advance(10_000);
    expect(await all).toEqual([0, 1, 2]);
    await more;
    expect(starts[4]?.[0]).toBe(3);
    expect(starts[4]?.[1]).toBeGreaterThanOrEqual(3000);
  });

  it("reads delta-seconds and HTTP dates; ignores what it cannot read", () => {
    expect(parseRetryAfter("3", START)).toBe(3000);
    expect(parseRetryAfter(" 1.5 ", START)).toBe(1500);
    expect(parseRetryAfter(2, START)).toBe(2000);
    expect(parseRetryAfter(new Date(START + 7000).toUTCString(), START)).toBe(7000);
    expect(parseRetryAfter(new Date(START - 7000).toUTCString(), START)).toBe(0);
    expect(parseRetryAfter("-3", START)).toBe(0);
    for (const bad of [undefined, null, "", "soon", "1-2", ["1"]]) expect(parseRetryAfter(bad, START)).toBeUndefined();
  });

  it("recognizes a 429 by the axios shape, or by the caller's test", async () => {
    expect(throttleOf(refusal("2"))).toEqual({ retryAfter: "2" });
    expect(throttleOf({ response: { status: 429 } })).toEqual({ retryAfter: undefined });
    expect(throttleOf({ response: { status: 503, headers: { "retry-after": "2" } } })).toBeUndefined();
    expect(throttleOf("429")).toBeUndefined();
    const { clock, scheduler } = setup();
    let calls = 0;
    const custom = scheduler.schedule(
      async () => {
        if (calls++ === 0) throw new Error("slow down");
        return "done";
      },
      {
        ...info,
        throttled: (e) => (e instanceof Error && e.message === "slow down" ? { retryAfter: "1" } : undefined),
      },
    );
    await clock.advance(1500);
    await expect(custom).resolves.toBe("done");
    expect(calls).toBe(2);
    expect(scheduler.stats().refused).toBe(1);
  });
});

describe("Scheduler: time bound on 429 retries", () => {
  it("keeps repeating a refused request far beyond a small count, until the bound", async () => {
    const { clock, scheduler } = setup({ rateLimitTimeoutMs: 60_000 });
    let calls = 0;
    const p = scheduler.schedule(async () => {
      if (++calls <= 20) throw refusal("2");
      return "finally";
    }, info);
    await clock.advance(50_000);
    await expect(p).resolves.toBe("finally");
    expect(calls).toBe(21);
  });

  it("gives up with a clear error once refused for longer than the bound", async () => {
    const { clock, scheduler } = setup({ rateLimitTimeoutMs: 10_000 });
    let calls = 0;
    const p = scheduler.schedule(async () => {
      calls++;
      throw refusal("1");
    }, info);
    const outcome = p.then(
      () => undefined,
      (e: unknown) => e,
    );
    await clock.advance(9_500);
    expect(calls).toBeGreaterThanOrEqual(5); // spaced by Retry-After and by the pace, which falls with each refusal
    await clock.advance(2_000);
    const error = await outcome;
    expect(error).toBeInstanceOf(RateLimitTimeoutError);
    const e = error as RateLimitTimeoutError;
    expect(e.message).toBe(`GET /v2/projects/p-1/api-keys: ${e.detail}`);
    expect(e.detail).toMatch(
      /^still rate limited \(HTTP 429\) after 10s \(\d+ attempts\); gave up at the 10s limit for rate-limited requests \(pims:rateLimitTimeoutMs or PIMS_RATE_LIMIT_TIMEOUT_MS\)$/,
    );
    expect(e.attempts).toBe(calls);
    expect(e.waitedMs).toBeGreaterThanOrEqual(10_000);
    expect((e.cause as Error).message).toBe("Request failed with status code 429");
    expect(scheduler.stats()).toMatchObject({ waiting: 0, inFlight: 0 });
  });

  it("gives up at once when the service asks to wait beyond the bound", async () => {
    const { clock, scheduler } = setup({ rateLimitTimeoutMs: 60_000 });
    const p = scheduler.schedule(async () => {
      throw refusal(new Date(START + 3_600_000).toUTCString());
    }, info);
    const outcome = p.catch((e: unknown) => e);
    await clock.advance(1);
    const e = (await outcome) as RateLimitTimeoutError;
    expect(e).toBeInstanceOf(RateLimitTimeoutError);
    expect(e.detail).toBe(
      "rate limited (HTTP 429) and asked to wait 1h, beyond the 1m limit for rate-limited requests " +
        "(pims:rateLimitTimeoutMs or PIMS_RATE_LIMIT_TIMEOUT_MS); gave up after 1 attempt",
    );
  });
});

describe("formatDuration", () => {
  it("reads as a person says it", () => {
    expect([formatDuration(800), formatDuration(12_400), formatDuration(300_000), formatDuration(63_000)]).toEqual([
      "800ms",
      "12s",
      "5m",
      "1m 3s",
    ]);
  });
});

describe("settings from stack config and the environment", () => {
  it("pims:maxConcurrency, then PIMS_MAX_CONCURRENCY; PIMS_RATE_LIMIT_TIMEOUT_MS; unset values are left out", () => {
    expect(schedulerSettings({}, {})).toEqual({});
    const env = { PIMS_MAX_CONCURRENCY: "16", PIMS_RATE_LIMIT_TIMEOUT_MS: "60000" };
    expect(schedulerSettings({ maxConcurrency: "3" }, env)).toEqual({ maxConcurrency: 3, rateLimitTimeoutMs: 60_000 });
    expect(schedulerSettings({}, { PIMS_MAX_CONCURRENCY: " 16 " })).toEqual({ maxConcurrency: 16 });
    expect(() => schedulerSettings({ maxConcurrency: "0" }, {})).toThrow(
      'pims:maxConcurrency must be a whole number >= 1 (got "0")',
    );
    expect(() => schedulerSettings({}, { PIMS_MAX_CONCURRENCY: "lots" })).toThrow(
      'PIMS_MAX_CONCURRENCY must be a whole number >= 1 (got "lots")',
    );
    expect(() => schedulerSettings({}, { PIMS_RATE_LIMIT_TIMEOUT_MS: "5m" })).toThrow(
      'PIMS_RATE_LIMIT_TIMEOUT_MS must be a whole number of milliseconds (got "5m")',
    );
  });

  it("pims:rateLimitTimeoutMs first, then PIMS_RATE_LIMIT_TIMEOUT_MS; 0 (fail at the first 429) is allowed", () => {
    const env = { PIMS_RATE_LIMIT_TIMEOUT_MS: "60000" };
    expect(schedulerSettings({ rateLimitTimeoutMs: "900000" }, env)).toEqual({ rateLimitTimeoutMs: 900_000 });
    expect(schedulerSettings({ rateLimitTimeoutMs: " " }, env)).toEqual({ rateLimitTimeoutMs: 60_000 });
    expect(schedulerSettings({ rateLimitTimeoutMs: "0" }, {})).toEqual({ rateLimitTimeoutMs: 0 });
    expect(() => schedulerSettings({ rateLimitTimeoutMs: "10 min" }, env)).toThrow(
      'pims:rateLimitTimeoutMs must be a whole number of milliseconds (got "10 min")',
    );
  });

  it("clientFor hands them to the scheduler its client uses", () => {
    const scheduler = new Scheduler();
    clientFor(
      { token: "t0ken-xyz", baseUrl: "http://127.0.0.1:1", maxConcurrency: "2" },
      { scheduler },
      { env: { PIMS_RATE_LIMIT_TIMEOUT_MS: "1000" } },
    );
    expect(scheduler.settings).toMatchObject({ maxConcurrency: 2, rateLimitTimeoutMs: 1000 });
  });

  it("configure() refuses a bad pims:maxConcurrency or rateLimitTimeoutMs; clients apply good ones", async () => {
    const request = (config: Record<string, string>) => ({
      config: { get: (k: string) => config[k], require: (k: string) => config[k] },
    });
    const provider = new VolumeSizeProvider();
    const credentials = { "pims:token": "t0ken-xyz", "pims:baseUrl": "http://127.0.0.1:1" };
    try {
      await provider.configure(
        request({ ...credentials, "pims:maxConcurrency": "3", "pims:rateLimitTimeoutMs": "1200000" }),
      );
      // One place configures the scheduler: where a client is built (provider/settings.ts clientFor).
      expect(processScheduler().settings).toMatchObject({ maxConcurrency: 8, rateLimitTimeoutMs: 300_000 });
      (provider as unknown as { client(): unknown }).client();
      expect(processScheduler().settings).toMatchObject({ maxConcurrency: 3, rateLimitTimeoutMs: 1_200_000 });
      await expect(provider.configure(request({ "pims:maxConcurrency": "-1" }))).rejects.toThrow(
        'pims:maxConcurrency must be a whole number >= 1 (got "-1")',
      );
      await expect(provider.configure(request({ "pims:rateLimitTimeoutMs": "-1" }))).rejects.toThrow(
        'pims:rateLimitTimeoutMs must be a whole number of milliseconds (got "-1")',
      );
    } finally {
      processScheduler().configure({ maxConcurrency: 8, rateLimitTimeoutMs: 300_000 });
    }
  });
});
