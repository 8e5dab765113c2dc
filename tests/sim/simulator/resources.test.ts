/** The default profile: volumes, projects, invoices, build logs, app secrets and runs. */
import { message, useSimulatorSuite } from "../../kit/sim/http";

const suite = useSimulatorSuite("default");
const { call, seedApp } = suite;

describe("PATCH /v2/projects/{project_id}/volumes/{volume_id}/resize", () => {
  it("grows a volume and answers in plain text", async () => {
    const { projectId } = seedApp();
    const volume = suite.sim.addVolume(projectId, { sizeGb: 100 });
    expect(volume.id).toBe("default-us-east-1");
    const r = await call("PATCH", `/v2/projects/${projectId}/volumes/${volume.id}/resize`, {
      body: { newSizeGb: 200 },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(r.text).toBe("volume default-us-east-1 resized to 200 GB");
    expect(suite.sim.volume(projectId, volume.id)?.sizeGb).toBe(200);
    const same = await call("PATCH", `/v2/projects/${projectId}/volumes/${volume.id}/resize`, {
      body: { newSizeGb: 200 },
    });
    expect(same.status).toBe(200);
  });

  it("enforces the size rules", async () => {
    const { projectId } = seedApp();
    const volume = suite.sim.addVolume(projectId, { sizeGb: 100 });
    const resize = (body: unknown, project = projectId) =>
      call("PATCH", `/v2/projects/${project}/volumes/${volume.id}/resize`, { body });

    const small = await resize({ newSizeGb: 49 });
    expect([small.status, message(small)]).toEqual([422, "newSizeGb must be at least 50"]);
    const fractional = await resize({ newSizeGb: 150.5 });
    expect([fractional.status, message(fractional)]).toEqual([422, "newSizeGb must be an integer"]);
    const text = await resize({ newSizeGb: "150" });
    expect([text.status, message(text)]).toEqual([422, "newSizeGb must be an integer"]);
    const missing = await resize({});
    expect([missing.status, message(missing)]).toEqual([422, "newSizeGb is required"]);
    const shrink = await resize({ newSizeGb: 80 });
    expect([shrink.status, message(shrink)]).toEqual([
      422,
      "newSizeGb must not be smaller than the current size (100 GB)",
    ]);
    const huge = await resize({ newSizeGb: 1025 });
    expect(huge.status).toBe(403);
    expect(huge.json).toEqual({ message: "volumes above 1024 GB require a protected project" });
    expect(suite.sim.volume(projectId, volume.id)?.sizeGb).toBe(100);

    const max = await resize({ newSizeGb: 1024 });
    expect(max.status).toBe(200);

    const unknown = await call("PATCH", `/v2/projects/${projectId}/volumes/vol-x/resize`, { body: { newSizeGb: 60 } });
    expect([unknown.status, message(unknown)]).toEqual([404, "volume vol-x not found"]);
  });

  it("lets a protected project go above 1024 GB", async () => {
    const projectId = suite.sim.addProject({ protected: true }).id;
    const volume = suite.sim.addVolume(projectId, { sizeGb: 500 });
    const r = await call("PATCH", `/v2/projects/${projectId}/volumes/${volume.id}/resize`, {
      body: { newSizeGb: 4096 },
    });
    expect(r.status).toBe(200);
    expect(suite.sim.volume(projectId, volume.id)?.sizeGb).toBe(4096);
  });
});

describe("POST /v2/projects", () => {
  it("creates a project and answers with its id as plain text", async () => {
    const r = await call("POST", "/v2/projects", { body: { name: "my project" } });
    expect(r.status).toBe(201);
    expect(r.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(r.text).toMatch(/^p-[0-9a-f]{8}$/);
    expect(suite.sim.project(r.text)).toMatchObject({ id: r.text, name: "my project", protected: false });
    const invoices = await call("GET", `/v2/projects/${r.text}/invoices`);
    expect([invoices.status, invoices.json]).toEqual([200, []]);
  });

  it.each([
    ["too short", { name: "a" }, "name must be 2 to 50 characters"],
    ["too long", { name: "a".repeat(51) }, "name must be 2 to 50 characters"],
    ["missing", {}, "name is required"],
    ["not a string", { name: ["ab"] }, "name must be a string"],
  ])("rejects a name that is %s with 422", async (_label, body, expected) => {
    const r = await call("POST", "/v2/projects", { body });
    expect(r.status).toBe(422);
    expect(r.json).toEqual({ message: expected });
    expect(suite.sim.projects()).toHaveLength(0);
  });

  it("rejects a non-object body with 422", async () => {
    const r = await call("POST", "/v2/projects", { body: ["x"] });
    expect(r.status).toBe(422);
  });
});

describe("GET /v2/projects/{project_id}/invoices", () => {
  it("lists the project's invoices", async () => {
    const { projectId } = seedApp();
    const a = suite.sim.addInvoice(projectId, { amountDue: 500, paymentStatus: "open" });
    const b = suite.sim.addInvoice(projectId);
    const r = await call("GET", `/v2/projects/${projectId}/invoices`);
    expect(r.status).toBe(200);
    expect(r.json).toEqual([a, b]);
  });
});

describe("GET /v2/projects/{project_id}/apps/{app_id}/builds/{build_id}/logs", () => {
  it("returns the build's status and log entries as they change", async () => {
    const { projectId, appId } = seedApp();
    const build = suite.sim.addBuild(projectId, appId, { status: "building", logs: [{ log: "step 1" }] });
    const path = `/v2/projects/${projectId}/apps/${appId}/builds/${build.id}/logs`;
    const r1 = await call("GET", path);
    expect(r1.status).toBe(200);
    expect(r1.json).toMatchObject({ app_id: appId, build_id: build.id, project_id: projectId, status: "building" });
    expect((r1.json as { logs: unknown[] }).logs).toEqual([
      { id: expect.any(String), createdAt: expect.any(String), log: "step 1" },
    ]);

    suite.sim.setBuildStatus(projectId, appId, build.id, "success", ["step 2", "done"]);
    const r2 = (await call("GET", path)).json as { status: string; logs: Array<{ log: string }> };
    expect(r2.status).toBe("success");
    expect(r2.logs.map((l) => l.log)).toEqual(["step 1", "step 2", "done"]);
    expect(suite.sim.builds()).toHaveLength(1);
  });
});

describe("PATCH /v2/projects/{project_id}/apps/{app_id}/secrets", () => {
  const secretsPath = (projectId: string, appId: string) => `/v2/projects/${projectId}/apps/${appId}/secrets`;

  it("merges by default and replaces in replace mode, never echoing values", async () => {
    const { projectId, appId } = seedApp();
    const r1 = await call("PATCH", secretsPath(projectId, appId), { body: { A: "one-value", B: "two-value" } });
    expect([r1.status, r1.text]).toEqual([200, "secrets updated"]);
    expect(r1.headers.get("content-type")).toMatch(/^text\/plain/);
    await call("PATCH", secretsPath(projectId, appId), { body: { B: "changed", C: "three" } });
    expect(suite.sim.appSecrets(projectId, appId)).toEqual({ A: "one-value", B: "changed", C: "three" });

    suite.sim.setSecretsMode("replace");
    const r2 = await call("PATCH", secretsPath(projectId, appId), { body: { D: "four" } });
    expect(r2.status).toBe(200);
    expect(suite.sim.appSecrets(projectId, appId)).toEqual({ D: "four" });
    expect(r2.text).not.toContain("four");
  });

  it("starts in replace mode when asked to", async () => {
    await suite.restart({ secretsMode: "replace" });
    const { projectId, appId } = seedApp();
    await call("PATCH", secretsPath(projectId, appId), { body: { A: "1" } });
    await call("PATCH", secretsPath(projectId, appId), { body: { B: "2" } });
    expect(suite.sim.appSecrets(projectId, appId)).toEqual({ B: "2" });
  });

  it.each([
    ["a non-string value", { GOOD: "x", BAD: 5 }, "secret BAD must be a string"],
    ["a null value", { BAD: null }, "secret BAD must be a string"],
    ["an invalid name", { "1BAD": "x" }, 'secret name "1BAD" must match ^[A-Za-z_][A-Za-z0-9_]*$'],
    ["a name with a dash", { "MY-KEY": "x" }, 'secret name "MY-KEY" must match ^[A-Za-z_][A-Za-z0-9_]*$'],
    ["an array body", ["x"], "request body must be a JSON object mapping secret names to string values"],
    ["a string body", "x", "request body must be a JSON object mapping secret names to string values"],
  ])("rejects %s with 422 and leaves secrets untouched", async (_label, body, expected) => {
    const { projectId, appId } = seedApp();
    await call("PATCH", secretsPath(projectId, appId), { body: { KEEP: "secret-value" } });
    const r = await call("PATCH", secretsPath(projectId, appId), { body });
    expect(r.status).toBe(422);
    expect(r.json).toEqual({ message: expected });
    expect(r.text).not.toContain("secret-value");
    expect(suite.sim.appSecrets(projectId, appId)).toEqual({ KEEP: "secret-value" });
  });
});

describe("DELETE /v2/projects/{project_id}/apps/{app_id}/runs/{run_id}", () => {
  it("cancels a running run once, then answers 409; 404 for an unknown run", async () => {
    const { projectId, appId } = seedApp();
    const run = suite.sim.addRun(projectId, appId);
    const path = `/v2/projects/${projectId}/apps/${appId}/runs/${run.id}`;
    const ok = await call("DELETE", path);
    expect([ok.status, ok.text]).toEqual([200, `run ${run.id} cancelled`]);
    expect(ok.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(suite.sim.runs().find((r) => r.id === run.id)?.status).toBe("cancelled");

    const again = await call("DELETE", path);
    expect(again.status).toBe(409);
    expect(again.json).toEqual({ message: `run ${run.id} has already finished (status: cancelled)` });

    const finished = suite.sim.addRun(projectId, appId, { id: "run-done", status: "finished" });
    const r = await call("DELETE", `/v2/projects/${projectId}/apps/${appId}/runs/${finished.id}`);
    expect(r.status).toBe(409);
    expect(r.json).toEqual({ message: "run run-done has already finished (status: finished)" });
    expect(suite.sim.runs().find((x) => x.id === "run-done")?.status).toBe("finished");

    const unknown = await call("DELETE", `/v2/projects/${projectId}/apps/${appId}/runs/run-nope`);
    expect(unknown.status).toBe(404);
    expect(message(unknown)).toBe("run run-nope not found");
  });
});
