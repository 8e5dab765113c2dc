/**
 * Jest global setup of the tiers that run the compiled package (`bin/`): the engine tier (the dynamic-provider
 * host `require()`s `pulumi-pims/bin/provider`) and the CLI suite. Rebuilds `bin/` when it is missing or older
 * than any source it is made of, so `npx jest tests/engine` after an edit never runs stale code.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

const ROOT = path.resolve(__dirname, "..", "..", "..");
const SOURCES = ["cli", "sdk", "provider"];
const MARKER = path.join(ROOT, "bin", "sdk", "nodejs", "index.js");

function newestMtime(p: string): number {
  const st = fs.statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  return Math.max(0, ...fs.readdirSync(p).map((f) => newestMtime(path.join(p, f))));
}

/** True when `bin/` is missing or older than its sources. */
export function binIsStale(): boolean {
  if (!fs.existsSync(MARKER)) return true;
  return fs.statSync(MARKER).mtimeMs < Math.max(...SOURCES.map((d) => newestMtime(path.join(ROOT, d))));
}

export function buildIfStale(): void {
  if (!binIsStale()) return;
  execFileSync(process.execPath, [path.join(ROOT, "scripts", "build", "link-self.js")], {
    cwd: ROOT,
    stdio: "inherit",
  });
  execFileSync(
    process.execPath,
    [path.join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.build.json"],
    { cwd: ROOT, stdio: "inherit" },
  );
  // tsc does not touch unchanged outputs: mark the build as newer than the sources.
  const now = new Date();
  fs.utimesSync(MARKER, now, now);
}

export default function globalSetup(): void {
  buildIfStale();
}
