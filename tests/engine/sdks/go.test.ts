/**
 * The Go SDK, and docs/go.md followed literally: `go vet` of the generated package (sdk/go); then, from an empty
 * project directory holding this platform's plugin archive from the release (tests/kit/dist.ts), beside what
 * the page calls `../pulumi-pims` (tests/kit/sdk.ts's sandboxClone), the page's blocks run in the page's order: its
 * commands as written, its Pulumi.yaml and main.go written unchanged. The machine is a user's: an empty plugin cache,
 * no plugin on PATH, a `node` first on PATH that fails if called.
 *
 * Substitutions, about the sandbox: `pulumi login --local` logs in to a temporary `file://` backend; the example
 * address and ids in `pulumi config set` are the simulator's. Replaced step: `pulumi up` (no Go language host can be
 * obtained here) becomes what the Go host does first, `go build` of the module as the page left it, then
 * tests/engine/programs/go/inline.go added beside main.go (its init runs main.go's `program` as an Automation API
 * inline program), `go mod tidy` for the harness's imports, a build and a run. Then, beyond the page, destroy: 0 live
 * accounts. Needs the pulumi CLI, Go, the Go module proxy (the first build compiles the Pulumi Go SDK: minutes).
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { tempDir } from "../../../scripts/engine";
import type { PimsSimulator } from "../../../simulator";
import { distEnv, ensureDist, installedPlugins, stubNode, VERSION } from "../../kit/dist";
import { ENGINE_SETUP_TIMEOUT_MS } from "../../kit/engine";
import { GO_SDK_DIR, readSteps, run, sandboxClone } from "../../kit/sdk";
import { expectNoPlaintextSecrets, expectNoSecretsInFiles } from "../../kit/secrets";
import { startSimulator } from "../../kit/simulator";
import { tearDown } from "../../kit/teardown";

/** A first `go vet` of a program importing the Automation API compiles the Pulumi Go SDK: minutes on 2 cores. */
jest.setTimeout(20 * 60_000);

const steps = readSteps("go.md");
/** No toolchain downloads, no cgo (the CLI is built the same way). */
const goEnv = { ...process.env, GOTOOLCHAIN: "local", CGO_ENABLED: "0" };

let sim: PimsSimulator;
let scratch: string;
let project: string;
let env: NodeJS.ProcessEnv;
let node: ReturnType<typeof stubNode>;
let printed = "";
let seeded: { projectId: string; volumeId: string; appId: string };

async function sh(line: string): Promise<string> {
  const ran = await run("bash", ["-c", line], { cwd: project, env });
  printed += ran.stdout + ran.stderr;
  return ran.stdout;
}

/** The replaced `pulumi up` (see the top of this file), or destroy after the page, through the inline harness. */
async function inline(operation: "up" | "destroy"): Promise<Record<string, unknown>> {
  if (!fs.existsSync(path.join(project, "inline.go"))) {
    await sh("go build ./..."); // what the Go host does first: the page's module must build as the page left it
    fs.copyFileSync(path.join(__dirname, "..", "programs", "go", "inline.go"), path.join(project, "inline.go"));
    await sh("go mod tidy && go vet ./... && go build -o my-infra .");
  }
  const ran = await run(path.join(project, "my-infra"), [], {
    cwd: project,
    env: { ...env, PIMS_INLINE_OP: operation, PIMS_INLINE_STACK: "dev", PIMS_INLINE_WORKDIR: project },
  });
  printed += ran.stderr + ran.stdout;
  const line = ran.stdout.split("\n").find((l) => l.startsWith("RESULT "));
  if (!line) throw new Error(`no RESULT line from the program:\n${ran.stdout}\n${ran.stderr}`);
  return JSON.parse(line.slice("RESULT ".length)) as Record<string, unknown>;
}

