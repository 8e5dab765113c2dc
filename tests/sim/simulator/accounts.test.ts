/** The default profile: API keys and service accounts (created over HTTP, seeded, deleted). */
import type { ApiKey } from "../../../simulator/types";
import { message, useSimulatorSuite } from "../../kit/sim/http";

const suite = useSimulatorSuite("default");
const { call, seedApp, createServiceAccount } = suite;

describe("GET /v2/projects/{project_id}/api-keys", () => {
  it("lists seeded and service-account keys by expiresAt ascending, never last, stable", async () => {
    const { projectId } = seedApp();
    suite.sim.addApiKey(projectId, { id: "k-never-1", expiresAt: "never" });
    suite.sim.addApiKey(projectId, { id: "k-late", expiresAt: "2099-01-01T00:00:00Z" });
    suite.sim.addApiKey(projectId, { id: "k-early", expiresAt: "2030-01-01T00:00:00Z" });
    suite.sim.addApiKey(projectId, { id: "k-never-2", expiresAt: "never" });
    const sa = await createServiceAccount(projectId, { name: "deployer", expiresIn: 3600 });
    const other = suite.sim.addProject().id;
    suite.sim.addApiKey(other, { id: "k-other" });

    const r = await call("GET", `/v2/projects/${projectId}/api-keys`);
    expect(r.status).toBe(200);
    const keys = r.json as ApiKey[];
    expect(keys.map((k) => k.id)).toEqual([sa.token!.id, "k-early", "k-late", "k-never-1", "k-never-2"]);
    const saKey = keys[0];
    expect(saKey).toMatchObject({
      principalId: sa.id,
      name: "deployer",
      source: "service_account",
      status: "active",
      projectId,
      expiresAt: sa.token!.expiresAt,
    });
    expect(saKey.apiKey).toMatch(/^pims_\.\.\.[0-9a-f]{4}$/);
    expect(r.text).not.toContain(sa.token!.secret);

    suite.sim.advanceClock(3601_000);
    const later = (await call("GET", `/v2/projects/${projectId}/api-keys`)).json as ApiKey[];
    expect(later.find((k) => k.id === sa.token!.id)?.status).toBe("expired");
  });
});

describe("POST /v2/projects/{project_id}/service-accounts", () => {
  it("creates an account with a one-time token and holds it", async () => {
    const { projectId } = seedApp();
    const other = suite.sim.addProject().id;
    const sa = await createServiceAccount(projectId, { name: "ci", description: "for CI", grants: [projectId, other] });
    expect(sa.id).toMatch(/^sa-[0-9a-f]{12}$/);
    expect(sa).toMatchObject({ name: "ci", description: "for CI", projectId, grants: [projectId, other] });
    expect(sa.createdByUserId).toBe("u-admin");
    expect(Date.parse(sa.createdAt)).not.toBeNaN();
    expect(sa.token!.id).toMatch(/^tok-[0-9a-f]+$/);
    expect(sa.token!.secret).toMatch(/^pims_sa_[0-9a-f]{40}$/);
    expect(Date.parse(sa.token!.expiresAt) - Date.parse(sa.createdAt)).toBe(3600_000);

    const held = suite.sim.serviceAccounts(projectId);
    expect(held).toHaveLength(1);
    expect(held[0]).toMatchObject({ id: sa.id, tokenId: sa.token!.id, tokenExpiresAt: sa.token!.expiresAt });
    expect(JSON.stringify(held)).not.toContain(sa.token!.secret);
    expect(suite.sim.issuedSecrets()).toEqual([suite.sim.token, sa.token!.secret]);

    const noDescription = await createServiceAccount(projectId, { description: undefined });
    expect(noDescription.description).toBe("");
  });

  const cases: Array<[string, Record<string, unknown>, string]> = [
    ["missing name", { name: undefined }, "name is required"],
    ["empty name", { name: "" }, "name must be 1 to 100 characters"],
    ["long name", { name: "n".repeat(101) }, "name must be 1 to 100 characters"],
    ["non-string name", { name: 5 }, "name must be a string"],
    ["long description", { description: "d".repeat(501) }, "description must be at most 500 characters"],
    ["missing grants", { grants: undefined }, "grants is required"],
    ["empty grants", { grants: [] }, "grants must have 1 to 50 entries"],
    ["non-string grant", { grants: [1] }, "grants must be an array of strings"],
    ["unknown grant", { grants: ["p-deadbeef"] }, "grants[0] must be an existing project id (p-deadbeef not found)"],
    ["missing expiresIn", { expiresIn: undefined }, "expiresIn is required"],
    ["fractional expiresIn", { expiresIn: 1.5 }, "expiresIn must be an integer"],
    ["negative expiresIn", { expiresIn: -1 }, "expiresIn must be between 0 and 31536000"],
    ["too long expiresIn", { expiresIn: 31_536_001 }, "expiresIn must be between 0 and 31536000"],
  ];
  it.each(cases)("rejects %s with 422", async (_label, override, expected) => {
    const { projectId } = seedApp();
    const r = await call("POST", `/v2/projects/${projectId}/service-accounts`, {
      body: { name: "ci", grants: [projectId], expiresIn: 60, ...override },
    });
    expect(r.status).toBe(422);
    expect(r.json).toEqual({ message: expected });
    expect(suite.sim.serviceAccounts()).toHaveLength(0);
  });

  it("rejects more than 50 grants and duplicate grants with 422", async () => {
    const { projectId } = seedApp();
    const many = Array.from({ length: 51 }, () => suite.sim.addProject().id);
    const tooMany = await call("POST", `/v2/projects/${projectId}/service-accounts`, {
      body: { name: "ci", grants: many, expiresIn: 60 },
    });
    expect(tooMany.status).toBe(422);
    expect(message(tooMany)).toBe("grants must have 1 to 50 entries");

    const fifty = await call("POST", `/v2/projects/${projectId}/service-accounts`, {
      body: { name: "ci", grants: many.slice(0, 50), expiresIn: 31_536_000 },
    });
    expect(fifty.status).toBe(201);

    const dup = await call("POST", `/v2/projects/${projectId}/service-accounts`, {
      body: { name: "ci", grants: [projectId, projectId], expiresIn: 60 },
    });
    expect(dup.status).toBe(422);
    expect(message(dup)).toBe(`grants must not contain duplicates (${projectId})`);
  });
});

