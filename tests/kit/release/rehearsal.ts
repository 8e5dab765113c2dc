/**
 * What the release rehearsal (tests/engine/release/rehearsal.test.ts) needs beyond ./registries: the npm and
 * PyPI registry servers (verdaccio and pypiserver from scripts/toolchain/ensure-registries, on 127.0.0.1), and a
 * checkout of this working tree in a scratch directory (a git repository of its own, with `node_modules` linked) where
 * a release is built for a test home without touching this repository.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import { NODE_BIN, REPO_ROOT } from "../../../scripts/engine";
import { distEnv } from "../languages/dist";
import { GO_CACHE_VARS } from "../languages/go";

/** A registry server process on loopback. */
export interface Registry {
  url: string;
  process: ChildProcess;
  /** What the process printed (for a failure's message). */
  output(): string;
  stop(): Promise<void>;
}

/** scripts/toolchain/ensure-registries: the directory with verdaccio and the venv with pypiserver and twine. */
export function ensureRegistries(): string {
  const out = execFileSync("bash", [path.join(REPO_ROOT, "scripts", "toolchain", "ensure-registries")], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, PATH: `${NODE_BIN}${path.delimiter}${process.env.PATH ?? ""}` },
  });
  return out.trim().split("\n").pop() ?? "";
}

/** A port free on 127.0.0.1 now (the registries take a port on their command line). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** Starts `cmd` and waits (at most 60 s, twice a second) until GET `url + probe` answers 200. */
async function startServer(cmd: string, args: string[], url: string, probe: string): Promise<Registry> {
  const child = spawn(cmd, args, {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, PATH: `${NODE_BIN}:${process.env.PATH ?? ""}` },
  });
  let printed = "";
  child.stdout?.on("data", (d: Buffer) => (printed += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (printed += d.toString()));
  const stop = (): Promise<void> =>
    new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
    });
  for (let i = 0; i < 120; i++) {
    if (child.exitCode !== null) throw new Error(`${cmd} exited (${child.exitCode}):\n${printed}`);
    const ok = await fetch(url + probe, { signal: AbortSignal.timeout(2000) }).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { url, process: child, output: () => printed, stop };
    await new Promise((r) => setTimeout(r, 500));
  }
  await stop();
  throw new Error(`${cmd} did not answer ${url + probe} within 60 s:\n${printed}`);
}

/**
 * verdaccio on 127.0.0.1, storage under `dir`: `pulumi-pims` only as published to it (no uplink, so `npm view` and
 * `npm install` see exactly the rehearsal's), every other package through its uplink, the npm registry (a user's
 * project also installs `@pulumi/pulumi`, TypeScript, …, as from a company registry that proxies npm); and one user
 * registered through the registry's own API (PUT /-/user/org.couchdb.user:<name>); returns the server and an npm
 * user config file (`NPM_CONFIG_USERCONFIG`) naming it as the registry with that user's token.
 */
export async function startVerdaccio(registries: string, dir: string): Promise<{ server: Registry; npmrc: string }> {
  fs.mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const config = path.join(dir, "config.yaml");
  fs.writeFileSync(
    config,
    [
      `storage: ${path.join(dir, "storage")}`,
      "auth:",
      "  htpasswd:",
      `    file: ${path.join(dir, "htpasswd")}`,
      "uplinks:",
      "  npmjs:",
      "    url: https://registry.npmjs.org/",
      "packages:",
      "  'pulumi-pims':",
      "    access: $all",
      "    publish: $authenticated",
      "  '**':",
      "    access: $all",
      "    publish: $authenticated",
      "    proxy: npmjs",
      "log: { type: stdout, format: pretty, level: warn }",
      "",
    ].join("\n"),
  );
  const bin = path.join(registries, "node_modules", ".bin", "verdaccio");
  const server = await startServer(
    bin,
    ["--config", config, "--listen", `127.0.0.1:${port}`],
    `http://127.0.0.1:${port}`,
    "/-/ping",
  );
  const user = "rehearsal";
  const res = await fetch(`${server.url}/-/user/org.couchdb.user:${user}`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: user, password: "rehearsal-password" }),
  });
  const { token } = (await res.json()) as { token?: string };
  if (!res.ok || !token) throw new Error(`verdaccio did not register the user (${res.status})`);
  const npmrc = path.join(dir, "npmrc");
  fs.writeFileSync(npmrc, `registry=${server.url}/\n//127.0.0.1:${port}/:_authToken=${token}\n`);
  return { server, npmrc };
}

