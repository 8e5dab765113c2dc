/**
 * The real Pulumi engine for YAML programs that use the `pims` provider plugin, as users run them: the official YAML
 * language host (`pulumi-language-yaml`, put beside the CLI by scripts/toolchain/ensure-language-yaml) runs the
 * project's `Pulumi.yaml`, and the engine starts the plugin `pulumi-resource-pims` from the directory its
 * `plugins.providers` entry names (this repository's `plugin/`, whose launcher runs `bin/provider/plugin/main.js` with
 * the Node 22 that {@link engineEnv} puts on PATH). A plugin named there gives no "using pulumi-resource-pims from
 * $PATH" warning. Stacks, backend, passphrase and stack config are the TypeScript harness's ({@link createPimsStack}).
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import { createPimsStack, engineEnv, ensureEngine, REPO_ROOT, tempDir, type PimsStackOptions } from ".";

/**
 * The directory holding the plugin's launcher `pulumi-resource-pims` (the npm package's `bin` entry too):
 * this repository's `plugin/`, or `PIMS_PLUGIN_DIR` to run the programs against another build of the plugin.
 */
export const PLUGIN_DIR = process.env.PIMS_PLUGIN_DIR ?? path.join(REPO_ROOT, "plugin");

const hostReady = new Set<string>();

/**
 * Makes sure the official YAML language host is beside the CLI in `engineDir` (scripts/toolchain/ensure-language-yaml:
 * cached, else built once with `go install`, about a minute). Throws with that script's own words when it cannot.
 */
export function ensureYamlHost(engineDir: string = ensureEngine()): string {
  const host = path.join(engineDir, "pulumi-language-yaml");
  if (hostReady.has(engineDir)) return host;
  const logFile = path.join(os.tmpdir(), `pims-ensure-yaml-${process.pid}-${Date.now()}.log`);
  try {
    execFileSync("bash", [path.join(REPO_ROOT, "scripts", "toolchain", "ensure-language-yaml"), engineDir], {
      stdio: ["ignore", "ignore", "inherit"],
      env: { ...process.env, PIMS_ENSURE_LOG: logFile },
    });
  } catch (e) {
    const said = fs.existsSync(logFile) ? fs.readFileSync(logFile, "utf8").trim() : "";
    throw new Error(
      `scripts/toolchain/ensure-language-yaml failed: no YAML language host beside ${engineDir}\n${said}`,
      {
        cause: e,
      },
    );
  } finally {
    fs.rmSync(logFile, { force: true });
  }
  if (!fs.existsSync(host)) throw new Error(`scripts/toolchain/ensure-language-yaml left no ${host}`);
  hostReady.add(engineDir);
  return host;
}

/** What {@link writeYamlProject} writes. */
export interface YamlProject {
  /** Project name (`name:` of Pulumi.yaml). */
  name: string;
  /**
   * The program, as a user writes it below the project header of Pulumi.yaml: `config:`, `resources:`,
   * `variables:`, `outputs:` (YAML text, not indented).
   */
  program: string;
  /** The directory holding `pulumi-resource-pims`; default {@link PLUGIN_DIR}. */
  pluginDir?: string;
}

/** The header of Pulumi.yaml: a YAML project whose `pims` plugin is the one in `pluginDir`. */
export function yamlProjectHeader(name: string, pluginDir: string = PLUGIN_DIR): string {
  return [
    `name: ${name}`,
    "runtime: yaml",
    "plugins:",
    "  providers:",
    "    - name: pims",
    `      path: ${JSON.stringify(pluginDir)}`,
    "",
  ].join("\n");
}

/** Writes `dir/Pulumi.yaml` (header, then the program) and returns `dir`. */
export function writeYamlProject(dir: string, project: YamlProject): string {
  fs.mkdirSync(dir, { recursive: true });
  const text = `${yamlProjectHeader(project.name, project.pluginDir)}\n${project.program.trim()}\n`;
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), text);
  return dir;
}

/**
 * A stack of the YAML project in `workDir` (see {@link writeYamlProject}), with the YAML host in place and the
 * TypeScript harness's backend, passphrase and `pims:baseUrl` / `pims:token` (secret) stack config.
 */
export async function createYamlStack(opts: Omit<PimsStackOptions, "program"> & { workDir: string }): Promise<Stack> {
  ensureYamlHost(opts.engineDir ?? ensureEngine());
  return createPimsStack(opts);
}

/**
 * What `pulumi package get-schema` prints for the plugin's launcher in `pluginDir`: the engine starts the plugin and
 * asks its `GetSchema`. No service is called, so a synchronous child is fine here.
 */
export function pluginSchema(pluginDir: string = PLUGIN_DIR, engineDir: string = ensureEngine()): unknown {
  const backend = tempDir("pims-get-schema-");
  try {
    const out = execFileSync(
      path.join(engineDir, "pulumi"),
      ["package", "get-schema", path.join(pluginDir, "pulumi-resource-pims")],
      { cwd: backend, env: { ...process.env, ...engineEnv(backend, engineDir) }, encoding: "utf8" },
    );
    return JSON.parse(out) as unknown;
  } finally {
    fs.rmSync(backend, { recursive: true, force: true });
  }
}
