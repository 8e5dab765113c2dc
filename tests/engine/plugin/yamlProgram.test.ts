/**
 * A YAML program through the real engine, the official YAML language host and the `pims` provider plugin, against the
 * simulator: a Project, two ServiceAccounts (one with `keepPreviousToken`), an AppSecrets holding a token, a
 * VolumeSize, an explicit `pulumi:providers:pims` for a second account, and `fn::invoke` of getApiKeys and
 * getInvoices. Then a no-change preview, a rotation in each mode, refresh and destroy, with what the simulator holds
 * and received after each step, the stored state, and scans for plaintext tokens. Also `pulumi package get-schema`.
 *
 * Needs the pulumi CLI and the YAML host (scripts/toolchain/ensure-pulumi, scripts/toolchain/ensure-language-yaml:
 * found, cached or built); without them this suite fails, it never skips.
 */
import { execFileSync } from "node:child_process";
import * as path from "node:path";
import { ensureEngine, randomSecret } from "../../../scripts/engine";
import { pluginSchema, writeYamlProject } from "../../../scripts/engine/yaml";
import { buildSchema } from "../../../scripts/generate/schema-docs";
import { exportEncrypted, isEncryptedSecret, resource, resources } from "../../kit/engine/engine";
import { useEngineStack, valuesOf } from "../../kit/engine/engineSuite";
import { liveIds } from "../../kit/sim/simulator";
import { expectNoPlaintextSecrets } from "../../kit/secrets/secrets";

/**
 * The program, as a user writes it below the project header (scripts/engine/yaml.ts writes `plugins.providers`).
 * The rotation triggers are not number-like: the YAML host (v1.25.0) passes config such as "2" as the number 2
 * even when declared `type: string`.
 */
const PROGRAM = `
config:
  homeProjectId:
    type: string
  appId:
    type: string
  volumeId:
    type: string
  partnerProjectId:
    type: string
  partnerBaseUrl:
    type: string
  partnerToken:
    type: string
    secret: true
  rotation:
    type: string
    default: r1
  overlapRotation:
    type: string
    default: r1

resources:
  project:
    type: pims:index:Project
    properties:
      name: yaml-project
  deployer:
    type: pims:index:ServiceAccount
    properties:
      projectId: \${homeProjectId}
      name: yaml-deployer
      description: rotated by replacement
      grants:
        - \${homeProjectId}
      expiresIn: 2592000
      rotationTrigger: \${rotation}
  overlap:
    type: pims:index:ServiceAccount
    properties:
      projectId: \${homeProjectId}
      name: yaml-overlap
      grants:
        - \${homeProjectId}
      expiresIn: 2592000
      rotateBeforeExpiry: 1296000
      rotationTrigger: \${overlapRotation}
      keepPreviousToken: true
  webSecrets:
    type: pims:index:AppSecrets
    properties:
      projectId: \${homeProjectId}
      appId: \${appId}
      secrets:
        PIMS_TOKEN: \${deployer.token}
  data:
    type: pims:index:VolumeSize
    properties:
      projectId: \${homeProjectId}
      volumeId: \${volumeId}
      sizeGb: 100
  partner:
    type: pulumi:providers:pims
    properties:
      token: \${partnerToken}
      baseUrl: \${partnerBaseUrl}
  partnerCi:
    type: pims:index:ServiceAccount
    properties:
      projectId: \${partnerProjectId}
      name: yaml-partner-ci
      grants:
        - \${partnerProjectId}
      expiresIn: 0
    options:
      provider: \${partner}

variables:
  apiKeys:
    fn::invoke:
      function: pims:index:getApiKeys
      arguments:
        projectId: \${homeProjectId}
      return: keys
  partnerInvoices:
    fn::invoke:
      function: pims:index:getInvoices
      arguments:
        projectId: \${partnerProjectId}
      options:
        provider: \${partner}
      return: invoices

outputs:
  projectId: \${project.projectId}
  deployerId: \${deployer.serviceAccountId}
  deployerToken: \${deployer.token}
  overlapId: \${overlap.serviceAccountId}
  overlapToken: \${overlap.token}
  partnerCiId: \${partnerCi.serviceAccountId}
  secretNames: \${webSecrets.secretNames}
  apiKeys: \${apiKeys}
  partnerInvoiceId: \${partnerInvoices[0].id}
`;

/** The seeded home project (its app and volume) and the partner account in its own project, with its token. */
let home: { projectId: string; appId: string; volumeId: string };
let partner: { projectId: string; accountId: string; token: string; invoiceId: string };