/** pypiserver on 127.0.0.1 serving `dir` (uploads allowed without credentials, no fallback to pypi.org). */
export async function startPypiServer(registries: string, dir: string): Promise<Registry> {
  fs.mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const bin = path.join(registries, "venv", "bin", "pypi-server");
  const args = ["run", "-i", "127.0.0.1", "-p", String(port), "-a", ".", "-P", ".", "--disable-fallback", dir];
  return startServer(bin, args, `http://127.0.0.1:${port}`, "/simple/");
}

/**
 * This working tree's files (tracked, and new ones not ignored; not bin/ or dist/) copied to `dir`, committed there
 * as one commit of a new repository, with `node_modules` linked to this repository's. Returns `dir`.
 */
export function copyCheckout(dir: string): string {
  const listed = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: REPO_ROOT,
    encoding: "utf8",
  });
  for (const rel of listed.split("\0").filter(Boolean)) {
    const from = path.join(REPO_ROOT, rel);
    if (!fs.existsSync(from) || fs.lstatSync(from).isDirectory()) continue;
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.copyFileSync(from, path.join(dir, rel));
    fs.chmodSync(path.join(dir, rel), fs.statSync(from).mode);
  }
  gitIn(dir, ["init", "-q"]);
  fs.symlinkSync(path.join(REPO_ROOT, "node_modules"), path.join(dir, "node_modules"), "dir");
  fs.appendFileSync(path.join(dir, ".git", "info", "exclude"), "/node_modules\n");
  gitIn(dir, ["add", "-A"]);
  gitIn(dir, ["commit", "-qm", "the release commit"]);
  return dir;
}

/** git in `dir` with a fixed author (the scratch repositories have no user config). */
export function gitIn(dir: string, args: string[]): string {
  return execFileSync("git", ["-c", "user.name=rehearsal", "-c", "user.email=rehearsal@pims.invalid", ...args], {
    cwd: dir,
    encoding: "utf8",
  }).trim();
}

/** Each client's own per-user settings, as a user writes them once on their machine. */
export interface UserSettings {
  /** npm's `registry` (and `cache`, the machine's, so packages already downloaded are not downloaded again). */
  npm?: { registry: string; cache: string };
  /** pip's `index-url`. */
  pipIndexUrl?: string;
  /** Go's settings as `go env -w` writes them (GOPROXY, GONOSUMDB, the machine's module and build caches). */
  go?: Record<string, string>;
  /** Maven's settings.xml (a `<mirror>`). */
  mavenSettings?: string;
}

/**
 * A fresh HOME in `dir` holding nothing but `settings`, each in its client's ordinary per-user file: ~/.npmrc,
 * ~/.config/pip/pip.conf, ~/.config/go/env and ~/.m2/settings.xml. Java takes `user.home` from the password
 * database, not from HOME, so ~/.mavenrc (which the `mvn` script sources from HOME) points Maven's user home here.
 * Returns `dir`.
 */
export function freshHome(dir: string, settings: UserSettings): string {
  const write = (rel: string, text: string): void => {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  };
  fs.mkdirSync(dir, { recursive: true });
  if (settings.npm) write(".npmrc", `registry=${settings.npm.registry}/\ncache=${settings.npm.cache}\n`);
  if (settings.pipIndexUrl)
    write(path.join(".config", "pip", "pip.conf"), `[global]\nindex-url = ${settings.pipIndexUrl}\n`);
  if (settings.go)
    write(
      path.join(".config", "go", "env"),
      Object.entries(settings.go)
        .map(([k, v]) => `${k}=${v}\n`)
        .join(""),
    );
  if (settings.mavenSettings) {
    write(path.join(".m2", "settings.xml"), settings.mavenSettings);
    write(".mavenrc", 'MAVEN_OPTS="-Duser.home=$HOME $MAVEN_OPTS"\n');
  }
  return dir;
}

/**
 * The environment of a user's published path: distEnv's (an empty PULUMI_HOME, the CLI, a `node` that fails if
 * called, no download override) with a fresh HOME holding only `settings`; no client setting comes from the
 * environment, and Go's caches are named in its env file (`settings.go`) rather than inherited.
 */
export function userEnv(
  home: string,
  settings: UserSettings,
  dist: { home: string; backend: string; stubDir: string; extraPath?: string[] },
): NodeJS.ProcessEnv {
  const env = distEnv({ ...dist, override: "" });
  for (const k of ["PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES", ...GO_CACHE_VARS]) delete env[k];
  return { ...env, HOME: freshHome(home, settings) };
}
