/**
 * The release's language packages, each built the way its registry takes it: the npm tarball (`npm pack`, which
 * keeps the Node launcher plugin/pulumi-resource-pims and the dynamic resources), the Python wheel and sdist of
 * sdk/python (`python -m build` in the venv of scripts/toolchain/ensure-python, in a copy of the SDK so the tree stays
 * clean), and the Java jars of sdk/java (scripts/release/build-jars) once the Java SDK exists.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { ARCHIVE_MTIME, normalizeTarGz } from "./archive";
import { log, run } from "./common";

/** The `build` frontend the Python packages are made with (PyPI), added to the ensure-python venv when missing. */
const PYTHON_BUILD = "build==1.6.1";

/** `npm pack` of this package into `dist` (bin/ must be built: scripts are not run again). Returns the file name. */
export async function npmPack(root: string, dist: string): Promise<string> {
  log("npm: packing pulumi-pims");
  const { stdout: out } = await run(
    process.platform === "win32" ? "npm.cmd" : "npm",
    ["pack", "--ignore-scripts", "--json", "--pack-destination", dist],
    { cwd: root, shown: true },
  );
  const [info] = JSON.parse(out) as { filename: string }[];
  return info.filename;
}

/** The wheel and sdist of sdk/python, into `dist`. Returns their file names. */
export async function pythonPackages(root: string, dist: string): Promise<string[]> {
  const { stdout: venvOut } = await run("bash", [path.join(root, "scripts", "toolchain", "ensure-python")], {
    cwd: root,
    shown: true,
  });
  const venv = venvOut.trim().split("\n").pop() ?? "";
  const python = path.join(venv, "bin", "python");
  try {
    await run(python, ["-c", "import build"]);
  } catch {
    log(`python: adding ${PYTHON_BUILD} (PyPI) to ${venv}`);
    await run(python, ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", PYTHON_BUILD], {
      shown: true,
    });
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
    await run(python, ["-m", "build", "--no-isolation", "--wheel", "--sdist", "--outdir", dist, work], {
      env: { ...process.env, SOURCE_DATE_EPOCH: epoch },
    });
    const made = fs.readdirSync(dist).filter((f) => !before.has(f));
    for (const f of made) if (f.endsWith(".tar.gz")) normalizeTarGz(path.join(dist, f));
    return made;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** The Java SDK's jars into `dist` when sdk/java and its build script exist; returns their names (none without). */
export async function javaPackages(root: string, dist: string): Promise<string[]> {
  const script = path.join(root, "scripts", "release", "build-jars");
  if (!fs.existsSync(path.join(root, "sdk", "java")) || !fs.existsSync(script)) {
    log("java: no sdk/java (or scripts/release/build-jars) in this tree: no jars");
    return [];
  }
  const before = new Set(fs.readdirSync(dist));
  log("java: building the jars of sdk/java");
  await run("bash", [script, dist], { cwd: root, shown: true });
  return fs.readdirSync(dist).filter((f) => !before.has(f));
}