describe("seeded service accounts (addServiceAccount)", () => {
  it("holds a seeded account like a created one: chosen id and token, listed, usable, deletable", async () => {
    const { projectId } = seedApp();
    const other = suite.sim.addProject().id;
    const secret = "pims_sa_0123456789abcdef0123456789abcdef01234567";
    const before = suite.sim.now().getTime();
    const seeded = suite.sim.addServiceAccount({
      id: "sa-5eed00000001",
      projectId,
      name: "deployer",
      description: "from a fixture",
      grants: [projectId, other],
      expiresIn: 3600,
      tokenSecret: secret,
      tokenId: "tok-5eed",
    });
    expect(seeded).toEqual({
      id: "sa-5eed00000001",
      name: "deployer",
      description: "from a fixture",
      projectId,
      grants: [projectId, other],
      createdAt: seeded.createdAt,
      createdByUserId: "u-admin",
      tokenId: "tok-5eed",
      tokenExpiresAt: new Date(Date.parse(seeded.createdAt) + 3600_000).toISOString(),
    });
    expect(Date.parse(seeded.createdAt)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(seeded.createdAt)).toBeLessThanOrEqual(suite.sim.now().getTime());
    expect(JSON.stringify(seeded)).not.toContain(secret);
    expect(suite.sim.serviceAccounts()).toEqual([seeded]);
    expect(suite.sim.serviceAccounts(other)).toEqual([]);
    expect(suite.sim.issuedSecrets()).toEqual([suite.sim.token, secret]);

    // listed in the API keys like a created account, the secret usable as a bearer token
    const list = await call("GET", `/v2/projects/${projectId}/api-keys`, { token: secret });
    expect(list.status).toBe(200);
    expect(list.json).toEqual([
      {
        id: "tok-5eed",
        name: "deployer",
        description: "from a fixture",
        apiKey: "pims_...4567",
        projectId,
        principalId: "sa-5eed00000001",
        source: "service_account",
        status: "active",
        createdAt: seeded.createdAt,
        updatedAt: seeded.createdAt,
        expiresAt: seeded.tokenExpiresAt,
      },
    ]);
    const self = await call("DELETE", `/v2/projects/${projectId}/service-accounts/sa-5eed00000001`, { token: secret });
    expect(self.status).toBe(409);

    // deleted by DELETE /v2/projects/{project_id}/service-accounts/{id}; its token stops working
    const ok = await call("DELETE", `/v2/projects/${projectId}/service-accounts/sa-5eed00000001`);
    expect(ok.status).toBe(200);
    expect(suite.sim.serviceAccounts()).toEqual([]);
    expect(suite.sim.deletedServiceAccounts()).toEqual(["sa-5eed00000001"]);
    expect((await call("GET", `/v2/projects/${projectId}/api-keys`, { token: secret })).status).toBe(401);
  });

  it("defaults: fresh id and token, grants [projectId], no description, a token that never expires", async () => {
    const { projectId } = seedApp();
    const seeded = suite.sim.addServiceAccount({ projectId, name: "plain" });
    expect(seeded).toMatchObject({
      name: "plain",
      description: "",
      projectId,
      grants: [projectId],
      tokenExpiresAt: "never",
    });
    expect(seeded.id).toMatch(/^sa-[0-9a-f]{12}$/);
    expect(seeded.tokenId).toMatch(/^tok-[0-9a-f]{16}$/);
    const [, secret] = suite.sim.issuedSecrets();
    expect(secret).toMatch(/^pims_sa_[0-9a-f]{40}$/);
    suite.sim.advanceClock(10 * 365 * 86400_000);
    expect((await call("GET", `/v2/projects/${projectId}/api-keys`, { token: secret })).status).toBe(200);
  });

  it("a seeded token expires on the simulator clock", async () => {
    const { projectId } = seedApp();
    suite.sim.addServiceAccount({
      projectId,
      name: "short",
      expiresIn: 60,
      tokenSecret: "pims_sa_short",
      tokenId: "tok-short",
    });
    expect((await call("GET", `/v2/projects/${projectId}/api-keys`, { token: "pims_sa_short" })).status).toBe(200);
    suite.sim.advanceClock(60_000);
    expect((await call("GET", `/v2/projects/${projectId}/api-keys`, { token: "pims_sa_short" })).status).toBe(401);
    const keys = (await call("GET", `/v2/projects/${projectId}/api-keys`)).json as ApiKey[];
    expect(keys.map((k) => [k.id, k.status])).toEqual([["tok-short", "expired"]]);
  });

  it("refuses a used id, an unknown project or grant, duplicate grants, a bad expiresIn, a token in use", async () => {
    const { projectId } = seedApp();
    const created = await createServiceAccount(projectId);
    suite.sim.addServiceAccount({ id: "sa-taken", projectId, name: "a", tokenSecret: "pims_sa_taken" });
    expect(() => suite.sim.addServiceAccount({ id: "sa-taken", projectId, name: "b" })).toThrow(
      "service account sa-taken already exists",
    );
    expect(() => suite.sim.addServiceAccount({ id: created.id, projectId, name: "b" })).toThrow(
      `service account ${created.id} already exists`,
    );
    await call("DELETE", `/v2/projects/${projectId}/service-accounts/sa-taken`);
    expect(() => suite.sim.addServiceAccount({ id: "sa-taken", projectId, name: "b" })).toThrow(
      "service account sa-taken already exists (deleted)",
    );
    expect(() => suite.sim.addServiceAccount({ projectId: "p-nope", name: "b" })).toThrow(
      "project p-nope does not exist; call addProject first",
    );
    expect(() => suite.sim.addServiceAccount({ projectId, name: "b", grants: ["p-nope"] })).toThrow(
      "granted project p-nope does not exist",
    );
    expect(() => suite.sim.addServiceAccount({ projectId, name: "b", grants: [projectId, projectId] })).toThrow(
      "grants must not contain duplicates",
    );
    expect(() => suite.sim.addServiceAccount({ projectId, name: "b", expiresIn: -1 })).toThrow(
      "expiresIn must be a non-negative integer, got -1",
    );
    expect(() => suite.sim.addServiceAccount({ projectId, name: "b", tokenSecret: suite.sim.token })).toThrow(
      "tokenSecret is already the token",
    );
    expect(() => suite.sim.addServiceAccount({ projectId, name: "b", tokenSecret: created.token!.secret })).toThrow(
      "tokenSecret is already the token",
    );
    expect(suite.sim.serviceAccounts().map((a) => a.id)).toEqual([created.id]);
  });
});

