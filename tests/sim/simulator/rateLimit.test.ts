/** The rate limit: a token bucket per bearer token, 429 with Retry-After in seconds or as an HTTP date, counters. */
import { PimsSimulator } from "../../../simulator";
import { message, simCalls } from "../../kit/sim/http";

let sim: PimsSimulator;
const { call, seedApp } = simCalls(() => sim);

afterEach(async () => {
  await sim.stop();
});

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe("rate limit", () => {
  it("allows a burst, then refuses with 429, a message and Retry-After in seconds; refills at the rate", async () => {
    // A slow refill (one request back every 500 ms): the four requests need not finish within a tight window on a
    // loaded machine for the fourth to find the bucket empty.
    sim = await PimsSimulator.start({ profile: "default", rateLimit: { rate: 2, burst: 3 } });
    const { projectId } = seedApp();
    const path = `/v2/projects/${projectId}/invoices`;
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await call("GET", path)).status);
    const refused = await call("GET", path);
    expect([...statuses, refused.status]).toEqual([200, 200, 200, 429]);
    expect(typeof message(refused)).toBe("string");
    expect(refused.headers.get("retry-after")).toBe("1");

    await sleep(700); // > 1/2 s: one request's worth has come back
    expect((await call("GET", path)).status).toBe(200);
    expect(sim.stats()).toEqual({ requests: 5, refused: 1, byStatus: { 200: 4, 429: 1 } });
    expect(sim.requests.map((r) => r.status)).toEqual([200, 200, 200, 429, 200]);
  });

  it("keeps one bucket per bearer token", async () => {
    sim = await PimsSimulator.start({ profile: "default", rateLimit: { rate: 1, burst: 1 } });
    const { projectId } = seedApp();
    sim.addServiceAccount({ projectId, name: "other", tokenSecret: "pims_sa_other_token_0001" });
    const path = `/v2/projects/${projectId}/invoices`;
    expect((await call("GET", path)).status).toBe(200);
    expect((await call("GET", path)).status).toBe(429);
    expect((await call("GET", path, { token: "pims_sa_other_token_0001" })).status).toBe(200);
    expect((await call("GET", path, { token: "pims_sa_other_token_0001" })).status).toBe(429);
    // requests without a token share one bucket too, and are refused before authentication
    expect((await call("GET", path, { token: null })).status).toBe(401);
    expect((await call("GET", path, { token: null })).status).toBe(429);
    expect(sim.stats().refused).toBe(3);
  });

  it("says Retry-After as an HTTP date when asked to", async () => {
    sim = await PimsSimulator.start({ profile: "default", rateLimit: { rate: 0.5, burst: 1, retryAfter: "date" } });
    const { projectId } = seedApp();
    await call("GET", `/v2/projects/${projectId}/invoices`);
    const before = Date.now();
    const r = await call("GET", `/v2/projects/${projectId}/invoices`);
    expect(r.status).toBe(429);
    const header = r.headers.get("retry-after") ?? "";
    expect(header).toMatch(/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
    const at = Date.parse(header);
    // one request back needs 2 s at 0.5/s; the date is rounded up to a whole second
    expect(at).toBeGreaterThanOrEqual(before + 1000);
    expect(at).toBeLessThanOrEqual(before + 3000);
  });

  it("does nothing for a refused request: no state change, no fault rule used", async () => {
    sim = await PimsSimulator.start({ profile: "default", rateLimit: { rate: 1, burst: 1 } });
    seedApp();
    sim.addFault({ kind: "status", status: 500, times: 1, method: "POST" });
    expect((await call("POST", "/v2/projects", { body: { name: "first" } })).status).toBe(500);
    const refused = await call("POST", "/v2/projects", { body: { name: "second" } });
    expect(refused.status).toBe(429);
    expect(sim.projects().map((p) => p.name)).not.toContain("second");
    sim.setRateLimit(undefined);
    expect((await call("POST", "/v2/projects", { body: { name: "third" } })).status).toBe(201);
  });

  it("can be set, changed and removed mid-test; stats can be reset", async () => {
    sim = await PimsSimulator.start({ profile: "default" });
    const { projectId } = seedApp();
    const path = `/v2/projects/${projectId}/api-keys`;
    expect(sim.rateLimit()).toBeUndefined();
    for (let i = 0; i < 30; i++) expect((await call("GET", path)).status).toBe(200);

    sim.setRateLimit({ rate: 5, burst: 2, retryAfter: "seconds" });
    expect(sim.rateLimit()).toEqual({ rate: 5, burst: 2, retryAfter: "seconds" });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await call("GET", path)).status);
    expect(statuses).toEqual([200, 200, 429, 429]);

    sim.setRateLimit({ rate: 5, burst: 4 }); // buckets start full again
    expect((await call("GET", path)).status).toBe(200);
    sim.setRateLimit(undefined);
    for (let i = 0; i < 10; i++) expect((await call("GET", path)).status).toBe(200);
    expect(sim.stats()).toMatchObject({ requests: 45, refused: 2 });
    sim.resetStats();
    expect(sim.stats()).toEqual({ requests: 0, refused: 0, byStatus: {} });
    expect(() => sim.setRateLimit({ rate: 0, burst: 1 })).toThrow("rate must be a number > 0");
    expect(() => sim.setRateLimit({ rate: 1, burst: 0.5 })).toThrow("burst must be a number >= 1");
  });
});
