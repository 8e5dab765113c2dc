/**
 * The quirky profile: where the service's documentation is silent it answers otherwise than the default profile
 * (success codes, nulls, extra members, quoted plain text, Content-Types, a generic 404). Each test checks the wire
 * and what the simulator holds afterwards. Token layouts have their own file.
 */
import { PimsSimulator } from "../../../simulator";
import { message, useSimulatorSuite } from "../../kit/sim/http";
import { startSimulator } from "../../kit/sim/simulator";

const suite = useSimulatorSuite("quirky");
const { call, seedApp } = suite;

const EXTRAS = {
  kind: expect.any(String),
  etag: expect.stringMatching(/^W\/"[0-9a-f]{8}"$/),
  _meta: expect.any(Object),
};

describe("selecting the profile", () => {
  it("by option, by PIMS_SIM_PROFILE when the option is absent (startSimulator too), default otherwise", async () => {
    expect(suite.sim.profile).toBe("quirky");
    const saved = process.env.PIMS_SIM_PROFILE;
    const started: PimsSimulator[] = [];
    try {
      delete process.env.PIMS_SIM_PROFILE;
      started.push(await PimsSimulator.start());
      expect(started[0].profile).toBe("default");
      process.env.PIMS_SIM_PROFILE = "quirky";
      started.push(
        await PimsSimulator.start(),
        await startSimulator(),
        await PimsSimulator.start({ profile: "default" }),
      );
      expect(started.slice(1).map((s) => s.profile)).toEqual(["quirky", "quirky", "default"]);
      process.env.PIMS_SIM_PROFILE = "odd";
      await expect(PimsSimulator.start()).rejects.toThrow("PIMS_SIM_PROFILE must be one of default, quirky, got odd");
      await expect(startSimulator()).rejects.toThrow("PIMS_SIM_PROFILE must be one of default, quirky");
    } finally {
      if (saved === undefined) delete process.env.PIMS_SIM_PROFILE;
      else process.env.PIMS_SIM_PROFILE = saved;
      for (const s of started) await s.stop();
    }
  });
});

describe("creates answer 200, plain text is a quoted JSON string with a trailing newline", () => {
  it('POST /v2/projects: 200 and "<id>"\\n', async () => {
    const r = await call("POST", "/v2/projects", { body: { name: "quirky project" } });
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(r.text).toMatch(/^"p-[0-9a-f]{8}"\n$/);
    const id = JSON.parse(r.text) as string;
    expect(suite.sim.project(id)).toMatchObject({ id, name: "quirky project" });
  });

  it("POST /v2/projects/{project_id}/service-accounts: 200, description null, extra members", async () => {
    const { projectId } = seedApp();
    const r = await call("POST", `/v2/projects/${projectId}/service-accounts`, {
      body: { name: "ci", grants: [projectId], expiresIn: 60 },
    });
    expect(r.status).toBe(200);
    const body = r.json as Record<string, unknown>;
    expect(body).toMatchObject({
      name: "ci",
      description: null,
      projectId,
      grants: [projectId],
      createdByUserId: "u-admin",
      ...EXTRAS,
    });
    expect(suite.sim.serviceAccounts(projectId).map((a) => [a.id, a.description])).toEqual([[body.id, ""]]);
    const described = await call("POST", `/v2/projects/${projectId}/service-accounts`, {
      body: { name: "ci", description: "kept", grants: [projectId], expiresIn: 60 },
    });
    expect((described.json as { description: string }).description).toBe("kept");
  });

  it("resize, secrets and run cancellation answer quoted text; state changes as in the default profile", async () => {
    const { projectId, appId } = seedApp();
    const volume = suite.sim.addVolume(projectId, { sizeGb: 100 });
    const resized = await call("PATCH", `/v2/projects/${projectId}/volumes/${volume.id}/resize`, {
      body: { newSizeGb: 200 },
    });
    expect([resized.status, resized.text]).toEqual([200, `"volume ${volume.id} resized to 200 GB"\n`]);
    expect(suite.sim.volume(projectId, volume.id)?.sizeGb).toBe(200);

    const secrets = await call("PATCH", `/v2/projects/${projectId}/apps/${appId}/secrets`, {
      body: { A: "one-value" },
    });
    expect([secrets.status, secrets.text]).toEqual([200, '"secrets updated"\n']);
    expect(suite.sim.appSecrets(projectId, appId)).toEqual({ A: "one-value" });

    const run = suite.sim.addRun(projectId, appId);
    const cancelled = await call("DELETE", `/v2/projects/${projectId}/apps/${appId}/runs/${run.id}`);
    expect([cancelled.status, cancelled.text]).toEqual([200, `"run ${run.id} cancelled"\n`]);
    expect(suite.sim.runs()[0].status).toBe("cancelled");
    const again = await call("DELETE", `/v2/projects/${projectId}/apps/${appId}/runs/${run.id}`);
    expect(again.status).toBe(409);
    expect(again.json).toEqual({ message: `run ${run.id} has already finished (status: cancelled)` });
    const finished = suite.sim.addRun(projectId, appId, { status: "finished" });
    expect((await call("DELETE", `/v2/projects/${projectId}/apps/${appId}/runs/${finished.id}`)).status).toBe(409);
  });
});

