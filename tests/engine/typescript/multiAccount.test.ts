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
import type { Stack } from "@pulumi/pulumi/automation";
import * as path from "node:path";
import { copyExample, createPimsStack, ensureEngine, randomSecret, tempDir } from "../../../scripts/engine";
import type { PimsSimulator } from "../../../simulator";
import {
  E2E_TIMEOUT_MS,
  ENGINE_SETUP_TIMEOUT_MS,
  EngineOutput,
  exportEncrypted,
  isEncryptedSecret,
  resource,
  resources,
  revealed,
  shownOutputs,
} from "../../kit/engine";
import { expectNoPlaintextSecrets, expectNoSecretsInOutputOrFiles } from "../../kit/secrets";
import { startSimulator } from "../../kit/simulator";
import { testClient } from "../../kit/client";
import { tearDown } from "../../kit/teardown";

jest.setTimeout(E2E_TIMEOUT_MS);

let simA: PimsSimulator;
let simB: PimsSimulator;
let scratch: string;
let stack: Stack;
const engine = new EngineOutput();
/** Service B: an existing project with an app and an invoice, and the partner account whose token is `otherToken`. */
let b: { projectId: string; appId: string; invoiceId: string; accountId: string; token: string };

/** `METHOD /path as <principal>` for each request a simulator received. */
const calls = (sim: PimsSimulator): string[] =>
  sim.requests.map((r) => `${r.method} ${r.path} as ${r.principal ?? "nobody"}`);
const clearRequests = (): void => {
  simA.clearRequests();
  simB.clearRequests();
};

/** The stack's state with secrets in plaintext (`--show-secrets`), for comparing values. */
const shown = (name: string, typeSuffix = "pims:ServiceAccount"): Promise<Record<string, unknown>> =>
  shownOutputs(stack, typeSuffix, name);

async function tokenWorks(sim: PimsSimulator, token: string, projectId: string): Promise<boolean> {
  try {
    await testClient(sim, { token, retries: 0 }).listApiKeys(projectId);
    return true;
  } catch {
    return false;
  }
}

beforeAll(async () => {
  ensureEngine();
  simA = await startSimulator();
  simB = await startSimulator();
  const p = simB.addProject({ name: "partner" });
  const token = randomSecret("pims_sa_partner_");
  b = {
    projectId: p.id,
    appId: simB.addApp(p.id, "web").id,
    invoiceId: simB.addInvoice(p.id, { amountDue: 500, currency: "eur" }).id,
    accountId: simB.addServiceAccount({ projectId: p.id, name: "partner", tokenSecret: token }).id,
    token,
  };
  scratch = tempDir("pims-e2e-multi-account-");
  stack = await createPimsStack({
    stackName: "dev",
    workDir: copyExample("multi-account", scratch),
    backendDir: path.join(scratch, "backend"),
    baseUrl: simA.baseUrl,
    token: simA.token,
    config: { otherBaseUrl: simB.baseUrl, otherToken: { value: b.token, secret: true }, otherProjectId: b.projectId },
  });
}, ENGINE_SETUP_TIMEOUT_MS);

afterAll(() => tearDown([simA, simB], scratch));

// Carried from step to step.
let projectId: string;
let deployerId: string;
let deployerToken: string;
let ciId: string;

