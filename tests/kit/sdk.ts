/**
 * Shared pieces of the Python and Go SDK suites: the Python environment (scripts/toolchain/ensure-python), the
 * `pulumi_pims` wheel built from sdk/python and installed with pip into a fresh virtual environment (as a user installs
 * it), a project directory whose Pulumi.yaml points the engine at this repository's pims plugin, and child processes
 * run without blocking this process (the simulator answers from its event loop). Also what the suites that follow a
 * docs page as a user would share (the docs table, tests/kit/docsTable.ts; consumer; the published paths): the page's
 * `guide:` blocks, a shell that keeps what the page's commands printed, the sandbox's substitutions, and the final
 * scan for tokens.
 */
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { NODE_BIN, randomSecret, REPO_ROOT } from "../../scripts/engine";
import { PLUGIN_DIR } from "../../scripts/engine/yaml";
import type { PimsSimulator } from "../../simulator";
import { expectNoPlaintextSecrets, expectNoSecretsInFiles } from "./secrets";

export const PYTHON_SDK_DIR = path.join(REPO_ROOT, "sdk", "python");
export const GO_SDK_DIR = path.join(REPO_ROOT, "sdk", "go");
export const JAVA_SDK_DIR = path.join(REPO_ROOT, "sdk", "java");
/** The Automation API driver of the Python programs (tests/engine/programs/python/inline.py). */
export const PYTHON_INLINE_DRIVER = path.join(__dirname, "..", "engine", "programs", "python", "inline.py");
/** The Python program of the SDK, dist and rehearsal suites: two accounts rotated each way, an app, getApiKeys. */
export const PYTHON_ROTATION_PROGRAM = path.join(
  __dirname,
  "..",
  "engine",
  "programs",
  "python",
  "rotation_program.py",
);

/** What a child process printed and how it ended. */
export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Both streams in the order they came, as a terminal shows them. */
  output: string;
}

/** Runs a command to its end without blocking the event loop; rejects with its output when it fails. */
export function run(cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let output = "";
    child.stdout.on("data", (b: Buffer) => {
      stdout += b.toString();
      output += b.toString();
    });
    child.stderr.on("data", (b: Buffer) => {
      stderr += b.toString();
      output += b.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => {
      const ran = { code, stdout, stderr, output };
      if (code === 0) resolve(ran);
      else reject(Object.assign(new Error(`${cmd} ${args.join(" ")} exited ${code}:\n${stderr}\n${stdout}`), ran));
    });
  });
}

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
  const python = await userVenv(path.join(dir, "venv"));
  await run(python, ["-m", "pip", "install", "-q", "--no-index", "--disable-pip-version-check", wheel]);
  return { python, wheel };
}

/**
 * What the docs call `../pulumi-pims`, a clone of this repository beside the user's project: `root/pulumi-pims`
 * with the SDKs copied (a pip install builds inside the source tree, which must not be this repository's).
 */
