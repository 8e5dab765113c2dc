/**
 * An ES-module program (`"type": "module"`) that imports pulumi-pims by name, as JavaScript users and TypeScript
 * compiled to ES modules do: the packed package installed into a fresh project outside this repository, then
 * `pulumi up`, `pulumi preview --expect-no-changes` and `pulumi destroy` with the real engine against the simulator.
 * 0.4.0 broke this (`SyntaxError: Named export 'AppSecrets' not found`): the names Node's ES-module loader sees are
 * held by tests/unit/sdk/esModule.test.ts; this suite holds the whole program under the engine.
 *
 * Needs the npm registry (for `@pulumi/pulumi`) and the pulumi CLI (ensureEngine builds it when missing).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { REPO_ROOT } from "../../../scripts/engine";
import { useEngineScratch } from "../../kit/engine/engineSuite";
import { GuideShell } from "../../kit/languages/guide";
import { npmUserEnv, packPackage } from "../../kit/languages/typescript";
import { expectNoPlaintextSecrets, expectNoSecretsInFiles } from "../../kit/secrets/secrets";

const PINNED = (
  JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as {
    devDependencies: Record<string, string>;
  }
).devDependencies["@pulumi/pulumi"];

/** Named imports of every resource, a function's Output form and `Provider`; the namespace form beside them. */
const PROGRAM = `import * as pulumi from "@pulumi/pulumi";
import { AppSecrets, Project, Provider, ServiceAccount, VolumeSize, getApiKeysOutput } from "pulumi-pims";
import * as pims from "pulumi-pims";

const config = new pulumi.Config();
const explicit = new Provider("explicit", { baseUrl: config.require("serviceUrl") });

const project = new Project("app", { name: "esm-app" });
const deployer = new ServiceAccount("deployer", {
  projectId: project.projectId,
  name: "esm-deployer",
  grants: [project.projectId],
  expiresIn: 86400,
});
new VolumeSize(
  "data",
  { projectId: config.require("existingProjectId"), volumeId: config.require("volumeId"), sizeGb: 100 },
  { provider: explicit },
);
new AppSecrets("web", {
  projectId: config.require("existingProjectId"),
  appId: config.require("appId"),
  secrets: { PIMS_TOKEN: deployer.token, PIMS_PROJECT_ID: project.projectId },
});

export const projectId = project.projectId;
export const token = deployer.token;
export const keyNames = getApiKeysOutput({ projectId: deployer.projectId }).apply((r) => r.keys.map((k) => k.name));
export const sameThroughNamespace =
  pims.ServiceAccount === ServiceAccount && pims.getApiKeysOutput === getApiKeysOutput;
`;

/** One npm install of the whole SDK on a loaded 2-core machine, then three engine runs. */
const suite = useEngineScratch({ scratchPrefix: "pims-esm-", testTimeoutMs: 15 * 60_000 });
const shell = new GuideShell();

test("named imports from an ES module: up, a no-change preview, destroy; no account left, no token shown", async () => {
  const tarball = packPackage(suite.scratch);
  const dir = path.join(suite.scratch, "esm-app");
  const backend = path.join(suite.scratch, "backend");
  fs.mkdirSync(dir, { recursive: true });
  fs.mkdirSync(backend, { recursive: true });
  fs.writeFileSync(
    path.join(dir, "package.json"),
    JSON.stringify({ name: "esm-app", type: "module", main: "index.js" }, null, 2),
  );
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: esm-app\nruntime: nodejs\n");
  fs.writeFileSync(path.join(dir, "index.js"), PROGRAM);

  const existing = suite.sim.addProject({ name: "existing" });
  const app = suite.sim.addApp(existing.id, "web");
  const volume = suite.sim.addVolume(existing.id, { sizeGb: 50 });
  const env = npmUserEnv(suite.engineDir, backend, suite.sim.token);
  for (const command of [
    `npm install --no-audit --no-fund ${tarball} @pulumi/pulumi@${PINNED}`,
    `pulumi login file://${backend}`,
    "pulumi stack init dev",
    `pulumi config set pims:baseUrl ${suite.sim.baseUrl}`,
    `pulumi config set serviceUrl ${suite.sim.baseUrl}`,
    `pulumi config set existingProjectId ${existing.id}`,
    `pulumi config set appId ${app.id}`,
    `pulumi config set volumeId ${volume.id}`,
    "pulumi up --yes --non-interactive",
  ])
    await shell.run(command, dir, env);

  const outputs = JSON.parse(await shell.run("pulumi stack output --json", dir, env)) as Record<string, unknown>;
  const projectId = outputs.projectId as string;
  expect(outputs.token).toBe("[secret]");
  expect(outputs.sameThroughNamespace).toBe(true);
  // The listing carries the keys' values, so the function's result is a secret: revealed here, never recorded.
  expect(outputs.keyNames).toBe("[secret]");
  const keyNames = await shell.run("pulumi stack output keyNames --json --show-secrets", dir, env, false);
  expect(JSON.parse(keyNames)).toEqual(["esm-deployer"]);
  expect(suite.sim.project(projectId)?.name).toBe("esm-app");
  const [account, ...others] = suite.sim.serviceAccounts(projectId);
  expect(others).toEqual([]);
  expect(account).toMatchObject({ name: "esm-deployer", grants: [projectId] });
  expect(suite.sim.volume(existing.id, volume.id)?.sizeGb).toBe(100);
  const secrets = suite.sim.appSecrets(existing.id, app.id);
  expect(Object.keys(secrets).sort()).toEqual(["PIMS_PROJECT_ID", "PIMS_TOKEN"]);
  expect(suite.sim.issuedSecrets()).toContain(secrets.PIMS_TOKEN);

  suite.sim.clearRequests();
  await shell.run("pulumi preview --expect-no-changes --non-interactive", dir, env);
  // The function's GET is the only call: resources make none at preview.
  expect(suite.sim.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET /v2/projects/${projectId}/api-keys`]);

  await shell.run("pulumi destroy --yes --non-interactive", dir, env);
  expect(suite.sim.serviceAccounts(projectId)).toEqual([]);
  expect(suite.sim.deletedServiceAccounts()).toContain(account.id);

  expectNoPlaintextSecrets(
    shell.printed,
    [suite.sim.token, ...suite.sim.issuedSecrets()],
    "the output of the program's commands",
  );
  // The backend (checkpoints, history, logs) and the stack's config file.
  expect(expectNoSecretsInFiles(backend, [suite.sim.token, ...suite.sim.issuedSecrets()])).toBeGreaterThan(3);
  expectNoPlaintextSecrets(
    fs.readFileSync(path.join(dir, "Pulumi.dev.yaml"), "utf8"),
    [suite.sim.token],
    "Pulumi.dev.yaml",
  );
});
