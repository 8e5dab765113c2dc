/**
 * What every language runner (./typescript, ./yaml, ./python, ./go, ./java) shares: the row of a table over them (a
 * language × an SDK source × a program), the {@link Runner} each one is, a child process run without blocking the
 * event loop (the simulator answers from it), and a project's Pulumi.yaml. Each runner says once how its SDK is
 * installed (from the repository, from `dist/`, from a registry), how a project is prepared (the plugin named, the Go
 * module replaced, the Maven mirror), how a program runs (under its host, or the Automation API inline driver) and the
 * environment its tools need. The tables over the runners: ./distTable (the dist rows), ./docsTable (the docs pages),
 * ./examples (the examples under ProgramTest's sequence) and ../release/publishedPaths (the published paths).
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { PLUGIN_DIR } from "../../../scripts/engine/yaml";

export type Language = "typescript" | "yaml" | "python" | "go" | "java";
/** Where a row's SDK comes from: this repository's sdk/, the release directory `dist/`, or a (loopback) registry. */
export type SdkSource = "repository" | "dist" | "registry";

/** A row of a table over the runners: the language, where its SDK comes from, and the program it runs. */
export interface LanguageRow {
  language: Language;
  sdk: SdkSource;
  /** The program: a file under tests/engine/programs/<language>/, an example, or a docs page. */
  program: string;
}

/** One language as the tables run it. */
export interface Runner {
  language: Language;
  /** `host`: `pulumi up` under the language's host; `inline`: the Automation API inline driver (no host here). */
  runs: "host" | "inline";
  /** PATH entries (ahead of the engine's) and variables this language's tools need. */
  toolchain(): Toolchain;
}

export interface Toolchain {
  path: string[];
  env: Record<string, string>;
}

/** `base` with a toolchain's PATH entries first and its variables set. */
export function withToolchain(base: NodeJS.ProcessEnv, t: Toolchain): NodeJS.ProcessEnv {
  return { ...base, ...t.env, PATH: [...t.path, base.PATH ?? ""].join(path.delimiter) };
}

/** The programs of the engine suites (tests/engine/programs/<language>/). */
export const PROGRAMS_DIR = path.join(__dirname, "..", "..", "engine", "programs");

/** One operation of an inline program; it prints `RESULT {"changes": …, "outputs": …}`. */
export type Operation = "up" | "preview" | "refresh" | "destroy";
export type InlineDriver = (operation: Operation, expectNoChanges?: boolean) => Promise<Ran>;
/** The engine's change summary of one operation (`{ create: 3 }`, `{ same: 7 }`, …). */
export type Changes = Record<string, number>;

/** The `RESULT {"changes": …, "outputs": …}` line an inline program (tests/engine/programs/*\/inline.*) prints. */
export function inlineResult(ran: Ran): { changes: Changes; outputs?: Record<string, { secret: boolean }> } {
  const line = ran.stdout.split("\n").find((l) => l.startsWith("RESULT "));
  if (!line) throw new Error(`no RESULT line from the program:\n${ran.stdout}\n${ran.stderr}`);
  return JSON.parse(line.slice("RESULT ".length)) as { changes: Changes };
}

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

/**
 * Writes `dir/Pulumi.yaml` for a program in `runtime`; with `plugin`, `plugins.providers` names this repository's pims
 * plugin: how a project uses a plugin that is not installed in the plugin cache, without a warning on every run.
 */
export function writeProject(dir: string, name: string, runtime: string, plugin = false): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), `name: ${name}\nruntime: ${runtime}\n`);
  if (plugin) namePlugin(dir);
}

/** Appends `plugins.providers` (this repository's plugin) to a project's Pulumi.yaml. */
export function namePlugin(dir: string): void {
  const file = path.join(dir, "Pulumi.yaml");
  const text = fs.readFileSync(file, "utf8");
  if (/^plugins:/m.test(text)) throw new Error(`${file} already has a plugins section`);
  fs.writeFileSync(file, `${text}plugins:\n  providers:\n    - name: pims\n      path: ${PLUGIN_DIR}\n`);
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
