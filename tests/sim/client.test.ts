/**
 * The typed client (provider/client) against the simulator: every operation's happy path (state visible in the
 * simulator), every error the simulator can produce for it, error text and secret hygiene, log paging, and
 * liberal parsing of odd-but-valid responses (from a tiny real HTTP server on loopback).
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as util from "node:util";
import {
  AuthError,
  ConflictError,
  NetworkError,
  NotFoundError,
  PimsClient,
  PimsError,
  TimeoutError,
  ValidationError,
  validateLogsQuery,
  type AppLogsQuery,
} from "../../provider/client";
import { expectNoPlaintextSecrets, rejectionOf, testClient } from "../helpers";
import { PimsSimulator } from "../../simulator";

let sim: PimsSimulator;
let client: PimsClient;

beforeEach(async () => {
  sim = await PimsSimulator.start();
  client = testClient(sim);
});

afterEach(async () => {
  await sim.stop();
});

/** Every text a user or a log could see of an error. */
function errorTexts(err: unknown): Record<string, string> {
  const e = err as Error;
  return {
    "String(err)": String(err),
    "err.message": e.message,
    "err.stack": e.stack ?? "",
    "JSON.stringify(err)": JSON.stringify(err),
    "util.inspect(err)": util.inspect(err, { depth: 10 }),
  };
}

function expectErrorFreeOf(err: unknown, secrets: string[]): void {
  for (const [where, text] of Object.entries(errorTexts(err))) expectNoPlaintextSecrets(text, secrets, where);
}

/** A project with an app; returns their ids. */
function seed(opts: { protected?: boolean; id?: string } = {}): { projectId: string; appId: string } {
  const projectId = sim.addProject({ protected: opts.protected, id: opts.id }).id;
  return { projectId, appId: sim.addApp(projectId, "web").id };
}

const saRequest = (projectId: string, extra: Record<string, unknown> = {}) => ({
  name: "ci",
  description: "deploys",
  grants: [projectId],
  expiresIn: 3600,
  ...extra,
});

