/**
 * The Python runner. Environment: the cached virtual environment with `pulumi` (the engine's version) and `grpcio`
 * (scripts/toolchain/ensure-python), seen by a user's new virtual environment ({@link userVenv}). SDK: from the
 * repository (the `pulumi_pims` wheel built from sdk/python, {@link installPythonSdk}), from `dist/` (the release's
 * wheel, {@link installWheel}) or from a registry (`pip install pulumi_pims==<version>` with pip's index-url). Program:
 * no Python language host can be obtained here, so a program runs as an Automation API inline program through
 * tests/engine/programs/python/inline.py ({@link pythonInline}).
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { NODE_BIN, REPO_ROOT } from "../../../scripts/engine";
import { PROGRAMS_DIR, run, type InlineDriver, type Runner } from "./index";

export const PYTHON_SDK_DIR = path.join(REPO_ROOT, "sdk", "python");
/** The Automation API driver of the Python programs (tests/engine/programs/python/inline.py). */
export const PYTHON_INLINE_DRIVER = path.join(PROGRAMS_DIR, "python", "inline.py");
/** The Python program of the SDK, dist and rehearsal suites: two accounts rotated each way, an app, getApiKeys. */
export const PYTHON_ROTATION_PROGRAM = path.join(PROGRAMS_DIR, "python", "rotation_program.py");

/** The cached virtual environment with `pulumi` (the engine's version) and `grpcio` (scripts/toolchain/ensure-python).
 */
export function ensurePython(): string {
  const out = execFileSync("bash", [path.join(REPO_ROOT, "scripts", "toolchain", "ensure-python")], {
    cwd: REPO_ROOT,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, PATH: `${NODE_BIN}${path.delimiter}${process.env.PATH ?? ""}` },
  });
  return out.trim().split("\n").pop() ?? "";
}

/** Nothing on PATH: a program's interpreter is its user's virtual environment's, named by its path. */
export const python: Runner = { language: "python", runs: "inline", toolchain: () => ({ path: [], env: {} }) };

/**
 * A new virtual environment in `dir` that sees the cached environment's packages (pulumi, grpcio, …) through a .pth
 * file, so pip resolves `pulumi_pims`'s dependencies without downloading them again. Returns its python.
 */
export async function userVenv(dir: string): Promise<string> {
  const basePy = path.join(ensurePython(), "bin", "python");
  await run(basePy, ["-c", "import sys, venv; venv.create(sys.argv[1], with_pip=True)", dir]);
  const python = path.join(dir, "bin", "python");
  const purelib = async (py: string): Promise<string> =>
    (await run(py, ["-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])).stdout.trim();
  fs.writeFileSync(path.join(await purelib(python), "pims-test-base.pth"), `${await purelib(basePy)}\n`);
  return python;
}

/** A new {@link userVenv} in `venvDir` with `wheel` installed by pip from that file alone. Returns its python. */
export async function installWheel(venvDir: string, wheel: string): Promise<string> {
  const python = await userVenv(venvDir);
  await run(python, ["-m", "pip", "install", "-q", "--no-index", "--disable-pip-version-check", wheel]);
  return python;
}

/**
 * Builds the `pulumi_pims` wheel from a copy of sdk/python (the build writes build/ and *.egg-info beside its
 * sources) and installs it with pip into a new {@link userVenv} in `dir`. Returns its python and the wheel.
 */
export async function installPythonSdk(dir: string): Promise<{ python: string; wheel: string }> {
  const basePy = path.join(ensurePython(), "bin", "python");
  fs.cpSync(PYTHON_SDK_DIR, path.join(dir, "src"), { recursive: true });
  const dist = path.join(dir, "dist");
  await run(basePy, ["-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", dist, "."], {
    cwd: path.join(dir, "src"),
  });
  const wheels = fs.readdirSync(dist).filter((f) => f.endsWith(".whl"));
  if (wheels.length !== 1) throw new Error(`expected one wheel, the build made ${JSON.stringify(wheels)}`);
  const wheel = path.join(dist, wheels[0]);
  return { python: await installWheel(path.join(dir, "venv"), wheel), wheel };
}

/** Where pip installed `pulumi_pims` in the environment of `python`. */
export async function installedPackageDir(python: string): Promise<string> {
  const out = await run(python, ["-c", "import os, pulumi_pims; print(os.path.dirname(pulumi_pims.__file__))"]);
  return out.stdout.trim();
}

/** How `python` runs `program` (default: the rotation program) as an inline program on `stack` of the project `dir`. */
export function pythonInline(
  python: string,
  dir: string,
  env: NodeJS.ProcessEnv,
  program = PYTHON_ROTATION_PROGRAM,
  stack = "dev",
): InlineDriver {
  return (operation, same = false) =>
    run(python, [PYTHON_INLINE_DRIVER, dir, stack, operation, program, ...(same ? ["--expect-no-changes"] : [])], {
      cwd: dir,
      env,
    });
}
