/**
 * `pulumi package add <this repository>` from a YAML project, as Pulumi's docs tell users of a TypeScript-authored
 * package to do, then `pulumi up`, a rotation and destroy with the plugin run from source.
 *
 * The repository is a `git clone` of this checkout's HEAD (a stand-in for its git URL or a local path: commit before
 * running this suite). The engine asks the Node language host to install the clone's dependencies (`npm install`,
 * whose `prepare` builds bin/; `npm_config_prefer_offline` keeps it on the npm cache where it can) and to run it as a
 * plugin (`RunPlugin`: `@pulumi/pulumi/cmd/run-plugin` on the clone, whose package main then starts the provider),
 * and the YAML host runs the program. The Node host is this repository's scripts/engine/language-host (the official one
 * cannot be obtained here), placed with the CLI in a private engine directory (the CLI hard-linked, or the shared
 * one), so this suite runs the host of this checkout.
 *
 * The YAML host is v1.38.3, the one the Pulumi CLI 3.259.0 ships (scripts/toolchain/ensure-language-yaml): it
 * implements `Link`, the command's last step, so `package add` finishes by itself and records the package in
 * Pulumi.yaml (`packages:` with the path); the suite checks exactly that, then runs the program with nothing written by
 * hand. (v1.25.0, the host these tests used before, ended with "linking package: method Link not implemented".)
 *
 * Needs the pulumi CLI, the YAML host, git, npm and the npm registry (or its cache). Slow: one `npm install` and
 * one TypeScript build of the clone.
 *
 * Set-up: its own, because it needs a private engine directory holding this checkout's Node host, and a git clone of
 * HEAD.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import { engineEnv, ensureEngine, LANGUAGE_HOST_DIR, REPO_ROOT, tempDir } from "../../../scripts/engine";
import { createYamlStack, ensureYamlHost } from "../../../scripts/engine/yaml";
import type { PimsSimulator } from "../../../simulator";
import {
  E2E_TIMEOUT_MS,
  ENGINE_SETUP_TIMEOUT_MS,
  EngineOutput,
  exportEncrypted,
  resource,
} from "../../kit/engine/engine";
import { expectNoPlaintextSecrets } from "../../kit/secrets/secrets";
import { startSimulator } from "../../kit/sim/simulator";

jest.setTimeout(E2E_TIMEOUT_MS);

const PROGRAM = `
config:
  projectId:
    type: string
  rotation:
    type: string
    default: r1
resources:
  deployer:
    type: pims:index:ServiceAccount
    properties:
      projectId: \${projectId}
      name: package-add-deployer
      grants:
        - \${projectId}
      expiresIn: 2592000
      rotationTrigger: \${rotation}
outputs:
  deployerId: \${deployer.serviceAccountId}
  deployerToken: \${deployer.token}
`;

let sim: PimsSimulator;
let scratch: string;
let clone: string;
let workDir: string;
let engineDir: string;
let traceFile: string;
let stack: Stack;
let projectId: string;
const engine = new EngineOutput();

/**
 * An engine directory of this checkout: the CLI (hard link: the CLI finds its language hosts beside its own file),
 * the YAML host, the dynamic-provider plugin and this checkout's Node host. Falls back to the shared one.
 */
function privateEngineDir(shared: string): string {
  const dir = path.join(scratch, "engine");
  fs.mkdirSync(dir);
  try {
    fs.linkSync(path.join(shared, "pulumi"), path.join(dir, "pulumi"));
  } catch {
    return shared;
  }
  for (const f of fs.readdirSync(shared)) {
    if (f === "pulumi" || f.startsWith("pulumi-language-nodejs")) continue;
    fs.symlinkSync(fs.realpathSync(path.join(shared, f)), path.join(dir, f));
  }
  for (const f of ["pulumi-language-nodejs", "pulumi-language-nodejs.js"]) {
    fs.copyFileSync(path.join(LANGUAGE_HOST_DIR, f), path.join(dir, f));
  }
  fs.chmodSync(path.join(dir, "pulumi-language-nodejs"), 0o755);
  return dir;
}

/** Runs a command asynchronously (the simulator runs in this process); resolves with its status and output. */
function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 1, out }));
  });
}

