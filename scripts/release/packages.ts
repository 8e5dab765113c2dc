/**
 * The release's language packages, each built the way its registry takes it: the npm tarball (`npm pack`, which
 * keeps the Node launcher plugin/pulumi-resource-pims and the dynamic resources), the Python wheel and sdist of
 * sdk/python (`python -m build` in the venv of scripts/toolchain/ensure-python, in a copy of the SDK so the tree stays
 * clean), and the Java jars of sdk/java (scripts/release/build-jars) once the Java SDK exists.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { ARCHIVE_MTIME, normalizeTarGz } from "./archive";
import { log } from "./common";

/** The `build` frontend the Python packages are made with (PyPI), added to the ensure-python venv when missing. */
const PYTHON_BUILD = "build==1.6.1";

/**
 * Runs a command and returns its stdout. Its stderr is shown (progress), or with `quiet` kept and shown only when it
 * fails; a failure names the command.
 */
function run(
  cmd: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; quiet?: boolean } = {},
): string {
  try {
    return execFileSync(cmd, args, {
      cwd: options.cwd,
      env: options.env,
      encoding: "utf8",
      stdio: ["ignore", "pipe", options.quiet === true ? "pipe" : "inherit"],
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (e) {
    const stderr = (e as { stderr?: string | Buffer }).stderr;
    const said = (stderr === undefined ? "" : stderr.toString()).trim();
    throw new Error(`\`${cmd} ${args.join(" ")}\` failed: ${(e as Error).message.split("\n")[0]}\n${said}`, {
      cause: e,
    });
  }
}

/** `npm pack` of this package into `dist` (bin/ must be built: scripts are not run again). Returns the file name. */
export function npmPack(root: string, dist: string): string {
  log("npm: packing pulumi-pims");
  const out = run(
    process.platform === "win32" ? "npm.cmd" : "npm",
    ["pack", "--ignore-scripts", "--json", "--pack-destination", dist],
    { cwd: root },
  );
  const [info] = JSON.parse(out) as { filename: string }[];
  return info.filename;
}

/** The wheel and sdist of sdk/python, into `dist`. Returns their file names. */
export function pythonPackages(root: string, dist: string): string[] {
  const venvOut = run("bash", [path.join(root, "scripts", "toolchain", "ensure-python")], { cwd: root });
  const venv = venvOut.trim().split("\n").pop() ?? "";
  const python = path.join(venv, "bin", "python");
  try {
    run(python, ["-c", "import build"], { quiet: true });
  } catch {
    log(`python: adding ${PYTHON_BUILD} (PyPI) to ${venv}`);
    run(python, ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", PYTHON_BUILD]);
  }
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "pims-python-"));
  try {
    fs.cpSync(path.join(root, "sdk", "python"), work, { recursive: true });
    // Same bytes on every run: the wheel's entry times come from SOURCE_DATE_EPOCH; the sdist's from the files.
    const epoch = String(ARCHIVE_MTIME.getTime() / 1000);
    for (const f of fs.readdirSync(work, { recursive: true }) as string[])
      fs.utimesSync(path.join(work, f), ARCHIVE_MTIME, ARCHIVE_MTIME);
    const before = new Set(fs.readdirSync(dist));
    log("python: building the wheel and the sdist of sdk/python");
    run(python, ["-m", "build", "--no-isolation", "--wheel", "--sdist", "--outdir", dist, work], {
      env: { ...process.env, SOURCE_DATE_EPOCH: epoch },
      quiet: true,
    });
    const made = fs.readdirSync(dist).filter((f) => !before.has(f));
    for (const f of made) if (f.endsWith(".tar.gz")) normalizeTarGz(path.join(dist, f));
    return made;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** The Java SDK's jars into `dist` when sdk/java and its build script exist; returns their names (none without). */
export function javaPackages(root: string, dist: string): string[] {
  const script = path.join(root, "scripts", "release", "build-jars");
  if (!fs.existsSync(path.join(root, "sdk", "java")) || !fs.existsSync(script)) {
    log("java: no sdk/java (or scripts/release/build-jars) in this tree: no jars");
    return [];
  }
  const before = new Set(fs.readdirSync(dist));
  log("java: building the jars of sdk/java");
  run("bash", [script, dist], { cwd: root });
  return fs.readdirSync(dist).filter((f) => !before.has(f));
}
