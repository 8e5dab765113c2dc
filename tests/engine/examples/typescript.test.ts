/**
 * The example projects run as real project directories (Pulumi.yaml, Pulumi.<stack>.yaml, index.ts) by the real
 * engine against an in-process simulator. Each example is copied into a temporary directory first (setting
 * `pims:token` writes the stack's config file, which must not happen in the repository); its own program runs, as
 * `pulumi up` would run it there (see createPimsStack in scripts/engine/index.ts). The simulator is seeded with what
 * the examples' config names (existing projects, apps and volumes: the service cannot create apps or volumes).
 *
 * Needs the pulumi CLI: `ensureEngine()` finds it or builds it; without it this suite fails, it never skips.
 */
import type { ConfigMap, Stack } from "@pulumi/pulumi/automation";
import * as fs from "node:fs";
import * as path from "node:path";
import { copyExample, createPimsStack, randomSecret } from "../../../scripts/engine";
import { sleep } from "../../kit/engine/engine";
import { useEngineScratch } from "../../kit/engine/engineSuite";
import { liveIds } from "../../kit/sim/simulator";
import { expectNoPlaintextSecrets, expectNoSecretsInFiles } from "../../kit/secrets/secrets";

const suite = useEngineScratch({ scratchPrefix: "pims-e2e-examples-" });
const { engine } = suite;
/** Secret values the tests put into config (scanned for with the simulator's tokens). */
const configSecrets: string[] = [];

/** A stack for a copied example: its directory is the workDir, its index.ts the program. */
function exampleStack(
  workDir: string,
  stackName: string,
  config: Parameters<typeof createPimsStack>[0]["config"] = {},
): Promise<Stack> {
  return createPimsStack({
    stackName,
    workDir,
    backendDir: path.join(suite.scratch, "backend"),
    baseUrl: suite.sim.baseUrl,
    token: suite.sim.token,
    config,
  });
}

/** A project config value (`<project>:<key>`) of a stack, as the engine reads it (files included). */
function configValue(all: ConfigMap, key: string): string | undefined {
  const entry = Object.entries(all).find(([k]) => k.endsWith(`:${key}`) && !k.startsWith("pims:"));
  return entry?.[1].value;
}

/** Seeds what an environments stack's config refers to: its project (and every granted one), app and volume. */
function seedFromConfig(all: ConfigMap): { projectId: string; appId: string; volumeId: string } {
  const projectId = configValue(all, "projectId");
  if (!projectId) throw new Error("the stack has no projectId config");
  const grants = JSON.parse(configValue(all, "grants") ?? "[]") as string[];
  for (const id of new Set([projectId, ...grants]))
    if (!suite.sim.project(id)) suite.sim.addProject({ id, name: `existing ${id}` });
  const app = suite.sim.addApp(projectId, configValue(all, "appName") ?? "web");
  const volumeId = configValue(all, "volumeId") ?? "default-us-east-1";
  if (!suite.sim.volume(projectId, volumeId)) suite.sim.addVolume(projectId, { id: volumeId, sizeGb: 50 });
  return { projectId, appId: app.id, volumeId };
}

const DAY_MS = 24 * 3600 * 1000;

