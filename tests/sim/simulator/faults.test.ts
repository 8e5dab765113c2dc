/**
 * The fault switch: injected statuses, 429s, delays and dropped connections, before or after the change is committed.
 */
import { waitFor } from "../../kit/sim/cli";
import { message, useSimulatorSuite } from "../../kit/sim/http";

const suite = useSimulatorSuite("default");
const { call, seedApp } = suite;

describe("faults", () => {
  it("status: answers the injected status the given number of times, then normally", async () => {
    const { projectId } = seedApp();
    suite.sim.addFault({ kind: "status", status: 502, times: 2, path: `/v2/projects/${projectId}/invoices` });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await call("GET", `/v2/projects/${projectId}/invoices`)).status);
    expect(statuses).toEqual([502, 502, 200]);
    expect(suite.sim.countRequests({ path: `/v2/projects/${projectId}/invoices` })).toBe(3);
    expect(suite.sim.requests.map((r) => r.status)).toEqual([502, 502, 200]);

    suite.sim.addFault({ kind: "status", method: "POST" });
    const r = await call("POST", "/v2/projects", { body: { name: "xx" } });
    expect(r.json).toEqual({ message: "injected fault" });
    expect(r.status).toBe(503);
    expect(suite.sim.projects()).toHaveLength(1);
    expect((await call("GET", `/v2/projects/${projectId}/invoices`)).status).toBe(200);
  });

  it("status with a body: answers that JSON (200 and [] on the listing: a credential that sees nothing)", async () => {
    const { projectId } = seedApp();
    suite.sim.addServiceAccount({ projectId, name: "seen" });
    const path = `/v2/projects/${projectId}/api-keys`;
    suite.sim.addFault({ kind: "status", status: 200, body: [], times: 1, path });
    const blind = await call("GET", path);
    expect([blind.status, blind.json]).toEqual([200, []]);
    expect(((await call("GET", path)).json as Array<{ name: string }>).map((k) => k.name)).toContain("seen");
  });

  it("a listing that lags: a new account's key is left out until the lag has passed (simulator clock)", async () => {
    const { projectId } = seedApp();
    suite.sim.setListingLag(60_000);
    const created = await call("POST", `/v2/projects/${projectId}/service-accounts`, {
      body: { name: "late", grants: [projectId], expiresIn: 0 },
    });
    expect(created.status).toBe(201);
    const names = async (): Promise<string[]> =>
      ((await call("GET", `/v2/projects/${projectId}/api-keys`)).json as Array<{ name: string }>).map((k) => k.name);
    expect(await names()).not.toContain("late");
    suite.sim.advanceClock(60_000);
    expect(await names()).toContain("late");
  });

  it("rateLimit: 429 with Retry-After, matching a path prefix", async () => {
    const { projectId } = seedApp();
    suite.sim.addFault({ kind: "rateLimit", retryAfter: "2", times: 1, path: "/v2/projects/*" });
    const limited = await call("GET", `/v2/projects/${projectId}/api-keys`);
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("2");
    expect(limited.json).toEqual({ message: "rate limited" });
    expect((await call("GET", `/v2/projects/${projectId}/api-keys`)).status).toBe(200);
    expect(suite.sim.requests.map((r) => r.status)).toEqual([429, 200]);

    suite.sim.addFault({ kind: "rateLimit" });
    expect((await call("GET", `/v2/projects/${projectId}/api-keys`)).headers.get("retry-after")).toBe("0");
  });

  it("delay: waits, then handles normally", async () => {
    const { projectId } = seedApp();
    suite.sim.addFault({ kind: "delay", delayMs: 300, times: 1 });
    const started = Date.now();
    const r = await call("POST", "/v2/projects", { body: { name: "slow" } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(r.status).toBe(201);
    expect(suite.sim.projects().map((p) => p.name)).toContain("slow");
    expect(suite.sim.requests).toHaveLength(1);
    expect(suite.sim.requests[0].status).toBe(201);
    expect((await call("GET", `/v2/projects/${projectId}/invoices`)).status).toBe(200);
  });

  it("drop: destroys the connection and logs status 0", async () => {
    const { projectId } = seedApp();
    suite.sim.addFault({ kind: "drop", times: 1, method: "PATCH" });
    const volume = suite.sim.addVolume(projectId, { sizeGb: 100 });
    const path = `/v2/projects/${projectId}/volumes/${volume.id}/resize`;
    await expect(call("PATCH", path, { body: { newSizeGb: 300 } })).rejects.toThrow();
    expect(suite.sim.volume(projectId, volume.id)?.sizeGb).toBe(100);
    const ok = await call("PATCH", path, { body: { newSizeGb: 300 } });
    expect(ok.status).toBe(200);
    expect(suite.sim.requests.map((r) => [r.method, r.status])).toEqual([
      ["PATCH", 0],
      ["PATCH", 200],
    ]);
    expect(suite.sim.requests[0].body).toEqual({ newSizeGb: 300 });
  });

  it("probability: draws from a seeded PRNG so the pattern is reproducible", async () => {
    const pattern = async (): Promise<number[]> => {
      const { projectId } = seedApp();
      suite.sim.clearFaults();
      suite.sim.addFault({ kind: "status", status: 500, probability: 0.5, seed: 42 });
      const out: number[] = [];
      for (let i = 0; i < 20; i++) out.push((await call("GET", `/v2/projects/${projectId}/invoices`)).status);
      return out;
    };
    const a = await pattern();
    const b = await pattern();
    expect(a).toEqual(b);
    expect(a).toContain(500);
    expect(a).toContain(200);
    suite.sim.clearFaults();
    const { projectId } = seedApp();
    expect((await call("GET", `/v2/projects/${projectId}/invoices`)).status).toBe(200);
  });

  it("the first matching rule with uses left wins", async () => {
    const { projectId } = seedApp();
    suite.sim.addFault({ kind: "status", status: 500, times: 1, method: "GET" });
    suite.sim.addFault({ kind: "status", status: 502, times: 1 });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await call("GET", `/v2/projects/${projectId}/invoices`)).status);
    expect(statuses).toEqual([500, 502, 200]);
  });
});

