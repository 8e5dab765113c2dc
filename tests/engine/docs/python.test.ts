/**
 * docs/python.md followed literally: from an empty project directory holding the two files the page says to take from
 * the release (the wheel and this platform's plugin archive, from the release directory: tests/kit/dist.ts),
 * the page's blocks run in the page's order: its commands as written, its files written unchanged. The machine is a
 * user's: an empty plugin cache, no plugin on PATH, a `node` first on PATH that fails if called, no download server.
 *
 * Substitutions, all about this test's sandbox: `python3 -m venv venv` makes the environment with tests/kit/sdk.ts's
 * userVenv (which sees the cached `pulumi` and `grpcio`, so pip downloads nothing); `pulumi login --local` logs in to a
 * temporary `file://` backend; the example address and ids in `pulumi config set` are the simulator's.
 * Replaced step: `pulumi up` runs the page's __main__.py as an Automation API inline program
 * (tests/engine/programs/python/inline.py), as no Python language host can be obtained here. Then, beyond the page,
 * destroy.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { tempDir } from "../../../scripts/engine";
import type { PimsSimulator } from "../../../simulator";
import { distEnv, ensureDist, installedPlugins, stubNode, VERSION } from "../../kit/dist";
import { E2E_TIMEOUT_MS, ENGINE_SETUP_TIMEOUT_MS } from "../../kit/engine";
import { readSteps, run, userVenv } from "../../kit/sdk";
import { expectNoPlaintextSecrets, expectNoSecretsInFiles } from "../../kit/secrets";
import { startSimulator } from "../../kit/simulator";
import { tearDown } from "../../kit/teardown";

jest.setTimeout(E2E_TIMEOUT_MS);

const DRIVER = path.join(__dirname, "..", "programs", "python", "inline.py");
const steps = readSteps("python.md");

let sim: PimsSimulator;
let scratch: string;
let dir: string;
let env: NodeJS.ProcessEnv;
let node: ReturnType<typeof stubNode>;
let seeded: { projectId: string; volumeId: string; appId: string };
let printed = "";

/** Runs the inline program (the replaced `pulumi up`, or destroy after the page); its RESULT line. */
async function inline(operation: "up" | "destroy"): Promise<Record<string, unknown>> {
  const python = path.join(dir, "venv", "bin", "python");
  const ran = await run(python, [DRIVER, dir, "dev", operation, path.join(dir, "__main__.py")], { cwd: dir, env });
  printed += ran.stderr + ran.stdout;
  const line = ran.stdout.split("\n").find((l) => l.startsWith("RESULT "));
  if (!line) throw new Error(`no RESULT line from the driver:\n${ran.stdout}\n${ran.stderr}`);
  return JSON.parse(line.slice("RESULT ".length)) as Record<string, unknown>;
}

/** One command of the page, with the sandbox's substitutions (see the top of this file). */
async function command(line: string): Promise<void> {
  if (line === "python3 -m venv venv") {
    await userVenv(path.join(dir, "venv"));
    return;
  }
  if (line === "pulumi up") {
    await inline("up");
    return;
  }
  const sandboxed = line
    .replace(/^pulumi login --local$/, `pulumi login file://${path.join(scratch, "backend")}`)
    .replace(/^(pulumi config set pims:baseUrl) \S+$/, `$1 ${sim.baseUrl}`)
    .replace(/^(pulumi config set (projectId|volumeId|appId)) \S+$/, (_, cmd: string, key: keyof typeof seeded) => {
      return `${cmd} ${seeded[key]}`;
    });
  const ran = await run("bash", ["-c", sandboxed], { cwd: dir, env });
  printed += ran.stdout + ran.stderr;
}

beforeAll(async () => {
  const dist = ensureDist();
  sim = await startSimulator({ profile: "default" });
  const projectId = sim.addProject({ name: "docs-python" }).id;
  const volumeId = sim.addVolume(projectId, { id: "default-us-east-1", sizeGb: 50 }).id;
  seeded = { projectId, volumeId, appId: sim.addApp(projectId, "web").id };
  scratch = tempDir("pims-docs-python-");
  node = stubNode(path.join(scratch, "stub"));
  dir = path.join(scratch, "my-infra");
  fs.mkdirSync(dir);
  for (const f of [dist.wheel, dist.archive]) fs.copyFileSync(f, path.join(dir, path.basename(f)));
  env = {
    ...distEnv({
      home: path.join(scratch, "home"),
      backend: path.join(scratch, "backend"),
      stubDir: node.dir,
      override: "",
    }),
    PIMS_TOKEN: sim.token,
  };
  delete env.PULUMI_BACKEND_URL; // the page logs in itself
}, ENGINE_SETUP_TIMEOUT_MS);

afterAll(() => tearDown([sim], scratch));

test("the page names the release's files, then the files and commands this test follows", () => {
  const commands = steps.flatMap((s) => ("commands" in s ? s.commands : []));
  expect(commands.slice(0, 3)).toEqual([
    "python3 -m venv venv",
    `venv/bin/pip install pulumi_pims-${VERSION}-py3-none-any.whl`,
    `pulumi plugin install resource pims ${VERSION} --file pulumi-resource-pims-v${VERSION}-linux-amd64.tar.gz`,
  ]);
  expect(steps.flatMap((s) => ("file" in s ? [s.file] : []))).toEqual(["Pulumi.yaml", "__main__.py"]);
  expect(commands.at(-1)).toBe("pulumi up");
});

test("followed in order, the page deploys every resource with the plugin from the archive, without Node", async () => {
  for (const step of steps) {
    if ("file" in step) fs.writeFileSync(path.join(dir, step.file), step.text);
    else for (const line of step.commands) await command(line);
  }
  expect(installedPlugins(path.join(scratch, "home"))).toEqual([`resource-pims-v${VERSION}`]);
  const team = sim.projects().find((p) => p.name === "platform-team");
  expect(sim.serviceAccounts(team?.id).map((a) => a.name)).toEqual(["deployer"]);
  expect(sim.volume(seeded.projectId, seeded.volumeId)?.sizeGb).toBe(100);
  expect(Object.keys(sim.appSecrets(seeded.projectId, seeded.appId)).sort()).toEqual(["LOG_LEVEL", "PIMS_TOKEN"]);
  const outputs = JSON.parse((await run("pulumi", ["stack", "output", "--json"], { cwd: dir, env })).stdout) as Record<
    string,
    unknown
  >;
  expect(outputs.deployerToken).toBe("[secret]");
  expect(outputs.keyCount).toBe("[secret]"); // computed from a secret result
  const keyCount = await run("pulumi", ["stack", "output", "keyCount", "--show-secrets"], { cwd: dir, env });
  expect(keyCount.stdout.trim()).toBe("1");
  expect(node.calls()).toEqual([]);
});

test("after the page: destroy leaves 0 live accounts; no token in plaintext anywhere", async () => {
  const team = sim.projects().find((p) => p.name === "platform-team");
  await inline("destroy");
  expect(sim.serviceAccounts(team?.id)).toEqual([]);
  const secrets = [sim.token, ...sim.issuedSecrets()];
  expectNoPlaintextSecrets(printed, secrets, "the output of the page's commands");
  expect(expectNoSecretsInFiles(path.join(scratch, "backend"), secrets)).toBeGreaterThan(2);
  expectNoPlaintextSecrets(fs.readFileSync(path.join(dir, "Pulumi.dev.yaml"), "utf8"), secrets, "Pulumi.dev.yaml");
  expect(node.calls()).toEqual([]);
});
