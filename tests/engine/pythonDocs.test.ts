/**
 * docs/python.md followed literally: in a sandbox holding a project directory and, beside it, what the page calls
 * `../pulumi-pims` (sdkKit's sandboxClone), the page's shell lines run as written in a fresh virtual environment
 * (`pip install ../pulumi-pims/sdk/python`: pip builds and installs the SDK; `npm install pulumi-pims`, the plugin:
 * the one substitution, as in yamlGuide.test.ts, installs this repository's packed package), its Pulumi.yaml and
 * __main__.py are written unchanged, and the program runs as an Automation API inline program
 * (tests/engine/python/inline.py; no Python language host exists here) under the real CLI, the plugin the page's
 * Pulumi.yaml names, and the simulator: `up`, then `destroy`. The config the page's commands set (projectId,
 * volumeId, appId, pims:token) comes from the simulator. Needs the pulumi CLI, python3, PyPI (pip's build of the SDK
 * fetches setuptools) and the npm registry.
 */
import type { Stack } from "@pulumi/pulumi/automation";
import * as fs from "node:fs";
import * as path from "node:path";
import { createPimsStack, engineEnv, ensureEngine, tempDir } from "../../scripts/engine";
import type { PimsSimulator } from "../../simulator";
import { expectNoPlaintextSecrets, startSimulator } from "../helpers";
import {
  E2E_TIMEOUT_MS,
  ENGINE_SETUP_TIMEOUT_MS,
  exportEncrypted,
  isEncryptedSecret,
  resource,
  revealed,
} from "./harness";
import { readGuide, run, sandboxClone, sandboxCommand, userVenv } from "./sdkKit";

jest.setTimeout(E2E_TIMEOUT_MS);

const DRIVER = path.join(__dirname, "python", "inline.py");
const guide = readGuide("python.md");

let sim: PimsSimulator;
let scratch: string;
let project: string;
let stack: Stack;
let engineText = "";
let seeded: { projectId: string; volumeId: string; appId: string };

async function op(python: string, operation: "up" | "destroy"): Promise<Record<string, unknown>> {
  const ran = await run(python, [DRIVER, project, "dev", operation, path.join(project, "__main__.py")], {
    cwd: project,
    env: { ...process.env, ...engineEnv(path.join(scratch, "backend")) },
  });
  engineText += ran.stderr + ran.stdout;
  const line = ran.stdout.split("\n").find((l) => l.startsWith("RESULT "));
  if (!line) throw new Error(`no RESULT line from the driver:\n${ran.stdout}\n${ran.stderr}`);
  return JSON.parse(line.slice("RESULT ".length)) as Record<string, unknown>;
}

let python: string;

beforeAll(async () => {
  ensureEngine();
  sim = await startSimulator({ profile: "default" });
  const projectId = sim.addProject({ name: "docs-python" }).id;
  const volumeId = sim.addVolume(projectId, { id: "default-us-east-1", sizeGb: 50 }).id;
  seeded = { projectId, volumeId, appId: sim.addApp(projectId, "web").id };
  scratch = tempDir("pims-e2e-python-docs-");
  sandboxClone(scratch);
  project = path.join(scratch, "my-infra");
  fs.mkdirSync(project);
  python = await userVenv(path.join(project, "venv"));
}, ENGINE_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await sim?.stop();
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

test("the page's files and commands are there to follow", () => {
  expect(Object.keys(guide.files).sort()).toEqual(["Pulumi.yaml", "__main__.py"]);
  expect(guide.commands).toEqual(["pip install ../pulumi-pims/sdk/python", "npm install pulumi-pims"]);
});

test("its install commands, run in the project's virtual environment, install pulumi_pims and the plugin", async () => {
  const venvBin = path.dirname(python);
  for (const line of guide.commands) {
    await run("bash", ["-c", sandboxCommand(line, scratch)], {
      cwd: project,
      env: {
        ...process.env,
        VIRTUAL_ENV: path.dirname(venvBin),
        PATH: `${venvBin}${path.delimiter}${process.env.PATH}`,
      },
    });
  }
  const where = await run(python, ["-c", "import pulumi_pims, os; print(os.path.dirname(pulumi_pims.__file__))"]);
  expect(where.stdout.trim().startsWith(path.join(project, "venv"))).toBe(true);
  expect(fs.existsSync(path.join(project, "node_modules", "pulumi-pims", "plugin", "pulumi-resource-pims"))).toBe(true);
});

test("its program: up creates every resource, the token is a secret; destroy leaves 0 live accounts", async () => {
  for (const [name, text] of Object.entries(guide.files)) fs.writeFileSync(path.join(project, name), text);
  stack = await createPimsStack({
    stackName: "dev",
    workDir: project,
    backendDir: path.join(scratch, "backend"),
    baseUrl: sim.baseUrl,
    token: sim.token,
    config: seeded,
  });
  const up = (await op(python, "up")) as { outputs: Record<string, { secret: boolean }>; changes: object };
  expect(up.changes).toEqual({ create: 5 });
  expect(up.outputs.deployerToken).toEqual({ secret: true });

  const state = await stack.exportStack();
  const deployer = resource(state, "pims:index:ServiceAccount", "deployer").outputs ?? {};
  const team = sim.projects().find((p) => p.name === "platform-team");
  expect(team).toBeDefined();
  expect(sim.serviceAccounts(team?.id).map((a) => [a.id, a.name])).toEqual([[deployer.serviceAccountId, "deployer"]]);
  expect(sim.volume(seeded.projectId, seeded.volumeId)?.sizeGb).toBe(100);
  expect(sim.appSecrets(seeded.projectId, seeded.appId)).toEqual({
    PIMS_TOKEN: revealed(deployer.token),
    LOG_LEVEL: "info",
  });
  const outputs = resource(state, "pulumi:pulumi:Stack", "my-infra-dev").outputs ?? {};
  expect(revealed(outputs.keyCount)).toBe(1);
  const stored = resource(exportEncrypted(stack), "pims:index:ServiceAccount", "deployer").outputs ?? {};
  expect(isEncryptedSecret(stored.token)).toBe(true);
  expectNoPlaintextSecrets(
    JSON.stringify(exportEncrypted(stack)),
    [sim.token, ...sim.issuedSecrets()],
    "the exported state",
  );

  const down = (await op(python, "destroy")) as { changes: object };
  expect(down.changes).toEqual({ delete: 5 });
  expect(sim.serviceAccounts(team?.id)).toEqual([]);
  expectNoPlaintextSecrets(engineText, [sim.token, ...sim.issuedSecrets()], "the engine's output");
});
