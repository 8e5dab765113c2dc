/**
 * Shared wiring of the `pims` CLI suites: the compiled bin/cli/pims.js run as a child process (Node 22) against a
 * simulator started per test, with every byte it printed scanned for the token afterwards.
 */
import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import type { PimsSimulator, SimulatorOptions } from "../../../simulator";
import { expectNoPlaintextSecrets } from "../secrets/secrets";
import { currentSimulator, startSimulator } from "./simulator";

export const ROOT = path.resolve(__dirname, "..", "..", "..");
const CLI = path.join(ROOT, "bin", "cli", "pims.js");
const NODE_BIN_DIR = path.join(ROOT, "node_modules", ".bin");
const NODE = fs.existsSync(path.join(NODE_BIN_DIR, "node")) ? path.join(NODE_BIN_DIR, "node") : process.execPath;

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** Replaces variables; undefined removes one. */
  env?: Record<string, string | undefined>;
  /** Called whenever stdout grows, with everything printed so far, and the child (e.g. to signal it). */
  onStdout?: (stdout: string, child: ChildProcess) => void;
  timeoutMs?: number;
  /** Written to the child's stdin, then closed (default: closed at once). */
  stdin?: string;
}

export interface CliSuite {
  /** The current test's simulator (a handle that follows the current test: destructure it once, at the top). */
  readonly sim: PimsSimulator;
  /** Runs `pims <args>` asynchronously (the simulator lives in this process and must keep serving). */
  pims(args: string[], o?: RunOptions): Promise<RunResult>;
  /** A project with one app, `web`. */
  seedApp(): { p: string; app: string };
}

/** Registers the suite's hooks (a simulator per test, the token scan after each) and returns its handles. */
export function useCliSuite(simOptions: SimulatorOptions = {}): CliSuite {
  let current: PimsSimulator | undefined;
  /** Everything every CLI run printed in the current test, scanned for the token afterwards. */
  let transcript: string[] = [];
  const sim = (): PimsSimulator => {
    if (!current) throw new Error("useCliSuite: the simulator exists only inside tests");
    return current;
  };

  beforeAll(() => {
    // bin/ is built by the tier's global setup (tests/kit/jest/buildOnce.ts) when it is stale.
    expect(fs.existsSync(CLI)).toBe(true);
  });
  beforeEach(async () => {
    current = await startSimulator(simOptions);
    transcript = [];
  });
  afterEach(async () => {
    // PIMS_TOKEN must never be printed, whatever the command did.
    expectNoPlaintextSecrets(transcript.join("\n"), [sim().token], "the CLI's stdout/stderr");
    await sim().stop();
    current = undefined;
  });

  async function pims(args: string[], o: RunOptions = {}): Promise<RunResult> {
    const result = await runCli(
      args,
      { PIMS_TOKEN: sim().token, PIMS_BASE_URL: sim().baseUrl, PIMS_RETRY_MIN_DELAY_MS: "5", ...o.env },
      o,
    );
    transcript.push(result.stdout, result.stderr);
    return result;
  }

  return {
    sim: currentSimulator(() => current, "useCliSuite"),
    pims,
    seedApp() {
      const p = sim().addProject().id;
      return { p, app: sim().addApp(p, "web").id };
    },
  };
}

/**
 * Runs the compiled `pims <args>` (Node 22) asynchronously (a simulator in this process must keep serving), with this
 * process's environment plus `env` (undefined removes a variable; PULUMI_CONFIG is always removed).
 */
export function runCli(
  args: string[],
  env: Record<string, string | undefined>,
  o: Omit<RunOptions, "env"> = {},
): Promise<RunResult> {
  const full: Record<string, string | undefined> = {
    ...process.env,
    PATH: `${NODE_BIN_DIR}${path.delimiter}${process.env.PATH ?? ""}`,
    PULUMI_CONFIG: undefined,
    ...env,
  };
  for (const k of Object.keys(full)) if (full[k] === undefined) delete full[k];
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, [CLI, ...args], { env: full, stdio: ["pipe", "pipe", "pipe"] });
    child.stdin.end(o.stdin ?? ""); // end of input at once, as with no stdin at all
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(
        new Error(
          `pims ${args.join(" ")} did not exit within ${o.timeoutMs ?? 20_000} ms; stdout so ` +
            `far:\n${stdout}\nstderr:\n${stderr}`,
        ),
      );
    }, o.timeoutMs ?? 20_000);
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      stdout += d;
      o.onStdout?.(stdout, child);
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export const lines = (text: string): string[] => text.split("\n").filter((l) => l !== "");

/** Resolves when `cond()` holds; fails after `ms`. */
export async function waitFor(cond: () => boolean, what: string, ms = 10_000): Promise<void> {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
