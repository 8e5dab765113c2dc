/** The scheduler's adaptive pacing (falls on 429, climbs back, lifted after a quiet period) and its progress lines. */
import { FakeService, info, refusedOnce, setup, START } from "../../kit/sim/scheduler";

describe("Scheduler: adaptive pacing", () => {
  it("a 429 slows the whole process to a fraction of the pace refused, then the pace climbs back", async () => {
    const { clock, scheduler } = setup({ maxConcurrency: 8 });
    const service = new FakeService(clock, { rate: 10, burst: 10 }, 10);
    const all = Promise.all(Array.from({ length: 100 }, (_, i) => scheduler.schedule(() => service.call(i), info)));
    await clock.advance(50);
    // Unlimited at first: 10 accepted, then 8 sent into an empty bucket before the first 429 came back.
    const first = scheduler.stats();
    expect(first.refused).toBeGreaterThan(0);
    expect(first.rate).toBeLessThan(20);
    expect(first.rate).toBeGreaterThanOrEqual(5);
    // Paced from here on: starts are spaced, not bursts.
    await clock.advance(3000);
    const later = scheduler.stats();
    expect(later.started - first.started).toBeLessThanOrEqual(Math.ceil(3 * 20));
    await clock.advance(30_000);
    expect(await all).toHaveLength(100);
    expect(service.accepted).toBe(100);
    // Few refusals: the process queues locally instead of each request hammering the service.
    expect(service.refused).toBeLessThanOrEqual(15);
    expect(scheduler.stats().refused).toBe(service.refused);
  });

  it("learns a service's rate: 300 requests at 20/s finish near the ideal time with few refusals", async () => {
    const { clock, scheduler } = setup({ maxConcurrency: 8 });
    const service = new FakeService(clock, { rate: 20, burst: 20 }, 20);
    let finishedAt = 0;
    const all = Promise.all(
      Array.from({ length: 300 }, (_, i) => scheduler.schedule(() => service.call(i), info)),
    ).then((r) => {
      finishedAt = clock.now();
      return r;
    });
    for (let i = 0; i < 60 && finishedAt === 0; i++) await clock.advance(1000);
    expect(await all).toHaveLength(300);
    const ideal = (300 - 20) / 20; // seconds: the burst, then the rate
    const seconds = (finishedAt - START) / 1000;
    const refusedShare = service.refused / (service.accepted + service.refused);
    expect(refusedShare).toBeLessThanOrEqual(0.05);
    expect(seconds / ideal).toBeLessThanOrEqual(1.2); // measured: 14.8 s for an ideal 14 s, 8 of 308 refused
  });

  it("cuts the pace once for one burst's refusals, counting requests sent at the first refusal's instant", async () => {
    // A fresh process meets a full bucket: 8 at a time, answered together every 10 ms. The third round is partly
    // refused; the successes of that round start 4 more in the same instant, before the refusals are read. Those 4 are
    // refused too, but they went out at the pace already refused: cutting again would leave 0.49 × that pace, below the
    // service's rate, and the process would then climb back from below what the service allows.
    const { clock, scheduler } = setup({ maxConcurrency: 8 });
    const service = new FakeService(clock, { rate: 20, burst: 20 }, 10);
    const all = Promise.all(Array.from({ length: 60 }, (_, i) => scheduler.schedule(() => service.call(i), info)));
    await clock.advance(100);
    const sent = service.starts.length; // all in the first 30 ms, then the pause
    expect(service.refused).toBeGreaterThan(4);
    expect(scheduler.stats().rate).toBeCloseTo(0.7 * sent, 6);
    await clock.advance(30_000);
    expect(await all).toHaveLength(60);
  });

  it("lifts the limit after a quiet period without 429", async () => {
    const { clock, scheduler } = setup({ maxConcurrency: 2, recoveryMs: 30_000 });
    const refuse = refusedOnce("1");
    const first = scheduler.schedule(async () => refuse(), info);
    await clock.advance(2000);
    await first;
    expect(scheduler.stats().rate).toBeLessThan(Infinity);
    await clock.advance(29_000);
    expect(scheduler.stats().rate).toBe(Infinity);
  });

  it("grows the pace only while requests wait for it", async () => {
    const { clock, scheduler } = setup({ maxConcurrency: 8 });
    // One refused request: the pace falls to 0.7 × the 1 request/s sent, and climbs back to 1/s while it waits.
    const refuse = refusedOnce("0");
    const once = scheduler.schedule(async () => refuse(), info);
    await clock.advance(3000);
    await once;
    const low = scheduler.stats().rate;
    expect(low).toBe(1);
    await clock.advance(10_000); // idle: nothing waits, the allowance does not grow
    expect(scheduler.stats().rate).toBe(low);
    const service = new FakeService(clock, undefined, 1);
    const all = Promise.all(Array.from({ length: 40 }, (_, i) => scheduler.schedule(() => service.call(i), info)));
    await clock.advance(5000);
    expect(scheduler.stats().rate).toBeGreaterThan(low);
    await clock.advance(30_000);
    await all;
  });
});

describe("Scheduler: progress", () => {
  it("says nothing while the service does not throttle", async () => {
    const { clock, scheduler, lines } = setup({ maxConcurrency: 2 });
    const service = new FakeService(clock, undefined, 50);
    const all = Promise.all(Array.from({ length: 50 }, (_, i) => scheduler.schedule(() => service.call(i), info)));
    await clock.advance(5000);
    await all;
    expect(lines).toEqual([]);
  });

  it("while throttled, one line per interval at most, with counts and pace, never a path or a header", async () => {
    const { clock, scheduler, lines } = setup({ maxConcurrency: 8, progressIntervalMs: 5000 });
    const service = new FakeService(clock, { rate: 5, burst: 5 }, 10);
    const secretPath = { method: "DELETE", path: "/v2/projects/p-1/service-accounts/sa-secretish" };
    const all = Promise.all(
      Array.from({ length: 150 }, (_, i) => scheduler.schedule(() => service.call(i), secretPath)),
    );
    const times: number[] = [];
    const seen = lines.length;
    for (let s = 0; s < 40; s++) {
      await clock.advance(1000);
      for (let i = times.length + seen; i < lines.length; i++) times.push(clock.now());
    }
    await all;
    expect(service.accepted).toBe(150);
    expect(lines.length).toBeGreaterThanOrEqual(4);
    expect(lines.length).toBeLessThanOrEqual(40 / 5 + 1);
    for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBeGreaterThanOrEqual(5000);
    for (const line of lines) {
      expect(line).toMatch(
        /^pulumi-pims: requests to the service: rate limited \(HTTP 429, \d+ refused so far\); \d+ requests? waiting, \d+ in flight, pace \d+\.\d requests\/s/,
      );
      expect(line).not.toMatch(/sa-secretish|\/v2|Bearer|retry-after/i);
    }
  });

  it("keeps reporting during a long pause", async () => {
    const { clock, scheduler, lines } = setup({ maxConcurrency: 1, progressIntervalMs: 5000 });
    const refuse = refusedOnce("20");
    const all = Promise.all(
      Array.from({ length: 3 }, (_, i) =>
        scheduler.schedule(async () => {
          refuse();
          return i;
        }, info),
      ),
    );
    await clock.advance(19_000);
    expect(lines).toHaveLength(4); // at 0, 5, 10 and 15 s
    expect(lines[1]).toContain("3 requests waiting, 0 in flight");
    expect(lines[1]).toContain("resuming in 15s");
    await clock.advance(5000);
    await all;
    expect(clock.pending).toBe(0);
  });
});
