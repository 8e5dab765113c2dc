/**
 * The plugin's launcher (plugin/pulumi-resource-pims) when the plugin cannot run, through the real engine and the
 * official YAML host, as a user meets it in `pulumi preview`: the first error line the CLI prints says what to do.
 * With the YAML host v1.38.3 (the one the CLI 3.259.0 ships) the engine loads the schema for the host and closes the
 * plugin whose GetSchema failed without a `Cancel`, and then adds its "exited prematurely … always a bug in the
 * provider" block (sdk/go/common/resource/plugin/plugin.go, Close): it cannot be silenced from the plugin's side, so
 * the test checks that it comes after the message (with v1.25.0 it did not appear at all).
 *
 * - Node.js older than 22 first on PATH: /usr/bin/node when it is older (Node 20 on the development machine), else a
 *   `node` that reports version 20 to the launcher's version check (the rest of the path is the same).
 * - The peer dependency `@pulumi/pulumi` missing, as after `npm install --legacy-peer-deps`: a project whose
 *   node_modules holds pulumi-pims (its package.json, plugin/ and bin/ copied) and its own dependencies, without
 *   `@pulumi/pulumi` (and no NODE_PATH).
 *
 * No service is called (the schema load fails first). Needs the pulumi CLI and the YAML host (found, cached or built).
 *
 * Set-up: its own, because the plugin must fail before any service is called: no simulator and no stack, only the CLI
 * and the YAML host.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { engineEnv, ensureEngine, REPO_ROOT, tempDir } from "../../../scripts/engine";
import { ensureYamlHost, yamlProjectHeader } from "../../../scripts/engine/yaml";
import { E2E_TIMEOUT_MS, ENGINE_SETUP_TIMEOUT_MS } from "../../kit/engine/engine";

jest.setTimeout(E2E_TIMEOUT_MS);

const PROGRAM = `
resources:
  project:
    type: pims:index:Project
    properties:
      name: launcher-errors
`;

let engineDir: string;
let scratch: string;

beforeAll(() => {
  engineDir = ensureEngine();
  ensureYamlHost(engineDir);
  scratch = tempDir("pims-launcher-errors-");
}, ENGINE_SETUP_TIMEOUT_MS);

afterAll(() => {
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

/** `pulumi preview` of a one-resource YAML project whose plugin is in `pluginDir`; returns what the CLI printed. */
function preview(name: string, pluginDir: string, env: Record<string, string>): { status: number | null; out: string } {
  const dir = path.join(scratch, name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), `${yamlProjectHeader(name, pluginDir)}\n${PROGRAM.trim()}\n`);
  const base = engineEnv(path.join(scratch, `${name}-backend`), engineDir);
  const fullEnv = { ...process.env, ...base, PULUMI_CONFIG_PASSPHRASE: "launcher-errors", ...env };
  const run = (args: string[]) =>
    spawnSync(path.join(engineDir, "pulumi"), args, { cwd: dir, env: fullEnv, encoding: "utf8", timeout: 300_000 });
  const init = run(["stack", "init", "dev", "--non-interactive"]);
  expect(init.status).toBe(0);
  const r = run(["preview", "--non-interactive", "--color", "never"]);
  return { status: r.status, out: `${r.stdout}\n${r.stderr}` };
}

/** The first line the CLI printed that reports an error (progress lines repeat it; it is the first either way). */
function firstErrorLine(out: string): string {
  const line = out.split("\n").find((l) => /error/i.test(l));
  if (line === undefined) throw new Error(`no error line in:\n${out}`);
  return line;
}

/** The engine's "exited prematurely" block, where it appears (see the top of this file), comes after the message. */
function expectMessageFirst(out: string, first: string): void {
  const block = out.indexOf("exited prematurely");
  if (block !== -1) expect(out.indexOf(first)).toBeLessThan(block);
}

test("Node.js older than 22 first on PATH: the first error line says to install Node 22 or set PIMS_NODE", () => {
  const nodeDir = path.join(scratch, "old-node");
  fs.mkdirSync(nodeDir);
  const system = "/usr/bin/node";
  const systemMajor = fs.existsSync(system)
    ? Number(spawnSync(system, ["-p", "process.versions.node"], { encoding: "utf8" }).stdout.split(".")[0])
    : NaN;
  const fake = path.join(nodeDir, "node");
  let expectedVersion: string;
  if (systemMajor < 22) {
    fs.symlinkSync(system, fake);
    expectedVersion = spawnSync(system, ["-p", "process.versions.node"], { encoding: "utf8" }).stdout.trim();
  } else {
    // No old Node here: a `node` whose version check answers 20.0.0 and which otherwise runs this repository's.
    expectedVersion = "20.0.0";
    const real = path.join(REPO_ROOT, "node_modules", ".bin", "node");
    fs.writeFileSync(
      fake,
      `#!/bin/sh\nif [ "$1" = "-p" ]; then echo ${expectedVersion}; exit 0; fi\nexec ${JSON.stringify(real)} "$@"\n`,
      { mode: 0o755 },
    );
  }
  const base = engineEnv(path.join(scratch, "path-probe"), engineDir);
  const r = preview("old-node", path.join(REPO_ROOT, "plugin"), { PATH: `${nodeDir}${path.delimiter}${base.PATH}` });

  expect(r.status).not.toBe(0);
  const first = firstErrorLine(r.out);
  expect(first).toContain("pulumi-resource-pims: install Node.js 22 or newer, or set PIMS_NODE");
  expect(first).toContain(`found Node.js ${expectedVersion}`);
  expectMessageFirst(r.out, first);
});

test("@pulumi/pulumi missing (--legacy-peer-deps): the first error line says `npm install @pulumi/pulumi`", () => {
  const project = path.join(scratch, "legacy-peers");
  const modules = path.join(project, "node_modules");
  const pkg = path.join(modules, "pulumi-pims");
  fs.mkdirSync(pkg, { recursive: true });
  for (const entry of ["package.json", "plugin", "bin"]) {
    fs.cpSync(path.join(REPO_ROOT, entry), path.join(pkg, entry), { recursive: true });
  }
  // pulumi-pims's own dependencies are installed; its peer is not.
  const deps = Object.keys(
    (JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as { dependencies: object })
      .dependencies,
  );
  for (const dep of deps) {
    fs.mkdirSync(path.dirname(path.join(modules, dep)), { recursive: true });
    fs.symlinkSync(path.join(REPO_ROOT, "node_modules", dep), path.join(modules, dep), "dir");
  }
  expect(fs.existsSync(path.join(modules, "@pulumi", "pulumi"))).toBe(false);

  const r = preview("legacy-peers-program", path.join(pkg, "plugin"), { NODE_PATH: "" });

  expect(r.status).not.toBe(0);
  const first = firstErrorLine(r.out);
  expect(first).toContain(`pulumi-resource-pims: run \`npm install @pulumi/pulumi\` in ${project}`);
  expect(r.out).not.toContain("Cannot find module");
  expectMessageFirst(r.out, first);
});
