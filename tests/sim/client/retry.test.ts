/**
 * The client's retry policy against the simulator's fault switch, with exact request counts from its request log:
 * every operation under every fault kind, and what is retried (408, 429, 502/503/504, dropped connections,
 * timeouts — a POST only on 429 or when the request never left), Retry-After and per-attempt timeouts. What is
 * never retried and the bounds: retryLimits.test.ts.
 */
import {
  NetworkError,
  PaymentError,
  RateLimitError,
  ServerError,
  TimeoutError,
  type ClientOptions,
} from "../../../provider/client";
import { Scheduler } from "../../../provider/client/scheduler";
import { expectUnchanged, OPS, seed } from "../../kit/sim/retry";
import { rejectionOf } from "../../kit/rejection";
import { testClient, useClientSuite } from "../../kit/sim/client";

const suite = useClientSuite();

describe("every operation under every fault kind (retries: 2)", () => {
  const opts: Partial<ClientOptions> = { retries: 2 };

  it.each(OPS)("402 → PaymentError, 1 request, nothing changed: $name", async (op) => {
    const ids = await seed(suite.sim);
    const before = suite.sim.projects().length;
    suite.sim.addFault({ kind: "status", status: 402 });
    const err = await rejectionOf(op.run(testClient(suite.sim, opts), ids), PaymentError);
    expect(err).toMatchObject({
      kind: "payment",
      status: 402,
      method: op.method,
      attempts: 1,
      serverMessage: "injected fault",
    });
    expect(err.path).toBe(suite.sim.requests[0].path);
    expect(suite.sim.requests).toHaveLength(1);
    expectUnchanged(suite.sim, ids, before);
  });

  it.each(OPS)("500 → ServerError, not retried: $name", async (op) => {
    const ids = await seed(suite.sim);
    const before = suite.sim.projects().length;
    suite.sim.addFault({ kind: "status", status: 500 });
    const err = await rejectionOf(op.run(testClient(suite.sim, opts), ids), ServerError);
    expect(err).toMatchObject({ kind: "server", status: 500, method: op.method, attempts: 1 });
    expect(suite.sim.requests).toHaveLength(1);
    expectUnchanged(suite.sim, ids, before);
  });

  // A 429 is repeated by the request scheduler until its time bound (here 0), not by the count-bounded retries.
  it.each(OPS)(
    "permanent 429 → RateLimitError once the rate-limit time bound is spent (a POST too): $name",
    async (op) => {
      const ids = await seed(suite.sim);
      const before = suite.sim.projects().length;
      suite.sim.addFault({ kind: "rateLimit" });
      const scheduler = new Scheduler({ rateLimitTimeoutMs: 0, onProgress: () => undefined });
      const err = await rejectionOf(op.run(testClient(suite.sim, { ...opts, scheduler }), ids), RateLimitError);
      expect(err).toMatchObject({ kind: "rate_limit", status: 429, method: op.method, attempts: 1 });
      expect(err.serverMessage).toBe(
        "rate limited; still rate limited (HTTP 429) after 0s (1 attempt); gave up at the 0s limit for rate-limited " +
          "requests (pims:rateLimitTimeoutMs or PIMS_RATE_LIMIT_TIMEOUT_MS)",
      );
      expect(suite.sim.requests.map((r) => r.status)).toEqual([429]);
      expectUnchanged(suite.sim, ids, before);
    },
  );

  it.each(OPS)("permanent 503 → ServerError; 3 requests, or 1 for a POST: $name", async (op) => {
    const ids = await seed(suite.sim);
    suite.sim.addFault({ kind: "status", status: 503 });
    const expected = op.method === "POST" ? 1 : 3;
    const err = await rejectionOf(op.run(testClient(suite.sim, opts), ids), ServerError);
    expect(err).toMatchObject({ kind: "server", status: 503, attempts: expected });
    expect(suite.sim.requests).toHaveLength(expected);
  });

  it.each(OPS)("permanent drop → NetworkError; 3 requests, or 1 for a POST: $name", async (op) => {
    const ids = await seed(suite.sim);
    const before = suite.sim.projects().length;
    suite.sim.addFault({ kind: "drop" });
    const expected = op.method === "POST" ? 1 : 3;
    const err = await rejectionOf(op.run(testClient(suite.sim, opts), ids), NetworkError);
    expect(err).not.toBeInstanceOf(TimeoutError);
    expect(err).toMatchObject({ kind: "network", method: op.method, attempts: expected, code: "ECONNRESET" });
    expect(err.status).toBeUndefined();
    expect(suite.sim.requests.map((r) => r.status)).toEqual(Array(expected).fill(0));
    expectUnchanged(suite.sim, ids, before); // dropped before the handler ran
  });

  it.each(OPS)("delay beyond timeoutMs → TimeoutError; 3 attempts, or 1 for a POST: $name", async (op) => {
    const ids = await seed(suite.sim);
    suite.sim.addFault({ kind: "delay", delayMs: 5000 });
    const expected = op.method === "POST" ? 1 : 3;
    const started = Date.now();
    const err = await rejectionOf(op.run(testClient(suite.sim, { ...opts, timeoutMs: 80 }), ids), TimeoutError);
    expect(err).toMatchObject({
      kind: "timeout",
      method: op.method,
      attempts: expected,
      serverMessage: "timed out waiting for the service",
    });
    expect(suite.sim.requests).toHaveLength(expected);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it.each(OPS)("one 503 then success; a POST is not retried: $name", async (op) => {
    const ids = await seed(suite.sim);
    suite.sim.addFault({ kind: "status", status: 503, times: 1 });
    if (op.method === "POST") {
      await rejectionOf(op.run(testClient(suite.sim, opts), ids), ServerError);
      expect(suite.sim.requests.map((r) => r.status)).toEqual([503]);
    } else {
      await op.run(testClient(suite.sim, opts), ids);
      expect(suite.sim.requests.map((r) => r.status)).toEqual([503, expect.any(Number)]);
      expect(suite.sim.requests[1].status).toBeLessThan(300);
    }
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe("what is retried", () => {
  it("429 with Retry-After: 0 twice, then success → 3 requests", async () => {
    const ids = await seed(suite.sim);
    suite.sim.addFault({ kind: "rateLimit", retryAfter: "0", times: 2 });
    const retries: string[] = [];
    const scheduler = new Scheduler({ onProgress: () => undefined });
    const c = testClient(suite.sim, {
      scheduler,
      onRetry: (i) => retries.push(`${i.attempt} ${i.method} ${i.path} ${i.reason}`),
    });
    expect(await c.listInvoices(ids.projectId)).toEqual([]);
    expect(suite.sim.requests.map((r) => r.status)).toEqual([429, 429, 200]);
    // Repeated by the scheduler (its progress line says so), not by the count-bounded retries.
    expect(retries).toEqual([]);
    expect(scheduler.stats()).toMatchObject({ started: 3, refused: 2 });
  });

  it("a POST is retried on 429 and creates exactly one account", async () => {
    const ids = await seed(suite.sim);
    suite.sim.addFault({ kind: "rateLimit", times: 2, method: "POST" });
    const sa = await testClient(suite.sim).createServiceAccount(ids.projectId, {
      name: "ci",
      grants: [ids.projectId],
      expiresIn: 60,
    });
    expect(suite.sim.requests.map((r) => r.status)).toEqual([429, 429, 201]);
    expect(
      suite.sim
        .serviceAccounts(ids.projectId)
        .map((s) => s.id)
        .sort(),
    ).toEqual([ids.accountId, sa.id].sort());

    suite.sim.clearRequests();
    suite.sim.addFault({ kind: "rateLimit", times: 1, method: "POST" });
    const id = await testClient(suite.sim).createProject({ name: "after-429" });
    expect(suite.sim.requests.map((r) => r.status)).toEqual([429, 201]);
    expect(
      suite.sim
        .projects()
        .filter((p) => p.name === "after-429")
        .map((p) => p.id),
    ).toEqual([id]);
  });

  it("a 429's Retry-After (1 s) is honoured whatever maxRetryAfterMs says: that cap is for 5xx answers", async () => {
    const ids = await seed(suite.sim);
    suite.sim.addFault({ kind: "rateLimit", retryAfter: "1", times: 1 });
    const delays: number[] = [];
    await testClient(suite.sim, { maxRetryAfterMs: 50, onRetry: (i) => delays.push(i.delayMs) }).listInvoices(
      ids.projectId,
    );
    expect(suite.sim.requests.map((r) => r.status)).toEqual([429, 200]);
    expect(delays).toEqual([]);
    expect(suite.sim.requests[1].at - suite.sim.requests[0].at).toBeGreaterThanOrEqual(900);
  });

  it("Retry-After: 0 on every answer is no burst: repeats follow the pace, until the time bound", async () => {
    const ids = await seed(suite.sim);
    suite.sim.addFault({ kind: "rateLimit", retryAfter: "0" });
    const scheduler = new Scheduler({ rateLimitTimeoutMs: 2500, onProgress: () => undefined });
    const err = await rejectionOf(testClient(suite.sim, { scheduler }).listInvoices(ids.projectId), RateLimitError);
    expect(err.attempts).toBe(suite.sim.requests.length);
    expect(suite.sim.requests.length).toBeGreaterThanOrEqual(2);
    expect(suite.sim.requests.length).toBeLessThanOrEqual(4);
    for (let i = 1; i < suite.sim.requests.length; i++)
      expect(suite.sim.requests[i].at - suite.sim.requests[i - 1].at).toBeGreaterThanOrEqual(900);
    expect(err.serverMessage).toMatch(
      /^rate limited; still rate limited \(HTTP 429\) after [\d.]+s \(\d+ attempts\); gave up at the 2.5s limit/,
    );
  });

  it("Retry-After as an HTTP date is honoured too", async () => {
    const ids = await seed(suite.sim);
    suite.sim.addFault({ kind: "rateLimit", retryAfter: new Date(Date.now() + 2000).toUTCString(), times: 1 });
    await testClient(suite.sim, { maxRetryAfterMs: 30 }).listInvoices(ids.projectId);
    expect(suite.sim.requests.map((r) => r.status)).toEqual([429, 200]);
    expect(suite.sim.requests[1].at - suite.sim.requests[0].at).toBeGreaterThanOrEqual(900);
  });

  it.each([502, 503, 504, 408])("%i once, then success (GET) → 2 requests", async (status) => {
    const ids = await seed(suite.sim);
    suite.sim.addFault({ kind: "status", status, times: 1 });
    const keys = await testClient(suite.sim).listApiKeys(ids.projectId);
    expect(keys).toHaveLength(1);
    expect(suite.sim.requests.map((r) => r.status)).toEqual([status, 200]);
  });

  it.each([502, 503, 504, 408])("%i twice, then success (PATCH) → 3 requests, resized once", async (status) => {
    const ids = await seed(suite.sim);
    suite.sim.addFault({ kind: "status", status, times: 2 });
    await testClient(suite.sim).resizeVolume(ids.projectId, ids.volumeId, 300);
    expect(suite.sim.requests.map((r) => r.status)).toEqual([status, status, 200]);
    expect(suite.sim.volume(ids.projectId, ids.volumeId)?.sizeGb).toBe(300);
  });

  it("a dropped connection, then success: GET, PATCH and DELETE each take 2 requests", async () => {
    const ids = await seed(suite.sim);
    const c = testClient(suite.sim);

    suite.sim.addFault({ kind: "drop", times: 1 });
    expect(await c.getBuildLogs(ids.projectId, ids.appId, ids.buildId)).toMatchObject({ status: "success" });
    expect(suite.sim.requests.map((r) => `${r.method} ${r.status}`)).toEqual(["GET 0", "GET 200"]);

    suite.sim.clearRequests();
    suite.sim.addFault({ kind: "drop", times: 1 });
    await c.updateAppSecrets(ids.projectId, ids.appId, { TOKEN_NAME: "v" });
    expect(suite.sim.requests.map((r) => `${r.method} ${r.status}`)).toEqual(["PATCH 0", "PATCH 200"]);
    expect(suite.sim.appSecrets(ids.projectId, ids.appId)).toEqual({ TOKEN_NAME: "v" });

    suite.sim.clearRequests();
    suite.sim.addFault({ kind: "drop", times: 1 });
    expect(await c.cancelRun(ids.projectId, ids.appId, ids.runId)).toBe(`run ${ids.runId} cancelled`);
    expect(suite.sim.requests.map((r) => `${r.method} ${r.status}`)).toEqual(["DELETE 0", "DELETE 200"]);
    expect(suite.sim.runs().find((r) => r.id === ids.runId)?.status).toBe("cancelled");

    suite.sim.clearRequests();
    suite.sim.addFault({ kind: "drop", times: 1 });
    await c.deleteServiceAccount(ids.projectId, ids.accountId);
    expect(suite.sim.requests.map((r) => `${r.method} ${r.status}`)).toEqual(["DELETE 0", "DELETE 200"]);
    expect(suite.sim.deletedServiceAccounts()).toEqual([ids.accountId]);
  });

  it("per-attempt timeout: the first attempt hangs, the second answers → success in 2 requests", async () => {
    const ids = await seed(suite.sim);
    suite.sim.addFault({ kind: "delay", delayMs: 3000, times: 1 });
    const reasons: string[] = [];
    const started = Date.now();
    const keys = await testClient(suite.sim, { timeoutMs: 150, onRetry: (i) => reasons.push(i.reason) }).listApiKeys(
      ids.projectId,
    );
    expect(keys).toHaveLength(1);
    expect(suite.sim.requests).toHaveLength(2);
    expect(reasons).toEqual(["timeout"]);
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it("the timeout is per attempt: a retry gets the whole timeout again, however long the first one took", async () => {
    const ids = await seed(suite.sim);
    // Wide margins (a loaded machine answers late): the second answer comes 500 ms inside its own timeout, and 1.5 s
    // after the start, which a timeout for the whole call (1 s) would never have waited for.
    suite.sim.addFault({ kind: "delay", delayMs: 2000, times: 1 }); // times out at 1000 ms
    suite.sim.addFault({ kind: "delay", delayMs: 500, times: 1 }); // answers within 1000 ms, 1500+ ms after the start
    const started = Date.now();
    expect(await testClient(suite.sim, { timeoutMs: 1000 }).listInvoices(ids.projectId)).toEqual([]);
    expect(suite.sim.requests).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1490);
  });
});