describe("faults after the change is committed (afterCommit)", () => {
  it("status: the service account is created, the answer is 503, the request log keeps the handler's", async () => {
    const { projectId } = seedApp();
    suite.sim.addFault({ kind: "status", method: "POST", path: /\/service-accounts$/, afterCommit: true, times: 1 });
    const r = await call("POST", `/v2/projects/${projectId}/service-accounts`, {
      body: { name: "ci", grants: [projectId], expiresIn: 0 },
    });
    expect(r.status).toBe(503);
    expect(r.json).toEqual({ message: "injected fault" });
    expect(r.text).not.toContain("pims_sa_");
    const held = suite.sim.serviceAccounts(projectId);
    expect(held.map((a) => a.name)).toEqual(["ci"]);
    expect(suite.sim.requests.map((e) => [e.status, e.handledStatus])).toEqual([[503, 201]]);

    // the next request is answered normally: a second account, and the first one is still there
    const again = await call("POST", `/v2/projects/${projectId}/service-accounts`, {
      body: { name: "ci", grants: [projectId], expiresIn: 0 },
    });
    expect(again.status).toBe(201);
    expect(suite.sim.serviceAccounts(projectId)).toHaveLength(2);
    expect(suite.sim.requests[1].handledStatus).toBeUndefined();
  });

  it("status before commit (the default) leaves nothing behind", async () => {
    const { projectId } = seedApp();
    suite.sim.addFault({ kind: "status", status: 502, method: "POST", times: 1 });
    const r = await call("POST", `/v2/projects/${projectId}/service-accounts`, {
      body: { name: "ci", grants: [projectId], expiresIn: 0 },
    });
    expect(r.status).toBe(502);
    expect(suite.sim.serviceAccounts(projectId)).toEqual([]);
    expect(suite.sim.requests[0].handledStatus).toBeUndefined();
  });

  it("drop: the project is created, the connection is dropped", async () => {
    suite.sim.addFault({ kind: "drop", method: "POST", path: "/v2/projects", afterCommit: true, times: 1 });
    await expect(call("POST", "/v2/projects", { body: { name: "dropped" } })).rejects.toThrow();
    expect(suite.sim.projects().map((p) => p.name)).toEqual(["dropped"]);
    expect(suite.sim.requests.map((e) => [e.status, e.handledStatus])).toEqual([[0, 201]]);
  });

  it("a handler failure stays a failure underneath: nothing committed, the log says so", async () => {
    const { projectId } = seedApp();
    suite.sim.addFault({ kind: "status", afterCommit: true, times: 1 });
    const r = await call("POST", `/v2/projects/${projectId}/service-accounts`, {
      body: { name: "", grants: [projectId], expiresIn: 0 },
    });
    expect(r.status).toBe(503);
    expect(suite.sim.serviceAccounts()).toEqual([]);
    expect(suite.sim.requests[0].handledStatus).toBe(422);
  });

  it("delay: commits after the client has gone (the handler runs once the delay is over, answered or no)", async () => {
    const { projectId } = seedApp();
    suite.sim.addFault({ kind: "delay", method: "POST", path: /\/service-accounts$/, delayMs: 1000, times: 1 });
    // The client stops waiting after 50 ms: POST /v2/projects/{project_id}/service-accounts gets no answer.
    const sent = fetch(`${suite.sim.baseUrl}/v2/projects/${projectId}/service-accounts`, {
      method: "POST",
      headers: { Authorization: `Bearer ${suite.sim.token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ name: "late", grants: [projectId], expiresIn: 0 }),
      signal: AbortSignal.timeout(50),
    });
    await expect(sent).rejects.toThrow();
    expect(suite.sim.serviceAccounts(projectId)).toEqual([]); // not yet: the service is still "working"
    await waitFor(() => suite.sim.serviceAccounts(projectId).length > 0, "the delayed create to commit");
    expect(suite.sim.serviceAccounts(projectId).map((a) => a.name)).toEqual(["late"]);
    expect(suite.sim.requests).toHaveLength(1);
  });

  it("refuses afterCommit on kinds where it means nothing", () => {
    expect(() => suite.sim.addFault({ kind: "delay", delayMs: 1, afterCommit: true })).toThrow(
      "afterCommit applies to faults of kind status or drop",
    );
    expect(() => suite.sim.addFault({ kind: "rateLimit", afterCommit: true })).toThrow(
      "afterCommit applies to faults of kind status or drop",
    );
  });
});

describe("removeProject: a project deleted outside any tool", () => {
  it("answers 404 on every route under it, deletes its accounts and keys, leaves other projects alone", async () => {
    const { projectId, appId } = seedApp();
    const other = seedApp("api");
    const volume = suite.sim.addVolume(projectId, { sizeGb: 100 });
    const run = suite.sim.addRun(projectId, appId);
    const build = suite.sim.addBuild(projectId, appId, { status: "success" });
    suite.sim.addApiKey(projectId, { id: "k-seeded" });
    const r = await call("POST", `/v2/projects/${projectId}/service-accounts`, {
      body: { name: "ci", grants: [projectId, other.projectId], expiresIn: 0 },
    });
    const account = r.json as { id: string; token: { secret: string } };
    const keep = await call("POST", `/v2/projects/${other.projectId}/service-accounts`, {
      body: { name: "keep", grants: [other.projectId], expiresIn: 0 },
    });
    const kept = keep.json as { id: string };

    suite.sim.removeProject(projectId);

    expect(suite.sim.project(projectId)).toBeUndefined();
    expect(suite.sim.serviceAccounts().map((a) => a.id)).toEqual([kept.id]);
    expect(suite.sim.deletedServiceAccounts()).toEqual([account.id]);
    const base = `/v2/projects/${projectId}`;
    const calls: Array<[string, string, unknown?]> = [
      ["GET", `${base}/api-keys`],
      ["POST", `${base}/service-accounts`, { name: "x", grants: [other.projectId], expiresIn: 0 }],
      ["DELETE", `${base}/service-accounts/${account.id}`],
      ["PATCH", `${base}/volumes/${volume.id}/resize`, { newSizeGb: 200 }],
      ["GET", `${base}/invoices`],
      ["GET", `${base}/apps/${appId}/logs`],
      ["GET", `${base}/apps/${appId}/builds/${build.id}/logs`],
      ["PATCH", `${base}/apps/${appId}/secrets`, { A: "b" }],
      ["DELETE", `${base}/apps/${appId}/runs/${run.id}`],
    ];
    for (const [method, path, body] of calls) {
      const answer = await call(method, path, { body });
      expect([method, path, answer.status, message(answer)]).toEqual([
        method,
        path,
        404,
        `project ${projectId} not found`,
      ]);
    }
    // the removed project's account token no longer works anywhere
    expect(
      (await call("GET", `/v2/projects/${other.projectId}/invoices`, { token: account.token.secret })).status,
    ).toBe(401);
    const keys = (await call("GET", `/v2/projects/${other.projectId}/api-keys`)).json as Array<{
      principalId?: string;
    }>;
    expect(keys.map((k) => k.principalId)).toEqual([kept.id]);
    expect(() => suite.sim.removeProject(projectId)).toThrow(`project ${projectId} does not exist`);
  });
});
