/**
 * Installs like every Pulumi provider, Go: a module that adds the SDK with `go get` (from a clone beside it, as
 * docs/go.md says: the module has no public address yet) and a Pulumi.yaml naming no plugin, run with an empty plugin
 * cache, no plugin on PATH and a `node` first on PATH that fails if anything calls it (tests/kit/dist.ts). The
 * program (tests/engine/programs/go/rotation/main.go) runs as an Automation API inline program
 * (tests/engine/programs/go/inline.go beside it: no Go language host can be obtained here, so `pulumi up` is the one
 * step replaced); the engine downloads the plugin from the loopback server serving the release on the first run. One
 * stack: up, a rotation by replacement, one with overlap, refresh, destroy (the steps of tests/kit/dist.ts every dist
 * suite takes); checked against the simulator; state, backend files and output scanned.
 * Needs Go and the Go module proxy (the first build compiles the Pulumi Go SDK: minutes).
 */
import { execFileSync } from "node:child_process";
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
import { ENGINE_SETUP_TIMEOUT_MS, tearDown } from "../../kit/engine";
import { run, sandboxClone, type Ran } from "../../kit/sdk";

jest.setTimeout(20 * 60_000);

/** The program's outputs naming the accounts (tests/engine/programs/go/rotation/main.go). */
const NAMES = { ci: "ciAccountId", app: "appAccountId", appPrevious: "appPreviousAccountId", token: "appToken" };

let server: DistServer;
let sim: PimsSimulator;
let scratch: string;
let stack: DistStack;

beforeAll(async () => {
  const dist = ensureDist();
  server = await startDistServer(dist.dir);
  sim = await startSimulator({ profile: "default" });
  const projectId = sim.addProject({ name: "dist-go" }).id;
  scratch = tempDir("pims-dist-go-");
  sandboxClone(scratch);
  const node = stubNode(path.join(scratch, "stub"));
  const dir = path.join(scratch, "my-infra");
  fs.mkdirSync(dir);
  const goBin = path.dirname(execFileSync("bash", ["-c", "command -v go"], { encoding: "utf8" }).trim());
  const env = {
    ...distEnv({
      home: path.join(scratch, "home"),
      backend: path.join(scratch, "backend"),
      stubDir: node.dir,
      override: downloadOverride(server.url, dist.downloadUrl),
      extraPath: [goBin],
    }),
    GOTOOLCHAIN: "local",
    CGO_ENABLED: "0",
  };
  const sh = (line: string): Promise<unknown> => run("bash", ["-c", line], { cwd: dir, env });
  await sh("go mod init my-infra && go mod edit -replace pulumi-pims/sdk/go=../pulumi-pims/sdk/go");
  await sh("go get pulumi-pims/sdk/go/pims");
  fs.copyFileSync(path.join(__dirname, "..", "programs", "go", "rotation", "main.go"), path.join(dir, "main.go"));
  fs.copyFileSync(path.join(__dirname, "..", "programs", "go", "inline.go"), path.join(dir, "inline.go"));
  await sh("go mod tidy && go build -o program .");
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: my-infra\nruntime: go\n");
  await initStack(dir, env, "dev", sim, { projectId, triggerReplace: "1", triggerOverlap: "1" });
  // The program (tests/engine/programs/go/inline.go) runs the operation PIMS_INLINE_OP names.
  const runProgram = (operation: string): Promise<Ran> =>
    run(path.join(dir, "program"), [], {
      cwd: dir,
      env: { ...env, PIMS_INLINE_OP: operation, PIMS_INLINE_STACK: "dev", PIMS_INLINE_WORKDIR: dir },
    });
  stack = inlineStack({ sim, projectId, server, node, dir, env, runProgram });
}, ENGINE_SETUP_TIMEOUT_MS);

afterAll(() => tearDown([sim, server], scratch));

test("the first up downloads the plugin into the empty cache and creates both accounts", async () => {
  await firstUpDownloadsPlugin(stack, 3, NAMES);
});

test("a rotation in each mode: ci replaced, app rotated with its previous account kept live", async () => {
  await refreshChangesNothing(stack);
  await rotationInEachMode(stack, NAMES, { replace: ["triggerReplace", "2"], overlap: ["triggerOverlap", "2"] });
});

test("refresh changes nothing; destroy leaves 0 live accounts; node was never called", async () => {
  await refreshChangesNothing(stack);
  await destroyLeavesNothing(stack, 3);
});

test("no token in plaintext in the state, the backend's files or the engine's output", async () => {
  await noPlaintextTokens(stack);
});
