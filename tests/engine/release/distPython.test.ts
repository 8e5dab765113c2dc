/**
 * Installs like every Pulumi provider, Python: the release's wheel installed with pip (`--no-index`, nothing else)
 * into a fresh virtual environment, a project whose Pulumi.yaml names no plugin, an empty plugin cache, no plugin on
 * PATH and a `node` first on PATH that fails if anything calls it (tests/kit/dist.ts). The program
 * (tests/engine/programs/python/rotation_program.py) runs as an Automation API inline program
 * (tests/engine/programs/python/inline.py: no Python language host can be obtained here, so `pulumi up` is the one step
 * replaced); the engine downloads the plugin from the loopback server on the first run, as it does for any registry
 * provider. One stack: up, a rotation by replacement, one with overlap, refresh, destroy (the steps of
 * tests/kit/dist.ts every dist suite takes); checked against the simulator; the state, the backend's files and the
 * engine's output are scanned for tokens.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { tempDir } from "../../../scripts/engine";
import type { PimsSimulator } from "../../../simulator";
import { startSimulator } from "../../kit/helpers";
import {
  destroyLeavesNothing,
  distEnv,
  downloadOverride,
  ensureDist,
  firstUpDownloadsPlugin,
  initStack,
  noPlaintextTokens,
  refreshChangesNothing,
  rotationInEachMode,
  startDistServer,
  inlineStack,
  stubNode,
  type DistServer,
  type DistStack,
} from "../../kit/dist";
import { E2E_TIMEOUT_MS, ENGINE_SETUP_TIMEOUT_MS, tearDown } from "../../kit/engine";
import { run, userVenv, type Ran } from "../../kit/sdk";

jest.setTimeout(E2E_TIMEOUT_MS);

const PROGRAM = path.join(__dirname, "..", "programs", "python", "rotation_program.py");
const DRIVER = path.join(__dirname, "..", "programs", "python", "inline.py");
/** The program's outputs naming the accounts. */
const NAMES = { ci: "ciAccountId", app: "appAccountId", appPrevious: "appPreviousAccountId", token: "appToken" };

let server: DistServer;
let sim: PimsSimulator;
let scratch: string;
let dir: string;
let env: NodeJS.ProcessEnv;
let stack: DistStack;

beforeAll(async () => {
  const dist = ensureDist();
  server = await startDistServer(dist.dir);
  sim = await startSimulator({ profile: "default" });
  const projectId = sim.addProject({ name: "dist-python" }).id;
  const appId = sim.addApp(projectId, "web").id;
  scratch = tempDir("pims-dist-python-");
  const node = stubNode(path.join(scratch, "stub"));
  const python = await userVenv(path.join(scratch, "venv"));
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
  const runProgram = (operation: string): Promise<Ran> =>
    run(python, [DRIVER, dir, "dev", operation, PROGRAM], { cwd: dir, env });
  stack = inlineStack({ sim, projectId, server, node, dir, env, runProgram });
}, ENGINE_SETUP_TIMEOUT_MS);

afterAll(() => tearDown([sim, server], scratch));

test("the first up downloads the plugin into the empty cache and creates every resource", async () => {
  await firstUpDownloadsPlugin(stack, 7, NAMES);
});

test("a rotation in each mode: ci replaced, app rotated with its previous account kept live", async () => {
  await refreshChangesNothing(stack);
  await rotationInEachMode(stack, NAMES, { replace: ["triggerReplace", "2"], overlap: ["triggerOverlap", "2"] });
});

test("refresh changes nothing; destroy leaves 0 live accounts; node was never called", async () => {
  await refreshChangesNothing(stack);
  await destroyLeavesNothing(stack, 7);
});

test("no token in plaintext in the state, the backend's files or the engine's output", async () => {
  await noPlaintextTokens(stack);
});

test("pulumi install is refused here: it asks the Python host, which cannot be obtained on this machine", async () => {
  const failed = await run("pulumi", ["install"], { cwd: dir, env }).then(
    () => undefined,
    (e: { stderr: string; stdout: string }) => e.stderr + e.stdout,
  );
  expect(failed).toContain("no language plugin 'pulumi-language-python' found");
});