describe("examples/multi-account: two providers, two services, through the real engine", () => {
  test("up: admin bootstraps the project and account; the scoped provider mints CI as it; B uses B's key", async () => {
    const up = await stack.up(engine.opts);
    // the stack, Project, deployer, the scoped provider, the CI account, the other provider and B's app secrets
    expect(up.summary.resourceChanges).toEqual({ create: 7 });
    const o = up.outputs;
    projectId = o.newProjectId.value as string;
    deployerId = o.deployerId.value as string;
    ciId = o.ciAccountId.value as string;
    deployerToken = (await shown("deployer")).token as string;

    expect(simA.project(projectId)?.name).toBe("team-dev");
    expect(
      simA
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
    expect(calls(simA).sort()).toEqual(
      [
        "POST /v2/projects as admin",
        `POST /v2/projects/${projectId}/service-accounts as admin`,
        `POST /v2/projects/${projectId}/service-accounts as ${deployerId}`,
        `GET /v2/projects/${projectId}/api-keys as ${deployerId}`,
      ].sort(),
    );
    expect(simA.requests.find((r) => r.principal === deployerId && r.method === "POST")?.body).toMatchObject({
      name: "ci",
    });
    expect(o.apiKeyNames.secret).toBe(true);
    // read once the CI account exists
    expect([...(o.apiKeyNames.value as string[])].sort()).toEqual(["ci", "project-deployer"]);
    // Service B: only B's calls, with B's partner token.
    expect(calls(simB).sort()).toEqual(
      [
        `PATCH /v2/projects/${b.projectId}/apps/${b.appId}/secrets as ${b.accountId}`,
        `GET /v2/projects/${b.projectId}/invoices as ${b.accountId}`,
      ].sort(),
    );
    expect(simB.appSecrets(b.projectId, b.appId)).toEqual({ UPSTREAM_PROJECT_ID: projectId });
    expect(o.otherInvoices.value).toEqual([b.invoiceId]);
    expect(o.otherInvoices.secret).toBe(true); // read with a provider whose token is secret
    // The provider's token is a secret input of its own state entry; the project's account token works on A only.
    const scoped = resource(exportEncrypted(stack), "pulumi:providers:pulumi-nodejs", "scoped");
    expect(isEncryptedSecret(scoped.inputs?.["pims:token"])).toBe(true);
    expect(scoped.inputs?.["pims:baseUrl"]).toBe(simA.baseUrl);
    expect(await tokenWorks(simA, deployerToken, projectId)).toBe(true);
  });

  test("with app and volume, the scoped provider manages secrets and volume size as the project account", async () => {
    const app = simA.addApp(projectId, "web");
    simA.addVolume(projectId, { id: "default-us-east-1", sizeGb: 50 });
    await stack.setAllConfig({ appName: { value: "web" }, volumeSizeGb: { value: "100" } });
    clearRequests();

    const up = await stack.up(engine.opts);
    expect(up.summary.resourceChanges).toEqual({ create: 2, same: 7 });
    expect(simA.appSecrets(projectId, app.id)).toEqual({ PIMS_TOKEN: deployerToken, PIMS_PROJECT_ID: projectId });
    expect(simA.volume(projectId, "default-us-east-1")?.sizeGb).toBe(100);
    expect(calls(simA).sort()).toEqual(
      [
        `PATCH /v2/projects/${projectId}/apps/${app.id}/secrets as ${deployerId}`,
        `PATCH /v2/projects/${projectId}/volumes/default-us-east-1/resize as ${deployerId}`,
        `GET /v2/projects/${projectId}/api-keys as ${deployerId}`,
      ].sort(),
    );
    expect(calls(simB)).toEqual([`GET /v2/projects/${b.projectId}/invoices as ${b.accountId}`]);
    expect(up.outputs.appSecretNames.value).toEqual(["PIMS_PROJECT_ID", "PIMS_TOKEN"]);
  });

  test("no-change preview: no resource call (only the two function reads, each with its provider's key)", async () => {
    clearRequests();
    const preview = await stack.preview(engine.opts);
    expect(preview.changeSummary).toEqual({ same: 9 });
    expect(calls(simA)).toEqual([`GET /v2/projects/${projectId}/api-keys as ${deployerId}`]);
    expect(calls(simB)).toEqual([`GET /v2/projects/${b.projectId}/invoices as ${b.accountId}`]);
  });

  test("refresh: one listing per provider process, state kept; a bad input fails at preview with no call", async () => {
    clearRequests();
    const refresh = await stack.refresh(engine.opts);
    expect(refresh.summary.resourceChanges).toEqual({ same: 9 });
    // Each provider process (the default one, the scoped one) reads the project's API-key listing once, with its own
    // token: the only read the service has, for the ServiceAccounts it serves.
    expect(calls(simA).sort()).toEqual(
      [
        `GET /v2/projects/${projectId}/api-keys as admin`,
        `GET /v2/projects/${projectId}/api-keys as ${deployerId}`,
      ].sort(),
    );
    expect(calls(simB)).toEqual([]);
    expect((await shown("deployer")).token).toBe(deployerToken);

    // The scoped provider's process runs the same checks as the default one.
    await stack.setConfig("volumeSizeGb", { value: "80" });
    await expect(stack.preview(engine.opts)).rejects.toThrow(/sizeGb cannot shrink from 100 to 80: volumes only grow/);
    await stack.setConfig("volumeSizeGb", { value: "100" });
    expect(calls(simA).filter((c) => !c.startsWith("GET "))).toEqual([]);
    expect(simA.volume(projectId, "default-us-east-1")?.sizeGb).toBe(100);
  });

  test("rotating the project's account updates only the provider; the app gets the new token first", async () => {
    await stack.setConfig("rotationTrigger", { value: "2" });
    clearRequests();
    const up = await stack.up(engine.opts);
    // replaced: the deployer; updated: the scoped provider (its token) and the app's secrets (PIMS_TOKEN)
    expect(up.summary.resourceChanges).toEqual({ replace: 1, update: 2, same: 6 });

    const newId = up.outputs.deployerId.value as string;
    const newToken = (await shown("deployer")).token as string;
    expect(newId).not.toBe(deployerId);
    expect(newToken).not.toBe(deployerToken);
    expect(up.outputs.ciAccountId.value).toBe(ciId);
    expect(
      simA
        .serviceAccounts(projectId)
        .map((a) => a.id)
        .sort(),
    ).toEqual([ciId, newId].sort());
    expect(simA.deletedServiceAccounts()).toContain(deployerId);
    expect(simA.appSecrets(projectId, `${projectId}-web`).PIMS_TOKEN).toBe(newToken);
    expect(await tokenWorks(simA, deployerToken, projectId)).toBe(false);
    expect(await tokenWorks(simA, newToken, projectId)).toBe(true);

    // Create before delete, and no other write: the new account, then the app's secrets with the new token (through
    // the updated provider), then the old account's delete.
    const log = calls(simA);
    expect(log.filter((c) => !c.startsWith("GET "))).toEqual([
      `POST /v2/projects/${projectId}/service-accounts as admin`,
      `PATCH /v2/projects/${projectId}/apps/${projectId}-web/secrets as ${newId}`,
      `DELETE /v2/projects/${projectId}/service-accounts/${deployerId} as admin`,
    ]);
    expect(log.filter((c) => c.includes(`as ${deployerId}`))).toEqual([]);
    expect(calls(simB)).toEqual([`GET /v2/projects/${b.projectId}/invoices as ${b.accountId}`]);

    const scoped = resource(await stack.exportStack(), "pulumi:providers:pulumi-nodejs", "scoped");
    expect(revealed(scoped.inputs?.["pims:token"])).toBe(newToken);
    const stored = exportEncrypted(stack);
    expect(isEncryptedSecret(resource(stored, "pulumi:providers:pulumi-nodejs", "scoped").inputs?.["pims:token"])).toBe(
      true,
    );
    expectNoPlaintextSecrets(JSON.stringify(stored), [...simA.issuedSecrets(), b.token], "the stored state");
    deployerId = newId;
    deployerToken = newToken;
  });

  test("destroy by the rotated token: the CI account deleted as the new account, then that one by admin", async () => {
    clearRequests();
    const down = await stack.destroy(engine.opts);
    expect(down.summary.result).toBe("succeeded");
    expect(down.summary.resourceChanges).toEqual({ delete: 9 });
    const log = calls(simA);
    const ciDeleted = log.indexOf(`DELETE /v2/projects/${projectId}/service-accounts/${ciId} as ${deployerId}`);
    const deployerDeleted = log.indexOf(`DELETE /v2/projects/${projectId}/service-accounts/${deployerId} as admin`);
    expect(ciDeleted).toBeGreaterThanOrEqual(0);
    expect(deployerDeleted).toBeGreaterThan(ciDeleted);
    expect(simA.serviceAccounts(projectId)).toEqual([]);
    expect(simA.requests.every((r) => r.status >= 200 && r.status < 300)).toBe(true);
    expect(calls(simB)).toEqual([]); // deleting app secrets changes nothing in the service
    expect(resources(exportEncrypted(stack)).filter((r) => r.type !== "pulumi:pulumi:Stack")).toEqual([]);
  });

  test("no token in plaintext in the engine output, the backend's files or the stack config", () => {
    const secrets = [...simA.issuedSecrets(), ...simB.issuedSecrets(), b.token];
    expect(secrets.length).toBeGreaterThanOrEqual(6); // two admins, B's partner, two deployers, the CI account
    expectNoSecretsInOutputOrFiles(engine, scratch, secrets);
  });
});
