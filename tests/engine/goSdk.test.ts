/**
 * The Go SDK, and docs/go.md followed literally: `go vet` of the generated package (sdk/go); then, in a sandbox
 * holding a project directory and what the page calls `../pulumi-pims` (sdkKit's sandboxClone), the page's shell
 * lines run as written (`go mod init`, the `replace`, `go get pulumi-pims/sdk/go/pims`; `npm install pulumi-pims`, the
 * plugin: the one substitution, as in yamlGuide.test.ts, installs this repository's packed package), its Pulumi.yaml
 * and main.go are written unchanged, and tests/engine/go/inline.go is added beside main.go: in the built program, its
 * init runs main.go's `program` as an Automation API inline program (no Go language host exists here) under the real
 * CLI, the plugin the page's Pulumi.yaml names, and the simulator. The program (a Project, a ServiceAccount, a
 * VolumeSize, an AppSecrets, getApiKeys) and the harness pass `go vet`; `up`, then `destroy`: 0 live accounts.
 * Needs the pulumi CLI, Go, the Go module proxy (the first build compiles the Pulumi Go SDK: minutes) and the npm
 * registry.
 */
import type { Stack } from "@pulumi/pulumi/automation";
import * as fs from "node:fs";
import * as path from "node:path";
import { createPimsStack, engineEnv, ensureEngine, tempDir } from "../../scripts/engine";
import type { PimsSimulator } from "../../simulator";
import { expectNoPlaintextSecrets, startSimulator } from "../helpers";
import { ENGINE_SETUP_TIMEOUT_MS, exportEncrypted, isEncryptedSecret, resource, revealed } from "./harness";
import { GO_SDK_DIR, readGuide, run, sandboxClone, sandboxCommand } from "./sdkKit";

/** A first `go vet` of a program importing the Automation API compiles the Pulumi Go SDK: minutes on 2 cores. */
jest.setTimeout(20 * 60_000);

const guide = readGuide("go.md");
/** No toolchain downloads, no cgo (the CLI is built the same way). */
const goEnv = { ...process.env, GOTOOLCHAIN: "local", CGO_ENABLED: "0" };

let sim: PimsSimulator;
let scratch: string;
let project: string;
let stack: Stack;
let engineText = "";
let seeded: { projectId: string; volumeId: string; appId: string };

async function op(operation: "up" | "destroy"): Promise<Record<string, unknown>> {
  const ran = await run(path.join(project, "my-infra"), [], {
    cwd: project,
    env: {
      ...process.env,
      ...engineEnv(path.join(scratch, "backend")),
      PIMS_INLINE_OP: operation,
      PIMS_INLINE_STACK: "dev",
      PIMS_INLINE_WORKDIR: project,
    },
  });
  engineText += ran.stderr + ran.stdout;
  const line = ran.stdout.split("\n").find((l) => l.startsWith("RESULT "));
  if (!line) throw new Error(`no RESULT line from the program:\n${ran.stdout}\n${ran.stderr}`);
  return JSON.parse(line.slice("RESULT ".length)) as Record<string, unknown>;
}

beforeAll(async () => {
  ensureEngine();
  sim = await startSimulator({ profile: "default" });
  const projectId = sim.addProject({ name: "docs-go" }).id;
  const volumeId = sim.addVolume(projectId, { id: "default-us-east-1", sizeGb: 50 }).id;
  seeded = { projectId, volumeId, appId: sim.addApp(projectId, "web").id };
  scratch = tempDir("pims-e2e-go-");
  sandboxClone(scratch);
  project = path.join(scratch, "my-infra");
  fs.mkdirSync(project);
}, ENGINE_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await sim?.stop();
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

test("the generated package passes go vet", async () => {
  await run("go", ["vet", "./..."], { cwd: GO_SDK_DIR, env: goEnv });
});

test("the page's install commands add the SDK to a new module and install the plugin", async () => {
  expect(Object.keys(guide.files).sort()).toEqual(["Pulumi.yaml", "main.go"]);
  expect(guide.commands).toEqual([
    "go mod init my-infra",
    "go mod edit -replace pulumi-pims/sdk/go=../pulumi-pims/sdk/go",
    "go get pulumi-pims/sdk/go/pims",
    "npm install pulumi-pims",
  ]);
  for (const line of guide.commands)
    await run("bash", ["-c", sandboxCommand(line, scratch)], { cwd: project, env: goEnv });
  const mod = fs.readFileSync(path.join(project, "go.mod"), "utf8");
  expect(mod).toMatch(/^replace pulumi-pims\/sdk\/go => \.\.\/pulumi-pims\/sdk\/go$/m);
  expect(mod).toMatch(/^\s*pulumi-pims\/sdk\/go v/m);
  expect(fs.existsSync(path.join(project, "node_modules", "pulumi-pims", "plugin", "pulumi-resource-pims"))).toBe(true);
});

test("its program and the harness pass go vet and build", async () => {
  for (const [name, text] of Object.entries(guide.files)) fs.writeFileSync(path.join(project, name), text);
  fs.copyFileSync(path.join(__dirname, "go", "inline.go"), path.join(project, "inline.go"));
  // The harness imports the Automation API: its packages' sums join go.sum.
  await run("go", ["mod", "tidy"], { cwd: project, env: goEnv });
  await run("go", ["vet", "./..."], { cwd: project, env: goEnv });
  await run("go", ["build", "-o", "my-infra", "."], { cwd: project, env: goEnv });
});

test("up creates every resource, the token a secret; destroy leaves 0 live accounts", async () => {
  stack = await createPimsStack({
    stackName: "dev",
    workDir: project,
    backendDir: path.join(scratch, "backend"),
    baseUrl: sim.baseUrl,
    token: sim.token,
    config: seeded,
  });
  const up = (await op("up")) as { outputs: Record<string, { secret: boolean }>; changes: object };
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

  const down = (await op("destroy")) as { changes: object };
  expect(down.changes).toEqual({ delete: 5 });
  expect(sim.serviceAccounts(team?.id)).toEqual([]);
  expectNoPlaintextSecrets(engineText, [sim.token, ...sim.issuedSecrets()], "the engine's output");
});
