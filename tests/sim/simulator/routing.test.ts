/** The default profile: authentication, routing, the request log and the server lifecycle. */
import * as http from "node:http";
import { message, useSimulatorSuite } from "../../kit/sim/http";

const suite = useSimulatorSuite("default");
const { call, seedApp, createServiceAccount } = suite;

describe("auth and routing", () => {
  it("rejects missing and wrong tokens with 401 without echoing the token", async () => {
    const { projectId } = seedApp();
    const missing = await call("GET", `/v2/projects/${projectId}/invoices`, { token: null });
    expect(missing.status).toBe(401);
    expect(missing.json).toEqual({ message: "invalid or missing bearer token" });

    const wrong = await call("GET", `/v2/projects/${projectId}/invoices`, { token: "pims_wrong_secret_value" });
    expect(wrong.status).toBe(401);
    expect(wrong.text).not.toContain("pims_wrong_secret_value");
    expect(suite.sim.requests.map((r) => r.status)).toEqual([401, 401]);
  });

  it("accepts a service account token until it expires or the account is deleted", async () => {
    const { projectId } = seedApp();
    const sa = await createServiceAccount(projectId, { expiresIn: 60 });
    const secret = sa.token!.secret;
    expect((await call("GET", `/v2/projects/${projectId}/invoices`, { token: secret })).status).toBe(200);
    suite.sim.advanceClock(61_000);
    expect((await call("GET", `/v2/projects/${projectId}/invoices`, { token: secret })).status).toBe(401);

    const forever = await createServiceAccount(projectId, { expiresIn: 0 });
    expect(forever.token!.expiresAt).toBe("never");
    suite.sim.advanceClock(10 * 365 * 24 * 3600 * 1000);
    expect((await call("GET", `/v2/projects/${projectId}/invoices`, { token: forever.token!.secret })).status).toBe(
      200,
    );
    await call("DELETE", `/v2/projects/${projectId}/service-accounts/${forever.id}`);
    expect((await call("GET", `/v2/projects/${projectId}/invoices`, { token: forever.token!.secret })).status).toBe(
      401,
    );
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
    expect(suite.sim.requests).toHaveLength(2);
    expect(suite.sim.requests[0]).toMatchObject({
      method: "POST",
      path: "/v2/projects",
      status: 201,
      body: { name: "logged" },
    });
    expect(suite.sim.requests[1]).toMatchObject({ method: "GET", query: { pageSize: "5" }, status: 204 });
    expect(JSON.stringify(suite.sim.requests)).not.toContain(suite.sim.token);
    expect(suite.sim.countRequests({ method: "post" })).toBe(1);
    expect(suite.sim.countRequests({ path: "/v2/projects/*" })).toBe(1);
    expect(suite.sim.countRequests({ path: /\/logs$/ })).toBe(1);
    suite.sim.clearRequests();
    expect(suite.sim.countRequests()).toBe(0);
  });
});

describe("lifecycle", () => {
  it("serves keep-alive connections and stops quickly with one open", async () => {
    const { projectId } = seedApp();
    const agent = new http.Agent({ keepAlive: true });
    const get = (): Promise<{ status: number; socketReused: boolean }> =>
      new Promise((resolve, reject) => {
        const req = http.request(
          `${suite.sim.baseUrl}/v2/projects/${projectId}/invoices`,
          { agent, headers: { Authorization: `Bearer ${suite.sim.token}` } },
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
    await suite.sim.stop();
    expect(Date.now() - started).toBeLessThan(1000);
    agent.destroy();
    await expect(fetch(`${suite.sim.baseUrl}/v2/projects`)).rejects.toThrow();
  });

  it("stops quickly while a delayed request is pending", async () => {
    seedApp();
    suite.sim.addFault({ kind: "delay", delayMs: 60_000 });
    const pending = call("GET", "/v2/projects/x/invoices").catch(() => "failed");
    await new Promise((r) => setTimeout(r, 100));
    const started = Date.now();
    await suite.sim.stop();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(await pending).toBe("failed");
  });

  it("uses the given token and an admin token format by default", async () => {
    expect(suite.sim.token).toMatch(/^pims_admin_[0-9a-f]{32}$/);
    expect(suite.sim.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await suite.restart({ token: "fixed-token" });
    expect(suite.sim.token).toBe("fixed-token");
    expect((await call("POST", "/v2/projects", { body: { name: "ok" } })).status).toBe(201);
  });
});
