/**
 * Installs like every Pulumi provider, Go: a module that adds the SDK with `go get` (from a clone beside it, as
 * docs/go.md says: the module has no public address yet) and a Pulumi.yaml naming no plugin, run with an empty plugin
 * cache, no plugin on PATH and a `node` first on PATH that fails if anything calls it (tests/engine/distKit.ts). The
 * program (tests/engine/go/rotation/main.go) runs as an Automation API inline program (tests/engine/go/inline.go
 * beside it: no Go language host can be obtained here, so `pulumi up` is the one step replaced); the engine downloads
 * the plugin from the loopback server serving the release on the first run. One stack: up, a rotation by replacement,
 * one with overlap, refresh, destroy; checked against the simulator; state, backend files and output scanned.
 * Needs Go and the Go module proxy (the first build compiles the Pulumi Go SDK: minutes).
 */
import { execFileSync } from "node:child_process";
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
import { ENGINE_SETUP_TIMEOUT_MS, expectNoSecretsInFiles } from "./harness";
import { run, sandboxClone } from "./sdkKit";

jest.setTimeout(20 * 60_000);

interface Result {
  outputs: Record<string, { secret: boolean; value?: unknown }>;
  changes: Record<string, number>;
}

let server: DistServer;
let sim: PimsSimulator;
let scratch: string;
let dir: string;
let env: NodeJS.ProcessEnv;
let node: ReturnType<typeof stubNode>;
let projectId: string;
let engineText = "";

async function op(operation: "up" | "refresh" | "destroy"): Promise<Result> {
  const ran = await run(path.join(dir, "program"), [], {
    cwd: dir,
    env: { ...env, PIMS_INLINE_OP: operation, PIMS_INLINE_STACK: "dev", PIMS_INLINE_WORKDIR: dir },
  });
  engineText += ran.stderr + ran.stdout;
  const line = ran.stdout.split("\n").find((l) => l.startsWith("RESULT "));
  if (!line) throw new Error(`no RESULT line from the program:\n${ran.stdout}\n${ran.stderr}`);
  return JSON.parse(line.slice("RESULT ".length)) as Result;
}
const value = (r: Result, name: string): unknown => r.outputs[name]?.value;
const live = (): string[] => sim.serviceAccounts(projectId).map((a) => a.id);

beforeAll(async () => {
  const dist = ensureDist();
  server = await startDistServer(dist.dir);
  sim = await startSimulator({ profile: "default" });
  projectId = sim.addProject({ name: "dist-go" }).id;
  scratch = tempDir("pims-dist-go-");
  sandboxClone(scratch);
  node = stubNode(path.join(scratch, "stub"));
  dir = path.join(scratch, "my-infra");
  fs.mkdirSync(dir);
  const goBin = path.dirname(execFileSync("bash", ["-c", "command -v go"], { encoding: "utf8" }).trim());
  env = {
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
  fs.copyFileSync(path.join(__dirname, "go", "rotation", "main.go"), path.join(dir, "main.go"));
  fs.copyFileSync(path.join(__dirname, "go", "inline.go"), path.join(dir, "inline.go"));
  await sh("go mod tidy && go build -o program .");
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: my-infra\nruntime: go\n");
  await initStack(dir, env, "dev", sim, { projectId, triggerReplace: "1", triggerOverlap: "1" });
}, ENGINE_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await sim?.stop();
  await server?.stop();
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

test("the first up downloads the plugin into the empty cache and creates both accounts", async () => {
  expect(installedPlugins(env.PULUMI_HOME ?? "")).toEqual([]);
  const up = await op("up");
  expect(up.changes).toEqual({ create: 3 });
  expect(up.outputs.appToken).toEqual({ secret: true });
  expect(server.requests).toEqual([{ path: `GET /${archiveName()}`, status: 200 }]);
  expect(installedPlugins(env.PULUMI_HOME ?? "")).toEqual([`resource-pims-v${VERSION}`]);
  expect(live().sort()).toEqual([value(up, "ciAccountId"), value(up, "appAccountId")].sort());
});

test("a rotation in each mode: ci replaced, app rotated with its previous account kept live", async () => {
  const before = await op("refresh");
  const outputs = JSON.parse((await run("pulumi", ["stack", "output", "--json"], { cwd: dir, env })).stdout) as Record<
    string,
    string
  >;
  await run("pulumi", ["config", "set", "triggerReplace", "2"], { cwd: dir, env });
  const replaced = await op("up");
  expect(value(replaced, "ciAccountId")).not.toBe(outputs.ciAccountId);
  expect(sim.deletedServiceAccounts()).toContain(outputs.ciAccountId);
  expect(Object.keys(before.changes)).toEqual(["same"]);

  await run("pulumi", ["config", "set", "triggerOverlap", "2"], { cwd: dir, env });
  const overlapped = await op("up");
  expect(value(overlapped, "appAccountId")).not.toBe(outputs.appAccountId);
  expect(value(overlapped, "appPreviousAccountId")).toBe(outputs.appAccountId);
  expect(live().sort()).toEqual(
    [value(replaced, "ciAccountId"), outputs.appAccountId, value(overlapped, "appAccountId")].sort(),
  );
});

test("refresh changes nothing; destroy leaves 0 live accounts; node was never called", async () => {
  const refreshed = await op("refresh");
  expect(Object.keys(refreshed.changes)).toEqual(["same"]);
  const down = await op("destroy");
  expect(down.changes).toEqual({ delete: 3 });
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
