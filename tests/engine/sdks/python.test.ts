/**
 * The Python SDK end to end: `pulumi_pims` built from sdk/python into a wheel and installed with pip into a fresh
 * virtual environment, as a user installs it; then tests/engine/programs/python/rotation_program.py (a Project, a
 * ServiceAccount rotated by replacement, one with keepPreviousToken, an AppSecrets holding the latter's token,
 * getApiKeys in both forms) run as an Automation API inline program (tests/engine/programs/python/inline.py; no Python
 * language host exists here) under the real CLI, the pims plugin (plugin/, named by Pulumi.yaml's plugins.providers)
 * and the simulator: `up`, a rotation in each mode, `destroy`. Checked against what the simulator holds after each
 * step and what the state stores; the exported state, the backend's files and the engine's output are scanned for
 * every token the simulator issued.
 *
 * Needs the pulumi CLI (ensureEngine) and python3 with PyPI (scripts/toolchain/ensure-python, cached after the first
 * run).
 *
 * Set-up: its own, because its stack is a Python program run by the inline driver, which useEngineStack cannot make
 * (its engine, simulator and scratch could move onto useEngineScratch).
 */
import type { Stack } from "@pulumi/pulumi/automation";
import * as fs from "node:fs";
import * as path from "node:path";
import { createPimsStack, engineEnv, ensureEngine, tempDir } from "../../../scripts/engine";
import { projectDeleteWarning } from "../../../provider/project";
import type { PimsSimulator } from "../../../simulator";
import {
  E2E_TIMEOUT_MS,
  ENGINE_SETUP_TIMEOUT_MS,
  exportEncrypted,
  isEncryptedSecret,
  resource,
  resources,
  revealed,
} from "../../kit/engine/engine";
import { filesUnder, run, writeProject } from "../../kit/languages/index";
import {
  installedPackageDir,
  installPythonSdk,
  PYTHON_INLINE_DRIVER,
  PYTHON_ROTATION_PROGRAM,
  PYTHON_SDK_DIR,
} from "../../kit/languages/python";
import { packageVersion } from "../../../provider/plugin/tokens";
import { expectNoPlaintextSecrets, expectNoSecretsInFiles } from "../../kit/secrets/secrets";
import { startSimulator } from "../../kit/sim/simulator";
import { tearDown } from "../../kit/teardown";

jest.setTimeout(E2E_TIMEOUT_MS);

let sim: PimsSimulator;
let scratch: string;
let workDir: string;
let python: string;
let stack: Stack;
let projectId: string;
let appId: string;
/** Everything the engine printed across the operations (the driver's stderr), for the secret scan. */
let engineText = "";

interface Result {
  outputs: Record<string, { secret: boolean; value?: unknown }>;
  changes: Record<string, number>;
}

/** One operation of the inline program, in a child Python process; its RESULT line. */
async function op(operation: "up" | "destroy"): Promise<Result> {
  const ran = await run(python, [PYTHON_INLINE_DRIVER, workDir, "dev", operation, PYTHON_ROTATION_PROGRAM], {
    cwd: workDir,
    env: { ...process.env, ...engineEnv(path.join(scratch, "backend")) },
  });
  engineText += ran.stderr + ran.stdout;
  const line = ran.stdout.split("\n").find((l) => l.startsWith("RESULT "));
  if (!line) throw new Error(`no RESULT line from the driver:\n${ran.stdout}\n${ran.stderr}`);
  return JSON.parse(line.slice("RESULT ".length)) as Result;
}

/** A ServiceAccount's outputs in the state, secrets revealed. */
async function account(name: string): Promise<Record<string, unknown>> {
  const r = resource(await stack.exportStack(), "pims:index:ServiceAccount", name);
  return Object.fromEntries(Object.entries(r.outputs ?? {}).map(([k, v]) => [k, revealed(v)]));
}
const liveIds = (): string[] => sim.serviceAccounts(projectId).map((a) => a.id);

beforeAll(async () => {
  ensureEngine();
  sim = await startSimulator({ profile: "default" });
  projectId = sim.addProject({ name: "python-sdk" }).id;
  appId = sim.addApp(projectId, "web").id;
  scratch = tempDir("pims-e2e-python-");
  python = (await installPythonSdk(path.join(scratch, "py"))).python;
  workDir = path.join(scratch, "project");
  writeProject(workDir, "pims-python-sdk", "python", true);
  stack = await createPimsStack({
    stackName: "dev",
    workDir,
    backendDir: path.join(scratch, "backend"),
    baseUrl: sim.baseUrl,
    token: sim.token,
    config: { projectId, appId, triggerReplace: "1", triggerOverlap: "1" },
  });
}, ENGINE_SETUP_TIMEOUT_MS);

afterAll(() => tearDown([sim], scratch));

