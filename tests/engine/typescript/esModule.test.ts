/**
 * An ES-module program (`"type": "module"`) that imports pulumi-pims by name, as JavaScript users and TypeScript
 * compiled to ES modules do: the packed package installed into a fresh project outside this repository, then
 * `pulumi up`, `pulumi preview --expect-no-changes` and `pulumi destroy` with the real engine against the simulator.
 * 0.4.0 broke this (`SyntaxError: Named export 'AppSecrets' not found`): the names Node's ES-module loader sees are
 * held by tests/unit/esModule.test.ts; this suite holds the whole program under the engine.
 *
 * Needs the npm registry (for `@pulumi/pulumi`) and the pulumi CLI (ensureEngine builds it when missing).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { ensureEngine, REPO_ROOT, tempDir } from "../../../scripts/engine";
import type { PimsSimulator } from "../../../simulator";
import { ENGINE_SETUP_TIMEOUT_MS } from "../../kit/engine";
import { GuideShell, npmUserEnv, packPackage } from "../../kit/sdk";
import { expectNoPlaintextSecrets, expectNoSecretsInFiles } from "../../kit/secrets";
import { startSimulator } from "../../kit/simulator";
import { tearDown } from "../../kit/teardown";

/** One npm install of the whole SDK on a loaded 2-core machine, then three engine runs. */
jest.setTimeout(15 * 60_000);

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

let sim: PimsSimulator;
let scratch: string;
let engineDir: string;
const shell = new GuideShell();

beforeAll(async () => {
  engineDir = ensureEngine();
  sim = await startSimulator();
  scratch = tempDir("pims-esm-");
}, ENGINE_SETUP_TIMEOUT_MS);

afterAll(() => tearDown([sim], scratch));

test("named imports from an ES module: up, a no-change preview, destroy; no account left, no token shown", async () => {
  const tarball = packPackage(scratch);
  const dir = path.join(scratch, "esm-app");
  const backend = path.join(scratch, "backend");
  fs.mkdirSync(dir, { recursive: true });
  fs.mkdirSync(backend, { recursive: true });
  fs.writeFileSync(
    path.join(dir, "package.json"),
    JSON.stringify({ name: "esm-app", type: "module", main: "index.js" }, null, 2),
  );
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: esm-app\nruntime: nodejs\n");
  fs.writeFileSync(path.join(dir, "index.js"), PROGRAM);

  const existing = sim.addProject({ name: "existing" });
  const app = sim.addApp(existing.id, "web");
  const volume = sim.addVolume(existing.id, { sizeGb: 50 });
  const env = npmUserEnv(engineDir, backend, sim.token);
  for (const command of [
    `npm install --no-audit --no-fund ${tarball} @pulumi/pulumi@${PINNED}`,
    `pulumi login file://${backend}`,
    "pulumi stack init dev",
    `pulumi config set pims:baseUrl ${sim.baseUrl}`,
    `pulumi config set serviceUrl ${sim.baseUrl}`,
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
  expect(sim.project(projectId)?.name).toBe("esm-app");
  const [account, ...others] = sim.serviceAccounts(projectId);
  expect(others).toEqual([]);
  expect(account).toMatchObject({ name: "esm-deployer", grants: [projectId] });
  expect(sim.volume(existing.id, volume.id)?.sizeGb).toBe(100);
  const secrets = sim.appSecrets(existing.id, app.id);
  expect(Object.keys(secrets).sort()).toEqual(["PIMS_PROJECT_ID", "PIMS_TOKEN"]);
  expect(sim.issuedSecrets()).toContain(secrets.PIMS_TOKEN);

  sim.clearRequests();
  await shell.run("pulumi preview --expect-no-changes --non-interactive", dir, env);
  // The function's GET is the only call: resources make none at preview.
  expect(sim.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET /v2/projects/${projectId}/api-keys`]);

  await shell.run("pulumi destroy --yes --non-interactive", dir, env);
  expect(sim.serviceAccounts(projectId)).toEqual([]);
  expect(sim.deletedServiceAccounts()).toContain(account.id);

  expectNoPlaintextSecrets(shell.printed, [sim.token, ...sim.issuedSecrets()], "the output of the program's commands");
  // The backend (checkpoints, history, logs) and the stack's config file.
  expect(expectNoSecretsInFiles(backend, [sim.token, ...sim.issuedSecrets()])).toBeGreaterThan(3);
  expectNoPlaintextSecrets(fs.readFileSync(path.join(dir, "Pulumi.dev.yaml"), "utf8"), [sim.token], "Pulumi.dev.yaml");
});