describe("examples/quickstart, as a project directory", () => {
  test("up creates the project, the service account and the app's secrets; destroy deletes the account", async () => {
    const existing = suite.sim.addProject({ name: "apps" });
    const app = suite.sim.addApp(existing.id, "web");
    const workDir = copyExample("quickstart", suite.scratch);
    const stack = await exampleStack(workDir, "dev", { appProjectId: existing.id, appName: "web" });

    const up = await stack.up(engine.opts);
    expect(up.summary.resourceChanges).toEqual({ create: 4 });
    const o = up.outputs;
    const projectId = o.projectId.value as string;
    expect(suite.sim.project(projectId)?.name).toBe("quickstart-dev");
    const [account, ...others] = suite.sim.serviceAccounts(projectId);
    expect(others).toEqual([]);
    expect(account).toMatchObject({
      id: o.serviceAccountId.value,
      name: "quickstart-deployer",
      grants: [projectId, existing.id],
    });
    expect(o.token.secret).toBe(true);
    expect(suite.sim.issuedSecrets()).toContain(o.token.value);
    expect(suite.sim.appSecrets(existing.id, app.id)).toEqual({
      PIMS_TOKEN: o.token.value,
      PIMS_PROJECT_ID: projectId,
    });
    expect(o.appSecretNames.value).toEqual(["PIMS_PROJECT_ID", "PIMS_TOKEN"]);
    expect(Date.parse(o.tokenExpiresAt.value as string) - Date.parse(account.createdAt)).toBe(30 * DAY_MS);

    const down = await stack.destroy(engine.opts);
    expect(down.summary.resourceChanges).toEqual({ delete: 4 });
    expect(suite.sim.serviceAccounts(projectId)).toEqual([]);
    expect(suite.sim.deletedServiceAccounts()).toContain(account.id);
  });
});

describe("examples/environments: one program, settings from Pulumi.<stack>.yaml", () => {
  const deployed: Record<
    string,
    { stack: Stack; projectId: string; appId: string; volumeId: string; accountId: string }
  > = {};
  let workDir: string;

  test("dev and staging each deploy with their own config", async () => {
    workDir = copyExample("environments", suite.scratch);
    const devDatabaseUrl = randomSecret("postgres://dev:pw-");
    configSecrets.push(devDatabaseUrl);
    const stacks = {
      dev: await exampleStack(workDir, "dev", { databaseUrl: { value: devDatabaseUrl, secret: true } }),
      staging: await exampleStack(workDir, "staging"),
    };
    for (const [env, stack] of Object.entries(stacks)) {
      const seeded = seedFromConfig(await stack.getAllConfig());
      const up = await stack.up(engine.opts);
      expect(up.summary.resourceChanges).toEqual({ create: 4 });
      expect(up.outputs.environment.value).toBe(env);
      expect(up.outputs.token.secret).toBe(true);
      deployed[env] = { stack, ...seeded, accountId: up.outputs.deployerId.value as string };
      // The deployer's own API key is listed (a secret output).
      expect(up.outputs.apiKeyNames).toEqual({ value: [`${env}-deployer`], secret: true });
    }

    const dev = deployed.dev;
    const staging = deployed.staging;
    expect(dev.projectId).toBe("p-1a2b3c01");
    expect(staging.projectId).toBe("p-1a2b3c02");
    const [devAccount] = suite.sim.serviceAccounts(dev.projectId);
    const [stagingAccount] = suite.sim.serviceAccounts(staging.projectId);
    expect(devAccount).toMatchObject({ id: dev.accountId, name: "dev-deployer", grants: ["p-1a2b3c01"] });
    expect(stagingAccount).toMatchObject({
      id: staging.accountId,
      name: "staging-deployer",
      grants: ["p-1a2b3c02", "p-1a2b3c01"],
    });
    expect(Date.parse(devAccount.tokenExpiresAt) - Date.parse(devAccount.createdAt)).toBe(7 * DAY_MS);
    expect(Date.parse(stagingAccount.tokenExpiresAt) - Date.parse(stagingAccount.createdAt)).toBe(30 * DAY_MS);
    expect(suite.sim.volume(dev.projectId, dev.volumeId)?.sizeGb).toBe(50);
    expect(suite.sim.volume(staging.projectId, staging.volumeId)?.sizeGb).toBe(100);

    const devSecrets = suite.sim.appSecrets(dev.projectId, dev.appId);
    expect(devSecrets).toEqual({
      PIMS_TOKEN: expect.stringMatching(/^pims_sa_/),
      LOG_LEVEL: "debug",
      DATABASE_URL: devDatabaseUrl,
    });
    const stagingSecrets = suite.sim.appSecrets(staging.projectId, staging.appId);
    expect(stagingSecrets).toEqual({ PIMS_TOKEN: expect.stringMatching(/^pims_sa_/), LOG_LEVEL: "info" });
    expect(devSecrets.PIMS_TOKEN).not.toBe(stagingSecrets.PIMS_TOKEN);
  });

  test("destroying each stack deletes only its own deployer", async () => {
    await deployed.dev.stack.destroy(engine.opts);
    expect(suite.sim.serviceAccounts(deployed.dev.projectId)).toEqual([]);
    expect(suite.sim.serviceAccounts(deployed.staging.projectId).map((a) => a.id)).toEqual([
      deployed.staging.accountId,
    ]);
    await deployed.staging.stack.destroy(engine.opts);
    expect(suite.sim.serviceAccounts(deployed.staging.projectId)).toEqual([]);
    // The committed stack files were not touched: config was written into the copy only.
    const original = fs.readFileSync(
      path.join(__dirname, "..", "..", "..", "examples", "environments", "typescript", "Pulumi.dev.yaml"),
      "utf8",
    );
    expect(original).not.toMatch(/encryptionsalt|secure:/);
    expect(fs.readFileSync(path.join(workDir, "Pulumi.dev.yaml"), "utf8")).toMatch(/pims:token:\s*\n\s*secure: /);
  });
});