test("pip installed exactly the generated package, with its version, description, license and keywords", async () => {
  const installed = await installedPackageDir(python);
  const generated = path.join(PYTHON_SDK_DIR, "pulumi_pims");
  // All but README.md, which ships as the package's long description (below).
  const code = filesUnder(generated).filter((f) => f !== "README.md");
  expect(filesUnder(installed)).toEqual(code);
  for (const f of code) {
    expect([f, fs.readFileSync(path.join(installed, f), "utf8")]).toEqual([
      f,
      fs.readFileSync(path.join(generated, f), "utf8"),
    ]);
  }
  const meta = await run(python, [
    "-c",
    "import json; from importlib.metadata import metadata as m; d = m('pulumi_pims'); " +
      "print(json.dumps({**{k: d.get_all(k) for k in set(d.keys())}, 'Body': [d.get_payload()]}))",
  ]);
  const fields = JSON.parse(meta.stdout) as Record<string, string[]>;
  const version = packageVersion();
  expect(fields.Version).toEqual([version]);
  expect(fields.Body?.[0]?.trim()).toEqual(fs.readFileSync(path.join(PYTHON_SDK_DIR, "README.md"), "utf8").trim());
  expect(fields.Summary?.[0]).toMatch(/PIMS/);
  expect(fields.License).toEqual(["Apache-2.0"]);
  expect(fields.Keywords?.[0]?.split(",")).toEqual(expect.arrayContaining(["pulumi", "pims"]));
  // No home page or repository address: this package has none yet (no made-up one either).
  expect(Object.keys(fields).filter((k) => /home-?page|project-url|download-url/i.test(k))).toEqual([]);
});

test("up: the project, both accounts, the app secret; getApiKeys sees the accounts; the token is secret", async () => {
  const result = await op("up");
  expect(result.changes).toEqual({ create: 7 }); // the stack, 5 resources and the explicit provider
  expect(result.outputs.configBaseUrl).toEqual({ secret: false, value: sim.baseUrl });
  expect(sim.projects().map((p) => p.name)).toContain("python-sdk-explicit");
  const provider = resource(exportEncrypted(stack), "pulumi:providers:pims", "explicit");
  expect(isEncryptedSecret(provider.inputs?.token)).toBe(true);
  expect(result.outputs.appToken).toEqual({ secret: true });
  const ci = await account("ci");
  const app = await account("app");
  expect(liveIds().sort()).toEqual([ci.serviceAccountId, app.serviceAccountId].sort());
  expect(sim.projects().map((p) => p.name)).toContain("python-sdk-team");
  expect(sim.appSecrets(projectId, appId)).toEqual({ PIMS_TOKEN: app.token });
  const state = await stack.exportStack();
  const outputs = resource(state, "pulumi:pulumi:Stack", "pims-python-sdk-dev").outputs ?? {};
  expect(revealed(outputs.keyNamesAfter)).toEqual(["python-app", "python-ci"]);
  expect(typeof revealed(outputs.keyCountAtStart)).toBe("number");
  const stored = resource(exportEncrypted(stack), "pims:index:ServiceAccount", "app").outputs ?? {};
  expect(isEncryptedSecret(stored.token)).toBe(true);
});

test("a rotation by replacement: a new ci account, the old one deleted in the same up, app untouched", async () => {
  const before = await account("ci");
  const appBefore = await account("app");
  await stack.setConfig("triggerReplace", { value: "2" });
  await op("up");
  const after = await account("ci");
  expect(after.serviceAccountId).not.toEqual(before.serviceAccountId);
  expect(sim.deletedServiceAccounts()).toContain(before.serviceAccountId);
  expect(liveIds().sort()).toEqual([after.serviceAccountId, appBefore.serviceAccountId].sort());
  expect((await account("app")).serviceAccountId).toEqual(appBefore.serviceAccountId);
});

test("an overlapping rotation: a new app account, the old one live as previous, the app secret switched", async () => {
  const before = await account("app");
  const ci = await account("ci");
  await stack.setConfig("triggerOverlap", { value: "2" });
  const result = await op("up");
  const after = await account("app");
  expect(after.serviceAccountId).not.toEqual(before.serviceAccountId);
  expect(after.previousServiceAccountId).toEqual(before.serviceAccountId);
  expect(after.previousToken).toEqual(before.token);
  expect(result.outputs.appPreviousAccountId).toEqual({ secret: false, value: before.serviceAccountId });
  expect(liveIds().sort()).toEqual([ci.serviceAccountId, before.serviceAccountId, after.serviceAccountId].sort());
  expect(sim.appSecrets(projectId, appId)).toEqual({ PIMS_TOKEN: after.token });
});

test("no token in plaintext in the exported state, the backend's files or the engine's output", () => {
  const tokens = [sim.token, ...sim.issuedSecrets()];
  expect(tokens.length).toBeGreaterThanOrEqual(5); // the admin token and the 4 accounts
  expectNoPlaintextSecrets(JSON.stringify(exportEncrypted(stack)), tokens, "the exported state");
  expect(expectNoSecretsInFiles(path.join(scratch, "backend"), tokens)).toBeGreaterThan(0);
  expectNoPlaintextSecrets(engineText, tokens, "the engine's output");
});

test("destroy deletes every account: 0 live accounts", async () => {
  const team = sim.projects().find((p) => p.name === "python-sdk-team");
  const result = await op("destroy");
  expect(result.changes).toEqual({ delete: 7 });
  expect(liveIds()).toEqual([]);
  expect(resources(exportEncrypted(stack))).toEqual([]);
  // The service cannot delete a project: the Project leaves the stack, the project stays in the service.
  expect(team).toBeDefined();
  expect(sim.projects().map((p) => p.id)).toContain(team?.id);
  expect(engineText).toContain(projectDeleteWarning(team?.id ?? "", "python-sdk-team"));
  expectNoPlaintextSecrets(engineText, [sim.token, ...sim.issuedSecrets()], "the engine's output");
});
