/**
 * The client's retry policy, its limits: what is never retried (400/401/402/404/409/422, 500/501; a POST on a
 * dropped connection or a timeout) and the bounds (retry count, backoff, connection refused).
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import {
  AuthError,
  ConflictError,
  NetworkError,
  NotFoundError,
  PaymentError,
  PimsClient,
  PimsError,
  ServerError,
  TimeoutError,
  ValidationError,
} from "../../../provider/client";
import { seed } from "../../kit/sim/retry";
import { rejectionOf } from "../../kit/rejection";
import { testClient, useClientSuite } from "../../kit/sim/client";

const suite = useClientSuite();

describe("what is never retried", () => {
  const cases: Array<[number, abstract new (...args: never[]) => PimsError, string]> = [
    [400, ValidationError, "validation"],
    [401, AuthError, "auth"],
    [403, AuthError, "auth"],
    [402, PaymentError, "payment"],
    [404, NotFoundError, "not_found"],
    [409, ConflictError, "conflict"],
    [422, ValidationError, "validation"],
    [500, ServerError, "server"],
    [501, ServerError, "server"],
  ];

  it.each(cases)("%i on GET, PATCH and DELETE → 1 request each", async (status, cls, kind) => {
    const ids = await seed(suite.sim);
    suite.sim.addFault({ kind: "status", status });
    const c = testClient(suite.sim);
    for (const run of [
      () => c.listInvoices(ids.projectId),
      () => c.resizeVolume(ids.projectId, ids.volumeId, 200),
      () => c.cancelRun(ids.projectId, ids.appId, ids.runId),
    ]) {
      suite.sim.clearRequests();
      const err = await rejectionOf(run(), cls);
      expect(err).toMatchObject({ kind, status, attempts: 1 });
      expect(suite.sim.requests).toHaveLength(1);
    }
  });

  it("a POST is not retried on a dropped connection: 1 request, NetworkError, no project", async () => {
    await seed(suite.sim);
    const before = suite.sim.projects().length;
    suite.sim.addFault({ kind: "drop", method: "POST", times: 1 });
    const err = await rejectionOf(testClient(suite.sim).createProject({ name: "dropped" }), NetworkError);
    expect(err).toMatchObject({ attempts: 1, method: "POST", path: "/v2/projects" });
    expect(err.toString()).toBe('creating project "dropped": could not reach the service (ECONNRESET)');
    expect(suite.sim.requests).toHaveLength(1);
    expect(suite.sim.projects()).toHaveLength(before);
  });

  it("a POST is not retried on a timeout (it may have reached the service)", async () => {
    const ids = await seed(suite.sim);
    suite.sim.addFault({ kind: "delay", delayMs: 400, method: "POST", times: 1 });
    await rejectionOf(
      testClient(suite.sim, { timeoutMs: 100 }).createServiceAccount(ids.projectId, {
        name: "slow",
        grants: [ids.projectId],
        expiresIn: 0,
      }),
      TimeoutError,
    );
    expect(suite.sim.requests).toHaveLength(1);
    // The service did create it after the delay: exactly what a retry would have duplicated.
    await new Promise((r) => setTimeout(r, 500));
    expect(suite.sim.serviceAccounts(ids.projectId).filter((s) => s.name === "slow")).toHaveLength(1);
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe("bounds", () => {
  it("retries: 2 with a permanent 503 → exactly 3 requests, then ServerError with attempts 3", async () => {
    const ids = await seed(suite.sim);
    suite.sim.addFault({ kind: "status", status: 503 });
    const onRetry: number[] = [];
    const err = await rejectionOf(
      testClient(suite.sim, { retries: 2, onRetry: (i) => onRetry.push(i.attempt) }).listApiKeys(ids.projectId),
      ServerError,
    );
    expect(err).toMatchObject({ status: 503, attempts: 3, serverMessage: "injected fault" });
    expect(err.toString()).toBe(`listing API keys of project ${ids.projectId}: 503 injected fault`);
    expect(suite.sim.requests).toHaveLength(3);
    expect(onRetry).toEqual([1, 2]);
  });

  it("default: 4 retries (5 requests); retries: 0 → 1 request", async () => {
    const ids = await seed(suite.sim);
    suite.sim.addFault({ kind: "status", status: 502 });
    const err = await rejectionOf(testClient(suite.sim).listInvoices(ids.projectId), ServerError);
    expect(err.attempts).toBe(5);
    expect(suite.sim.requests).toHaveLength(5);

    suite.sim.clearRequests();
    const once = await rejectionOf(testClient(suite.sim, { retries: 0 }).listInvoices(ids.projectId), ServerError);
    expect(once.attempts).toBe(1);
    expect(suite.sim.requests).toHaveLength(1);
  });

  it("backoff delays stay within [min/2, max] and grow", async () => {
    const ids = await seed(suite.sim);
    suite.sim.addFault({ kind: "status", status: 503 });
    const delays: number[] = [];
    await rejectionOf(
      testClient(suite.sim, {
        retries: 4,
        minDelayMs: 10,
        maxDelayMs: 40,
        onRetry: (i) => delays.push(i.delayMs),
      }).listInvoices(ids.projectId),
      ServerError,
    );
    expect(delays).toHaveLength(4);
    const ceilings = [10, 20, 40, 40];
    delays.forEach((d, i) => {
      expect(d).toBeGreaterThanOrEqual(ceilings[i] / 2);
      expect(d).toBeLessThanOrEqual(ceilings[i]);
    });
    // the gaps the simulator saw are at least the chosen delays
    for (let i = 1; i < suite.sim.requests.length; i++)
      expect(suite.sim.requests[i].at - suite.sim.requests[i - 1].at).toBeGreaterThanOrEqual(delays[i - 1] - 2);
  });

  it("connection refused on a closed port → NetworkError after every retry (a POST too: it never left)", async () => {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));

    const reasons: string[] = [];
    const c = new PimsClient({
      baseUrl: `http://127.0.0.1:${port}`,
      token: "t0123456789",
      retries: 2,
      minDelayMs: 1,
      maxDelayMs: 2,
      onRetry: (i) => reasons.push(i.reason),
    });
    const get = await rejectionOf(c.listInvoices("p-1"), NetworkError);
    expect(get).toMatchObject({ kind: "network", code: "ECONNREFUSED", attempts: 3 });
    const post = await rejectionOf(c.createProject({ name: "never-sent" }), NetworkError);
    expect(post).toMatchObject({ kind: "network", code: "ECONNREFUSED", attempts: 3, method: "POST" });
    expect(reasons).toEqual(Array(4).fill("ECONNREFUSED"));
  });
});
