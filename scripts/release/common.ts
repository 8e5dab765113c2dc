/**
 * What every step of the release shares: its cache directory, its progress line, SHA-256 and a directory's file list.
 */
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
