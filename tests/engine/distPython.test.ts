/**
 * Installs like every Pulumi provider, Python: the release's wheel installed with pip (`--no-index`, nothing else)
 * into a fresh virtual environment, a project whose Pulumi.yaml names no plugin, an empty plugin cache, no plugin on
 * PATH and a `node` first on PATH that fails if anything calls it (tests/engine/distKit.ts). The program
 * (tests/engine/python/rotation_program.py) runs as an Automation API inline program (tests/engine/python/inline.py:
 * no Python language host can be obtained here, so `pulumi up` is the one step replaced); the engine downloads the
 * plugin from the loopback server on the first run, as it does for any registry provider. One stack: up, a rotation
 * by replacement, one with overlap, refresh, destroy; checked against the simulator; the state, the backend's files
 * and the engine's output are scanned for tokens.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { tempDir } from "../../scripts/engine";
import type { PimsSimulator } from "../../simulator";
import { expectNoPlaintextSecrets, startSimulator } from "../helpers";
import {
  archiveName,
  distEnv,
  downloadOverride,
  ensureDist,
  initStack,
  installedPlugins,
  startDistServer,
  stubNode,
  VERSION,
  type DistServer,
} from "./distKit";
import { E2E_TIMEOUT_MS, ENGINE_SETUP_TIMEOUT_MS, expectNoSecretsInFiles } from "./harness";
import { run, userVenv } from "./sdkKit";

jest.setTimeout(E2E_TIMEOUT_MS);

const PROGRAM = path.join(__dirname, "python", "rotation_program.py");
const DRIVER = path.join(__dirname, "python", "inline.py");

interface Result {
  outputs: Record<string, { secret: boolean; value?: unknown }>;
  changes: Record<string, number>;
}

let server: DistServer;
let sim: PimsSimulator;
let scratch: string;
let dir: string;
let env: NodeJS.ProcessEnv;
let python: string;
let node: ReturnType<typeof stubNode>;
let projectId: string;
let engineText = "";

async function op(operation: "up" | "refresh" | "destroy"): Promise<Result> {
  const ran = await run(python, [DRIVER, dir, "dev", operation, PROGRAM], { cwd: dir, env });
  engineText += ran.stderr + ran.stdout;
  const line = ran.stdout.split("\n").find((l) => l.startsWith("RESULT "));
  if (!line) throw new Error(`no RESULT line from the driver:\n${ran.stdout}\n${ran.stderr}`);
  return JSON.parse(line.slice("RESULT ".length)) as Result;
}
const value = (r: Result, name: string): unknown => r.outputs[name]?.value;
const live = (): string[] => sim.serviceAccounts(projectId).map((a) => a.id);

beforeAll(async () => {
  const dist = ensureDist();
  server = await startDistServer(dist.dir);
  sim = await startSimulator({ profile: "default" });
  projectId = sim.addProject({ name: "dist-python" }).id;
  const appId = sim.addApp(projectId, "web").id;
  scratch = tempDir("pims-dist-python-");
  node = stubNode(path.join(scratch, "stub"));
  python = await userVenv(path.join(scratch, "venv"));
  await run(python, ["-m", "pip", "install", "-q", "--no-index", "--disable-pip-version-check", dist.wheel]);
  dir = path.join(scratch, "project");
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: pims-dist-python\nruntime: python\n");
  env = distEnv({
    home: path.join(scratch, "home"),
    backend: path.join(scratch, "backend"),
    stubDir: node.dir,
    override: downloadOverride(server.url, dist.downloadUrl),
    extraPath: [path.dirname(python)],
  });
  await initStack(dir, env, "dev", sim, { projectId, appId, triggerReplace: "1", triggerOverlap: "1" });
}, ENGINE_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await sim?.stop();
  await server?.stop();
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

test("the first up downloads the plugin into the empty cache and creates every resource", async () => {
  expect(installedPlugins(env.PULUMI_HOME ?? "")).toEqual([]);
  const up = await op("up");
  expect(up.changes).toEqual({ create: 7 });
  expect(up.outputs.appToken).toEqual({ secret: true });
  expect(server.requests).toEqual([{ path: `GET /${archiveName()}`, status: 200 }]);
  expect(installedPlugins(env.PULUMI_HOME ?? "")).toEqual([`resource-pims-v${VERSION}`]);
  expect(live().sort()).toEqual([value(up, "ciAccountId"), value(up, "appAccountId")].sort());
});

test("a rotation in each mode: ci replaced, app rotated with its previous account kept live", async () => {
  const before = await op("refresh");
  await run("pulumi", ["config", "set", "triggerReplace", "2"], { cwd: dir, env });
  const replaced = await op("up");
  expect(value(replaced, "ciAccountId")).not.toBe(value(before, "ciAccountId"));
  expect(sim.deletedServiceAccounts()).toContain(value(before, "ciAccountId"));

  await run("pulumi", ["config", "set", "triggerOverlap", "2"], { cwd: dir, env });
  const overlapped = await op("up");
  expect(value(overlapped, "appAccountId")).not.toBe(value(before, "appAccountId"));
  expect(value(overlapped, "appPreviousAccountId")).toBe(value(before, "appAccountId"));
  expect(live().sort()).toEqual(
    [value(replaced, "ciAccountId"), value(before, "appAccountId"), value(overlapped, "appAccountId")].sort(),
  );
});

test("refresh changes nothing; destroy leaves 0 live accounts; node was never called", async () => {
  const refreshed = await op("refresh");
  expect(Object.keys(refreshed.changes).filter((k) => k !== "same")).toEqual([]);
  const down = await op("destroy");
  expect(down.changes).toEqual({ delete: 7 });
  expect(live()).toEqual([]);
  expect(server.requests).toHaveLength(1);
  expect(node.calls()).toEqual([]);
});

test("no token in plaintext in the state, the backend's files or the engine's output", async () => {
  const secrets = [sim.token, ...sim.issuedSecrets()];
  expect(sim.issuedSecrets().length).toBeGreaterThanOrEqual(4);
  const exported = await run("pulumi", ["stack", "export"], { cwd: dir, env });
  expectNoPlaintextSecrets(exported.stdout, secrets, "the exported state");
  expect(expectNoSecretsInFiles(path.join(scratch, "backend"), secrets)).toBeGreaterThan(2);
  expectNoPlaintextSecrets(engineText, secrets, "the engine's output");
});

test("pulumi install is refused here: it asks the Python host, which cannot be obtained on this machine", async () => {
  const failed = await run("pulumi", ["install"], { cwd: dir, env }).then(
    () => undefined,
    (e: { stderr: string; stdout: string }) => e.stderr + e.stdout,
  );
  expect(failed).toContain("no language plugin 'pulumi-language-python' found");
});