beforeAll(async () => {
  const shared = ensureEngine();
  ensureYamlHost(shared);
  scratch = tempDir("pims-e2e-package-add-");
  engineDir = privateEngineDir(shared);
  sim = await startSimulator();
  projectId = sim.addProject({ name: "package-add" }).id;
  clone = path.join(scratch, "pulumi-pims");
  const cloned = await run("git", ["clone", "--quiet", REPO_ROOT, clone], scratch, process.env);
  expect(cloned).toEqual({ code: 0, out: "" });
  workDir = path.join(scratch, "pims-package-add");
  fs.mkdirSync(workDir);
  fs.writeFileSync(path.join(workDir, "Pulumi.yaml"), `name: pims-package-add\nruntime: yaml\n${PROGRAM}`);
  traceFile = path.join(scratch, "host-trace.log");
}, ENGINE_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await sim?.stop();
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

/** The engine environment of this suite (the Node host's trace on). */
const env = (): Record<string, string> => ({
  ...engineEnv(path.join(scratch, "backend"), engineDir),
  PIMS_LANGUAGE_HOST_TRACE: traceFile,
  npm_config_prefer_offline: "true",
});

describe("pulumi package add <clone of this repository> from a YAML project", () => {
  test("installs the clone's dependencies, runs it as a plugin from source and generates the SDK", async () => {
    const r = await run(path.join(engineDir, "pulumi"), ["package", "add", clone], workDir, {
      ...process.env,
      ...env(),
    });
    expect(r.out).toContain(`Installing dependencies in ${clone}`);
    expect(r.out).toContain(`Successfully generated an SDK for the pims package at ${path.join(workDir, "sdks")}`);
    // The engine's install built the package (its `prepare`), and run-plugin started the provider from the build.
    expect(fs.existsSync(path.join(clone, "node_modules", "@pulumi", "pulumi", "package.json"))).toBe(true);
    expect(fs.existsSync(path.join(clone, "bin", "sdk", "nodejs", "index.js"))).toBe(true);
    const trace = fs.readFileSync(traceFile, "utf8");
    expect(trace).toContain("InstallDependencies (plugin)");
    expect(trace).toContain(`RunPlugin ${clone}`);
    const version = (JSON.parse(fs.readFileSync(path.join(clone, "package.json"), "utf8")) as { version: string })
      .version;
    expect(fs.readdirSync(path.join(workDir, "sdks", "pims"))).toEqual([`pims-${version}.yaml`]);

    // The command finished by itself: exit 0, and Pulumi.yaml records the package (the YAML host links it).
    expect({ code: r.code, linkError: r.out.includes("not implemented") }).toEqual({ code: 0, linkError: false });
    const project = fs.readFileSync(path.join(workDir, "Pulumi.yaml"), "utf8");
    expect(project).toMatch(new RegExp(`\\npackages:\\n {2}pims: ${clone.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\n`));
  });

  test("up, a rotation and destroy run the plugin from the clone's source; nothing left in the service", async () => {
    fs.writeFileSync(traceFile, "");
    stack = await createYamlStack({
      stackName: "dev",
      workDir,
      backendDir: path.join(scratch, "backend"),
      engineDir,
      baseUrl: sim.baseUrl,
      token: sim.token,
      config: { projectId },
      env: { PIMS_LANGUAGE_HOST_TRACE: traceFile },
    });

    const up = await stack.up(engine.opts);
    expect(up.summary.resourceChanges).toEqual({ create: 2 });
    const first = up.outputs.deployerId.value as string;
    expect(sim.serviceAccounts(projectId).map((a) => a.id)).toEqual([first]);
    expect(up.outputs.deployerToken.secret).toBe(true);
    // The plugin the engine ran is the clone, through the Node host's RunPlugin (no launcher on PATH here).
    expect(fs.readFileSync(traceFile, "utf8")).toContain(`RunPlugin ${clone}`);

    await stack.setConfig("rotation", { value: "r2" });
    const rotated = await stack.up(engine.opts);
    expect(rotated.summary.resourceChanges).toMatchObject({ replace: 1 });
    const second = rotated.outputs.deployerId.value as string;
    expect(second).not.toBe(first);
    expect(sim.serviceAccounts(projectId).map((a) => a.id)).toEqual([second]);

    const state = exportEncrypted(stack);
    expect(resource(state, "pims:index:ServiceAccount", "deployer").outputs?.serviceAccountId).toBe(second);
    expectNoPlaintextSecrets(JSON.stringify(state) + engine.text(), sim.issuedSecrets(), "state and engine output");

    await stack.destroy(engine.opts);
    expect(sim.serviceAccounts(projectId)).toEqual([]);
  });
});
