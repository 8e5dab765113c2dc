/**
 * Shared pieces of the Python and Go SDK suites: the Python environment (scripts/ensure-python), the `pulumi_pims`
 * wheel built from sdk/python and installed with pip into a fresh virtual environment (as a user installs it), a
 * project directory whose Pulumi.yaml points the engine at this repository's pims plugin, and child processes run
 * without blocking this process (the simulator answers from its event loop).
 */
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { NODE_BIN, REPO_ROOT } from "../../scripts/engine";
import { PLUGIN_DIR } from "../../scripts/engineYaml";

export const PYTHON_SDK_DIR = path.join(REPO_ROOT, "sdk", "python");
export const GO_SDK_DIR = path.join(REPO_ROOT, "sdk", "go");

/** What a child process printed and how it ended. */
export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end without blocking the event loop; rejects with its output when it fails. */
export function run(cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (b: Buffer) => (stdout += b.toString()));
    child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      const ran = { code, stdout, stderr };
      if (code === 0) resolve(ran);
      else reject(Object.assign(new Error(`${cmd} ${args.join(" ")} exited ${code}:\n${stderr}\n${stdout}`), ran));
    });
  });
}

/** The cached virtual environment with `pulumi` (the engine's version) and `grpcio` (scripts/ensure-python). */
export function ensurePython(): string {
  const out = execFileSync("bash", [path.join(REPO_ROOT, "scripts", "ensure-python")], {
    cwd: REPO_ROOT,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, PATH: `${NODE_BIN}${path.delimiter}${process.env.PATH ?? ""}` },
  });
  return out.trim().split("\n").pop() ?? "";
}

/**
 * Builds the `pulumi_pims` wheel from a copy of sdk/python (the build writes build/ and *.egg-info beside its
 * sources) and installs it with pip into a new virtual environment in `dir`, which sees the cached environment's
 * packages (pulumi, grpcio, …) through a .pth file, so pip resolves the wheel's dependencies offline. Returns the
 * new environment's python and the wheel.
 */
export async function installPythonSdk(dir: string): Promise<{ python: string; wheel: string }> {
  const base = ensurePython();
  const basePy = path.join(base, "bin", "python");
  fs.cpSync(PYTHON_SDK_DIR, path.join(dir, "src"), { recursive: true });
  await run(
    basePy,
    ["-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", path.join(dir, "dist"), "."],
    {
      cwd: path.join(dir, "src"),
    },
  );
  const wheels = fs.readdirSync(path.join(dir, "dist")).filter((f) => f.endsWith(".whl"));
  if (wheels.length !== 1) throw new Error(`expected one wheel, the build made ${JSON.stringify(wheels)}`);
  const wheel = path.join(dir, "dist", wheels[0]);
  const venv = path.join(dir, "venv");
  await run(basePy, ["-c", "import sys, venv; venv.create(sys.argv[1], with_pip=True)", venv]);
  const python = path.join(venv, "bin", "python");
  const purelib = async (py: string): Promise<string> =>
    (await run(py, ["-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])).stdout.trim();
  fs.writeFileSync(path.join(await purelib(python), "pims-test-base.pth"), `${await purelib(basePy)}\n`);
  await run(python, ["-m", "pip", "install", "-q", "--no-index", "--disable-pip-version-check", wheel]);
  return { python, wheel };
}

/** Where pip installed `pulumi_pims` in the environment of `python`. */
export async function installedPackageDir(python: string): Promise<string> {
  const out = await run(python, ["-c", "import os, pulumi_pims; print(os.path.dirname(pulumi_pims.__file__))"]);
  return out.stdout.trim();
}

/**
 * Writes `dir/Pulumi.yaml` for a program in `runtime`, with `plugins.providers` naming this repository's pims plugin:
 * how a project uses a plugin that is not installed in the plugin cache, without a warning on every run.
 */
export function writeProject(dir: string, name: string, runtime: "python" | "go"): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, "Pulumi.yaml"),
    [
      `name: ${name}`,
      `runtime: ${runtime}`,
      "plugins:",
      "  providers:",
      "    - name: pims",
      `      path: ${PLUGIN_DIR}`,
      "",
    ].join("\n"),
  );
}

/** Every file under `dir` (relative paths, `/`-separated, sorted), skipping `__pycache__`. */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (e.name !== "__pycache__") walk(r);
      } else out.push(r);
    }
  };
  walk("");
  return out.sort();
}
