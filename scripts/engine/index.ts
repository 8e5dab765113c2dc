/**
 * The real Pulumi engine for the demo, the e2e suite and the benchmarks: one place that finds (or builds) the
 * `pulumi` CLI, sets up the offline environment around it and creates stacks that talk to a PIMS simulator.
 *
 * How programs run here, through the Automation API: an inline `program` function runs in this process; an example
 * project (a directory with `Pulumi.yaml`, `Pulumi.<stack>.yaml` and `index.ts`) runs as a local program, exactly as
 * `pulumi up` runs it in that directory: the CLI starts the Node language host (`pulumi-language-nodejs`), which runs
 * the SDK's own program runner (`@pulumi/pulumi/cmd/run`: ts-node, the project's entry point, its exports as stack
 * outputs) in a fresh `node` process for every operation. The official host cannot be obtained here, so the host is
 * this repository's scripts/engine/language-host (put beside the CLI by scripts/toolchain/ensure-pulumi, and on PATH
 * after it).
 *
 * What the CLI needs (all set by {@link engineEnv}): PATH starting with the engine directory (the CLI and the
 * dynamic-provider plugin `pulumi-resource-pulumi-nodejs`, a shell script that runs `node`) and this repository's
 * `node_modules/.bin` (Node 22); no update check and no plugin downloads; a `file://` backend and `PULUMI_HOME` in
 * temporary directories; a passphrase for the stack's secrets.
 */
import { execFileSync } from "node:child_process";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { LocalWorkspace, PulumiCommand, type PulumiFn, type Stack } from "@pulumi/pulumi/automation";

/** This repository's root. */
export const REPO_ROOT = path.resolve(__dirname, "..", "..");
/** Where Node 22 (the `node` devDependency) and the other npm binaries are. */
export const NODE_BIN = path.join(REPO_ROOT, "node_modules", ".bin");
/** The example projects. */
export const EXAMPLES_DIR = path.join(REPO_ROOT, "examples");
/** This repository's Node language host (see the top of this file). */
export const LANGUAGE_HOST_DIR = path.join(REPO_ROOT, "scripts", "engine", "language-host");

let engineDirCache: string | undefined;

/**
 * Makes a `pulumi` CLI matching the installed `@pulumi/pulumi` available (running `scripts/toolchain/ensure-pulumi`:
 * PATH, then the cache `~/.cache/pulumi-pims/pulumi-v<version>/bin`, then a build from the Go module proxy that
 * takes several minutes) and returns the directory that holds it. The script's progress is streamed to this
 * process's stderr. Throws when the engine cannot be obtained. Runs the script once per process.
 */
