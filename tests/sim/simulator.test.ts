import * as http from "node:http";
import type { ApiKey, AppLogLine, AppLogPage, ServiceAccount } from "../../provider/client/types";
import { PimsSimulator } from "../../simulator";

interface CallOptions {
  body?: unknown;
  /** Sent verbatim instead of JSON.stringify(body). */
  rawBody?: string;
  /** null = no Authorization header; default the admin token. */
  token?: string | null;
  query?: Record<string, string>;
}

interface CallResult {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

let sim: PimsSimulator;

async function call(method: string, path: string, opts: CallOptions = {}): Promise<CallResult> {
  const url = new URL(sim.baseUrl + path);
  for (const [k, v] of Object.entries(opts.query ?? {})) url.searchParams.set(k, v);
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  const token = opts.token === undefined ? sim.token : opts.token;
  if (token !== null) headers.Authorization = `Bearer ${token}`;
  const body = opts.rawBody ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
  const res = await fetch(url, { method, headers, body });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

const message = (r: CallResult): string => (r.json as { message: string }).message;

/** A project with an app; returns their ids. */
function seedApp(appName = "web"): { projectId: string; appId: string } {
  const projectId = sim.addProject().id;
  return { projectId, appId: sim.addApp(projectId, appName).id };
}

async function createServiceAccount(projectId: string, body: Record<string, unknown> = {}): Promise<ServiceAccount> {
  const r = await call("POST", `/v2/projects/${projectId}/service-accounts`, {
    body: { name: "ci", grants: [projectId], expiresIn: 3600, ...body },
  });
  expect(r.status).toBe(201);
  return r.json as ServiceAccount;
}

beforeEach(async () => {
  sim = await PimsSimulator.start();
});

afterEach(async () => {
  await sim.stop();
});

describe("auth and routing", () => {
  it("rejects missing and wrong tokens with 401 without echoing the token", async () => {
    const { projectId } = seedApp();
    const missing = await call("GET", `/v2/projects/${projectId}/invoices`, { token: null });
    expect(missing.status).toBe(401);
    expect(missing.json).toEqual({ message: "invalid or missing bearer token" });

    const wrong = await call("GET", `/v2/projects/${projectId}/invoices`, { token: "pims_wrong_secret_value" });
    expect(wrong.status).toBe(401);
    expect(wrong.text).not.toContain("pims_wrong_secret_value");
    expect(sim.requests.map((r) => r.status)).toEqual([401, 401]);
  });

  it("accepts a service account token until it expires or the account is deleted", async () => {
    const { projectId } = seedApp();
    const sa = await createServiceAccount(projectId, { expiresIn: 60 });
    const secret = sa.token!.secret;
    expect((await call("GET", `/v2/projects/${projectId}/invoices`, { token: secret })).status).toBe(200);
    sim.advanceClock(61_000);
    expect((await call("GET", `/v2/projects/${projectId}/invoices`, { token: secret })).status).toBe(401);

    const forever = await createServiceAccount(projectId, { expiresIn: 0 });
    expect(forever.token!.expiresAt).toBe("never");
    sim.advanceClock(10 * 365 * 24 * 3600 * 1000);
    expect((await call("GET", `/v2/projects/${projectId}/invoices`, { token: forever.token!.secret })).status).toBe(200);
    await call("DELETE", `/v2/projects/${projectId}/service-accounts/${forever.id}`);
    expect((await call("GET", `/v2/projects/${projectId}/invoices`, { token: forever.token!.secret })).status).toBe(401);
  });

  it("answers 404 for unknown routes and ids, 405 for a wrong method, 400 for malformed JSON", async () => {
    const { projectId, appId } = seedApp();
    const unknownRoute = await call("GET", "/v2/nothing-here");
    expect(unknownRoute.status).toBe(404);
    expect(typeof message(unknownRoute)).toBe("string");

    const unknownProject = await call("GET", "/v2/projects/p-00000000/invoices");
    expect(unknownProject.status).toBe(404);
    expect(unknownProject.json).toEqual({ message: "project p-00000000 not found" });

    const unknownApp = await call("GET", `/v2/projects/${projectId}/apps/${projectId}-nope/logs`);
    expect(unknownApp.json).toEqual({ message: `app ${projectId}-nope not found` });

    const unknownBuild = await call("GET", `/v2/projects/${projectId}/apps/${appId}/builds/b-x/logs`);
    expect(unknownBuild.status).toBe(404);
    expect(message(unknownBuild)).toBe("build b-x not found");

    const wrongMethod = await call("PUT", `/v2/projects/${projectId}/invoices`);
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("allow")).toBe("GET");
    expect(typeof message(wrongMethod)).toBe("string");

    const malformed = await call("POST", "/v2/projects", { rawBody: "{not json" });
    expect(malformed.status).toBe(400);
    expect(typeof message(malformed)).toBe("string");
  });

  it("logs every request with method, path, query and parsed body, never the Authorization header", async () => {
    const { projectId, appId } = seedApp();
    await call("POST", "/v2/projects", { body: { name: "logged" } });
    await call("GET", `/v2/projects/${projectId}/apps/${appId}/logs`, { query: { pageSize: "5" } });
    expect(sim.requests).toHaveLength(2);
    expect(sim.requests[0]).toMatchObject({ method: "POST", path: "/v2/projects", status: 201, body: { name: "logged" } });
    expect(sim.requests[1]).toMatchObject({ method: "GET", query: { pageSize: "5" }, status: 204 });
    expect(JSON.stringify(sim.requests)).not.toContain(sim.token);
    expect(sim.countRequests({ method: "post" })).toBe(1);
    expect(sim.countRequests({ path: "/v2/projects/*" })).toBe(1);
    expect(sim.countRequests({ path: /\/logs$/ })).toBe(1);
    sim.clearRequests();
    expect(sim.countRequests()).toBe(0);
  });
});

describe("1 api keys", () => {
  it("lists seeded and service-account keys by expiresAt ascending, never last, stable", async () => {
    const { projectId } = seedApp();
    sim.addApiKey(projectId, { id: "k-never-1", expiresAt: "never" });
    sim.addApiKey(projectId, { id: "k-late", expiresAt: "2099-01-01T00:00:00Z" });
    sim.addApiKey(projectId, { id: "k-early", expiresAt: "2030-01-01T00:00:00Z" });
    sim.addApiKey(projectId, { id: "k-never-2", expiresAt: "never" });
    const sa = await createServiceAccount(projectId, { name: "deployer", expiresIn: 3600 });
    const other = sim.addProject().id;
    sim.addApiKey(other, { id: "k-other" });

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

    sim.advanceClock(3601_000);
    const later = (await call("GET", `/v2/projects/${projectId}/api-keys`)).json as ApiKey[];
    expect(later.find((k) => k.id === sa.token!.id)?.status).toBe("expired");
  });
});

describe("2 create service account", () => {
  it("creates an account with a one-time token and holds it", async () => {
    const { projectId } = seedApp();
    const other = sim.addProject().id;
    const sa = await createServiceAccount(projectId, { name: "ci", description: "for CI", grants: [projectId, other] });
    expect(sa.id).toMatch(/^sa-[0-9a-f]{12}$/);
    expect(sa).toMatchObject({ name: "ci", description: "for CI", projectId, grants: [projectId, other] });
    expect(sa.createdByUserId).toBe("u-admin");
    expect(Date.parse(sa.createdAt)).not.toBeNaN();
    expect(sa.token!.id).toMatch(/^tok-[0-9a-f]+$/);
    expect(sa.token!.secret).toMatch(/^pims_sa_[0-9a-f]{40}$/);
    expect(Date.parse(sa.token!.expiresAt) - Date.parse(sa.createdAt)).toBe(3600_000);

    const held = sim.serviceAccounts(projectId);
    expect(held).toHaveLength(1);
    expect(held[0]).toMatchObject({ id: sa.id, tokenId: sa.token!.id, tokenExpiresAt: sa.token!.expiresAt });
    expect(JSON.stringify(held)).not.toContain(sa.token!.secret);
    expect(sim.issuedSecrets()).toEqual([sim.token, sa.token!.secret]);

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
    expect(sim.serviceAccounts()).toHaveLength(0);
  });

  it("rejects more than 50 grants and duplicate grants with 422", async () => {
    const { projectId } = seedApp();
    const many = Array.from({ length: 51 }, () => sim.addProject().id);
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
    const other = sim.addProject().id;
    const secret = "pims_sa_0123456789abcdef0123456789abcdef01234567";
    const before = sim.now().getTime();
    const seeded = sim.addServiceAccount({
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
    expect(Date.parse(seeded.createdAt)).toBeLessThanOrEqual(sim.now().getTime());
    expect(JSON.stringify(seeded)).not.toContain(secret);
    expect(sim.serviceAccounts()).toEqual([seeded]);
    expect(sim.serviceAccounts(other)).toEqual([]);
    expect(sim.issuedSecrets()).toEqual([sim.token, secret]);

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

    // deleted by operation 3; its token stops working
    const ok = await call("DELETE", `/v2/projects/${projectId}/service-accounts/sa-5eed00000001`);
    expect(ok.status).toBe(200);
    expect(sim.serviceAccounts()).toEqual([]);
    expect(sim.deletedServiceAccounts()).toEqual(["sa-5eed00000001"]);
    expect((await call("GET", `/v2/projects/${projectId}/api-keys`, { token: secret })).status).toBe(401);
  });

  it("defaults: fresh id and token, grants [projectId], no description, a token that never expires", async () => {
    const { projectId } = seedApp();
    const seeded = sim.addServiceAccount({ projectId, name: "plain" });
    expect(seeded).toMatchObject({ name: "plain", description: "", projectId, grants: [projectId], tokenExpiresAt: "never" });
    expect(seeded.id).toMatch(/^sa-[0-9a-f]{12}$/);
    expect(seeded.tokenId).toMatch(/^tok-[0-9a-f]{16}$/);
    const [, secret] = sim.issuedSecrets();
    expect(secret).toMatch(/^pims_sa_[0-9a-f]{40}$/);
    sim.advanceClock(10 * 365 * 86400_000);
    expect((await call("GET", `/v2/projects/${projectId}/api-keys`, { token: secret })).status).toBe(200);
  });

  it("a seeded token expires on the simulator clock", async () => {
    const { projectId } = seedApp();
    sim.addServiceAccount({ projectId, name: "short", expiresIn: 60, tokenSecret: "pims_sa_short", tokenId: "tok-short" });
    expect((await call("GET", `/v2/projects/${projectId}/api-keys`, { token: "pims_sa_short" })).status).toBe(200);
    sim.advanceClock(60_000);
    expect((await call("GET", `/v2/projects/${projectId}/api-keys`, { token: "pims_sa_short" })).status).toBe(401);
    const keys = (await call("GET", `/v2/projects/${projectId}/api-keys`)).json as ApiKey[];
    expect(keys.map((k) => [k.id, k.status])).toEqual([["tok-short", "expired"]]);
  });

  it("refuses a used id, an unknown project or grant, duplicate grants, a bad expiresIn and a token already in use", async () => {
    const { projectId } = seedApp();
    const created = await createServiceAccount(projectId);
    sim.addServiceAccount({ id: "sa-taken", projectId, name: "a", tokenSecret: "pims_sa_taken" });
    expect(() => sim.addServiceAccount({ id: "sa-taken", projectId, name: "b" })).toThrow("service account sa-taken already exists");
    expect(() => sim.addServiceAccount({ id: created.id, projectId, name: "b" })).toThrow(`service account ${created.id} already exists`);
    await call("DELETE", `/v2/projects/${projectId}/service-accounts/sa-taken`);
    expect(() => sim.addServiceAccount({ id: "sa-taken", projectId, name: "b" })).toThrow("service account sa-taken already exists (deleted)");
    expect(() => sim.addServiceAccount({ projectId: "p-nope", name: "b" })).toThrow("project p-nope does not exist; call addProject first");
    expect(() => sim.addServiceAccount({ projectId, name: "b", grants: ["p-nope"] })).toThrow("granted project p-nope does not exist");
    expect(() => sim.addServiceAccount({ projectId, name: "b", grants: [projectId, projectId] })).toThrow("grants must not contain duplicates");
    expect(() => sim.addServiceAccount({ projectId, name: "b", expiresIn: -1 })).toThrow("expiresIn must be a non-negative integer, got -1");
    expect(() => sim.addServiceAccount({ projectId, name: "b", tokenSecret: sim.token })).toThrow("tokenSecret is already the token");
    expect(() => sim.addServiceAccount({ projectId, name: "b", tokenSecret: created.token!.secret })).toThrow("tokenSecret is already the token");
    expect(sim.serviceAccounts().map((a) => a.id)).toEqual([created.id]);
  });
});

describe("3 delete service account", () => {
  it("deletes once, then 404; 404 from another project; 409 for the caller's own account", async () => {
    const { projectId } = seedApp();
    const other = sim.addProject().id;
    const sa = await createServiceAccount(projectId);

    const wrongProject = await call("DELETE", `/v2/projects/${other}/service-accounts/${sa.id}`);
    expect(wrongProject.status).toBe(404);
    expect(message(wrongProject)).toBe(`service account ${sa.id} not found`);

    const self = await call("DELETE", `/v2/projects/${projectId}/service-accounts/${sa.id}`, { token: sa.token!.secret });
    expect(self.status).toBe(409);
    expect(self.json).toEqual({ message: "cannot delete the service account used by this request" });
    expect(sim.serviceAccounts()).toHaveLength(1);

    const ok = await call("DELETE", `/v2/projects/${projectId}/service-accounts/${sa.id}`);
    expect(ok.status).toBe(200);
    expect(ok.json).toEqual({ message: `service account ${sa.id} deleted` });
    expect(sim.serviceAccounts()).toHaveLength(0);
    expect(sim.deletedServiceAccounts()).toEqual([sa.id]);
    const keys = (await call("GET", `/v2/projects/${projectId}/api-keys`)).json as ApiKey[];
    expect(keys).toEqual([]);

    const again = await call("DELETE", `/v2/projects/${projectId}/service-accounts/${sa.id}`);
    expect(again.status).toBe(404);
    expect(message(again)).toBe(`service account ${sa.id} not found`);
  });
});

describe("4 resize volume", () => {
  it("grows a volume and answers in plain text", async () => {
    const { projectId } = seedApp();
    const volume = sim.addVolume(projectId, { sizeGb: 100 });
    expect(volume.id).toBe("default-us-east-1");
    const r = await call("PATCH", `/v2/projects/${projectId}/volumes/${volume.id}/resize`, { body: { newSizeGb: 200 } });
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(r.text).toBe("volume default-us-east-1 resized to 200 GB");
    expect(sim.volume(projectId, volume.id)?.sizeGb).toBe(200);
    const same = await call("PATCH", `/v2/projects/${projectId}/volumes/${volume.id}/resize`, { body: { newSizeGb: 200 } });
    expect(same.status).toBe(200);
  });

  it("enforces the size rules", async () => {
    const { projectId } = seedApp();
    const volume = sim.addVolume(projectId, { sizeGb: 100 });
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
    expect(sim.volume(projectId, volume.id)?.sizeGb).toBe(100);

    const max = await resize({ newSizeGb: 1024 });
    expect(max.status).toBe(200);

    const unknown = await call("PATCH", `/v2/projects/${projectId}/volumes/vol-x/resize`, { body: { newSizeGb: 60 } });
    expect([unknown.status, message(unknown)]).toEqual([404, "volume vol-x not found"]);
  });

  it("lets a protected project go above 1024 GB", async () => {
    const projectId = sim.addProject({ protected: true }).id;
    const volume = sim.addVolume(projectId, { sizeGb: 500 });
    const r = await call("PATCH", `/v2/projects/${projectId}/volumes/${volume.id}/resize`, { body: { newSizeGb: 4096 } });
    expect(r.status).toBe(200);
    expect(sim.volume(projectId, volume.id)?.sizeGb).toBe(4096);
  });
});

describe("5 create project", () => {
  it("creates a project and answers with its id as plain text", async () => {
    const r = await call("POST", "/v2/projects", { body: { name: "my project" } });
    expect(r.status).toBe(201);
    expect(r.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(r.text).toMatch(/^p-[0-9a-f]{8}$/);
    expect(sim.project(r.text)).toMatchObject({ id: r.text, name: "my project", protected: false });
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
    expect(sim.projects()).toHaveLength(0);
  });

  it("rejects a non-object body with 422", async () => {
    const r = await call("POST", "/v2/projects", { body: ["x"] });
    expect(r.status).toBe(422);
  });
});

describe("6 invoices", () => {
  it("lists the project's invoices", async () => {
    const { projectId } = seedApp();
    const a = sim.addInvoice(projectId, { amountDue: 500, paymentStatus: "open" });
    const b = sim.addInvoice(projectId);
    const r = await call("GET", `/v2/projects/${projectId}/invoices`);
    expect(r.status).toBe(200);
    expect(r.json).toEqual([a, b]);
  });
});

describe("7 app logs", () => {
  const logsPath = (projectId: string, appId: string) => `/v2/projects/${projectId}/apps/${appId}/logs`;

  async function page(projectId: string, appId: string, query: Record<string, string>): Promise<CallResult> {
    return call("GET", logsPath(projectId, appId), { query });
  }

  async function all(projectId: string, appId: string, query: Record<string, string>): Promise<AppLogLine[]> {
    const lines: AppLogLine[] = [];
    let token: string | undefined;
    for (;;) {
      const r = await page(projectId, appId, token ? { ...query, nextToken: token } : query);
      if (r.status === 204) return lines;
      expect(r.status).toBe(200);
      const body = r.json as AppLogPage;
      lines.push(...body.logs);
      if (!body.hasMore) {
        expect(body).not.toHaveProperty("nextPageToken");
        return lines;
      }
      token = body.nextPageToken;
      expect(typeof token).toBe("string");
    }
  }

  it("answers 204 with an empty body when nothing matches", async () => {
    const { projectId, appId } = seedApp();
    const empty = await page(projectId, appId, {});
    expect(empty.status).toBe(204);
    expect(empty.text).toBe("");
    sim.addLogs(projectId, appId, [{ logLine: "hello" }]);
    expect((await page(projectId, appId, { search: "absent" })).status).toBe(204);
    expect((await page(projectId, appId, { runId: "run-unknown" })).status).toBe(204);
  });

  it("fills defaults in addLogs and returns newest first by default", async () => {
    const { projectId, appId } = seedApp();
    const run = sim.addRun(projectId, appId);
    const added = sim.addLogs(projectId, appId, [{ logLine: "one" }, { logLine: "two", stream: "stderr" }]);
    expect(added[0]).toMatchObject({ appId, projectId, runId: run.id, stream: "stdout", containerName: "web" });
    expect(Date.parse(added[1].timestamp)).toBeGreaterThan(Date.parse(added[0].timestamp));
    expect(added[0].logId).not.toBe(added[1].logId);

    const r = await page(projectId, appId, {});
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ hasMore: false, logs: [added[1], added[0]] });
    const forward = await page(projectId, appId, { direction: "forward" });
    expect((forward.json as AppLogPage).logs).toEqual(added);
  });

  it("filters by container name or id, run, stream, search and dates", async () => {
    const { projectId, appId } = seedApp();
    const start = new Date("2030-01-01T00:00:00Z");
    sim.generateLogs(projectId, appId, 100, {
      containers: ["web", "worker"],
      runIds: ["run-a", "run-b"],
      startTime: start,
      stepMs: 1000,
    });
    const byName = await all(projectId, appId, { container: "worker" });
    expect(byName).toHaveLength(50);
    expect(byName.every((l) => l.containerName === "worker")).toBe(true);
    const byId = await all(projectId, appId, { container: byName[0].containerId });
    expect(byId).toEqual(byName);

    const runB = await all(projectId, appId, { runId: "run-b" });
    expect(runB).toHaveLength(50);
    expect(runB.every((l) => l.runId === "run-b")).toBe(true);

    const stderr = await all(projectId, appId, { stream: "stderr" });
    expect(stderr).toHaveLength(10);
    expect(stderr.every((l) => l.stream === "stderr")).toBe(true);

    const search = await all(projectId, appId, { search: "failure #19" });
    expect(search.map((l) => l.logLine)).toEqual(["error: simulated failure #19"]);

    const window = await all(projectId, appId, {
      afterDate: "2030-01-01T00:00:10Z",
      beforeDate: "2030-01-01T00:00:20Z",
      direction: "forward",
    });
    expect(window.map((l) => l.timestamp)).toEqual(
      Array.from({ length: 9 }, (_, i) => new Date(start.getTime() + (11 + i) * 1000).toISOString()),
    );

    const combined = await all(projectId, appId, { container: "worker", stream: "stderr", runId: "run-a" });
    expect(combined.map((l) => l.logLine)).toEqual([49, 39, 29, 19, 9].map((i) => `error: simulated failure #${i}`));
    expect(combined.every((l) => l.containerName === "worker" && l.runId === "run-a")).toBe(true);
  });

  it("pages through 100k lines with nextToken in both directions", async () => {
    const { projectId, appId } = seedApp();
    sim.generateLogs(projectId, appId, 100_000, { containers: ["a", "b", "c"] });

    const first = await page(projectId, appId, {});
    expect((first.json as AppLogPage).logs).toHaveLength(200);
    expect((first.json as AppLogPage).hasMore).toBe(true);

    const forward = await all(projectId, appId, { direction: "forward", pageSize: "1000" });
    expect(forward).toHaveLength(100_000);
    const stamps = forward.map((l) => Date.parse(l.timestamp));
    expect(stamps.every((t, i) => i === 0 || t > stamps[i - 1])).toBe(true);
    expect(new Set(forward.map((l) => l.logId)).size).toBe(100_000);

    const backwardC = await all(projectId, appId, { container: "c", pageSize: "777" });
    expect(backwardC).toHaveLength(33_333);
    const stampsC = backwardC.map((l) => Date.parse(l.timestamp));
    expect(stampsC.every((t, i) => i === 0 || t < stampsC[i - 1])).toBe(true);
  });

  it("keeps paging correct when lines are appended between pages", async () => {
    const { projectId, appId } = seedApp();
    sim.generateLogs(projectId, appId, 10, { startTime: new Date("2030-01-01T00:00:00Z") });
    const p1 = (await page(projectId, appId, { pageSize: "4" })).json as AppLogPage;
    sim.addLogs(projectId, appId, [{ logLine: "late arrival" }]);
    const p2 = (await page(projectId, appId, { pageSize: "4", nextToken: p1.nextPageToken! })).json as AppLogPage;
    expect(p2.logs.map((l) => l.logLine)).toEqual(
      [5, 4, 3, 2].map((i) => `GET /api/items/${i} 200 ${(i * 7) % 50}ms (line ${i})`),
    );
  });

  it("honours pageSize and the simulator's page size options", async () => {
    const { projectId, appId } = seedApp();
    sim.generateLogs(projectId, appId, 30);
    const r = (await page(projectId, appId, { pageSize: "30" })).json as AppLogPage;
    expect(r.hasMore).toBe(false);
    expect(r.logs).toHaveLength(30);
    expect(r).not.toHaveProperty("nextPageToken");

    await sim.stop();
    sim = await PimsSimulator.start({ maxPageSize: 10, defaultPageSize: 4 });
    const small = seedApp();
    sim.generateLogs(small.projectId, small.appId, 30);
    const def = (await page(small.projectId, small.appId, {})).json as AppLogPage;
    expect(def.logs).toHaveLength(4);
    expect((await page(small.projectId, small.appId, { pageSize: "11" })).status).toBe(400);
    expect((await page(small.projectId, small.appId, { pageSize: "10" })).status).toBe(200);
  });

  it.each([
    ["pageSize", "0"],
    ["pageSize", "1001"],
    ["pageSize", "ten"],
    ["pageSize", "2.5"],
    ["direction", "sideways"],
    ["stream", "stdin"],
    ["beforeDate", "yesterday"],
    ["afterDate", "2030-01-01"],
    ["nextToken", "garbage!"],
  ])("rejects %s=%s with 400", async (name, value) => {
    const { projectId, appId } = seedApp();
    sim.addLogs(projectId, appId, [{ logLine: "x" }]);
    const r = await page(projectId, appId, { [name]: value });
    expect(r.status).toBe(400);
    expect(message(r)).toContain(name);
  });

  it("rejects a nextToken from the other direction", async () => {
    const { projectId, appId } = seedApp();
    sim.generateLogs(projectId, appId, 10);
    const p1 = (await page(projectId, appId, { pageSize: "2" })).json as AppLogPage;
    const r = await page(projectId, appId, { pageSize: "2", direction: "forward", nextToken: p1.nextPageToken! });
    expect(r.status).toBe(400);
  });
});

describe("8 build logs", () => {
  it("returns the build's status and log entries as they change", async () => {
    const { projectId, appId } = seedApp();
    const build = sim.addBuild(projectId, appId, { status: "building", logs: [{ log: "step 1" }] });
    const path = `/v2/projects/${projectId}/apps/${appId}/builds/${build.id}/logs`;
    const r1 = await call("GET", path);
    expect(r1.status).toBe(200);
    expect(r1.json).toMatchObject({ app_id: appId, build_id: build.id, project_id: projectId, status: "building" });
    expect((r1.json as { logs: unknown[] }).logs).toEqual([
      { id: expect.any(String), createdAt: expect.any(String), log: "step 1" },
    ]);

    sim.setBuildStatus(projectId, appId, build.id, "success", ["step 2", "done"]);
    const r2 = (await call("GET", path)).json as { status: string; logs: Array<{ log: string }> };
    expect(r2.status).toBe("success");
    expect(r2.logs.map((l) => l.log)).toEqual(["step 1", "step 2", "done"]);
    expect(sim.builds()).toHaveLength(1);
  });
});

describe("9 app secrets", () => {
  const secretsPath = (projectId: string, appId: string) => `/v2/projects/${projectId}/apps/${appId}/secrets`;

  it("merges by default and replaces in replace mode, never echoing values", async () => {
    const { projectId, appId } = seedApp();
    const r1 = await call("PATCH", secretsPath(projectId, appId), { body: { A: "one-value", B: "two-value" } });
    expect([r1.status, r1.text]).toEqual([200, "secrets updated"]);
    expect(r1.headers.get("content-type")).toMatch(/^text\/plain/);
    await call("PATCH", secretsPath(projectId, appId), { body: { B: "changed", C: "three" } });
    expect(sim.appSecrets(projectId, appId)).toEqual({ A: "one-value", B: "changed", C: "three" });

    sim.setSecretsMode("replace");
    const r2 = await call("PATCH", secretsPath(projectId, appId), { body: { D: "four" } });
    expect(r2.status).toBe(200);
    expect(sim.appSecrets(projectId, appId)).toEqual({ D: "four" });
    expect(r2.text).not.toContain("four");
  });

  it("starts in replace mode when asked to", async () => {
    await sim.stop();
    sim = await PimsSimulator.start({ secretsMode: "replace" });
    const { projectId, appId } = seedApp();
    await call("PATCH", secretsPath(projectId, appId), { body: { A: "1" } });
    await call("PATCH", secretsPath(projectId, appId), { body: { B: "2" } });
    expect(sim.appSecrets(projectId, appId)).toEqual({ B: "2" });
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
    expect(sim.appSecrets(projectId, appId)).toEqual({ KEEP: "secret-value" });
  });
});

describe("10 cancel run", () => {
  it("cancels a running run once, then answers 409; 404 for an unknown run", async () => {
    const { projectId, appId } = seedApp();
    const run = sim.addRun(projectId, appId);
    const path = `/v2/projects/${projectId}/apps/${appId}/runs/${run.id}`;
    const ok = await call("DELETE", path);
    expect([ok.status, ok.text]).toEqual([200, `run ${run.id} cancelled`]);
    expect(ok.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(sim.runs().find((r) => r.id === run.id)?.status).toBe("cancelled");

    const again = await call("DELETE", path);
    expect(again.status).toBe(409);
    expect(again.json).toEqual({ message: `run ${run.id} has already finished (status: cancelled)` });

    const finished = sim.addRun(projectId, appId, { id: "run-done", status: "finished" });
    const r = await call("DELETE", `/v2/projects/${projectId}/apps/${appId}/runs/${finished.id}`);
    expect(r.status).toBe(409);
    expect(r.json).toEqual({ message: "run run-done has already finished (status: finished)" });
    expect(sim.runs().find((x) => x.id === "run-done")?.status).toBe("finished");

    const unknown = await call("DELETE", `/v2/projects/${projectId}/apps/${appId}/runs/run-nope`);
    expect(unknown.status).toBe(404);
    expect(message(unknown)).toBe("run run-nope not found");
  });
});

describe("faults", () => {
  it("status: answers the injected status the given number of times, then normally", async () => {
    const { projectId } = seedApp();
    sim.addFault({ kind: "status", status: 502, times: 2, path: `/v2/projects/${projectId}/invoices` });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await call("GET", `/v2/projects/${projectId}/invoices`)).status);
    expect(statuses).toEqual([502, 502, 200]);
    expect(sim.countRequests({ path: `/v2/projects/${projectId}/invoices` })).toBe(3);
    expect(sim.requests.map((r) => r.status)).toEqual([502, 502, 200]);

    sim.addFault({ kind: "status", method: "POST" });
    const r = await call("POST", "/v2/projects", { body: { name: "xx" } });
    expect(r.json).toEqual({ message: "injected fault" });
    expect(r.status).toBe(503);
    expect(sim.projects()).toHaveLength(1);
    expect((await call("GET", `/v2/projects/${projectId}/invoices`)).status).toBe(200);
  });

  it("rateLimit: 429 with Retry-After, matching a path prefix", async () => {
    const { projectId } = seedApp();
    sim.addFault({ kind: "rateLimit", retryAfter: "2", times: 1, path: "/v2/projects/*" });
    const limited = await call("GET", `/v2/projects/${projectId}/api-keys`);
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("2");
    expect(limited.json).toEqual({ message: "rate limited" });
    expect((await call("GET", `/v2/projects/${projectId}/api-keys`)).status).toBe(200);
    expect(sim.requests.map((r) => r.status)).toEqual([429, 200]);

    sim.addFault({ kind: "rateLimit" });
    expect((await call("GET", `/v2/projects/${projectId}/api-keys`)).headers.get("retry-after")).toBe("0");
  });

  it("delay: waits, then handles normally", async () => {
    const { projectId } = seedApp();
    sim.addFault({ kind: "delay", delayMs: 300, times: 1 });
    const started = Date.now();
    const r = await call("POST", "/v2/projects", { body: { name: "slow" } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(r.status).toBe(201);
    expect(sim.projects().map((p) => p.name)).toContain("slow");
    expect(sim.requests).toHaveLength(1);
    expect(sim.requests[0].status).toBe(201);
    expect((await call("GET", `/v2/projects/${projectId}/invoices`)).status).toBe(200);
  });

  it("drop: destroys the connection and logs status 0", async () => {
    const { projectId } = seedApp();
    sim.addFault({ kind: "drop", times: 1, method: "PATCH" });
    const volume = sim.addVolume(projectId, { sizeGb: 100 });
    const path = `/v2/projects/${projectId}/volumes/${volume.id}/resize`;
    await expect(call("PATCH", path, { body: { newSizeGb: 300 } })).rejects.toThrow();
    expect(sim.volume(projectId, volume.id)?.sizeGb).toBe(100);
    const ok = await call("PATCH", path, { body: { newSizeGb: 300 } });
    expect(ok.status).toBe(200);
    expect(sim.requests.map((r) => [r.method, r.status])).toEqual([
      ["PATCH", 0],
      ["PATCH", 200],
    ]);
    expect(sim.requests[0].body).toEqual({ newSizeGb: 300 });
  });

  it("probability: draws from a seeded PRNG so the pattern is reproducible", async () => {
    const pattern = async (): Promise<number[]> => {
      const { projectId } = seedApp();
      sim.clearFaults();
      sim.addFault({ kind: "status", status: 500, probability: 0.5, seed: 42 });
      const out: number[] = [];
      for (let i = 0; i < 20; i++) out.push((await call("GET", `/v2/projects/${projectId}/invoices`)).status);
      return out;
    };
    const a = await pattern();
    const b = await pattern();
    expect(a).toEqual(b);
    expect(a).toContain(500);
    expect(a).toContain(200);
    sim.clearFaults();
    const { projectId } = seedApp();
    expect((await call("GET", `/v2/projects/${projectId}/invoices`)).status).toBe(200);
  });

  it("the first matching rule with uses left wins", async () => {
    const { projectId } = seedApp();
    sim.addFault({ kind: "status", status: 500, times: 1, method: "GET" });
    sim.addFault({ kind: "status", status: 502, times: 1 });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await call("GET", `/v2/projects/${projectId}/invoices`)).status);
    expect(statuses).toEqual([500, 502, 200]);
  });
});

describe("lifecycle", () => {
  it("serves keep-alive connections and stops quickly with one open", async () => {
    const { projectId } = seedApp();
    const agent = new http.Agent({ keepAlive: true });
    const get = (): Promise<{ status: number; socketReused: boolean }> =>
      new Promise((resolve, reject) => {
        const req = http.request(
          `${sim.baseUrl}/v2/projects/${projectId}/invoices`,
          { agent, headers: { Authorization: `Bearer ${sim.token}` } },
          (res) => {
            res.resume();
            res.on("end", () => resolve({ status: res.statusCode ?? 0, socketReused: req.reusedSocket }));
          },
        );
        req.on("error", reject);
        req.end();
      });
    expect(await get()).toEqual({ status: 200, socketReused: false });
    expect(await get()).toEqual({ status: 200, socketReused: true });

    const started = Date.now();
    await sim.stop();
    expect(Date.now() - started).toBeLessThan(1000);
    agent.destroy();
    await expect(fetch(`${sim.baseUrl}/v2/projects`)).rejects.toThrow();
  });

  it("stops quickly while a delayed request is pending", async () => {
    seedApp();
    sim.addFault({ kind: "delay", delayMs: 60_000 });
    const pending = call("GET", "/v2/projects/x/invoices").catch(() => "failed");
    await new Promise((r) => setTimeout(r, 100));
    const started = Date.now();
    await sim.stop();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(await pending).toBe("failed");
  });

  it("uses the given token and an admin token format by default", async () => {
    expect(sim.token).toMatch(/^pims_admin_[0-9a-f]{32}$/);
    expect(sim.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await sim.stop();
    sim = await PimsSimulator.start({ token: "fixed-token" });
    expect(sim.token).toBe("fixed-token");
    expect((await call("POST", "/v2/projects", { body: { name: "ok" } })).status).toBe(201);
  });
});