const suite = useEngineStack({
  scratchPrefix: "pims-e2e-yaml-",
  yamlHost: true,
  stack: ({ sim, scratch }) => {
    const p = sim.addProject({ name: "yaml-home" });
    sim.addVolume(p.id, { id: "default-us-east-1", sizeGb: 50 });
    home = { projectId: p.id, appId: sim.addApp(p.id, "web").id, volumeId: "default-us-east-1" };
    const q = sim.addProject({ name: "yaml-partner" });
    const token = randomSecret("pims_sa_yaml_partner_");
    partner = {
      projectId: q.id,
      accountId: sim.addServiceAccount({ projectId: q.id, name: "partner", tokenSecret: token }).id,
      token,
      invoiceId: sim.addInvoice(q.id, { amountDue: 1999, currency: "usd" }).id,
    };
    return {
      stackName: "dev",
      yaml: true,
      workDir: writeYamlProject(path.join(scratch, "pims-yaml"), { name: "pims-yaml", program: PROGRAM }),
      config: {
        homeProjectId: home.projectId,
        appId: home.appId,
        volumeId: home.volumeId,
        partnerProjectId: partner.projectId,
        partnerBaseUrl: sim.baseUrl,
        partnerToken: { value: partner.token, secret: true },
      },
    };
  },
});
const FUNCTION_READS = (): string[] =>
  [
    `GET /v2/projects/${home.projectId}/api-keys as admin`,
    `GET /v2/projects/${partner.projectId}/invoices as ${partner.accountId}`,
  ].sort();

const { engine } = suite;

// Carried from step to step.
let deployerId: string;
let deployerToken: string;
let overlapId: string;
let partnerCiId: string;
let projectId: string;

