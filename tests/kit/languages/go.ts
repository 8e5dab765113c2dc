/**
 * The Go runner. Environment: the machine's `go` first on PATH, no toolchain downloads, no cgo (the CLI is built the
 * same way): {@link goToolchain}, the one place the Go environment is written. SDK: from the repository, the module
 * replaced by sdk/go ({@link replaceGoSdk}; a docs page's `../pulumi-pims/sdk/go` clone, ./guide's sandboxClone), or
 * from a registry (`go get <home>/sdk/go/pims@v<version>` through a module proxy, {@link goUserSettings}). Program: no
 * Go language host can be obtained here, so a program's `program` runs as an Automation API inline program:
 * tests/engine/programs/go/inline.go built beside its main.go, whose init runs the operation `PIMS_INLINE_OP` names
 * and exits before `main` ({@link buildInline}).
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { REPO_ROOT } from "../../../scripts/engine";
import { PROGRAMS_DIR, run, withToolchain, type InlineDriver, type Runner, type Toolchain } from "./index";

export const GO_SDK_DIR = path.join(REPO_ROOT, "sdk", "go");

/** The machine's Go: its directory on PATH, no toolchain downloads, no cgo. */
export function goToolchain(): Toolchain {
  const goBin = path.dirname(execFileSync("bash", ["-c", "command -v go"], { encoding: "utf8" }).trim());
  return { path: [goBin], env: { GOTOOLCHAIN: "local", CGO_ENABLED: "0" } };
}

export const go: Runner = { language: "go", runs: "inline", toolchain: goToolchain };

/** `base` (default: this process's environment) with {@link goToolchain}. */
export function goEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return withToolchain(base, goToolchain());
}

/** The Go variables a dist run inherits from this process (its caches) and a user's environment does not. */
export const GO_CACHE_VARS = ["GOPATH", "GOCACHE", "GOMODCACHE"];

/** The machine's Go caches (`go env`), which a user's environment names so the Pulumi SDK is not built again. */
export function goCaches(): { GOMODCACHE: string; GOCACHE: string } {
  const v = (name: string): string => execFileSync("go", ["env", name], { encoding: "utf8" }).trim();
  return { GOMODCACHE: v("GOMODCACHE"), GOCACHE: v("GOCACHE") };
}

/** The module path sdk/go/go.mod declares (what the Go examples import). */
export function goModulePath(): string {
  const m = /^module\s+(\S+)/m.exec(fs.readFileSync(path.join(GO_SDK_DIR, "go.mod"), "utf8"));
  if (!m) throw new Error("sdk/go/go.mod declares no module");
  return m[1];
}

/**
 * Points a copied Go module at sdk/go (a replace directive of the module path sdk/go/go.mod declares); `-mod=mod`: a
 * copy has no go.sum of its own. Resolves with the environment of its builds (`base` with the Go toolchain).
 */
export async function replaceGoSdk(dir: string, base: NodeJS.ProcessEnv = process.env): Promise<NodeJS.ProcessEnv> {
  const env = { ...goEnv(base), GOFLAGS: "-mod=mod" };
  await run("go", ["mod", "edit", `-replace=${goModulePath()}=${GO_SDK_DIR}`], { cwd: dir, env });
  await run("go", ["mod", "tidy"], { cwd: dir, env });
  return env;
}

/**
 * A user's settings for a module served by a proxy of their own (`go env -w`, in a fresh HOME): GOPROXY lists it
 * first, GONOSUMDB keeps its path out of the public checksum database; the machine's caches serve the other modules
 * (and keep the Pulumi SDK's build), `host`'s modules removed from them first.
 */
export function goUserSettings(proxyUrl: string, host: string): Record<string, string> {
  const caches = goCaches();
  for (const stale of [path.join(caches.GOMODCACHE, host), path.join(caches.GOMODCACHE, "cache", "download", host)])
    if (fs.existsSync(stale)) execFileSync("bash", ["-c", 'chmod -R u+w "$0" && rm -rf "$0"', stale]);
  return { GOPROXY: `${proxyUrl},https://proxy.golang.org`, GONOSUMDB: host, ...caches };
}

/** Adds tests/engine/programs/go/inline.go beside the module's main.go. */
export function addInlineDriver(dir: string): void {
  fs.copyFileSync(path.join(PROGRAMS_DIR, "go", "inline.go"), path.join(dir, "inline.go"));
}

/** The variables by which the built program (inline.go) runs one operation on `stack` of the project `dir`. */
export function inlineVars(dir: string, operation: string, stack = "dev", same = false): Record<string, string> {
  const vars: Record<string, string> = {
    PIMS_INLINE_OP: operation,
    PIMS_INLINE_STACK: stack,
    PIMS_INLINE_WORKDIR: dir,
  };
  if (same) vars.PIMS_INLINE_EXPECT_NO_CHANGES = "1";
  return vars;
}

/**
 * Adds the inline driver to the module in `dir`, builds it (`go mod tidy` for the driver's imports) into `dir/program`
 * and returns how it runs one operation on `stack` with `env`.
 */
export async function buildInline(dir: string, env: NodeJS.ProcessEnv, stack = "dev"): Promise<InlineDriver> {
  addInlineDriver(dir);
  await run("bash", ["-c", "go mod tidy && go build -o program ."], { cwd: dir, env });
  return (operation, same = false) =>
    run(path.join(dir, "program"), [], { cwd: dir, env: { ...env, ...inlineVars(dir, operation, stack, same) } });
}