beforeAll(async () => {
  const dist = ensureDist();
  sim = await startSimulator({ profile: "default" });
  const projectId = sim.addProject({ name: "docs-go" }).id;
  const volumeId = sim.addVolume(projectId, { id: "default-us-east-1", sizeGb: 50 }).id;
  seeded = { projectId, volumeId, appId: sim.addApp(projectId, "web").id };
  scratch = tempDir("pims-e2e-go-");
  sandboxClone(scratch);
  project = path.join(scratch, "my-infra");
  fs.mkdirSync(project);
  fs.copyFileSync(dist.archive, path.join(project, path.basename(dist.archive)));
  node = stubNode(path.join(scratch, "stub"));
  const goBin = path.dirname(execFileSync("bash", ["-c", "command -v go"], { encoding: "utf8" }).trim());
  env = {
    ...distEnv({
      home: path.join(scratch, "home"),
      backend: path.join(scratch, "backend"),
      stubDir: node.dir,
      override: "",
      extraPath: [goBin],
    }),
    GOTOOLCHAIN: "local",
    CGO_ENABLED: "0",
    PIMS_TOKEN: sim.token,
  };
  delete env.PULUMI_BACKEND_URL; // the page logs in itself
}, ENGINE_SETUP_TIMEOUT_MS);

afterAll(() => tearDown([sim], scratch));

test("the generated package passes go vet", async () => {
  await run("go", ["vet", "./..."], { cwd: GO_SDK_DIR, env: goEnv });
});

test("the page: its install commands, files and commands in this order", () => {
  const commands = steps.flatMap((s) => ("commands" in s ? s.commands : []));
  expect(commands.slice(0, 4)).toEqual([
    "go mod init my-infra",
    "go mod edit -replace pulumi-pims/sdk/go=../pulumi-pims/sdk/go",
    "go get pulumi-pims/sdk/go/pims",
    `pulumi plugin install resource pims ${VERSION} --file pulumi-resource-pims-v${VERSION}-linux-amd64.tar.gz`,
  ]);
  expect(steps.flatMap((s) => ("file" in s ? [s.file] : []))).toEqual(["Pulumi.yaml", "main.go"]);
  expect(commands.slice(-2)).toEqual(["go mod tidy", "pulumi up"]);
});

test("followed in order, the page deploys every resource with the plugin from the archive, without Node", async () => {
  for (const step of steps) {
    if ("file" in step) {
      fs.writeFileSync(path.join(project, step.file), step.text);
      continue;
    }
    for (const line of step.commands) {
      if (line === "pulumi up") {
        const up = (await inline("up")) as { outputs: Record<string, { secret: boolean }>; changes: object };
        expect(up.changes).toEqual({ create: 5 });
        expect(up.outputs.deployerToken).toEqual({ secret: true });
        continue;
      }
      await sh(
        line
          .replace(/^pulumi login --local$/, `pulumi login file://${path.join(scratch, "backend")}`)
          .replace(/^(pulumi config set pims:baseUrl) \S+$/, `$1 ${sim.baseUrl}`)
          .replace(/^(pulumi config set (projectId|volumeId|appId)) \S+$/, (_, cmd: string, k: keyof typeof seeded) => {
            return `${cmd} ${seeded[k]}`;
          }),
      );
    }
  }
  expect(fs.readFileSync(path.join(project, "go.mod"), "utf8")).toMatch(
    /^replace pulumi-pims\/sdk\/go => \.\.\/pulumi-pims\/sdk\/go$/m,
  );
  expect(installedPlugins(path.join(scratch, "home"))).toEqual([`resource-pims-v${VERSION}`]);
  const team = sim.projects().find((p) => p.name === "platform-team");
  expect(sim.serviceAccounts(team?.id).map((a) => a.name)).toEqual(["deployer"]);
  expect(sim.volume(seeded.projectId, seeded.volumeId)?.sizeGb).toBe(100);
  expect(Object.keys(sim.appSecrets(seeded.projectId, seeded.appId)).sort()).toEqual(["LOG_LEVEL", "PIMS_TOKEN"]);
  expect(JSON.parse(await sh("pulumi stack output --json"))).toMatchObject({ deployerToken: "[secret]" });
  expect(node.calls()).toEqual([]);
});

test("after the page: destroy leaves 0 live accounts; no token in plaintext anywhere", async () => {
  const team = sim.projects().find((p) => p.name === "platform-team");
  const down = (await inline("destroy")) as { changes: object };
  expect(down.changes).toEqual({ delete: 5 });
  expect(sim.serviceAccounts(team?.id)).toEqual([]);
  const secrets = [sim.token, ...sim.issuedSecrets()];
  expectNoPlaintextSecrets(printed, secrets, "the output of the page's commands");
  expect(expectNoSecretsInFiles(path.join(scratch, "backend"), secrets)).toBeGreaterThan(2);
  expect(node.calls()).toEqual([]);
});
