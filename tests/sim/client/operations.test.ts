/**
 * The typed client (provider/suite.client) against the simulator: every operation's happy path, with the state visible
 * in the simulator afterwards, and construction (base address forms). Errors, log paging and liberal parsing have
 * their own suites (errors, errorSecrets, logs, parsing).
 */
import { AuthError, NotFoundError, PimsClient } from "../../../provider/client";
import { saRequest, seedApp, useClientSuite, testClient } from "../../kit/sim/client";
import { rejectionOf } from "../../kit/rejection";

const suite = useClientSuite();

const seed = (opts: { protected?: boolean; id?: string } = {}) => seedApp(suite.sim, opts);

describe("happy paths: one request each, state visible in the simulator", () => {
  it("listApiKeys: seeded and service-account keys, sorted by expiresAt, never last", async () => {
    const { projectId } = seed();
    suite.sim.addApiKey(projectId, { id: "k-never", expiresAt: "never", name: "forever" });
    suite.sim.addApiKey(projectId, { id: "k-2030", expiresAt: "2030-01-01T00:00:00.000Z", name: "later" });
    const sa = await suite.client.createServiceAccount(projectId, saRequest(projectId, { expiresIn: 60 }));
    suite.sim.clearRequests();

    const keys = await suite.client.listApiKeys(projectId);
    expect(keys.map((k) => k.id)).toEqual([sa.token.id, "k-2030", "k-never"]);
    expect(keys[0]).toMatchObject({ principalId: sa.id, source: "service_account", status: "active", projectId });
    expect(keys[2]).not.toHaveProperty("principalId");
    expect(keys[2].expiresAt).toBe("never");
    expect(suite.sim.requests).toEqual([
      expect.objectContaining({ method: "GET", path: `/v2/projects/${projectId}/api-keys`, status: 200 }),
    ]);
  });

  it("createServiceAccount: sends the body as given, returns the one-time token, the account exists", async () => {
    const { projectId } = seed();
    const other = suite.sim.addProject().id;
    const sa = await suite.client.createServiceAccount(projectId, saRequest(projectId, { grants: [projectId, other] }));

    expect(sa).toMatchObject({ name: "ci", description: "deploys", projectId, grants: [projectId, other] });
    expect(sa.token.secret).toMatch(/^pims_sa_/);
    expect(suite.sim.issuedSecrets()).toContain(sa.token.secret);
    expect(Date.parse(sa.token.expiresAt) - Date.parse(sa.createdAt)).toBe(3600_000);
    expect(suite.sim.serviceAccounts(projectId)).toEqual([
      expect.objectContaining({ id: sa.id, name: "ci", grants: [projectId, other], tokenId: sa.token.id }),
    ]);
    expect(suite.sim.requests).toHaveLength(1);
    expect(suite.sim.requests[0]).toMatchObject({
      method: "POST",
      path: `/v2/projects/${projectId}/service-accounts`,
      status: 201,
      body: { name: "ci", description: "deploys", grants: [projectId, other], expiresIn: 3600 },
    });

    const forever = await suite.client.createServiceAccount(
      projectId,
      saRequest(projectId, { name: "forever", expiresIn: 0 }),
    );
    expect(forever.token.expiresAt).toBe("never");
  });

  it("deleteServiceAccount: the account is gone and its token stops working", async () => {
    const { projectId } = seed();
    const sa = await suite.client.createServiceAccount(projectId, saRequest(projectId));
    suite.sim.clearRequests();

    const res = await suite.client.deleteServiceAccount(projectId, sa.id);
    expect(res).toEqual({ message: `service account ${sa.id} deleted` });
    expect(suite.sim.serviceAccounts(projectId)).toEqual([]);
    expect(suite.sim.deletedServiceAccounts()).toEqual([sa.id]);
    expect(suite.sim.requests).toEqual([
      expect.objectContaining({
        method: "DELETE",
        path: `/v2/projects/${projectId}/service-accounts/${sa.id}`,
        status: 200,
      }),
    ]);

    const asDeleted = new PimsClient({ baseUrl: suite.sim.baseUrl, token: sa.token.secret, retries: 0 });
    await rejectionOf(asDeleted.listInvoices(projectId), AuthError);
  });

  it("resizeVolume: the volume grows; above 1024 GB on a protected project", async () => {
    const { projectId } = seed();
    const vol = suite.sim.addVolume(projectId, { sizeGb: 50 });
    expect(await suite.client.resizeVolume(projectId, vol.id, 100)).toBe(`volume ${vol.id} resized to 100 GB`);
    expect(suite.sim.volume(projectId, vol.id)?.sizeGb).toBe(100);
    // same size: allowed
    expect(await suite.client.resizeVolume(projectId, vol.id, 100)).toBe(`volume ${vol.id} resized to 100 GB`);
    expect(suite.sim.requests.map((r) => [r.method, r.path, r.status, r.body])).toEqual([
      ["PATCH", `/v2/projects/${projectId}/volumes/${vol.id}/resize`, 200, { newSizeGb: 100 }],
      ["PATCH", `/v2/projects/${projectId}/volumes/${vol.id}/resize`, 200, { newSizeGb: 100 }],
    ]);

    const prot = seed({ protected: true }).projectId;
    const big = suite.sim.addVolume(prot, { sizeGb: 1024 });
    await suite.client.resizeVolume(prot, big.id, 4096);
    expect(suite.sim.volume(prot, big.id)?.sizeGb).toBe(4096);
  });

  it("createProject: returns the plain-text id of a project the simulator now holds", async () => {
    const before = suite.sim.projects().length;
    const id = await suite.client.createProject({ name: "my-app" });
    expect(id).toMatch(/^p-[0-9a-f]{8}$/);
    expect(suite.sim.projects()).toHaveLength(before + 1);
    expect(suite.sim.project(id)).toMatchObject({ id, name: "my-app", protected: false });
    expect(suite.sim.requests).toEqual([
      expect.objectContaining({ method: "POST", path: "/v2/projects", status: 201, body: { name: "my-app" } }),
    ]);
  });

  it("listInvoices: the seeded invoices, unchanged; [] for none", async () => {
    const { projectId } = seed();
    expect(await suite.client.listInvoices(projectId)).toEqual([]);
    const a = suite.sim.addInvoice(projectId, { amountDue: 0, paymentStatus: "open" });
    const b = suite.sim.addInvoice(projectId, { currency: "eur" });
    expect(await suite.client.listInvoices(projectId)).toEqual([a, b]);
    expect(suite.sim.countRequests({ method: "GET", path: `/v2/projects/${projectId}/invoices` })).toBe(2);
  });

  it("getAppLogsPage: one page with the real query names", async () => {
    const { projectId, appId } = seed();
    const added = suite.sim.addLogs(projectId, appId, [
      { logLine: "first", timestamp: "2024-05-01T10:00:00.000Z" },
      { logLine: "second", timestamp: "2024-05-01T10:00:01.000Z", stream: "stderr" },
      { logLine: "third", timestamp: "2024-05-01T10:00:02.000Z" },
    ]);
    const page = await suite.client.getAppLogsPage(projectId, appId, { direction: "forward", pageSize: 2 });
    expect(page.logs).toEqual(added.slice(0, 2));
    expect(page.hasMore).toBe(true);
    expect(typeof page.nextPageToken).toBe("string");
    const last = await suite.client.getAppLogsPage(projectId, appId, {
      direction: "forward",
      pageSize: 2,
      nextToken: page.nextPageToken,
    });
    expect(last).toEqual({ hasMore: false, logs: [added[2]] });
    expect(suite.sim.requests.map((r) => r.query)).toEqual([
      { direction: "forward", pageSize: "2" },
      { direction: "forward", pageSize: "2", nextToken: page.nextPageToken },
    ]);

    const filtered = await suite.client.getAppLogsPage(projectId, appId, {
      stream: "stderr",
      search: "sec",
      afterDate: "2024-05-01T09:00:00Z",
      beforeDate: "2024-05-01T11:00:00Z",
    });
    expect(filtered.logs.map((l) => l.logLine)).toEqual(["second"]);
    expect(suite.sim.requests[2].query).toEqual({
      stream: "stderr",
      search: "sec",
      afterDate: "2024-05-01T09:00:00Z",
      beforeDate: "2024-05-01T11:00:00Z",
    });
  });

  it("getBuildLogs: status and entries; a status change is seen on the next read", async () => {
    const { projectId, appId } = seed();
    const build = suite.sim.addBuild(projectId, appId, { status: "building", logs: [{ log: "step 1" }] });
    const first = await suite.client.getBuildLogs(projectId, appId, build.id);
    expect(first).toMatchObject({ app_id: appId, build_id: build.id, project_id: projectId, status: "building" });
    expect(first.logs.map((l) => l.log)).toEqual(["step 1"]);
    expect(first.logs[0].id).toBe(`${build.id}-1`);

    suite.sim.setBuildStatus(projectId, appId, build.id, "success", ["step 2", "done"]);
    const second = await suite.client.getBuildLogs(projectId, appId, build.id);
    expect(second.status).toBe("success");
    expect(second.logs.map((l) => l.log)).toEqual(["step 1", "step 2", "done"]);
    expect(
      suite.sim.countRequests({
        method: "GET",
        path: `/v2/projects/${projectId}/apps/${appId}/builds/${build.id}/logs`,
      }),
    ).toBe(2);
  });

  it("updateAppSecrets: the simulator holds the sent map (merge mode merges, replace mode replaces)", async () => {
    const { projectId, appId } = seed();
    expect(await suite.client.updateAppSecrets(projectId, appId, { DB_URL: "postgres://x", API_KEY: "k1" })).toBe(
      "secrets updated",
    );
    expect(suite.sim.appSecrets(projectId, appId)).toEqual({ DB_URL: "postgres://x", API_KEY: "k1" });
    await suite.client.updateAppSecrets(projectId, appId, { API_KEY: "k2" });
    expect(suite.sim.appSecrets(projectId, appId)).toEqual({ DB_URL: "postgres://x", API_KEY: "k2" });
    suite.sim.setSecretsMode("replace");
    await suite.client.updateAppSecrets(projectId, appId, { ONLY: "v" });
    expect(suite.sim.appSecrets(projectId, appId)).toEqual({ ONLY: "v" });
    expect(suite.sim.requests.map((r) => [r.method, r.path, r.body])).toEqual([
      ["PATCH", `/v2/projects/${projectId}/apps/${appId}/secrets`, { DB_URL: "postgres://x", API_KEY: "k1" }],
      ["PATCH", `/v2/projects/${projectId}/apps/${appId}/secrets`, { API_KEY: "k2" }],
      ["PATCH", `/v2/projects/${projectId}/apps/${appId}/secrets`, { ONLY: "v" }],
    ]);
  });

  it("cancelRun: the run is cancelled", async () => {
    const { projectId, appId } = seed();
    const run = suite.sim.addRun(projectId, appId);
    expect(await suite.client.cancelRun(projectId, appId, run.id)).toBe(`run ${run.id} cancelled`);
    expect(suite.sim.runs().find((r) => r.id === run.id)?.status).toBe("cancelled");
    expect(suite.sim.requests).toEqual([
      expect.objectContaining({
        method: "DELETE",
        path: `/v2/projects/${projectId}/apps/${appId}/runs/${run.id}`,
        status: 200,
      }),
    ]);
  });

  it("sends the bearer token, JSON content type and encodes path segments", async () => {
    const { projectId } = seed();
    const err = await rejectionOf(suite.client.deleteServiceAccount(projectId, "a/b c"), NotFoundError);
    expect(suite.sim.requests[0].path).toBe(`/v2/projects/${projectId}/service-accounts/a%2Fb%20c`);
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
      const c = testClient(suite.sim, { baseUrl: `${suite.sim.baseUrl}${suffix}` });
      const sa = await c.createServiceAccount(projectId, saRequest(projectId));
      expect(suite.sim.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
        `POST /v2/projects/${projectId}/service-accounts`,
      ]);
      expect(suite.sim.serviceAccounts(projectId).map((a) => a.id)).toEqual([sa.id]);
      await c.deleteServiceAccount(projectId, sa.id);
      expect(suite.sim.serviceAccounts(projectId)).toEqual([]);
    },
  );

  it("a base address that makes every route 404 (one /v2 too many): the error names the full URL called", async () => {
    const { projectId } = seed();
    const sa = await suite.client.createServiceAccount(projectId, saRequest(projectId));
    const wrong = testClient(suite.sim, { baseUrl: `${suite.sim.baseUrl}/v2/v2` });
    const err = await rejectionOf(wrong.deleteServiceAccount(projectId, sa.id), NotFoundError);
    const url = `${suite.sim.baseUrl}/v2/v2/projects/${projectId}/service-accounts/${sa.id}`;
    expect(err.url).toBe(url);
    expect(err.message).toMatch(
      new RegExp(
        `^deleting service account ${sa.id} in project ${projectId}: 404 .* \\(DELETE ` +
          `${url.replace(/[.]/g, "\\.")}\\)$`,
      ),
    );
    expect(suite.sim.serviceAccounts(projectId).map((a) => a.id)).toEqual([sa.id]); // still live
  });
});
