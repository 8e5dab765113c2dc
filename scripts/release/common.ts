/**
 * What every step of the release and of its publish shares: its cache directory, its progress line, SHA-256, a
 * directory's file list, and the one way a command is run (`run`) with what a failed one said.
 */
import { spawn } from "node:child_process";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";

/**
 * Where the release build caches Node binaries, bundles and executables: `PIMS_RELEASE_CACHE_DIR`, else `release/`
 * in the cache of the other scripts (`PIMS_CACHE_DIR`, else ~/.cache/pulumi-pims).
 */
export const CACHE_DIR =
  process.env.PIMS_RELEASE_CACHE_DIR ??
  path.join(process.env.PIMS_CACHE_DIR ?? path.join(process.env.HOME ?? "/tmp", ".cache", "pulumi-pims"), "release");

const STARTED = Date.now();
/** Progress on stderr, with the seconds since the start (stdout stays free for the list of files written). */
export const log = (line: string): void =>
  void process.stderr.write(`[release +${Math.round((Date.now() - STARTED) / 1000)}s] ${line}\n`);

/** The hex SHA-256 of some bytes. */
export const sha256 = (data: crypto.BinaryLike): string => crypto.createHash("sha256").update(data).digest("hex");

/** Files under `dir`, sorted, relative to it. */
export function filesUnder(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => fs.statSync(path.join(dir, f)).isFile())
    .sort();
}

/** A run's output, and what a failed run's error carries besides its message (a tool's reason may be in either). */
export interface RunOutput {
  stdout: string;
  stderr: string;
}

/**
 * Runs a command without a shell, stdin closed, and resolves with its stdout and stderr. With `shown`, its stderr
 * goes to this process's stderr as it comes (a long build's progress) instead of being kept. A failure rejects with an
 * error naming the command and how it ended (exit code or signal), then its stderr, and carrying both streams. Never
 * synchronous: the publish's registries may be servers in this very process (tests/sim/release/).
 */
export function run(
  cmd: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; shown?: boolean } = {},
): Promise<RunOutput> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ["ignore", "pipe", options.shown === true ? "inherit" : "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on("data", (b: Buffer) => out.push(b));
    child.stderr?.on("data", (b: Buffer) => err.push(b));
    child.on("error", (e) => reject(Object.assign(e, { stdout: "", stderr: "" })));
    child.on("close", (code, signal) => {
      const result = { stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8") };
      if (code === 0) return resolve(result);
      const ended = signal === null ? `exit ${code}` : signal;
      const reason = result.stderr.trim() === "" ? "" : `:\n${result.stderr.trim()}`;
      reject(Object.assign(new Error(`\`${cmd} ${args.join(" ")}\` failed (${ended})${reason}`), result));
    });
  });
}

/** The stderr of a failed {@link run} (else its message), for messages. */
export const said = (e: unknown): string => String((e as { stderr?: string }).stderr ?? (e as Error).message).trim();
