/**
 * The typed client against the simulator: every error the simulator can produce for each operation, and the error
 * texts (404s name the full URL called). The token's absence from errors is in errorSecrets.test.ts.
 */
import {
  AuthError,
  ConflictError,
  NotFoundError,
  PimsClient,
  PimsError,
  ValidationError,
} from "../../../provider/client";
import { expectErrorFreeOf, saRequest, seedApp, useClientSuite, testClient } from "../../kit/sim/client";
import { rejectionOf } from "../../kit/rejection";

const suite = useClientSuite();

const seed = (opts: { protected?: boolean; id?: string } = {}) => seedApp(suite.sim, opts);

describe("errors the simulator produces", () => {
  interface Op {
    name: string;
    method: string;
    run: (c: PimsClient, ids: { projectId: string; appId: string }) => Promise<unknown>;
  }
  const P = "p-00000000"; // a project that does not exist

  const notFound: Array<Op & { message: (ids: { projectId: string; appId: string }) => string }> = [
    {
      name: "listApiKeys (project)",
      method: "GET",
      run: (c) => c.listApiKeys(P),
      message: () => `project ${P} not found`,
    },
    {
      name: "createServiceAccount (project)",
      method: "POST",
      run: (c, i) => c.createServiceAccount(P, saRequest(i.projectId)),
      message: () => `project ${P} not found`,
    },
    {
      name: "deleteServiceAccount (account)",
      method: "DELETE",
      run: (c, i) => c.deleteServiceAccount(i.projectId, "sa-nope"),
      message: () => "service account sa-nope not found",
    },
    {
      name: "deleteServiceAccount (project)",
      method: "DELETE",
      run: (c) => c.deleteServiceAccount(P, "sa-nope"),
      message: () => `project ${P} not found`,
    },
    {
      name: "resizeVolume (volume)",
      method: "PATCH",
      run: (c, i) => c.resizeVolume(i.projectId, "vol-nope", 100),
      message: () => "volume vol-nope not found",
    },
    {
      name: "listInvoices (project)",
      method: "GET",
      run: (c) => c.listInvoices(P),
      message: () => `project ${P} not found`,
    },
    {
      name: "getAppLogsPage (app)",
      method: "GET",
      run: (c, i) => c.getAppLogsPage(i.projectId, "app-nope"),
      message: () => "app app-nope not found",
    },
    {
      name: "getBuildLogs (build)",
      method: "GET",
      run: (c, i) => c.getBuildLogs(i.projectId, i.appId, "b-nope"),
      message: () => "build b-nope not found",
    },
    {
      name: "getBuildLogs (app)",
      method: "GET",
      run: (c, i) => c.getBuildLogs(i.projectId, "app-nope", "b-nope"),
      message: () => "app app-nope not found",
    },
    {
      name: "updateAppSecrets (app)",
      method: "PATCH",
      run: (c, i) => c.updateAppSecrets(i.projectId, "app-nope", { A: "b" }),
      message: () => "app app-nope not found",
    },
    {
      name: "cancelRun (run)",
      method: "DELETE",
      run: (c, i) => c.cancelRun(i.projectId, i.appId, "run-nope"),
      message: () => "run run-nope not found",
    },
  ];

  it.each(notFound)("404 → NotFoundError, never retried: $name", async (op) => {
    const ids = seed();
    const err = await rejectionOf(op.run(suite.client, ids), NotFoundError);
    expect(err).toMatchObject({
      kind: "not_found",
      status: 404,
      method: op.method,
      attempts: 1,
      serverMessage: op.message(ids),
    });
    expect(suite.sim.requests).toHaveLength(1);
    expect(err.path).toBe(suite.sim.requests[0].path);
    // The full URL called, so a wrong base address (every route 404) is told apart from a missing object.
    expect(err.url).toBe(`${suite.sim.baseUrl}${suite.sim.requests[0].path}`);
    expect(
      err.message.endsWith(`: 404 ${op.message(ids)} (${op.method} ${suite.sim.baseUrl}${suite.sim.requests[0].path})`),
    ).toBe(true);
  });

  const all: Op[] = [
    { name: "listApiKeys", method: "GET", run: (c, i) => c.listApiKeys(i.projectId) },
    {
      name: "createServiceAccount",
      method: "POST",
      run: (c, i) => c.createServiceAccount(i.projectId, saRequest(i.projectId)),
    },
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
    suite.sim.addVolume(ids.projectId, { sizeGb: 50 });
    suite.sim.addRun(ids.projectId, ids.appId, { id: "run-1" });
    const badToken = "pims_admin_not_the_right_token_0123456789";
    const bad = testClient(suite.sim, { token: badToken });
    const projectsBefore = suite.sim.projects().length;

    const err = await rejectionOf(op.run(bad, ids), AuthError);
    expect(err).toMatchObject({
      kind: "auth",
      status: 401,
      method: op.method,
      attempts: 1,
      serverMessage: "invalid or missing bearer token",
    });
    expect(suite.sim.requests).toHaveLength(1);
    expect(suite.sim.requests[0].status).toBe(401);
    expectErrorFreeOf(err, [badToken]);
    // nothing happened
    expect(suite.sim.projects()).toHaveLength(projectsBefore);
    expect(suite.sim.serviceAccounts()).toEqual([]);
    expect(suite.sim.volume(ids.projectId, "default-us-east-1")?.sizeGb).toBe(50);
    expect(suite.sim.appSecrets(ids.projectId, ids.appId)).toEqual({});
    expect(suite.sim.runs()[0].status).toBe("running");
  });

  it("403: a volume above 1024 GB on a project that is not protected → AuthError; 1024 itself is fine", async () => {
    const { projectId } = seed();
    const vol = suite.sim.addVolume(projectId, { sizeGb: 100 });
    const err = await rejectionOf(suite.client.resizeVolume(projectId, vol.id, 1025), AuthError);
    expect(err).toMatchObject({
      kind: "auth",
      status: 403,
      attempts: 1,
      serverMessage: "volumes above 1024 GB require a protected project",
    });
    expect(err.toString()).toBe(
      `resizing volume ${vol.id} in project ${projectId} to 1025 GB: ` +
        `403 volumes above 1024 GB require a protected project`,
    );
    expect(suite.sim.volume(projectId, vol.id)?.sizeGb).toBe(100);
    await suite.client.resizeVolume(projectId, vol.id, 1024);
    expect(suite.sim.volume(projectId, vol.id)?.sizeGb).toBe(1024);
    expect(suite.sim.requests.map((r) => r.status)).toEqual([403, 200]);
  });

  const invalid: Array<{
    name: string;
    run: (c: PimsClient, projectId: string, appId: string) => Promise<unknown>;
    message: string;
  }> = [
    {
      name: "service account name of 101 characters",
      run: (c, p) => c.createServiceAccount(p, saRequest(p, { name: "n".repeat(101) })),
      message: "name must be 1 to 100 characters",
    },
    {
      name: "service account name empty",
      run: (c, p) => c.createServiceAccount(p, saRequest(p, { name: "" })),
      message: "name must be 1 to 100 characters",
    },
    {
      name: "description of 501 characters",
      run: (c, p) => c.createServiceAccount(p, saRequest(p, { description: "d".repeat(501) })),
      message: "description must be at most 500 characters",
    },
    {
      name: "grants 0",
      run: (c, p) => c.createServiceAccount(p, saRequest(p, { grants: [] })),
      message: "grants must have 1 to 50 entries",
    },
    {
      name: "grants 51",
      run: (c, p) => c.createServiceAccount(p, saRequest(p, { grants: Array.from({ length: 51 }, () => p) })),
      message: "grants must have 1 to 50 entries",
    },
    {
      name: "grant of an unknown project",
      run: (c, p) => c.createServiceAccount(p, saRequest(p, { grants: ["p-nope"] })),
      message: "grants[0] must be an existing project id (p-nope not found)",
    },
    {
      name: "expiresIn -1",
      run: (c, p) => c.createServiceAccount(p, saRequest(p, { expiresIn: -1 })),
      message: "expiresIn must be between 0 and 31536000",
    },
    {
      name: "expiresIn 31536001",
      run: (c, p) => c.createServiceAccount(p, saRequest(p, { expiresIn: 31_536_001 })),
      message: "expiresIn must be between 0 and 31536000",
    },
    {
      name: "expiresIn 1.5",
      run: (c, p) => c.createServiceAccount(p, saRequest(p, { expiresIn: 1.5 })),
      message: "expiresIn must be an integer",
    },
    {
      name: "newSizeGb 49",
      run: (c, p) => c.resizeVolume(p, "default-us-east-1", 49),
      message: "newSizeGb must be at least 50",
    },
    {
      name: "shrinking",
      run: (c, p) => c.resizeVolume(p, "default-us-east-1", 60),
      message: "newSizeGb must not be smaller than the current size (100 GB)",
    },
    {
      name: "project name of 1 character",
      run: (c) => c.createProject({ name: "x" }),
      message: "name must be 2 to 50 characters",
    },
    {
      name: "project name of 51 characters",
      run: (c) => c.createProject({ name: "x".repeat(51) }),
      message: "name must be 2 to 50 characters",
    },
    {
      name: "secret name with a dash",
      run: (c, p, a) => c.updateAppSecrets(p, a, { "BAD-NAME": "v" }),
      message: 'secret name "BAD-NAME" must match ^[A-Za-z_][A-Za-z0-9_]*$',
    },
  ];

  it.each(invalid)("422 → ValidationError naming the rule, 1 request, nothing created: $name", async (c) => {
    const { projectId, appId } = seed();
    suite.sim.addVolume(projectId, { sizeGb: 100 });
    const projectsBefore = suite.sim.projects().length;
    const err = await rejectionOf(c.run(suite.client, projectId, appId), ValidationError);
    expect(err).toMatchObject({ kind: "validation", status: 422, attempts: 1, serverMessage: c.message });
    expect(suite.sim.requests).toHaveLength(1);
    expect(suite.sim.requests[0].status).toBe(422);
    expect(suite.sim.serviceAccounts()).toEqual([]);
    expect(suite.sim.projects()).toHaveLength(projectsBefore);
    expect(suite.sim.volume(projectId, "default-us-east-1")?.sizeGb).toBe(100);
    expect(suite.sim.appSecrets(projectId, appId)).toEqual({});
  });

  it("boundaries accepted: name of 100, 50 grants, expiresIn 31536000, project name of 2 and 50", async () => {
    const { projectId } = seed();
    const many = Array.from({ length: 49 }, () => suite.sim.addProject().id);
    await suite.client.createServiceAccount(
      projectId,
      saRequest(projectId, { name: "n".repeat(100), grants: [projectId, ...many], expiresIn: 31_536_000 }),
    );
    expect(suite.sim.serviceAccounts(projectId)[0].grants).toHaveLength(50);
    await suite.client.createProject({ name: "ab" });
    await suite.client.createProject({ name: "y".repeat(50) });
    expect(suite.sim.requests.map((r) => r.status)).toEqual([201, 201, 201]);
  });

  it("toString() reads `<action>: <status> <service message>` exactly, with every field set", async () => {
    seed({ id: "p-1" });
    const err = await rejectionOf(
      suite.client.createServiceAccount("p-1", { name: "ci", grants: [], expiresIn: 0 }),
      ValidationError,
    );
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
    suite.sim.addLogs(projectId, appId, [{ logLine: "x" }]);
    const err = await rejectionOf(
      suite.client.getAppLogsPage(projectId, appId, { nextToken: "garbage" }),
      ValidationError,
    );
    expect(err).toMatchObject({ status: 400, serverMessage: "nextToken is invalid", attempts: 1 });
    expect(suite.sim.requests).toHaveLength(1);
  });

  it("409: cancelling a finished or already cancelled run → ConflictError, status unchanged", async () => {
    const { projectId, appId } = seed();
    const done = suite.sim.addRun(projectId, appId, { status: "finished" });
    const err = await rejectionOf(suite.client.cancelRun(projectId, appId, done.id), ConflictError);
    expect(err).toMatchObject({
      kind: "conflict",
      status: 409,
      method: "DELETE",
      attempts: 1,
      serverMessage: `run ${done.id} has already finished (status: finished)`,
    });
    expect(err.toString()).toBe(
      `cancelling run ${done.id} of app ${appId} in project ${projectId}: ` +
        `409 run ${done.id} has already finished (status: finished)`,
    );
    expect(suite.sim.runs().find((r) => r.id === done.id)?.status).toBe("finished");

    const running = suite.sim.addRun(projectId, appId);
    await suite.client.cancelRun(projectId, appId, running.id);
    await rejectionOf(suite.client.cancelRun(projectId, appId, running.id), ConflictError);
    expect(suite.sim.requests.map((r) => r.status)).toEqual([409, 200, 409]);
  });

  it("409: a service account deleting itself → ConflictError, the account survives", async () => {
    const { projectId } = seed();
    const sa = await suite.client.createServiceAccount(projectId, saRequest(projectId));
    const asSa = testClient(suite.sim, { token: sa.token.secret });
    const err = await rejectionOf(asSa.deleteServiceAccount(projectId, sa.id), ConflictError);
    expect(err.serverMessage).toBe("cannot delete the service account used by this request");
    expect(suite.sim.serviceAccounts(projectId).map((s) => s.id)).toEqual([sa.id]);
    expectErrorFreeOf(err, [sa.token.secret, suite.sim.token]);
  });
});