describe("a YAML program with the pims plugin, through the real engine and the official YAML host", () => {
  test("pulumi package get-schema asks the plugin and prints the schema `npm run schema` writes", () => {
    expect(pluginSchema()).toEqual(JSON.parse(JSON.stringify(buildSchema())));
  });

  test("up: every resource created with the right account, the functions read, tokens secret", async () => {
    // the stack, Project, two ServiceAccounts, AppSecrets, VolumeSize, the explicit provider and its ServiceAccount
    const o = await suite.up({ create: 8 });
    ({ projectId, deployerId, overlapId, partnerCiId } = valuesOf(o));
    deployerToken = await suite.tokenOf("deployer");

    expect(suite.sim.project(projectId)?.name).toBe("yaml-project");
    expect(liveIds(suite.sim, home.projectId)).toEqual([deployerId, overlapId].sort());
    expect(liveIds(suite.sim, partner.projectId)).toEqual([partner.accountId, partnerCiId].sort());
    expect(suite.sim.appSecrets(home.projectId, home.appId)).toEqual({ PIMS_TOKEN: deployerToken });
    expect(suite.sim.volume(home.projectId, home.volumeId)?.sizeGb).toBe(100);
    // The default provider works as the stack's token (admin); the explicit one as the partner account.
    expect(suite.writes().sort()).toEqual(
      [
        "POST /v2/projects as admin",
        `POST /v2/projects/${home.projectId}/service-accounts as admin`,
        `POST /v2/projects/${home.projectId}/service-accounts as admin`,
        `PATCH /v2/projects/${home.projectId}/apps/${home.appId}/secrets as admin`,
        `PATCH /v2/projects/${home.projectId}/volumes/${home.volumeId}/resize as admin`,
        `POST /v2/projects/${partner.projectId}/service-accounts as ${partner.accountId}`,
      ].sort(),
    );
    expect(
      suite
        .calls()
        .filter((c) => c.startsWith("GET "))
        .sort(),
    ).toEqual(FUNCTION_READS());
    expect(o.partnerInvoiceId).toEqual({ value: partner.invoiceId, secret: false });
    expect(o.apiKeys.secret).toBe(true);
    expect(Array.isArray(o.apiKeys.value)).toBe(true);
    expect(o.secretNames.value).toEqual(["PIMS_TOKEN"]);
    for (const k of ["deployerToken", "overlapToken"]) expect(o[k].secret).toBe(true);

    // As stored: tokens, app secrets and the explicit provider's token encrypted, no serialized provider.
    const stored = exportEncrypted(suite.stack);
    for (const name of ["deployer", "overlap", "partnerCi"]) {
      const r = resource(stored, "pims:index:ServiceAccount", name);
      expect(isEncryptedSecret(r.outputs?.token)).toBe(true);
      expect(r.inputs).not.toHaveProperty("__provider");
    }
    expect(isEncryptedSecret(resource(stored, "pims:index:AppSecrets", "webSecrets").outputs?.secrets)).toBe(true);
    expect(isEncryptedSecret(resource(stored, "pulumi:providers:pims", "partner").inputs?.token)).toBe(true);
    expectNoPlaintextSecrets(JSON.stringify(stored), suite.sim.issuedSecrets(), "the stored state after up");
  });

  test("the token stack output is shown as [secret] by the CLI", () => {
    const ws = suite.stack.workspace as unknown as { workDir: string; envVars: Record<string, string> };
    const out = execFileSync(
      path.join(ensureEngine(), "pulumi"),
      ["stack", "output", "deployerToken", "--stack", "dev", "--non-interactive"],
      { cwd: ws.workDir, env: { ...process.env, ...ws.envVars }, encoding: "utf8" },
    );
    expect(out.trim()).toBe("[secret]");
  });

  test("no-change preview: nothing changes, no resource calls the service (only the two function reads)", async () => {
    suite.sim.clearRequests();
    const preview = await suite.stack.preview(engine.opts);
    expect(preview.changeSummary).toEqual({ same: 8 });
    expect(suite.calls().sort()).toEqual(FUNCTION_READS());
  });

  test("rotation by replacement: a new deployer first, the app's secret updated, the old account last", async () => {
    await suite.stack.setConfig("rotation", { value: "r2" });
    const { id: newId, token: newToken } = await suite.upRotating(
      { replace: 1, update: 1, same: 6 },
      { name: "deployer", idOutput: "deployerId", id: deployerId, token: deployerToken },
    );
    expect(suite.writes()).toEqual([
      `POST /v2/projects/${home.projectId}/service-accounts as admin`,
      `PATCH /v2/projects/${home.projectId}/apps/${home.appId}/secrets as admin`,
      `DELETE /v2/projects/${home.projectId}/service-accounts/${deployerId} as admin`,
    ]);
    expect(suite.sim.appSecrets(home.projectId, home.appId)).toEqual({ PIMS_TOKEN: newToken });
    expect(liveIds(suite.sim, home.projectId)).toEqual([newId, overlapId].sort());
    deployerId = newId;
    deployerToken = newToken;
  });

  test("overlapping rotation: an in-place update, the previous account kept live beside the new one", async () => {
    const before = await suite.shown("overlap");
    await suite.stack.setConfig("overlapRotation", { value: "r2" });
    await suite.up({ update: 1, same: 7 });
    const after = await suite.shown("overlap");
    const newId = after.serviceAccountId as string;
    expect(newId).not.toBe(overlapId);
    expect(after.previousServiceAccountId).toBe(overlapId);
    expect(after.previousToken).toBe(before.token);
    expect(after.token).not.toBe(before.token);
    expect(suite.writes()).toEqual([`POST /v2/projects/${home.projectId}/service-accounts as admin`]);
    expect(liveIds(suite.sim, home.projectId)).toEqual([deployerId, overlapId, newId].sort());
    const stored = resource(exportEncrypted(suite.stack), "pims:index:ServiceAccount", "overlap");
    expect(isEncryptedSecret(stored.outputs?.previousToken)).toBe(true);
    expect(isEncryptedSecret(stored.outputs?.token)).toBe(true);
    // the progress line TypeScript users see, through the engine's log: a planned rotation is not a warning
    expect(engine.text()).toContain(
      `service account "yaml-overlap" in project ${home.projectId}: rotated (rotationTrigger): new account ${newId}`,
    );
    expect(engine.text()).not.toMatch(/warning: [^\n]*rotated \(rotationTrigger\)/);
  });

  test("refresh keeps state; its only calls are each project's API-key listing, once, by its provider", async () => {
    suite.sim.clearRequests();
    const refresh = await suite.stack.refresh(engine.opts);
    expect(refresh.summary.resourceChanges).toEqual({ same: 8 });
    expect(suite.calls().sort()).toEqual(
      [
        `GET /v2/projects/${home.projectId}/api-keys as admin`,
        `GET /v2/projects/${partner.projectId}/api-keys as ${partner.accountId}`,
      ].sort(),
    );
    expect((await suite.shown("deployer")).token).toBe(deployerToken);
  });

  test("destroy: every account the stack made is deleted (the partner's own stays), the state is empty", async () => {
    suite.sim.clearRequests();
    const down = await suite.stack.destroy(engine.opts);
    expect(down.summary.resourceChanges).toEqual({ delete: 8 });
    expect(liveIds(suite.sim, home.projectId)).toEqual([]);
    expect(liveIds(suite.sim, partner.projectId)).toEqual([partner.accountId]);
    expect(
      suite.writes().filter((c) => c.includes(`/service-accounts/${partnerCiId} as ${partner.accountId}`)),
    ).toHaveLength(1);
    expect(resources(exportEncrypted(suite.stack)).filter((r) => r.type !== "pulumi:pulumi:Stack")).toEqual([]);
    const said = engine.text();
    // what stays in the service is a warning: the user decides whether to remove it
    expect(said).toContain(`warning: pulumi-pims: project ${projectId} ("yaml-project") was removed from the stack`);
    expect(said).toMatch(/volume default-us-east-1 in project \S+ was removed from the stack and stays at 100 GB/);
    expect(said).toMatch(/secret\(s\) "PIMS_TOKEN" remain in the app/);
  });

  test("no token in plaintext in the engine output or in any file of the project and backend", () => {
    const secrets = suite.expectNoSecrets();
    expect(secrets).toContain(partner.token);
    expect(secrets.length).toBeGreaterThanOrEqual(7); // admin, partner, two deployers, two overlaps, partner CI
  });
});