describe("204 with an empty body where a message was expected", () => {
  it("DELETE /v2/projects/{project_id}/service-accounts/{id}", async () => {
    const { projectId } = seedApp();
    const account = suite.sim.addServiceAccount({ projectId, name: "gone" });
    const r = await call("DELETE", `/v2/projects/${projectId}/service-accounts/${account.id}`);
    expect([r.status, r.text]).toEqual([204, ""]);
    expect(suite.sim.serviceAccounts()).toEqual([]);
    expect(suite.sim.deletedServiceAccounts()).toEqual([account.id]);
    const again = await call("DELETE", `/v2/projects/${projectId}/service-accounts/${account.id}`);
    expect([again.status, message(again)]).toEqual([404, `service account ${account.id} not found`]);
  });
});

describe("nulls and extra members in listed objects", () => {
  it("API keys: principalId null, expiresAt null instead of never (still last), extra members", async () => {
    const { projectId } = seedApp();
    suite.sim.addApiKey(projectId, { id: "k-never", expiresAt: "never" });
    suite.sim.addApiKey(projectId, { id: "k-2030", expiresAt: "2030-01-01T00:00:00Z" });
    const account = suite.sim.addServiceAccount({ projectId, name: "sa", expiresIn: 60 });
    const r = await call("GET", `/v2/projects/${projectId}/api-keys`);
    const keys = r.json as Array<Record<string, unknown>>;
    expect(keys.map((k) => k.id)).toEqual([account.tokenId, "k-2030", "k-never"]);
    expect(keys[2]).toMatchObject({ principalId: null, expiresAt: null, ...EXTRAS });
    expect(keys[1]).toMatchObject({ principalId: null, expiresAt: "2030-01-01T00:00:00Z" });
    expect(keys[0]).toMatchObject({
      principalId: account.id,
      expiresAt: account.tokenExpiresAt,
      source: "service_account",
    });
  });

  it("invoices carry extra members", async () => {
    const { projectId } = seedApp();
    const invoice = suite.sim.addInvoice(projectId);
    const r = await call("GET", `/v2/projects/${projectId}/invoices`);
    expect(r.json).toEqual([{ ...invoice, ...EXTRAS }]);
  });

  it("build logs: a JSON body labelled text/plain, numeric entry ids, extra members", async () => {
    const { projectId, appId } = seedApp();
    const build = suite.sim.addBuild(projectId, appId, { status: "success", logs: [{ log: "one" }, { log: "two" }] });
    const r = await call("GET", `/v2/projects/${projectId}/apps/${appId}/builds/${build.id}/logs`);
    expect(r.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    const body = JSON.parse(r.text) as { status: string; logs: Array<{ id: unknown; log: string }> };
    expect(body).toMatchObject({
      app_id: appId,
      build_id: build.id,
      project_id: projectId,
      status: "success",
      ...EXTRAS,
    });
    expect(body.logs.map((l) => [l.id, l.log])).toEqual([
      [1, "one"],
      [2, "two"],
    ]);
  });
});

describe("app logs", () => {
  it("nextPageToken is null on the last page; nextToken pages through everything", async () => {
    const { projectId, appId } = seedApp();
    suite.sim.generateLogs(projectId, appId, 25);
    const path = `/v2/projects/${projectId}/apps/${appId}/logs`;
    const seen: string[] = [];
    let token: string | null = null;
    let pages = 0;
    do {
      const query: Record<string, string> = token === null ? { pageSize: "10" } : { pageSize: "10", nextToken: token };
      const r = await call("GET", path, { query });
      expect(r.status).toBe(200);
      const page = r.json as { hasMore: boolean; logs: Array<{ logId: string }>; nextPageToken: string | null };
      expect(page).toMatchObject(EXTRAS);
      expect(page).toHaveProperty("nextPageToken");
      expect(page.hasMore).toBe(page.nextPageToken !== null);
      for (const line of page.logs) expect(line).toMatchObject(EXTRAS);
      seen.push(...page.logs.map((l) => l.logId));
      token = page.nextPageToken;
      pages++;
    } while (token !== null);
    expect(pages).toBe(3);
    expect(new Set(seen).size).toBe(25);
  });

  it("answers an empty page with 200 instead of 204 when nothing matches", async () => {
    const { projectId, appId } = seedApp();
    const r = await call("GET", `/v2/projects/${projectId}/apps/${appId}/logs`);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ hasMore: false, logs: [], nextPageToken: null });
  });
});

describe("errors", () => {
  it("a generic 404 for unknown routes; specific 404s, 405 and 422 as in the default profile", async () => {
    const { projectId } = seedApp();
    const unknown = await call("GET", "/v2/v2/projects/x/api-keys");
    expect([unknown.status, unknown.json]).toEqual([404, { message: "Not Found" }]);
    expect((await call("GET", "/nothing")).json).toEqual({ message: "Not Found" });
    const missing = await call("GET", "/v2/projects/p-00000000/invoices");
    expect(missing.json).toEqual({ message: "project p-00000000 not found" });
    const wrongMethod = await call("PUT", `/v2/projects/${projectId}/invoices`);
    expect([wrongMethod.status, wrongMethod.headers.get("allow")]).toEqual([405, "GET"]);
    const invalid = await call("POST", "/v2/projects", { body: { name: "x" } });
    expect([invalid.status, invalid.json]).toEqual([422, { message: "name must be 2 to 50 characters" }]);
    expect((await call("GET", `/v2/projects/${projectId}/invoices`, { token: "nope-nope-nope" })).json).toEqual({
      message: "invalid or missing bearer token",
    });
  });
});
