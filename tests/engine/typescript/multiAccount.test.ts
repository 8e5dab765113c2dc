/**
 * examples/multi-account through the real engine, against two simulators (two services, two addresses, different
 * tokens): the stack's admin token bootstraps a project and its own account on service A; a `pims.Provider` with that
 * account's token manages the project; a second provider works on service B with B's token. Every request is checked
 * against the simulator it reached and whom its bearer token authenticated there (the request log's `principal`):
 * each resource and function calls its provider's service with its provider's token. Then a no-change preview, a
 * rotation of the project's account (the provider is updated, nothing it manages is replaced, the old account is
 * deleted last), a destroy with the rotated token, and scans for plaintext tokens.
 *
 * Needs the pulumi CLI: `ensureEngine()` finds it or builds it; without it this suite fails, it never skips.
 */
import { copyExample, randomSecret } from "../../../scripts/engine";
import { exportEncrypted, isEncryptedSecret, resource, resources, revealed } from "../../kit/engine/engine";
import { useEngineStack, valuesOf } from "../../kit/engine/engineSuite";
import { expectNoPlaintextSecrets } from "../../kit/secrets/secrets";
import { liveIds } from "../../kit/sim/simulator";

/** Service B: an existing project with an app and an invoice, and the partner account whose token is `otherToken`. */
let b: { projectId: string; appId: string; invoiceId: string; accountId: string; token: string };

const suite = useEngineStack({
  scratchPrefix: "pims-e2e-multi-account-",
  simulators: 2,
  stack: ({ sims: [, simB], scratch }) => {
    const p = simB.addProject({ name: "partner" });
    const token = randomSecret("pims_sa_partner_");
    b = {
      projectId: p.id,
      appId: simB.addApp(p.id, "web").id,
      invoiceId: simB.addInvoice(p.id, { amountDue: 500, currency: "eur" }).id,
      accountId: simB.addServiceAccount({ projectId: p.id, name: "partner", tokenSecret: token }).id,
      token,
    };
    return {
      stackName: "dev",
      workDir: copyExample("multi-account", scratch),
      config: { otherBaseUrl: simB.baseUrl, otherToken: { value: b.token, secret: true }, otherProjectId: b.projectId },
    };
  },
});
const { engine } = suite;
/** Service A (the stack's own) and service B. */
const A = () => suite.sims[0];
const B = () => suite.sims[1];

// Carried from step to step.
let projectId: string;
let deployerId: string;
let deployerToken: string;
let ciId: string;