export function sandboxClone(root: string): string {
  const clone = path.join(root, "pulumi-pims");
  fs.mkdirSync(path.join(clone, "sdk"), { recursive: true });
  fs.cpSync(PYTHON_SDK_DIR, path.join(clone, "sdk", "python"), { recursive: true });
  fs.cpSync(GO_SDK_DIR, path.join(clone, "sdk", "go"), { recursive: true });
  return clone;
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

/** One step of a docs page, in the page's order: a file to write, or a shell block's command lines. */
export type GuideStep = { file: string; text: string } | { commands: string[] };

/**
 * A docs page's `<!-- guide:file NAME -->` and `<!-- guide:shell -->` blocks as steps, in the order the page gives
 * them; a shell block's lines without comments (`# …`) and blank lines.
 */
export function readSteps(page: string): GuideStep[] {
  const text = fs.readFileSync(path.join(REPO_ROOT, "docs", page), "utf8");
  const steps: GuideStep[] = [];
  const block = /<!-- guide:(file ([^\s]+)|shell) -->\s*\n```[a-z]*\n([\s\S]*?)```/g;
  for (let m = block.exec(text); m !== null; m = block.exec(text)) {
    if (m[2] !== undefined) steps.push({ file: m[2], text: m[3] });
    else {
      const lines = m[3].split("\n").map((l) => l.replace(/(^|\s+)#.*$/, "").trim());
      steps.push({ commands: lines.filter(Boolean) });
    }
  }
  return steps;
}

/**
 * The commands of a docs page's published path (its `<!-- published:shell -->` blocks: what users run once a release
 * is out), which the release rehearsal (tests/engine/release/rehearsal.test.ts) follows; the guide blocks above are the
 * unreleased build's.
 */
export function readPublished(page: string): string[] {
  const text = fs.readFileSync(path.join(REPO_ROOT, "docs", page), "utf8");
  const block = /<!-- published:shell -->\s*\n```[a-z]*\n([\s\S]*?)```/g;
  return [...text.matchAll(block)].flatMap((m) =>
    m[1]
      .split("\n")
      .map((l) => l.replace(/(^|\s+)#.*$/, "").trim())
      .filter(Boolean),
  );
}

/** The text of a docs page's `<!-- published:file NAME -->` block (a file of its published path). */
export function readPublishedFile(page: string, name: string): string {
  const text = fs.readFileSync(path.join(REPO_ROOT, "docs", page), "utf8");
  const m = new RegExp(
    `<!-- published:file ${name.replace(/\./g, "\\.")} -->\\s*\\n\`\`\`[a-z]*\\n([\\s\\S]*?)\`\`\``,
  ).exec(text);
  if (m === null) throw new Error(`docs/${page} has no published:file ${name} block`);
  return m[1];
}

/** A docs page's guide for a test that writes every file first, then runs every command. */
export function readGuide(page: string): { files: Array<{ file: string; text: string }>; commands: string[] } {
  const steps = readSteps(page);
  return {
    files: steps.flatMap((s) => ("file" in s ? [s] : [])),
    commands: steps.flatMap((s) => ("commands" in s ? s.commands : [])),
  };
}

/**
 * Runs a docs page's commands with bash, as a user's terminal would, and keeps everything they printed for the
 * final scan for tokens.
 */
export class GuideShell {
  /** What the recorded commands printed, both streams. */
  printed = "";

  /**
   * Runs `command` in `cwd`; resolves with what it printed, or rejects with the end of it when it fails. With
   * `record` false the output is not kept: the test's own look at revealed secrets is not something a user's
   * command printed.
   */
  async run(command: string, cwd: string, env: NodeJS.ProcessEnv, record = true): Promise<string> {
    const ran = await run("bash", ["-c", command], { cwd, env }).catch((e: Error & Partial<Ran>) => {
      if (e.output === undefined) throw e; // bash did not start
      return e as Ran;
    });
    if (record) this.printed += ran.output;
    if (ran.code !== 0) throw new Error(`\`${command}\` exited ${ran.code}:\n${ran.output.slice(-6000)}`);
    return ran.output;
  }
}

/**
 * A docs command as the test runs it, the substitutions being about the sandbox only: `pulumi login --local` logs
 * in to the temporary backend, `pulumi up` gets `--yes --non-interactive` (no terminal to confirm on), and
 * `pulumi config set KEY <example>` gets the sandbox's value of each key in `config` (the simulator's address and
 * the ids it seeded).
 */
export function sandboxed(command: string, backend: string, config: Record<string, string>): string {
  return command
    .replace(/^pulumi login --local$/, `pulumi login file://${backend}`)
    .replace(/^pulumi config set ([\w:]+) \S+$/, (line, key: string) =>
      key in config ? `pulumi config set ${key} ${config[key]}` : line,
    )
    .replace(/^pulumi up$/, "pulumi up --yes --non-interactive");
}

/**
 * What the program of docs/yaml.md and docs/java.md expects to exist in the service: a project with an app `web`, a
 * 50 GB volume and an API key. Returns their ids by the names of the page's config keys.
 */
export function seedPageObjects(sim: PimsSimulator): { appProjectId: string; appId: string; volumeId: string } {
  const project = sim.addProject({ name: "existing" });
  const app = sim.addApp(project.id, "web");
  const volume = sim.addVolume(project.id, { sizeGb: 50 });
  sim.addApiKey(project.id, { name: "ci-key" });
  return { appProjectId: project.id, appId: app.id, volumeId: volume.id };
}

/**
 * After a page is followed: no token (the stack's and every one the service issued) in plaintext in what its
 * commands printed, in the backend's files, or in the stack's config file, where `pims:token` is stored encrypted.
 */
export function expectNoTokenLeft(o: { printed: string; secrets: string[]; backend: string; project: string }): void {
  expect(o.printed.length).toBeGreaterThan(500);
  expectNoPlaintextSecrets(o.printed, o.secrets, "the output of the page's commands");
  expect(expectNoSecretsInFiles(o.backend, o.secrets)).toBeGreaterThan(3);
  const config = fs.readFileSync(path.join(o.project, "Pulumi.dev.yaml"), "utf8");
  expect(config).toContain("pims:token:\n    secure:");
  expectNoPlaintextSecrets(config, o.secrets, "Pulumi.dev.yaml");
}

/**
 * The npm package as npm would publish it, packed into `dir`; returns the tarball's path. bin/ is built by the tier's
 * global setup; --ignore-scripts: `prepare` would rebuild bin/ (rm -rf, then tsc) under the engine tests running
 * beside the caller.
 */
export function packPackage(dir: string): string {
  const packed = execFileSync("npm", ["pack", "--silent", "--ignore-scripts", "--pack-destination", dir], {
    cwd: REPO_ROOT,
    encoding: "utf8",
  })
    .trim()
    .split("\n")
    .pop();
  const tarball = path.join(dir, packed ?? "");
  if (!packed || !fs.existsSync(tarball)) throw new Error(`npm pack wrote no tarball into ${dir}`);
  return tarball;
}

/**
 * A TypeScript or JavaScript user's machine: the pulumi CLI and Node 22 on PATH, nothing from this repository's
 * node_modules, the engine offline, its home in `backend`, and the token as `PIMS_TOKEN` (no base address in the
 * environment: the commands set `pims:baseUrl`).
 */
export function npmUserEnv(engineDir: string, backend: string, token: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: [engineDir, NODE_BIN, process.env.PATH ?? ""].join(path.delimiter),
    NODE_PATH: "",
    PULUMI_HOME: path.join(backend, ".pulumi-home"),
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    PULUMI_CONFIG_PASSPHRASE: randomSecret("passphrase-"),
    PIMS_TOKEN: token,
  };
  delete env.PIMS_BASE_URL;
  return env;
}