describe("DELETE /v2/projects/{project_id}/service-accounts/{id}", () => {
  it("deletes once, then 404; 404 from another project; 409 for the caller's own account", async () => {
    const { projectId } = seedApp();
    const other = suite.sim.addProject().id;
    const sa = await createServiceAccount(projectId);

    const wrongProject = await call("DELETE", `/v2/projects/${other}/service-accounts/${sa.id}`);
    expect(wrongProject.status).toBe(404);
    expect(message(wrongProject)).toBe(`service account ${sa.id} not found`);

    const self = await call("DELETE", `/v2/projects/${projectId}/service-accounts/${sa.id}`, {
      token: sa.token!.secret,
    });
    expect(self.status).toBe(409);
    expect(self.json).toEqual({ message: "cannot delete the service account used by this request" });
    expect(suite.sim.serviceAccounts()).toHaveLength(1);

    const ok = await call("DELETE", `/v2/projects/${projectId}/service-accounts/${sa.id}`);
    expect(ok.status).toBe(200);
    expect(ok.json).toEqual({ message: `service account ${sa.id} deleted` });
    expect(suite.sim.serviceAccounts()).toHaveLength(0);
    expect(suite.sim.deletedServiceAccounts()).toEqual([sa.id]);
    const keys = (await call("GET", `/v2/projects/${projectId}/api-keys`)).json as ApiKey[];
    expect(keys).toEqual([]);

    const again = await call("DELETE", `/v2/projects/${projectId}/service-accounts/${sa.id}`);
    expect(again.status).toBe(404);
    expect(message(again)).toBe(`service account ${sa.id} not found`);
  });
});