// ---------------------------------------------------------------------------------------------------------------
describe("happy paths: one request each, state visible in the simulator", () => {
  it("1 listApiKeys: seeded and service-account keys, sorted by expiresAt, never last", async () => {
    const { projectId } = seed();
    sim.addApiKey(projectId, { id: "k-never", expiresAt: "never", name: "forever" });
    sim.addApiKey(projectId, { id: "k-2030", expiresAt: "2030-01-01T00:00:00.000Z", name: "later" });
    const sa = await client.createServiceAccount(projectId, saRequest(projectId, { expiresIn: 60 }));
    sim.clearRequests();

    const keys = await client.listApiKeys(projectId);
    expect(keys.map((k) => k.id)).toEqual([sa.token.id, "k-2030", "k-never"]);
    expect(keys[0]).toMatchObject({ principalId: sa.id, source: "service_account", status: "active", projectId });
    expect(keys[2]).not.toHaveProperty("principalId");
    expect(keys[2].expiresAt).toBe("never");
    expect(sim.requests).toEqual([expect.objectContaining({ method: "GET", path: `/v2/projects/${projectId}/api-keys`, status: 200 })]);
  });

  it("2 createServiceAccount: sends the body as given, returns the one-time token, the account exists", async () => {
    const { projectId } = seed();
    const other = sim.addProject().id;
    const sa = await client.createServiceAccount(projectId, saRequest(projectId, { grants: [projectId, other] }));

    expect(sa).toMatchObject({ name: "ci", description: "deploys", projectId, grants: [projectId, other] });
    expect(sa.token.secret).toMatch(/^pims_sa_/);
    expect(sim.issuedSecrets()).toContain(sa.token.secret);
    expect(Date.parse(sa.token.expiresAt) - Date.parse(sa.createdAt)).toBe(3600_000);
    expect(sim.serviceAccounts(projectId)).toEqual([
      expect.objectContaining({ id: sa.id, name: "ci", grants: [projectId, other], tokenId: sa.token.id }),
    ]);
    expect(sim.requests).toHaveLength(1);
    expect(sim.requests[0]).toMatchObject({
      method: "POST",
      path: `/v2/projects/${projectId}/service-accounts`,
      status: 201,
      body: { name: "ci", description: "deploys", grants: [projectId, other], expiresIn: 3600 },
    });

    const forever = await client.createServiceAccount(projectId, saRequest(projectId, { name: "forever", expiresIn: 0 }));
    expect(forever.token.expiresAt).toBe("never");
  });

  it("3 deleteServiceAccount: the account is gone and its token stops working", async () => {
    const { projectId } = seed();
    const sa = await client.createServiceAccount(projectId, saRequest(projectId));
    sim.clearRequests();

    const res = await client.deleteServiceAccount(projectId, sa.id);
    expect(res).toEqual({ message: `service account ${sa.id} deleted` });
    expect(sim.serviceAccounts(projectId)).toEqual([]);
    expect(sim.deletedServiceAccounts()).toEqual([sa.id]);
    expect(sim.requests).toEqual([
      expect.objectContaining({ method: "DELETE", path: `/v2/projects/${projectId}/service-accounts/${sa.id}`, status: 200 }),
    ]);

    const asDeleted = new PimsClient({ baseUrl: sim.baseUrl, token: sa.token.secret, retries: 0 });
    await rejectionOf(asDeleted.listInvoices(projectId), AuthError);
  });

  it("4 resizeVolume: the volume grows; above 1024 GB on a protected project", async () => {
    const { projectId } = seed();
    const vol = sim.addVolume(projectId, { sizeGb: 50 });
    expect(await client.resizeVolume(projectId, vol.id, 100)).toBe(`volume ${vol.id} resized to 100 GB`);
    expect(sim.volume(projectId, vol.id)?.sizeGb).toBe(100);
    expect(await client.resizeVolume(projectId, vol.id, 100)).toBe(`volume ${vol.id} resized to 100 GB`); // same size: allowed
    expect(sim.requests.map((r) => [r.method, r.path, r.status, r.body])).toEqual([
      ["PATCH", `/v2/projects/${projectId}/volumes/${vol.id}/resize`, 200, { newSizeGb: 100 }],
      ["PATCH", `/v2/projects/${projectId}/volumes/${vol.id}/resize`, 200, { newSizeGb: 100 }],
    ]);

    const prot = seed({ protected: true }).projectId;
    const big = sim.addVolume(prot, { sizeGb: 1024 });
    await client.resizeVolume(prot, big.id, 4096);
    expect(sim.volume(prot, big.id)?.sizeGb).toBe(4096);
  });

  it("5 createProject: returns the plain-text id of a project the simulator now holds", async () => {
    const before = sim.projects().length;
    const id = await client.createProject({ name: "my-app" });
    expect(id).toMatch(/^p-[0-9a-f]{8}$/);
    expect(sim.projects()).toHaveLength(before + 1);
    expect(sim.project(id)).toMatchObject({ id, name: "my-app", protected: false });
    expect(sim.requests).toEqual([expect.objectContaining({ method: "POST", path: "/v2/projects", status: 201, body: { name: "my-app" } })]);
  });

  it("6 listInvoices: the seeded invoices, unchanged; [] for none", async () => {
    const { projectId } = seed();
    expect(await client.listInvoices(projectId)).toEqual([]);
    const a = sim.addInvoice(projectId, { amountDue: 0, paymentStatus: "open" });
    const b = sim.addInvoice(projectId, { currency: "eur" });
    expect(await client.listInvoices(projectId)).toEqual([a, b]);
    expect(sim.countRequests({ method: "GET", path: `/v2/projects/${projectId}/invoices` })).toBe(2);
  });

  it("7 getAppLogsPage: one page with the real query names", async () => {
    const { projectId, appId } = seed();
    const added = sim.addLogs(projectId, appId, [
      { logLine: "first", timestamp: "2024-05-01T10:00:00.000Z" },
      { logLine: "second", timestamp: "2024-05-01T10:00:01.000Z", stream: "stderr" },
      { logLine: "third", timestamp: "2024-05-01T10:00:02.000Z" },
    ]);
    const page = await client.getAppLogsPage(projectId, appId, { direction: "forward", pageSize: 2 });
    expect(page.logs).toEqual(added.slice(0, 2));
    expect(page.hasMore).toBe(true);
    expect(typeof page.nextPageToken).toBe("string");
    const last = await client.getAppLogsPage(projectId, appId, { direction: "forward", pageSize: 2, nextToken: page.nextPageToken });
    expect(last).toEqual({ hasMore: false, logs: [added[2]] });
    expect(sim.requests.map((r) => r.query)).toEqual([
      { direction: "forward", pageSize: "2" },
      { direction: "forward", pageSize: "2", nextToken: page.nextPageToken },
    ]);

    const filtered = await client.getAppLogsPage(projectId, appId, {
      stream: "stderr",
      search: "sec",
      afterDate: "2024-05-01T09:00:00Z",
      beforeDate: "2024-05-01T11:00:00Z",
    });
    expect(filtered.logs.map((l) => l.logLine)).toEqual(["second"]);
    expect(sim.requests[2].query).toEqual({
      stream: "stderr",
      search: "sec",
      afterDate: "2024-05-01T09:00:00Z",
      beforeDate: "2024-05-01T11:00:00Z",
    });
  });

  it("8 getBuildLogs: status and entries; a status change is seen on the next read", async () => {
    const { projectId, appId } = seed();
    const build = sim.addBuild(projectId, appId, { status: "building", logs: [{ log: "step 1" }] });
    const first = await client.getBuildLogs(projectId, appId, build.id);
    expect(first).toMatchObject({ app_id: appId, build_id: build.id, project_id: projectId, status: "building" });
    expect(first.logs.map((l) => l.log)).toEqual(["step 1"]);
    expect(first.logs[0].id).toBe(`${build.id}-1`);

    sim.setBuildStatus(projectId, appId, build.id, "success", ["step 2", "done"]);
    const second = await client.getBuildLogs(projectId, appId, build.id);
    expect(second.status).toBe("success");
    expect(second.logs.map((l) => l.log)).toEqual(["step 1", "step 2", "done"]);
    expect(sim.countRequests({ method: "GET", path: `/v2/projects/${projectId}/apps/${appId}/builds/${build.id}/logs` })).toBe(2);
  });

  it("9 updateAppSecrets: the simulator holds the sent map (merge mode merges, replace mode replaces)", async () => {
    const { projectId, appId } = seed();
    expect(await client.updateAppSecrets(projectId, appId, { DB_URL: "postgres://x", API_KEY: "k1" })).toBe("secrets updated");
    expect(sim.appSecrets(projectId, appId)).toEqual({ DB_URL: "postgres://x", API_KEY: "k1" });
    await client.updateAppSecrets(projectId, appId, { API_KEY: "k2" });
    expect(sim.appSecrets(projectId, appId)).toEqual({ DB_URL: "postgres://x", API_KEY: "k2" });
    sim.setSecretsMode("replace");
    await client.updateAppSecrets(projectId, appId, { ONLY: "v" });
    expect(sim.appSecrets(projectId, appId)).toEqual({ ONLY: "v" });
    expect(sim.requests.map((r) => [r.method, r.path, r.body])).toEqual([
      ["PATCH", `/v2/projects/${projectId}/apps/${appId}/secrets`, { DB_URL: "postgres://x", API_KEY: "k1" }],
      ["PATCH", `/v2/projects/${projectId}/apps/${appId}/secrets`, { API_KEY: "k2" }],
      ["PATCH", `/v2/projects/${projectId}/apps/${appId}/secrets`, { ONLY: "v" }],
    ]);
  });

  it("10 cancelRun: the run is cancelled", async () => {
    const { projectId, appId } = seed();
    const run = sim.addRun(projectId, appId);
    expect(await client.cancelRun(projectId, appId, run.id)).toBe(`run ${run.id} cancelled`);
    expect(sim.runs().find((r) => r.id === run.id)?.status).toBe("cancelled");
    expect(sim.requests).toEqual([
      expect.objectContaining({ method: "DELETE", path: `/v2/projects/${projectId}/apps/${appId}/runs/${run.id}`, status: 200 }),
    ]);
  });

  it("sends the bearer token, JSON content type and encodes path segments", async () => {
    const { projectId } = seed();
    const err = await rejectionOf(client.deleteServiceAccount(projectId, "a/b c"), NotFoundError);
    expect(sim.requests[0].path).toBe(`/v2/projects/${projectId}/service-accounts/a%2Fb%20c`);
    expect(err.serverMessage).toBe("service account a/b c not found");
    expect(err.path).toBe(`/v2/projects/${projectId}/service-accounts/a%2Fb%20c`);
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe("errors the simulator produces", () => {
  interface Op {
    name: string;
    method: string;
    run: (c: PimsClient, ids: { projectId: string; appId: string }) => Promise<unknown>;
  }
  const P = "p-00000000"; // a project that does not exist

  const notFound: Array<Op & { message: (ids: { projectId: string; appId: string }) => string }> = [
    { name: "listApiKeys (project)", method: "GET", run: (c) => c.listApiKeys(P), message: () => `project ${P} not found` },
    { name: "createServiceAccount (project)", method: "POST", run: (c, i) => c.createServiceAccount(P, saRequest(i.projectId)), message: () => `project ${P} not found` },
    { name: "deleteServiceAccount (account)", method: "DELETE", run: (c, i) => c.deleteServiceAccount(i.projectId, "sa-nope"), message: () => "service account sa-nope not found" },
    { name: "deleteServiceAccount (project)", method: "DELETE", run: (c) => c.deleteServiceAccount(P, "sa-nope"), message: () => `project ${P} not found` },
    { name: "resizeVolume (volume)", method: "PATCH", run: (c, i) => c.resizeVolume(i.projectId, "vol-nope", 100), message: () => "volume vol-nope not found" },
    { name: "listInvoices (project)", method: "GET", run: (c) => c.listInvoices(P), message: () => `project ${P} not found` },
    { name: "getAppLogsPage (app)", method: "GET", run: (c, i) => c.getAppLogsPage(i.projectId, "app-nope"), message: () => "app app-nope not found" },
    { name: "getBuildLogs (build)", method: "GET", run: (c, i) => c.getBuildLogs(i.projectId, i.appId, "b-nope"), message: () => "build b-nope not found" },
    { name: "getBuildLogs (app)", method: "GET", run: (c, i) => c.getBuildLogs(i.projectId, "app-nope", "b-nope"), message: () => "app app-nope not found" },
    { name: "updateAppSecrets (app)", method: "PATCH", run: (c, i) => c.updateAppSecrets(i.projectId, "app-nope", { A: "b" }), message: () => "app app-nope not found" },
    { name: "cancelRun (run)", method: "DELETE", run: (c, i) => c.cancelRun(i.projectId, i.appId, "run-nope"), message: () => "run run-nope not found" },
  ];

  it.each(notFound)("404 → NotFoundError, never retried: $name", async (op) => {
    const ids = seed();
    const err = await rejectionOf(op.run(client, ids), NotFoundError);
    expect(err).toMatchObject({ kind: "not_found", status: 404, method: op.method, attempts: 1, serverMessage: op.message(ids) });
    expect(sim.requests).toHaveLength(1);
    expect(err.path).toBe(sim.requests[0].path);
    expect(err.message).toMatch(new RegExp(`: 404 ${op.message(ids)}$`));
  });

  const all: Op[] = [
    { name: "listApiKeys", method: "GET", run: (c, i) => c.listApiKeys(i.projectId) },
    { name: "createServiceAccount", method: "POST", run: (c, i) => c.createServiceAccount(i.projectId, saRequest(i.projectId)) },
    { name: "deleteServiceAccount", method: "DELETE", run: (c, i) => c.deleteServiceAccount(i.projectId, "sa-x") },
    { name: "resizeVolume", method: "PATCH", run: (c, i) => c.resizeVolume(i.projectId, "default-us-east-1", 100) },
    { name: "createProject", method: "POST", run: (c) => c.createProject({ name: "new" }) },
    { name: "listInvoices", method: "GET", run: (c, i) => c.listInvoices(i.projectId) },
    { name: "getAppLogsPage", method: "GET", run: (c, i) => c.getAppLogsPage(i.projectId, i.appId) },
    { name: "getBuildLogs", method: "GET", run: (c, i) => c.getBuildLogs(i.projectId, i.appId, "b-1") },
    { name: "updateAppSecrets", method: "PATCH", run: (c, i) => c.updateAppSecrets(i.projectId, i.appId, { A: "b" }) },
    { name: "cancelRun", method: "DELETE", run: (c, i) => c.cancelRun(i.projectId, i.appId, "run-1") },
  ];

  it.each(all)("401 bad token → AuthError, 1 request, nothing changed, token not in the error: $name", async (op) => {
    const ids = seed();
    sim.addVolume(ids.projectId, { sizeGb: 50 });
    sim.addRun(ids.projectId, ids.appId, { id: "run-1" });
    const badToken = "pims_admin_not_the_right_token_0123456789";
    const bad = testClient(sim, { token: badToken });
    const projectsBefore = sim.projects().length;

    const err = await rejectionOf(op.run(bad, ids), AuthError);
    expect(err).toMatchObject({ kind: "auth", status: 401, method: op.method, attempts: 1, serverMessage: "invalid or missing bearer token" });
    expect(sim.requests).toHaveLength(1);
    expect(sim.requests[0].status).toBe(401);
    expectErrorFreeOf(err, [badToken]);
    // nothing happened
    expect(sim.projects()).toHaveLength(projectsBefore);
    expect(sim.serviceAccounts()).toEqual([]);
    expect(sim.volume(ids.projectId, "default-us-east-1")?.sizeGb).toBe(50);
    expect(sim.appSecrets(ids.projectId, ids.appId)).toEqual({});
    expect(sim.runs()[0].status).toBe("running");
  });

  it("403: a volume above 1024 GB on a project that is not protected → AuthError; 1024 itself is fine", async () => {
    const { projectId } = seed();
    const vol = sim.addVolume(projectId, { sizeGb: 100 });
    const err = await rejectionOf(client.resizeVolume(projectId, vol.id, 1025), AuthError);
    expect(err).toMatchObject({ kind: "auth", status: 403, attempts: 1, serverMessage: "volumes above 1024 GB require a protected project" });
    expect(err.toString()).toBe(`resizing volume ${vol.id} in project ${projectId} to 1025 GB: 403 volumes above 1024 GB require a protected project`);
    expect(sim.volume(projectId, vol.id)?.sizeGb).toBe(100);
    await client.resizeVolume(projectId, vol.id, 1024);
    expect(sim.volume(projectId, vol.id)?.sizeGb).toBe(1024);
    expect(sim.requests.map((r) => r.status)).toEqual([403, 200]);
  });

  const invalid: Array<{ name: string; run: (c: PimsClient, projectId: string, appId: string) => Promise<unknown>; message: string }> = [
    { name: "service account name of 101 characters", run: (c, p) => c.createServiceAccount(p, saRequest(p, { name: "n".repeat(101) })), message: "name must be 1 to 100 characters" },
    { name: "service account name empty", run: (c, p) => c.createServiceAccount(p, saRequest(p, { name: "" })), message: "name must be 1 to 100 characters" },
    { name: "description of 501 characters", run: (c, p) => c.createServiceAccount(p, saRequest(p, { description: "d".repeat(501) })), message: "description must be at most 500 characters" },
    { name: "grants 0", run: (c, p) => c.createServiceAccount(p, saRequest(p, { grants: [] })), message: "grants must have 1 to 50 entries" },
    {
      name: "grants 51",
      run: (c, p) => c.createServiceAccount(p, saRequest(p, { grants: Array.from({ length: 51 }, () => p) })),
      message: "grants must have 1 to 50 entries",
    },
    { name: "grant of an unknown project", run: (c, p) => c.createServiceAccount(p, saRequest(p, { grants: ["p-nope"] })), message: "grants[0] must be an existing project id (p-nope not found)" },
    { name: "expiresIn -1", run: (c, p) => c.createServiceAccount(p, saRequest(p, { expiresIn: -1 })), message: "expiresIn must be between 0 and 31536000" },
    { name: "expiresIn 31536001", run: (c, p) => c.createServiceAccount(p, saRequest(p, { expiresIn: 31_536_001 })), message: "expiresIn must be between 0 and 31536000" },
    { name: "expiresIn 1.5", run: (c, p) => c.createServiceAccount(p, saRequest(p, { expiresIn: 1.5 })), message: "expiresIn must be an integer" },
    { name: "newSizeGb 49", run: (c, p) => c.resizeVolume(p, "default-us-east-1", 49), message: "newSizeGb must be at least 50" },
    { name: "shrinking", run: (c, p) => c.resizeVolume(p, "default-us-east-1", 60), message: "newSizeGb must not be smaller than the current size (100 GB)" },
    { name: "project name of 1 character", run: (c) => c.createProject({ name: "x" }), message: "name must be 2 to 50 characters" },
    { name: "project name of 51 characters", run: (c) => c.createProject({ name: "x".repeat(51) }), message: "name must be 2 to 50 characters" },
    { name: "secret name with a dash", run: (c, p, a) => c.updateAppSecrets(p, a, { "BAD-NAME": "v" }), message: 'secret name "BAD-NAME" must match ^[A-Za-z_][A-Za-z0-9_]*$' },
  ];

  it.each(invalid)("422 → ValidationError naming the rule, 1 request, nothing created: $name", async (c) => {
    const { projectId, appId } = seed();
    sim.addVolume(projectId, { sizeGb: 100 });
    const projectsBefore = sim.projects().length;
    const err = await rejectionOf(c.run(client, projectId, appId), ValidationError);
    expect(err).toMatchObject({ kind: "validation", status: 422, attempts: 1, serverMessage: c.message });
    expect(sim.requests).toHaveLength(1);
    expect(sim.requests[0].status).toBe(422);
    expect(sim.serviceAccounts()).toEqual([]);
    expect(sim.projects()).toHaveLength(projectsBefore);
    expect(sim.volume(projectId, "default-us-east-1")?.sizeGb).toBe(100);
    expect(sim.appSecrets(projectId, appId)).toEqual({});
  });

  it("boundaries the service accepts: name of 100, 50 grants, expiresIn 31536000, project name of 2 and 50", async () => {
    const { projectId } = seed();
    const many = Array.from({ length: 49 }, () => sim.addProject().id);
    await client.createServiceAccount(projectId, saRequest(projectId, { name: "n".repeat(100), grants: [projectId, ...many], expiresIn: 31_536_000 }));
    expect(sim.serviceAccounts(projectId)[0].grants).toHaveLength(50);
    await client.createProject({ name: "ab" });
    await client.createProject({ name: "y".repeat(50) });
    expect(sim.requests.map((r) => r.status)).toEqual([201, 201, 201]);
  });

  it("toString() reads `<action>: <status> <service message>` exactly, with every field set", async () => {
    seed({ id: "p-1" });
    const err = await rejectionOf(client.createServiceAccount("p-1", { name: "ci", grants: [], expiresIn: 0 }), ValidationError);
    expect(err.toString()).toBe('creating service account "ci" in project p-1: 422 grants must have 1 to 50 entries');
    expect(String(err)).toBe(err.toString());
    expect(err.message).toBe(err.toString());
    expect(err).toBeInstanceOf(PimsError);
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe("ValidationError");
    expect({ ...err }).toMatchObject({
      kind: "validation",
      action: 'creating service account "ci" in project p-1',
      status: 422,
      method: "POST",
      path: "/v2/projects/p-1/service-accounts",
      serverMessage: "grants must have 1 to 50 entries",
      attempts: 1,
    });
  });

  it("400 from the server (invalid nextToken) → ValidationError, not retried", async () => {
    const { projectId, appId } = seed();
    sim.addLogs(projectId, appId, [{ logLine: "x" }]);
    const err = await rejectionOf(client.getAppLogsPage(projectId, appId, { nextToken: "garbage" }), ValidationError);
    expect(err).toMatchObject({ status: 400, serverMessage: "nextToken is invalid", attempts: 1 });
    expect(sim.requests).toHaveLength(1);
  });

  it("409: cancelling a finished or already cancelled run → ConflictError, status unchanged", async () => {
    const { projectId, appId } = seed();
    const done = sim.addRun(projectId, appId, { status: "finished" });
    const err = await rejectionOf(client.cancelRun(projectId, appId, done.id), ConflictError);
    expect(err).toMatchObject({ kind: "conflict", status: 409, method: "DELETE", attempts: 1, serverMessage: `run ${done.id} has already finished (status: finished)` });
    expect(err.toString()).toBe(`cancelling run ${done.id} of app ${appId} in project ${projectId}: 409 run ${done.id} has already finished (status: finished)`);
    expect(sim.runs().find((r) => r.id === done.id)?.status).toBe("finished");

    const running = sim.addRun(projectId, appId);
    await client.cancelRun(projectId, appId, running.id);
    await rejectionOf(client.cancelRun(projectId, appId, running.id), ConflictError);
    expect(sim.requests.map((r) => r.status)).toEqual([409, 200, 409]);
  });

  it("409: a service account deleting itself → ConflictError, the account survives", async () => {
    const { projectId } = seed();
    const sa = await client.createServiceAccount(projectId, saRequest(projectId));
    const asSa = testClient(sim, { token: sa.token.secret });
    const err = await rejectionOf(asSa.deleteServiceAccount(projectId, sa.id), ConflictError);
    expect(err.serverMessage).toBe("cannot delete the service account used by this request");
    expect(sim.serviceAccounts(projectId).map((s) => s.id)).toEqual([sa.id]);
    expectErrorFreeOf(err, [sa.token.secret, sim.token]);
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe("the token never appears in an error", () => {
  it("HTTP error: 401 with a bad token, and a 404 whose path and message carry the token", async () => {
    const badToken = "pims_admin_wrong_0123456789abcdef0123456789";
    const err401 = await rejectionOf(testClient(sim, { token: badToken }).listInvoices("p-x"), AuthError);
    expectErrorFreeOf(err401, [badToken]);

    // A user who pastes the token where an id belongs: the path, the action and the service's message all hold it.
    const err404 = await rejectionOf(client.listApiKeys(sim.token), NotFoundError);
    expect(sim.requests[1].path).toBe(`/v2/projects/${sim.token}/api-keys`); // it did travel, as an id
    expectErrorFreeOf(err404, [sim.token]);
    expect(err404.toString()).toBe("listing API keys of project [REDACTED]: 404 project [REDACTED] not found");
  });

  it("network error: connection refused on a closed port", async () => {
    const closed = await closedPort();
    const token = "pims_admin_closed_port_0123456789abcdef";
    const c = new PimsClient({ baseUrl: `http://127.0.0.1:${closed}`, token, retries: 1, minDelayMs: 1, maxDelayMs: 2 });
    const err = await rejectionOf(c.listApiKeys(token), NetworkError);
    expect(err).toMatchObject({ kind: "network", code: "ECONNREFUSED", attempts: 2 });
    expect(err.status).toBeUndefined();
    expect(err.toString()).toBe("listing API keys of project [REDACTED]: could not reach the service (ECONNREFUSED)");
    expectErrorFreeOf(err, [token]);
  });

  it("timeout: a delayed response beyond timeoutMs", async () => {
    const { projectId } = seed();
    sim.addFault({ kind: "delay", delayMs: 2000 });
    const err = await rejectionOf(testClient(sim, { timeoutMs: 100, retries: 0 }).listInvoices(projectId), TimeoutError);
    expect(err).toBeInstanceOf(NetworkError);
    expect(err).toMatchObject({ kind: "timeout", attempts: 1, method: "GET", path: `/v2/projects/${projectId}/invoices` });
    expect(err.toString()).toBe(`listing invoices of project ${projectId}: timed out waiting for the service`);
    expectErrorFreeOf(err, [sim.token]);
  });

  it("a server message echoing the Authorization header is scrubbed", async () => {
    const token = "pims_echoed_token_0123456789abcdef";
    const srv = await tinyServer((req, res) => {
      res.writeHead(500, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ message: `bad header: ${req.headers.authorization}` }));
    });
    try {
      const c = new PimsClient({ baseUrl: srv.baseUrl, token, retries: 0 });
      const err = await rejectionOf(c.listInvoices("p-1"), PimsError);
      expect(err.serverMessage).toBe("bad header: Bearer [REDACTED]");
      expectErrorFreeOf(err, [token]);
    } finally {
      await srv.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe("app log paging", () => {
  function seedLogs(count: number, opts: Parameters<PimsSimulator["generateLogs"]>[3] = {}): { projectId: string; appId: string } {
    const ids = seed();
    sim.generateLogs(ids.projectId, ids.appId, count, { containers: ["web", "worker"], ...opts });
    return ids;
  }

  it("1000 lines, two containers, container filter, pageSize 100: 5 GETs, all 500 lines newest first, no duplicates", async () => {
    const { projectId, appId } = seedLogs(1000);
    const lines = [];
    for await (const line of client.iterateAppLogs(projectId, appId, { container: "web", pageSize: 100 })) lines.push(line);

    expect(lines).toHaveLength(500);
    expect(new Set(lines.map((l) => l.logId)).size).toBe(500);
    expect(lines.every((l) => l.containerName === "web")).toBe(true);
    const ts = lines.map((l) => Date.parse(l.timestamp));
    expect(ts.every((t, i) => i === 0 || t < ts[i - 1])).toBe(true);
    // generateLogs: web has the even line numbers; newest first: line 998 down to line 0
    expect(lines[0].logLine).toContain("(line 998)");
    expect(lines[499].logLine).toContain("(line 0)");

    expect(sim.countRequests({ method: "GET", path: `/v2/projects/${projectId}/apps/${appId}/logs` })).toBe(5);
    expect(sim.requests).toHaveLength(5);
    expect(sim.requests[0].query).toEqual({ container: "web", pageSize: "100" });
    for (const r of sim.requests.slice(1)) expect(r.query).toEqual({ container: "web", pageSize: "100", nextToken: expect.any(String) });
    expect(new Set(sim.requests.map((r) => r.query.nextToken)).size).toBe(5);
    expect(sim.requests.every((r) => r.status === 200)).toBe(true);
  });

  it("forward returns the same lines as backward, oldest first", async () => {
    const { projectId, appId } = seedLogs(1000);
    const backward = await client.collectAppLogs(projectId, appId, { container: "worker", pageSize: 100 }, 10_000);
    sim.clearRequests();
    const forward = await client.collectAppLogs(projectId, appId, { container: "worker", pageSize: 100, direction: "forward" }, 10_000);
    expect(forward).toHaveLength(500);
    expect(forward).toEqual([...backward].reverse());
    expect(forward[0].logLine).toContain("(line 1)");
    expect(sim.requests).toHaveLength(5);
    expect(sim.requests.every((r) => r.query.direction === "forward")).toBe(true);
  });

  it("combined filters: worker + stderr, pageSize 30 → 100 lines in 4 GETs", async () => {
    const { projectId, appId } = seedLogs(1000);
    const lines = await client.collectAppLogs(projectId, appId, { container: "worker", stream: "stderr", pageSize: 30 }, 10_000);
    expect(lines).toHaveLength(100);
    expect(lines.every((l) => l.stream === "stderr" && l.containerName === "worker")).toBe(true);
    expect(sim.requests).toHaveLength(4);

    sim.clearRequests();
    const web = await client.collectAppLogs(projectId, appId, { container: "web", stream: "stderr" }, 10);
    expect(web).toEqual([]); // web holds even lines only, stderr lines are the odd ones ending in 9
    expect(sim.requests.map((r) => r.status)).toEqual([204]);
  });

  it("runId and date filters", async () => {
    const start = new Date("2024-05-01T00:00:00.000Z");
    const { projectId, appId } = seedLogs(400, { runIds: ["run-a", "run-b"], startTime: start, stepMs: 1000 });
    const runB = await client.collectAppLogs(projectId, appId, { runId: "run-b", pageSize: 50, direction: "forward" }, 1000);
    expect(runB).toHaveLength(200);
    expect(runB[0].logLine).toContain("(line 200)");
    expect(sim.requests).toHaveLength(4);

    sim.clearRequests();
    const window = await client.collectAppLogs(
      projectId,
      appId,
      { afterDate: "2024-05-01T00:00:10Z", beforeDate: "2024-05-01T00:00:20Z", direction: "forward" },
      1000,
    );
    expect(window.map((l) => l.timestamp)).toEqual(Array.from({ length: 9 }, (_, i) => `2024-05-01T00:00:${11 + i}.000Z`));
    expect(sim.requests).toHaveLength(1);
  });

  it("collectAppLogs stops at the limit: only the pages it needs are fetched", async () => {
    const { projectId, appId } = seedLogs(1000);
    const first250 = await client.collectAppLogs(projectId, appId, { pageSize: 100 }, 250);
    expect(first250).toHaveLength(250);
    expect(sim.requests).toHaveLength(3);

    sim.clearRequests();
    const all = await client.collectAppLogs(projectId, appId, {}, 250); // pageSize defaults to the limit
    expect(all).toEqual(first250);
    expect(sim.requests).toHaveLength(1);
    expect(sim.requests[0].query.pageSize).toBe("250");

    sim.clearRequests();
    expect(await client.collectAppLogs(projectId, appId, { pageSize: 1000 }, 1)).toHaveLength(1);
    expect(sim.requests).toHaveLength(1);

    await expect(client.collectAppLogs(projectId, appId, {}, 0)).rejects.toThrow(RangeError);
    await expect(client.collectAppLogs(projectId, appId, {}, 1.5)).rejects.toThrow(RangeError);
    expect(sim.requests).toHaveLength(1);
  });

  it("an exact multiple of the page size ends without an extra request", async () => {
    const { projectId, appId } = seedLogs(300, { containers: ["web"] });
    const lines = await client.collectAppLogs(projectId, appId, { pageSize: 100 }, 1000);
    expect(lines).toHaveLength(300);
    expect(sim.requests).toHaveLength(3);
  });

  it("204 (no lines) → an empty last page and an empty iterator, one request each", async () => {
    const { projectId, appId } = seed();
    expect(await client.getAppLogsPage(projectId, appId)).toEqual({ hasMore: false, logs: [] });
    const seen = [];
    for await (const line of client.iterateAppLogs(projectId, appId, { search: "nothing" })) seen.push(line);
    expect(seen).toEqual([]);
    expect(sim.requests.map((r) => r.status)).toEqual([204, 204]);
  });

  const badQueries: Array<[string, AppLogsQuery, RegExp]> = [
    ["pageSize 0", { pageSize: 0 }, /^pageSize must be an integer from 1 to 1000 \(got 0\)$/],
    ["pageSize 1001", { pageSize: 1001 }, /^pageSize must be an integer from 1 to 1000 \(got 1001\)$/],
    ["pageSize 1.5", { pageSize: 1.5 }, /^pageSize must be an integer from 1 to 1000 \(got 1.5\)$/],
    ["pageSize NaN", { pageSize: Number.NaN }, /^pageSize must be/],
    ["stream", { stream: "stdin" as never }, /^stream must be one of stdout, stderr \(got "stdin"\)$/],
    ["direction", { direction: "sideways" as never }, /^direction must be one of forward, backward \(got "sideways"\)$/],
    ["beforeDate garbage", { beforeDate: "yesterday" }, /^beforeDate must be an RFC 3339 timestamp such as 2024-05-01T12:00:00Z \(got "yesterday"\)$/],
    ["afterDate not RFC 3339", { afterDate: "05/01/2024" }, /^afterDate must be an RFC 3339 timestamp/],
    ["afterDate without a time", { afterDate: "2024-05-01" }, /^afterDate must be an RFC 3339 timestamp/],
    ["afterDate without a zone", { afterDate: "2024-05-01T10:00:00" }, /^afterDate must be an RFC 3339 timestamp/],
    ["afterDate impossible", { afterDate: "2024-13-40T10:00:00Z" }, /^afterDate must be an RFC 3339 timestamp/],
    ["afterDate on February 30", { afterDate: "2024-02-30T10:00:00Z" }, /^afterDate must be an RFC 3339 timestamp/],
    ["beforeDate at hour 24", { beforeDate: "2024-05-01T24:00:00Z" }, /^beforeDate must be an RFC 3339 timestamp/],
    ["beforeDate as epoch milliseconds", { beforeDate: "1714557600000" }, /^beforeDate must be an RFC 3339 timestamp/],
  ];

  it.each(badQueries)("validateLogsQuery rejects %s with zero requests", async (_name, query, rule) => {
    const { projectId, appId } = seed();
    expect(() => validateLogsQuery(query)).toThrow(ValidationError);
    const err = await rejectionOf(client.getAppLogsPage(projectId, appId, query), ValidationError);
    expect(err.serverMessage).toMatch(rule);
    expect(err.toString()).toBe(`checking app log filters: ${err.serverMessage}`);
    expect(err.status).toBeUndefined();
    await rejectionOf(client.collectAppLogs(projectId, appId, query, 10), ValidationError);
    await rejectionOf(client.iterateAppLogs(projectId, appId, query).next(), ValidationError);
    expect(sim.requests).toHaveLength(0);
  });

  it("validateLogsQuery accepts the valid forms", () => {
    for (const q of [
      {},
      { pageSize: 1 },
      { pageSize: 1000 },
      { stream: "stdout" as const, direction: "forward" as const },
      { beforeDate: "2024-05-01T10:00:00Z", afterDate: "2024-05-01T10:00:00.123456789+02:00" },
      { afterDate: "2024-05-01t10:00:00z" },
      { afterDate: "2024-05-01 10:00:00-05:00" },
      { beforeDate: "2024-02-29T23:59:59Z" },
    ]) {
      expect(() => validateLogsQuery(q)).not.toThrow();
    }
  });
});

// ---------------------------------------------------------------------------------------------------------------
// A tiny real HTTP server on loopback for answers the simulator never gives (odd but valid shapes).

interface TinyServer {
  baseUrl: string;
  requests: Array<{ method: string; url: string; authorization?: string; body: string }>;
  close(): Promise<void>;
}

async function tinyServer(handler: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<TinyServer> {
  const requests: TinyServer["requests"] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      requests.push({ method: req.method ?? "", url: req.url ?? "", authorization: req.headers.authorization, body: Buffer.concat(chunks).toString("utf8") });
      handler(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Answers every request with this status, content type and raw body. */
function fixed(status: number, body: string, contentType = "application/json"): (req: http.IncomingMessage, res: http.ServerResponse) => void {
  return (_req, res) => {
    if (status === 204) {
      res.writeHead(204).end();
      return;
    }
    res.writeHead(status, { "Content-Type": contentType, "Content-Length": Buffer.byteLength(body) });
    res.end(body);
  };
}

async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("liberal parsing (tiny real server)", () => {
  let srv: TinyServer | undefined;
  afterEach(async () => {
    await srv?.close();
    srv = undefined;
  });
  const TOKEN = "tiny_server_token_0123456789";
  const tinyClient = (s: TinyServer) => new PimsClient({ baseUrl: `${s.baseUrl}/`, token: TOKEN, retries: 0 });

  it.each([
    ["a JSON-quoted id with whitespace around it", '  "p-12345678"\n'],
    ["plain text with whitespace and CRLF", "\r\n  p-12345678 \r\n"],
    ["plain text exactly", "p-12345678"],
  ])("createProject parses %s", async (_name, body) => {
    srv = await tinyServer(fixed(201, body, "text/plain"));
    expect(await tinyClient(srv).createProject({ name: "x1" })).toBe("p-12345678");
    expect(srv.requests).toEqual([{ method: "POST", url: "/v2/projects", authorization: `Bearer ${TOKEN}`, body: '{"name":"x1"}' }]);
  });

  it("createProject with an empty body is an error naming the problem", async () => {
    srv = await tinyServer(fixed(201, "   \n", "text/plain"));
    const err = await rejectionOf(tinyClient(srv).createProject({ name: "x1" }), PimsError);
    expect(err.toString()).toBe('creating project "x1": 201 the response carried no project id');
  });

  it("createProject accepts a JSON object carrying the id", async () => {
    srv = await tinyServer(fixed(201, JSON.stringify({ id: "p-0000abcd", name: "x1" })));
    expect(await tinyClient(srv).createProject({ name: "x1" })).toBe("p-0000abcd");
  });

  it("createProject refuses a body that is not an id (an HTML page from a wrong baseUrl), token redacted", async () => {
    srv = await tinyServer((req, res) => {
      res.writeHead(200, { "Content-Type": "text/html" });
      res.end(`<html><body>Welcome! header was ${req.headers.authorization}</body></html>`);
    });
    const err = await rejectionOf(tinyClient(srv).createProject({ name: "x1" }), PimsError);
    expect(err.toString()).toMatch(/^creating project "x1": 200 unexpected response, expected a project id, got "<html><body>Welcome! header was Bearer \[REDACTED\]/);
    expectErrorFreeOf(err, [TOKEN]);
  });

  it("a 200 whose body is not the expected shape is an error, not an empty result", async () => {
    srv = await tinyServer(fixed(200, "<!doctype html><title>Console</title>", "text/html"));
    const c = tinyClient(srv);
    const keys = await rejectionOf(c.listApiKeys("p-1"), PimsError);
    const page = '"<!doctype html><title>Console</title>"';
    expect(keys.toString()).toBe("listing API keys of project p-1: 200 unexpected response, expected a JSON array, got 37 characters of text");
    expect(keys.kind).toBe("http");
    expect((await rejectionOf(c.listInvoices("p-1"), PimsError)).serverMessage).toBe(`unexpected response, expected a JSON array, got ${page}`);
    expect((await rejectionOf(c.getAppLogsPage("p-1", "a-1"), PimsError)).serverMessage).toBe(`unexpected response, expected a JSON log page, got ${page}`);
    expect((await rejectionOf(c.getBuildLogs("p-1", "a-1", "b-1"), PimsError)).serverMessage).toBe(`unexpected response, expected a JSON build logs object, got ${page}`);
    const sa = await rejectionOf(c.createServiceAccount("p-1", { name: "ci", grants: ["p-1"], expiresIn: 0 }), PimsError);
    expect(sa.serverMessage).toBe("unexpected response, expected a JSON service account object, got 37 characters of text");
    await srv.close();
    srv = await tinyServer(fixed(200, JSON.stringify({ message: "not a list" })));
    expect((await rejectionOf(tinyClient(srv).listInvoices("p-1"), PimsError)).serverMessage).toBe("unexpected response, expected a JSON array, got a JSON object");
  });

  it("an unexpected body that carries secrets is never quoted in the error", async () => {
    const apiKey = "pims_live_key_0123456789abcdef";
    const oneTime = "pims_sa_onetime_0123456789abcdef";
    srv = await tinyServer((req, res) => {
      res.writeHead(req.method === "POST" ? 201 : 200, { "Content-Type": "text/plain" });
      res.end(req.method === "POST" ? oneTime : `{"keys":[{"apiKey":"${apiKey}"}]}`);
    });
    const c = tinyClient(srv);
    const keys = await rejectionOf(c.listApiKeys("p-1"), PimsError);
    expect(keys.serverMessage).toBe("unexpected response, expected a JSON array, got a JSON object");
    const sa = await rejectionOf(c.createServiceAccount("p-1", { name: "ci", grants: ["p-1"], expiresIn: 0 }), PimsError);
    expect(sa.serverMessage).toBe(`unexpected response, expected a JSON service account object, got ${oneTime.length} characters of text`);
    for (const err of [keys, sa]) expectErrorFreeOf(err, [apiKey, oneTime, TOKEN]);
  });

  it("createProject through the `adapter` option (a JSON-quoted id)", async () => {
    const seen: string[] = [];
    const c = new PimsClient({
      baseUrl: "http://pims.invalid",
      token: TOKEN,
      retries: 0,
      adapter: async (config) => {
        seen.push(`${config.method?.toUpperCase()} ${config.baseURL}${config.url} ${String(config.data)}`);
        return { data: ' "p-abcdef01"\n', status: 201, statusText: "Created", headers: {}, config };
      },
    });
    expect(await c.createProject({ name: "via-adapter" })).toBe("p-abcdef01");
    expect(seen).toEqual(['POST http://pims.invalid/v2/projects {"name":"via-adapter"}']);
  });

  it("api keys with null optional fields and unknown fields", async () => {
    srv = await tinyServer(
      fixed(
        200,
        JSON.stringify([
          {
            id: "k1",
            name: "one",
            description: null,
            apiKey: "pims_...abcd",
            projectId: "p-1",
            principalId: null,
            source: "user",
            status: "active",
            createdAt: "2024-01-01T00:00:00Z",
            updatedAt: null,
            expiresAt: null,
            brandNewField: { nested: [1, 2] },
          },
          { id: "k2", name: "two", apiKey: "pims_...ef01", projectId: "p-1", principalId: "sa-1", expiresAt: "2030-01-01T00:00:00Z", extra: true },
        ]),
      ),
    );
    const keys = await tinyClient(srv).listApiKeys("p-1");
    expect(keys).toEqual([
      { id: "k1", name: "one", description: "", apiKey: "pims_...abcd", projectId: "p-1", source: "user", status: "active", createdAt: "2024-01-01T00:00:00Z", updatedAt: "", expiresAt: "never" },
      { id: "k2", name: "two", description: "", apiKey: "pims_...ef01", projectId: "p-1", principalId: "sa-1", source: "", status: "", createdAt: "", updatedAt: "", expiresAt: "2030-01-01T00:00:00Z" },
    ]);
    for (const k of keys) for (const v of Object.values(k)) expect(v).not.toBeNull();
  });

  it("logs: a 204, and a 200 with an empty body, are empty last pages", async () => {
    srv = await tinyServer(fixed(204, ""));
    const c = tinyClient(srv);
    expect(await c.getAppLogsPage("p-1", "a-1")).toEqual({ hasMore: false, logs: [] });
    expect(await c.collectAppLogs("p-1", "a-1", {}, 5)).toEqual([]);
    await srv.close();
    srv = await tinyServer(fixed(200, ""));
    expect(await tinyClient(srv).getAppLogsPage("p-1", "a-1")).toEqual({ hasMore: false, logs: [] });
  });

  it("logs: hasMore without a nextPageToken, or the same token again, does not loop", async () => {
    const line = { logId: "l1", appId: "a-1", projectId: "p-1", containerId: "c", containerName: "web", runId: "r", lineNumber: "7", logLine: "x", stream: "stdout", timestamp: "t" };
    srv = await tinyServer(fixed(200, JSON.stringify({ hasMore: true, logs: [line] })));
    const page = await tinyClient(srv).getAppLogsPage("p-1", "a-1");
    expect(page).toEqual({ hasMore: false, logs: [{ ...line, lineNumber: 7 }] });
    await srv.close();

    srv = await tinyServer(fixed(200, JSON.stringify({ hasMore: true, logs: [line], nextPageToken: "same" })));
    const lines = await tinyClient(srv).collectAppLogs("p-1", "a-1", {}, 100);
    expect(lines).toHaveLength(2); // first page (no token), then "same" once; a repeated token ends the walk
    expect(srv.requests.map((r) => r.url)).toEqual(["/v2/projects/p-1/apps/a-1/logs?pageSize=100", "/v2/projects/p-1/apps/a-1/logs?pageSize=100&nextToken=same"]);
  });

  it("invoices: an empty body is an empty list; amounts as strings become numbers", async () => {
    srv = await tinyServer(fixed(200, ""));
    expect(await tinyClient(srv).listInvoices("p-1")).toEqual([]);
    await srv.close();
    srv = await tinyServer(fixed(200, JSON.stringify([{ id: "in_1", amountDue: "1999", currency: "usd", unknown: 1 }])));
    expect(await tinyClient(srv).listInvoices("p-1")).toEqual([
      { id: "in_1", accountCountry: "", accountName: "", amountDue: 1999, currency: "usd", createdAt: "", fileUrl: "", paymentStatus: "" },
    ]);
  });

  it("service account token with alternate member names (value, expires_at)", async () => {
    srv = await tinyServer(
      fixed(201, JSON.stringify({ id: "sa-1", name: "ci", projectId: "p-1", grants: ["p-1"], token: { token_id: "t-1", value: "s3cr3t-value-123", expires_at: "2030-01-01T00:00:00Z" } })),
    );
    const sa = await tinyClient(srv).createServiceAccount("p-1", { name: "ci", grants: ["p-1"], expiresIn: 60 });
    expect(sa.token).toEqual({ id: "t-1", secret: "s3cr3t-value-123", expiresAt: "2030-01-01T00:00:00Z" });
    expect(sa).toMatchObject({ id: "sa-1", description: "", createdByUserId: "" });
  });

  it("service account token as a bare string; a response without a token is an error that says so", async () => {
    srv = await tinyServer(fixed(201, JSON.stringify({ id: "sa-1", name: "ci", token: "bare-secret-0123" })));
    expect((await tinyClient(srv).createServiceAccount("p-1", { name: "ci", grants: ["p-1"], expiresIn: 0 })).token.secret).toBe("bare-secret-0123");
    await srv.close();
    srv = await tinyServer(fixed(201, JSON.stringify({ id: "sa-1", name: "ci", token: { id: "t-1" } })));
    const err = await rejectionOf(tinyClient(srv).createServiceAccount("p 1", { name: "ci", grants: ["p-1"], expiresIn: 0 }), PimsError);
    expect(err.toString()).toBe('creating service account "ci" in project p 1: 201 the response carried no token');
    expect(err.path).toBe("/v2/projects/p%201/service-accounts");
  });

  it("delete and cancel accept a JSON {message} or plain text; build logs accept string entries", async () => {
    srv = await tinyServer((req, res) => {
      if (req.url?.includes("/builds/")) {
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ status: "ready", logs: ["plain line", { message: "as message", createdAt: "t1" }] }));
      } else if (req.url?.includes("/runs/")) {
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ message: "cancellation requested" }));
      } else {
        res.writeHead(200, { "Content-Type": "text/plain" });
        res.end("deleted\n");
      }
    });
    const c = tinyClient(srv);
    expect(await c.deleteServiceAccount("p-1", "sa-1")).toEqual({ message: "deleted" });
    expect(await c.cancelRun("p-1", "a-1", "r-1")).toBe("cancellation requested");
    expect(await c.getBuildLogs("p-1", "a-1", "b-1")).toEqual({
      app_id: "a-1",
      build_id: "b-1",
      project_id: "p-1",
      status: "ready",
      logs: [
        { createdAt: "", log: "plain line" },
        { createdAt: "t1", log: "as message" },
      ],
    });
  });

  it("an error body that is not JSON becomes the server message (truncated)", async () => {
    srv = await tinyServer(fixed(404, `<html>${"x".repeat(400)}</html>`, "text/html"));
    const err = await rejectionOf(tinyClient(srv).listInvoices("p-1"), NotFoundError);
    expect(err.serverMessage).toHaveLength(301);
    expect(err.serverMessage?.endsWith("…")).toBe(true);
    await srv.close();
    srv = await tinyServer(fixed(404, ""));
    const empty = await rejectionOf(tinyClient(srv).listInvoices("p-1"), NotFoundError);
    expect(empty.toString()).toBe("listing invoices of project p-1: 404 Not Found");
  });
});

describe("construction", () => {
  it("requires a baseUrl and a token", () => {
    expect(() => new PimsClient({ baseUrl: "", token: "t" })).toThrow("baseUrl is required");
    expect(() => new PimsClient({ baseUrl: "http://x", token: "" })).toThrow("token is required");
  });
});