describe("examples/multi-account: two providers, two services, through the real engine", () => {
  test("up: admin bootstraps the project and account; the scoped provider mints CI as it; B uses B's key", async () => {
    // the stack, Project, deployer, the scoped provider, the CI account, the other provider and B's app secrets
    const o = await suite.up({ create: 7 });
    ({ newProjectId: projectId, deployerId, ciAccountId: ciId } = valuesOf(o));
    deployerToken = await suite.tokenOf("deployer");

    expect(A().project(projectId)?.name).toBe("team-dev");
    expect(
      A()
        .serviceAccounts(projectId)
        .map((a) => [a.id, a.name])
        .sort(),
    ).toEqual(
      [
        [deployerId, "project-deployer"],
        [ciId, "ci"],
      ].sort(),
    );
    // Service A: the bootstrap calls as the admin;
    // the CI account and the read of the API keys as the project's account.
    expect(suite.calls(A()).sort()).toEqual(
      [
        "POST /v2/projects as admin",
        `POST /v2/projects/${projectId}/service-accounts as admin`,
        `POST /v2/projects/${projectId}/service-accounts as ${deployerId}`,
        `GET /v2/projects/${projectId}/api-keys as ${deployerId}`,
      ].sort(),
    );
    expect(A().requests.find((r) => r.principal === deployerId && r.method === "POST")?.body).toMatchObject({
      name: "ci",
    });
    expect(o.apiKeyNames.secret).toBe(true);
    // read once the CI account exists
    expect([...(o.apiKeyNames.value as string[])].sort()).toEqual(["ci", "project-deployer"]);
    // Service B: only B's calls, with B's partner token.
    expect(suite.calls(B()).sort()).toEqual(
      [
        `PATCH /v2/projects/${b.projectId}/apps/${b.appId}/secrets as ${b.accountId}`,
        `GET /v2/projects/${b.projectId}/invoices as ${b.accountId}`,
      ].sort(),
    );
    expect(B().appSecrets(b.projectId, b.appId)).toEqual({ UPSTREAM_PROJECT_ID: projectId });
    expect(o.otherInvoices.value).toEqual([b.invoiceId]);
    expect(o.otherInvoices.secret).toBe(true); // read with a provider whose token is secret
    // The provider's token is a secret input of its own state entry; the project's account token works on A only.
    const scoped = resource(exportEncrypted(suite.stack), "pulumi:providers:pulumi-nodejs", "scoped");
    expect(isEncryptedSecret(scoped.inputs?.["pims:token"])).toBe(true);
    expect(scoped.inputs?.["pims:baseUrl"]).toBe(A().baseUrl);
    expect(await suite.tokenWorks(deployerToken, projectId)).toBe(true);
  });

  test("with app and volume, the scoped provider manages secrets and volume size as the project account", async () => {
    const app = A().addApp(projectId, "web");
    A().addVolume(projectId, { id: "default-us-east-1", sizeGb: 50 });
    await suite.stack.setAllConfig({ appName: { value: "web" }, volumeSizeGb: { value: "100" } });

    const outputs = await suite.up({ create: 2, same: 7 });
    expect(A().appSecrets(projectId, app.id)).toEqual({ PIMS_TOKEN: deployerToken, PIMS_PROJECT_ID: projectId });
    expect(A().volume(projectId, "default-us-east-1")?.sizeGb).toBe(100);
    expect(suite.calls(A()).sort()).toEqual(
      [
        `PATCH /v2/projects/${projectId}/apps/${app.id}/secrets as ${deployerId}`,
        `PATCH /v2/projects/${projectId}/volumes/default-us-east-1/resize as ${deployerId}`,
        `GET /v2/projects/${projectId}/api-keys as ${deployerId}`,
      ].sort(),
    );
    expect(suite.calls(B())).toEqual([`GET /v2/projects/${b.projectId}/invoices as ${b.accountId}`]);
    expect(outputs.appSecretNames.value).toEqual(["PIMS_PROJECT_ID", "PIMS_TOKEN"]);
  });

  test("no-change preview: no resource call (only the two function reads, each with its provider's key)", async () => {
    suite.clearRequests();
    const preview = await suite.stack.preview(engine.opts);
    expect(preview.changeSummary).toEqual({ same: 9 });
    expect(suite.calls(A())).toEqual([`GET /v2/projects/${projectId}/api-keys as ${deployerId}`]);
    expect(suite.calls(B())).toEqual([`GET /v2/projects/${b.projectId}/invoices as ${b.accountId}`]);
  });

  test("refresh: one listing per provider process, state kept; a bad input fails at preview with no call", async () => {
    suite.clearRequests();
    const refresh = await suite.stack.refresh(engine.opts);
    expect(refresh.summary.resourceChanges).toEqual({ same: 9 });
    // Each provider process (the default one, the scoped one) reads the project's API-key listing once, with its own
    // token: the only read the service has, for the ServiceAccounts it serves.
    expect(suite.calls(A()).sort()).toEqual(
      [
        `GET /v2/projects/${projectId}/api-keys as admin`,
        `GET /v2/projects/${projectId}/api-keys as ${deployerId}`,
      ].sort(),
    );
    expect(suite.calls(B())).toEqual([]);
    expect((await suite.shown("deployer")).token).toBe(deployerToken);

    // The scoped provider's process runs the same checks as the default one.
    await suite.stack.setConfig("volumeSizeGb", { value: "80" });
    await expect(suite.stack.preview(engine.opts)).rejects.toThrow(
      /sizeGb cannot shrink from 100 to 80: volumes only grow/,
    );
    await suite.stack.setConfig("volumeSizeGb", { value: "100" });
    expect(suite.calls(A()).filter((c) => !c.startsWith("GET "))).toEqual([]);
    expect(A().volume(projectId, "default-us-east-1")?.sizeGb).toBe(100);
  });

  test("rotating the project's account updates only the provider; the app gets the new token first", async () => {
    await suite.stack.setConfig("rotationTrigger", { value: "2" });
    // replaced: the deployer; updated: the scoped provider (its token) and the app's secrets (PIMS_TOKEN)
    const {
      outputs,
      id: newId,
      token: newToken,
    } = await suite.upRotating(
      { replace: 1, update: 2, same: 6 },
      { name: "deployer", idOutput: "deployerId", id: deployerId, token: deployerToken },
    );
    expect(outputs.ciAccountId.value).toBe(ciId);
    expect(liveIds(A(), projectId)).toEqual([ciId, newId].sort());
    expect(A().deletedServiceAccounts()).toContain(deployerId);
    expect(A().appSecrets(projectId, `${projectId}-web`).PIMS_TOKEN).toBe(newToken);
    expect(await suite.tokenWorks(deployerToken, projectId)).toBe(false);
    expect(await suite.tokenWorks(newToken, projectId)).toBe(true);

    // Create before delete, and no other write: the new account, then the app's secrets with the new token (through
    // the updated provider), then the old account's delete.
    const log = suite.calls(A());
    expect(log.filter((c) => !c.startsWith("GET "))).toEqual([
      `POST /v2/projects/${projectId}/service-accounts as admin`,
      `PATCH /v2/projects/${projectId}/apps/${projectId}-web/secrets as ${newId}`,
      `DELETE /v2/projects/${projectId}/service-accounts/${deployerId} as admin`,
    ]);
    expect(log.filter((c) => c.includes(`as ${deployerId}`))).toEqual([]);
    expect(suite.calls(B())).toEqual([`GET /v2/projects/${b.projectId}/invoices as ${b.accountId}`]);

    const scoped = resource(await suite.stack.exportStack(), "pulumi:providers:pulumi-nodejs", "scoped");
    expect(revealed(scoped.inputs?.["pims:token"])).toBe(newToken);
    const stored = exportEncrypted(suite.stack);
    expect(isEncryptedSecret(resource(stored, "pulumi:providers:pulumi-nodejs", "scoped").inputs?.["pims:token"])).toBe(
      true,
    );
    expectNoPlaintextSecrets(JSON.stringify(stored), [...A().issuedSecrets(), b.token], "the stored state");
    deployerId = newId;
    deployerToken = newToken;
  });

  test("destroy by the rotated token: the CI account deleted as the new account, then that one by admin", async () => {
    suite.clearRequests();
    const down = await suite.stack.destroy(engine.opts);
    expect(down.summary.result).toBe("succeeded");
    expect(down.summary.resourceChanges).toEqual({ delete: 9 });
    const log = suite.calls(A());
    const ciDeleted = log.indexOf(`DELETE /v2/projects/${projectId}/service-accounts/${ciId} as ${deployerId}`);
    const deployerDeleted = log.indexOf(`DELETE /v2/projects/${projectId}/service-accounts/${deployerId} as admin`);
    expect(ciDeleted).toBeGreaterThanOrEqual(0);
    expect(deployerDeleted).toBeGreaterThan(ciDeleted);
    expect(A().serviceAccounts(projectId)).toEqual([]);
    expect(A().requests.every((r) => r.status >= 200 && r.status < 300)).toBe(true);
    expect(suite.calls(B())).toEqual([]); // deleting app secrets changes nothing in the service
    expect(resources(exportEncrypted(suite.stack)).filter((r) => r.type !== "pulumi:pulumi:Stack")).toEqual([]);
  });

  test("no token in plaintext in the engine output, the backend's files or the stack config", () => {
    const secrets = suite.expectNoSecrets([b.token]);
    expect(secrets.length).toBeGreaterThanOrEqual(6); // two admins, B's partner, two deployers, the CI account
  });
});
