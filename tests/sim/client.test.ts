/**
 * The typed client (provider/client) against the simulator: every operation's happy path, with the state visible
 * in the simulator afterwards, and construction (base address forms). Errors, log paging and liberal parsing have
 * their own suites (clientErrors, clientLogs, clientParsing).
 */
import { AuthError, NotFoundError, PimsClient } from "../../provider/client";
import { PimsSimulator } from "../../simulator";
import { saRequest, seedApp, simulatorPerTest, testClient } from "../kit/client";
import { rejectionOf } from "../kit/rejection";

let sim: PimsSimulator;
let client: PimsClient;

simulatorPerTest((s, c) => {
  sim = s;
  client = c;
});

const seed = (opts: { protected?: boolean; id?: string } = {}) => seedApp(sim, opts);

describe("happy paths: one request each, state visible in the simulator", () => {
  it("listApiKeys: seeded and service-account keys, sorted by expiresAt, never last", async () => {
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
    expect(sim.requests).toEqual([
      expect.objectContaining({ method: "GET", path: `/v2/projects/${projectId}/api-keys`, status: 200 }),
    ]);
  });

  it("createServiceAccount: sends the body as given, returns the one-time token, the account exists", async () => {
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

    const forever = await client.createServiceAccount(
      projectId,
      saRequest(projectId, { name: "forever", expiresIn: 0 }),
    );
    expect(forever.token.expiresAt).toBe("never");
  });

  it("deleteServiceAccount: the account is gone and its token stops working", async () => {
    const { projectId } = seed();
    const sa = await client.createServiceAccount(projectId, saRequest(projectId));
    sim.clearRequests();

    const res = await client.deleteServiceAccount(projectId, sa.id);
    expect(res).toEqual({ message: `service account ${sa.id} deleted` });
    expect(sim.serviceAccounts(projectId)).toEqual([]);
    expect(sim.deletedServiceAccounts()).toEqual([sa.id]);
    expect(sim.requests).toEqual([
      expect.objectContaining({
        method: "DELETE",
        path: `/v2/projects/${projectId}/service-accounts/${sa.id}`,
        status: 200,
      }),
    ]);

    const asDeleted = new PimsClient({ baseUrl: sim.baseUrl, token: sa.token.secret, retries: 0 });
    await rejectionOf(asDeleted.listInvoices(projectId), AuthError);
  });

  it("resizeVolume: the volume grows; above 1024 GB on a protected project", async () => {
    const { projectId } = seed();
    const vol = sim.addVolume(projectId, { sizeGb: 50 });
    expect(await client.resizeVolume(projectId, vol.id, 100)).toBe(`volume ${vol.id} resized to 100 GB`);
    expect(sim.volume(projectId, vol.id)?.sizeGb).toBe(100);
    // same size: allowed
    expect(await client.resizeVolume(projectId, vol.id, 100)).toBe(`volume ${vol.id} resized to 100 GB`);
    expect(sim.requests.map((r) => [r.method, r.path, r.status, r.body])).toEqual([
      ["PATCH", `/v2/projects/${projectId}/volumes/${vol.id}/resize`, 200, { newSizeGb: 100 }],
      ["PATCH", `/v2/projects/${projectId}/volumes/${vol.id}/resize`, 200, { newSizeGb: 100 }],
    ]);

    const prot = seed({ protected: true }).projectId;
    const big = sim.addVolume(prot, { sizeGb: 1024 });
    await client.resizeVolume(prot, big.id, 4096);
    expect(sim.volume(prot, big.id)?.sizeGb).toBe(4096);
  });

  it("createProject: returns the plain-text id of a project the simulator now holds", async () => {
    const before = sim.projects().length;
    const id = await client.createProject({ name: "my-app" });
    expect(id).toMatch(/^p-[0-9a-f]{8}$/);
    expect(sim.projects()).toHaveLength(before + 1);
    expect(sim.project(id)).toMatchObject({ id, name: "my-app", protected: false });
    expect(sim.requests).toEqual([
      expect.objectContaining({ method: "POST", path: "/v2/projects", status: 201, body: { name: "my-app" } }),
    ]);
  });

  it("listInvoices: the seeded invoices, unchanged; [] for none", async () => {
    const { projectId } = seed();
    expect(await client.listInvoices(projectId)).toEqual([]);
    const a = sim.addInvoice(projectId, { amountDue: 0, paymentStatus: "open" });
    const b = sim.addInvoice(projectId, { currency: "eur" });
    expect(await client.listInvoices(projectId)).toEqual([a, b]);
    expect(sim.countRequests({ method: "GET", path: `/v2/projects/${projectId}/invoices` })).toBe(2);
  });

  it("getAppLogsPage: one page with the real query names", async () => {
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
    const last = await client.getAppLogsPage(projectId, appId, {
      direction: "forward",
      pageSize: 2,
      nextToken: page.nextPageToken,
    });
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

  it("getBuildLogs: status and entries; a status change is seen on the next read", async () => {
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
    expect(
      sim.countRequests({ method: "GET", path: `/v2/projects/${projectId}/apps/${appId}/builds/${build.id}/logs` }),
    ).toBe(2);
  });

  it("updateAppSecrets: the simulator holds the sent map (merge mode merges, replace mode replaces)", async () => {
    const { projectId, appId } = seed();
    expect(await client.updateAppSecrets(projectId, appId, { DB_URL: "postgres://x", API_KEY: "k1" })).toBe(
      "secrets updated",
    );
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

  it("cancelRun: the run is cancelled", async () => {
    const { projectId, appId } = seed();
    const run = sim.addRun(projectId, appId);
    expect(await client.cancelRun(projectId, appId, run.id)).toBe(`run ${run.id} cancelled`);
    expect(sim.runs().find((r) => r.id === run.id)?.status).toBe("cancelled");
    expect(sim.requests).toEqual([
      expect.objectContaining({
        method: "DELETE",
        path: `/v2/projects/${projectId}/apps/${appId}/runs/${run.id}`,
        status: 200,
      }),
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

describe("construction", () => {
  it("requires a baseUrl and a token", () => {
    expect(() => new PimsClient({ baseUrl: "", token: "t" })).toThrow("baseUrl is required");
    expect(() => new PimsClient({ baseUrl: "http://x", token: "" })).toThrow("token is required");
  });

  it.each(["/v2", "/v2/", "/", "//"])(
    "a base address ending in %j works: the account is created once, at /v2/projects/...",
    async (suffix) => {
      const { projectId } = seed();
      const c = testClient(sim, { baseUrl: `${sim.baseUrl}${suffix}` });
      const sa = await c.createServiceAccount(projectId, saRequest(projectId));
      expect(sim.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
        `POST /v2/projects/${projectId}/service-accounts`,
      ]);
      expect(sim.serviceAccounts(projectId).map((a) => a.id)).toEqual([sa.id]);
      await c.deleteServiceAccount(projectId, sa.id);
      expect(sim.serviceAccounts(projectId)).toEqual([]);
    },
  );

  it("a base address that makes every route 404 (one /v2 too many): the error names the full URL called", async () => {
    const { projectId } = seed();
    const sa = await client.createServiceAccount(projectId, saRequest(projectId));
    const wrong = testClient(sim, { baseUrl: `${sim.baseUrl}/v2/v2` });
    const err = await rejectionOf(wrong.deleteServiceAccount(projectId, sa.id), NotFoundError);
    const url = `${sim.baseUrl}/v2/v2/projects/${projectId}/service-accounts/${sa.id}`;
    expect(err.url).toBe(url);
    expect(err.message).toMatch(
      new RegExp(
        `^deleting service account ${sa.id} in project ${projectId}: 404 .* \\(DELETE ` +
          `${url.replace(/[.]/g, "\\.")}\\)$`,
      ),
    );
    expect(sim.serviceAccounts(projectId).map((a) => a.id)).toEqual([sa.id]); // still live
  });
});