describe("examples/rotation", () => {
  test("rotateBeforeExpiry window open: preview shows an in-place update, no call; up rotates, overlaps", async () => {
    const p = suite.sim.addProject({ name: "rotation" });
    const app = suite.sim.addApp(p.id, "web");
    const workDir = copyExample("rotation", suite.scratch);
    const stack = await exampleStack(workDir, "ci", { projectId: p.id, expiresIn: "30", rotateBeforeExpiry: "29" });

    const up = await stack.up(engine.opts);
    expect(up.summary.resourceChanges).toEqual({ create: 3 });
    const expiresAt = Date.parse(up.outputs.tokenExpiresAt.value as string);
    expect(Date.parse(up.outputs.rotatesAfter.value as string)).toBe(expiresAt - 29_000);
    expect(suite.sim.appSecrets(p.id, app.id).PIMS_TOKEN).toBe(up.outputs.token.value);
    expect(up.outputs.previousToken?.value).toBeUndefined(); // no rotation yet

    await sleep(1_500);
    suite.sim.clearRequests();
    const preview = await stack.preview(engine.opts);
    // keepPreviousToken (the example's default): the account is updated in place, not replaced; the app follows.
    expect(preview.changeSummary).toEqual({ update: 2, same: 1 });
    expect(suite.sim.requests).toEqual([]);
    expect(suite.sim.serviceAccounts(p.id).map((a) => a.id)).toEqual([up.outputs.serviceAccountId.value]);

    const rotated = await stack.up(engine.opts);
    expect(rotated.summary.resourceChanges).toEqual({ update: 2, same: 1 });
    const [first, second] = [
      up.outputs.serviceAccountId.value as string,
      rotated.outputs.serviceAccountId.value as string,
    ];
    expect(second).not.toBe(first);
    expect(rotated.outputs.previousServiceAccountId.value).toBe(first);
    expect(rotated.outputs.previousToken.value).toBe(up.outputs.token.value);
    expect(rotated.outputs.previousToken.secret).toBe(true);
    // the previous account stays live until the next rotation
    expect(liveIds(suite.sim, p.id)).toEqual([first, second].sort());
    expect(suite.sim.appSecrets(p.id, app.id).PIMS_TOKEN).toBe(rotated.outputs.token.value);

    await stack.destroy(engine.opts);
    expect(suite.sim.serviceAccounts(p.id)).toEqual([]);
  });
});

describe("secrets", () => {
  test("no issued token or config secret appears in any engine output, state file or stack config", () => {
    const secrets = [...suite.sim.issuedSecrets(), ...configSecrets];
    expect(secrets.length).toBeGreaterThanOrEqual(5);
    expectNoPlaintextSecrets(engine.text(), secrets, "the engine's output");
    expect(expectNoSecretsInFiles(suite.scratch, secrets)).toBeGreaterThan(10);
  });
});