export function ensureEngine(): string {
  if (engineDirCache !== undefined) return engineDirCache;
  const logFile = path.join(os.tmpdir(), `pims-ensure-pulumi-${process.pid}-${Date.now()}.log`);
  let stdout: string;
  try {
    stdout = execFileSync("bash", [path.join(REPO_ROOT, "scripts", "toolchain", "ensure-pulumi")], {
      cwd: REPO_ROOT,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, PATH: `${NODE_BIN}${path.delimiter}${process.env.PATH ?? ""}`, PIMS_ENSURE_LOG: logFile },
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (e) {
    const status = (e as { status?: number }).status;
    const said = fs.existsSync(logFile) ? fs.readFileSync(logFile, "utf8").trim() : "";
    throw new Error(
      `scripts/toolchain/ensure-pulumi failed${status === undefined ? "" : ` (exit ${status})`}: ` +
        "no pulumi CLI available" +
        (said ? `:\n${said}` : ""),
      {
        cause: e,
      },
    );
  } finally {
    fs.rmSync(logFile, { force: true });
  }
  const dir = stdout.trim().split("\n").pop()?.trim() ?? "";
  if (dir === "" || !fs.existsSync(path.join(dir, "pulumi"))) {
    throw new Error(`scripts/toolchain/ensure-pulumi printed ${JSON.stringify(dir)}, which holds no pulumi binary`);
  }
  engineDirCache = dir;
  return dir;
}

/** The passphrase that encrypts stack secrets: `PULUMI_CONFIG_PASSPHRASE` if set, else a fixed local one. */
export const PASSPHRASE = process.env.PULUMI_CONFIG_PASSPHRASE ?? "pulumi-pims-local-passphrase";

/**
 * Environment for every CLI call: offline, a `file://` backend in `backendDir`, `PULUMI_HOME` inside it, PATH with
 * the engine directory, this repository's Node language host (a host beside the CLI comes first) and Node 22 first.
 * `NODE_PATH` lets the dynamic-provider plugin find `@pulumi/pulumi` and `pulumi-pims` whatever directory it is
 * started in.
 */
export function engineEnv(backendDir: string, engineDir: string = ensureEngine()): Record<string, string> {
  fs.mkdirSync(backendDir, { recursive: true });
  const home = path.join(backendDir, ".pulumi-home");
  fs.mkdirSync(home, { recursive: true });
  const nodePath = [path.join(REPO_ROOT, "node_modules"), process.env.NODE_PATH].filter(Boolean).join(path.delimiter);
  return {
    PATH: [engineDir, LANGUAGE_HOST_DIR, NODE_BIN, process.env.PATH ?? ""].join(path.delimiter),
    NODE_PATH: nodePath,
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
    PULUMI_BACKEND_URL: `file://${backendDir}`,
    PULUMI_HOME: home,
  };
}

const commands = new Map<string, Promise<PulumiCommand>>();

/** The Automation API's handle on the CLI in `engineDir` (its version is checked against the SDK's minimum). */
export function pulumiCommand(engineDir: string = ensureEngine()): Promise<PulumiCommand> {
  let cmd = commands.get(engineDir);
  if (!cmd) {
    // PulumiCommand.get wants `<root>/bin/pulumi`: use the engine directory's parent when it is called `bin`,
    // otherwise a temporary root whose bin/ links to the engine's files.
    let root = path.dirname(engineDir);
    if (path.basename(engineDir) !== "bin") {
      root = fs.mkdtempSync(path.join(os.tmpdir(), "pims-engine-"));
      fs.mkdirSync(path.join(root, "bin"));
      for (const f of fs.readdirSync(engineDir)) {
        if (f === "pulumi" || f.startsWith("pulumi-"))
          fs.symlinkSync(path.join(engineDir, f), path.join(root, "bin", f));
      }
    }
    cmd = PulumiCommand.get({ root });
    commands.set(engineDir, cmd);
  }
  return cmd;
}

/** A fresh temporary directory (for a backend, a copied example, …). */
export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** The languages every example is written in, one folder each under `examples/<scenario>/`. */
export const EXAMPLE_LANGUAGES = ["typescript", "yaml", "python", "go", "java"] as const;
/** One of {@link EXAMPLE_LANGUAGES}. */
export type ExampleLanguage = (typeof EXAMPLE_LANGUAGES)[number];

/**
 * Copies `examples/<name>/<language>` into `destRoot/<name>` (TypeScript) or `destRoot/<name>-<language>`, so setting
 * stack config never writes into the repository. A TypeScript copy gets `node_modules` linked to this repository's,
 * so `pulumi-pims` and `@pulumi/pulumi` resolve to the same modules as in the repository. Returns the copy's path.
 */
export function copyExample(name: string, destRoot: string, language: ExampleLanguage = "typescript"): string {
  const src = path.join(EXAMPLES_DIR, name, language);
  if (!fs.existsSync(path.join(src, "Pulumi.yaml"))) throw new Error(`no example project at ${src}`);
  const dest = path.join(destRoot, language === "typescript" ? name : `${name}-${language}`);
  if (fs.existsSync(dest)) throw new Error(`cannot copy example ${name} (${language}): ${dest} already exists`);
  fs.cpSync(src, dest, {
    recursive: true,
    filter: (p) => !["node_modules", "target", "venv"].includes(path.basename(p)),
  });
  if (language === "typescript")
    fs.symlinkSync(path.join(REPO_ROOT, "node_modules"), path.join(dest, "node_modules"), "dir");
  return dest;
}

/** What {@link createPimsStack} needs. */
export interface PimsStackOptions {
  /** Stack name, e.g. `dev`. */
  stackName: string;
  /**
   * An inline program, run in this process. Omitted: `workDir` is a project directory (e.g. a {@link copyExample}
   * copy) and its own program runs, as `pulumi up` would run it there (see the top of this file).
   */
  program?: PulumiFn;
  /** Project name when `workDir` has no Pulumi.yaml (inline programs). Default `pims-inline`. */
  projectName?: string;
  /**
   * The project's directory (with Pulumi.yaml; for an inline program one is written there). Stack config files
   * (`Pulumi.<stack>.yaml`, holding the encrypted `pims:token`) are written here. Default `<backendDir>/workspace`;
   * required when there is no `program`.
   */
  workDir?: string;
  /** Directory of the `file://` backend (created if missing). */
  backendDir: string;
  /** The PIMS service (or simulator) address, set as `pims:baseUrl`. */
  baseUrl: string;
  /** The PIMS token, set as the secret `pims:token`. */
  token: string;
  /** More stack config: `key` → value (plain) or `{ value, secret: true }`. Keys without `:` are the project's. */
  config?: Record<string, string | { value: string; secret?: boolean }>;
  /** The engine directory; default {@link ensureEngine}(). */
  engineDir?: string;
  /**
   * Extra environment for every CLI call of the stack and, through the CLI, the provider host (e.g.
   * `PIMS_RETRY_MIN_DELAY_MS`). Applied over the engine environment ({@link engineEnv}); use `passphrase`, not
   * this, for `PULUMI_CONFIG_PASSPHRASE`. Not seen by the program itself, which runs in this process.
   */
  env?: Record<string, string>;
  /**
   * Passphrase of the stack's secrets provider (encrypts `pims:token` and every secret in the state; must be the
   * one that encrypted a state imported into the stack). Default {@link PASSPHRASE}.
   */
  passphrase?: string;
}

/**
 * Creates (or selects) a stack for a program against a PIMS service: a `file://` backend in `backendDir`, the
 * offline engine environment (plus `env`, with `passphrase` for the stack's secrets), `pims:baseUrl` and
 * `pims:token` (as a secret) in the stack's config.
 */
export async function createPimsStack(opts: PimsStackOptions): Promise<Stack> {
  const engineDir = opts.engineDir ?? ensureEngine();
  const workDir = opts.workDir ?? path.join(opts.backendDir, "workspace");
  if (opts.env && "PULUMI_CONFIG_PASSPHRASE" in opts.env) {
    throw new Error(
      "createPimsStack: set the stack's passphrase with the passphrase option, not env.PULUMI_CONFIG_PASSPHRASE",
    );
  }
  fs.mkdirSync(workDir, { recursive: true });
  const envVars = {
    ...engineEnv(opts.backendDir, engineDir),
    ...opts.env,
    PULUMI_CONFIG_PASSPHRASE: opts.passphrase ?? PASSPHRASE,
  };
  const workspace = { workDir, envVars, pulumiCommand: await pulumiCommand(engineDir) };
  let stack: Stack;
  if (opts.program) {
    stack = await LocalWorkspace.createOrSelectStack(
      { stackName: opts.stackName, projectName: opts.projectName ?? "pims-inline", program: opts.program },
      workspace,
    );
  } else {
    if (opts.workDir === undefined || !fs.existsSync(path.join(workDir, "Pulumi.yaml"))) {
      throw new Error(
        `createPimsStack: without a program, workDir must be a project directory with a Pulumi.yaml (got ` +
          `${JSON.stringify(opts.workDir)})`,
      );
    }
    stack = await LocalWorkspace.createOrSelectStack({ stackName: opts.stackName, workDir }, workspace);
  }
  const config: Record<string, { value: string; secret?: boolean }> = {
    "pims:baseUrl": { value: opts.baseUrl },
    "pims:token": { value: opts.token, secret: true },
  };
  for (const [k, v] of Object.entries(opts.config ?? {})) config[k] = typeof v === "string" ? { value: v } : v;
  await stack.setAllConfig(config);
  return stack;
}

/** A random value for test and demo secrets. */
export function randomSecret(prefix: string): string {
  return `${prefix}${crypto.randomBytes(16).toString("hex")}`;
}
