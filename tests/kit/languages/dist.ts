/**
 * The harness for "installs like every Pulumi provider": programs run from the release directory `dist/` alone, with
 * the real engine installing the plugin by itself.
 *
 * - {@link ensureDist}: the release (`npm run release` writes `dist/`: the plugin archives, the wheel, the schema, …).
 * - {@link startDistServer}: a loopback HTTP server (127.0.0.1, port 0) serving that directory, recording each request.
 * - {@link stubNode}: a `node` put first on PATH that records being called and fails: the plugin must not need Node.
 * - {@link distEnv}: the environment of every `pulumi` run: an empty `PULUMI_HOME` (empty plugin cache), the CLI and
 *   the official YAML host (./yaml), no plugin on PATH (this repository's `node_modules/.bin` holds the Node launcher,
 *   so it is left out), automatic plugin acquisition on (scripts/engine/index.ts turns it off for the other suites),
 *   and `PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES` pointing the download at the loopback server.
 *
 * How the engine forms the download (Pulumi 3.259.0, sdk/go/common/workspace/plugins.go): the override's regexp is
 * matched against the plugin source's URL: the SDK's `server` (the schema's `pluginDownloadURL`) as Go's url.String()
 * writes it, or, with no server, the fallback `github://api.github.com/pulumi/pulumi-<name>`. The matching override's
 * URL becomes an http source, which GETs `<url>/pulumi-resource-pims-v<version>-<os>-<arch>.tar.gz`.
 *
 * The steps every dist suite takes with its one stack, an inline program or the CLI's ({@link distStack}): the first
 * up, refresh, a rotation in each mode, destroy and the token scan.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { NODE_BIN, randomSecret, REPO_ROOT } from "../../../scripts/engine";
import type { PimsSimulator } from "../../../simulator";
import { packageVersion } from "../../../provider/identity";
import { expectNoPlaintextSecrets, expectNoSecretsInFiles } from "../secrets";
import { GO_CACHE_VARS } from "./go";
import { inlineResult, run, type Changes, type InlineDriver, type Ran } from "./index";
import { yaml } from "./yaml";

/** The package's version: the release's archives and SDKs carry it. */
export const VERSION = packageVersion();

/** The engine's names for this machine's platform, as in the archive's name. */
export const PLATFORM = {
  os: process.platform === "win32" ? "windows" : process.platform,
  arch: process.arch === "x64" ? "amd64" : process.arch,
};

/** The archive the engine downloads for `version` on this platform. */
export function archiveName(version: string = VERSION): string {
  return `pulumi-resource-pims-v${version}-${PLATFORM.os}-${PLATFORM.arch}.tar.gz`;
}

/** What the release directory holds that the tests use. */
export interface Dist {
  dir: string;
  /** This platform's plugin archive, and the Python wheel. */
  archive: string;
  wheel: string;
  /** The schema's `pluginDownloadURL` (the release setting), or undefined when the release names none. */
  downloadUrl: string | undefined;
}

/**
 * The release in `dist/`; when it lacks this platform's archive or the wheel of this version, or is older than what
 * it is made of, the release (scripts/release/main.ts, what `npm run release` runs after its build) writes it for this
 * platform (minutes the first time: the release caches its Node binaries and executables), one test file at a time
 * (`flock`). `PIMS_DIST_DIR` names another release directory, used as it is. Throws naming what is missing.
 */
export function ensureDist(): Dist {
  const dir = process.env.PIMS_DIST_DIR ?? path.join(REPO_ROOT, "dist");
  if (process.env.PIMS_DIST_DIR === undefined) {
    const lock = path.join(os.tmpdir(), `pims-release-${Buffer.from(REPO_ROOT).toString("hex").slice(-32)}.lock`);
    // Up to date: both files there, and nothing the release is made of (bin/, the Python SDK, the release scripts,
    // package.json) newer than the archive. The release's own script runs `npm run build` first, which would empty
    // bin/ under the other engine suites running now: its second half runs alone, on the bin/ `npm ci` built.
    const upToDate =
      `[ -f "dist/${archiveName()}" ] && [ -f "dist/pulumi_pims-${VERSION}-py3-none-any.whl" ] && ` +
      `[ -z "$(find bin sdk/python package.json scripts/release -newer "dist/${archiveName()}" -print -quit)" ]`;
    execFileSync(
      "bash",
      ["-c", `exec 9>"$LOCK"; flock 9; ${upToDate} || ts-node --transpile-only scripts/release/main.ts >&2`],
      {
        cwd: REPO_ROOT,
        stdio: ["ignore", "inherit", "inherit"],
        env: {
          ...process.env,
          PATH: `${NODE_BIN}${path.delimiter}${process.env.PATH ?? ""}`,
          LOCK: lock,
          PIMS_RELEASE_PLATFORMS: `${PLATFORM.os}-${PLATFORM.arch}`,
        },
      },
    );
  }
  const files = fs.existsSync(dir) ? fs.readdirSync(dir) : [];
  const archive = path.join(dir, archiveName());
  if (!fs.existsSync(archive))
    throw new Error(`the release in ${dir} has no ${archiveName()} (files: ${files.join(", ")})`);
  const wheels = files.filter((f) => f.startsWith(`pulumi_pims-${VERSION}-`) && f.endsWith(".whl"));
  if (wheels.length !== 1) throw new Error(`the release in ${dir} has ${wheels.length} pulumi_pims ${VERSION} wheels`);
  const schemaFile = files.find((f) => /schema.*\.json$/.test(f));
  if (schemaFile === undefined) throw new Error(`the release in ${dir} has no schema (files: ${files.join(", ")})`);
  const schema = JSON.parse(fs.readFileSync(path.join(dir, schemaFile), "utf8")) as { pluginDownloadURL?: string };
  return { dir, archive, wheel: path.join(dir, wheels[0]), downloadUrl: schema.pluginDownloadURL || undefined };
}

/** A loopback server of the release directory and the requests it answered. */
export interface DistServer {
  url: string;
  /** `GET /<file>` of each request, with the status answered. */
  requests: Array<{ path: string; status: number }>;
  stop(): Promise<void>;
}

/** Serves the files of `dir` (by name, nothing below it) on 127.0.0.1, a free port. */
export async function startDistServer(dir: string): Promise<DistServer> {
  const requests: DistServer["requests"] = [];
  const server = http.createServer((req, res) => {
    const name = decodeURIComponent((req.url ?? "/").split("?")[0].slice(1));
    const file = path.join(dir, name);
    const ok = req.method === "GET" && name !== "" && !name.includes("/") && fs.existsSync(file);
    requests.push({ path: `${req.method} /${name}`, status: ok ? 200 : 404 });
    if (!ok) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "Content-Type": "application/gzip", "Content-Length": fs.statSync(file).size });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A `node` that records each call in `<dir>/calls` and fails; put `dir` first on PATH. */
export function stubNode(dir: string): { dir: string; calls(): string[] } {
  fs.mkdirSync(dir, { recursive: true });
  const log = path.join(dir, "calls");
  fs.writeFileSync(
    path.join(dir, "node"),
    `#!/bin/sh\necho "node $*" >> '${log}'\necho "node must not be called" >&2\nexit 97\n`,
    { mode: 0o755 },
  );
  return { dir, calls: () => (fs.existsSync(log) ? fs.readFileSync(log, "utf8").trim().split("\n") : []) };
}

/** The `regexp=URL` override that sends the pims plugin's download (see the top of this file) to `serverUrl`. */
export function downloadOverride(serverUrl: string, downloadUrl: string | undefined): string {
  const escape = (s: string): string => s.replace(/[.*+?^$()|[\]\\{}]/g, "\\$&");
  // Go's url.String() escapes the braces of `${VERSION}`-style placeholders.
  const source =
    downloadUrl === undefined
      ? "github://api.github.com/pulumi/pulumi-pims"
      : downloadUrl.replace(/\{/g, "%7B").replace(/\}/g, "%7D");
  return `^${escape(source)}$=${serverUrl}`;
}

/**
 * The environment of every `pulumi` run of these suites (see the top of this file): `home` (empty) as PULUMI_HOME, a
 * `file://` backend in `backend`, the stub node first on PATH, then `extraPath` (a virtual environment's bin, Go), the
 * CLI with the YAML host, and the system's directories.
 */
export function distEnv(opts: {
  home: string;
  backend: string;
  stubDir: string;
  override: string;
  extraPath?: string[];
}): NodeJS.ProcessEnv {
  fs.mkdirSync(opts.home, { recursive: true });
  fs.mkdirSync(opts.backend, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    HOME: process.env.HOME,
    TMPDIR: process.env.TMPDIR,
    ...Object.fromEntries(GO_CACHE_VARS.map((k) => [k, process.env[k]])),
    PATH: [
      opts.stubDir,
      ...(opts.extraPath ?? []),
      ...yaml.toolchain().path,
      "/usr/local/bin",
      "/usr/bin",
      "/bin",
    ].join(":"),
    PULUMI_HOME: opts.home,
    PULUMI_BACKEND_URL: `file://${opts.backend}`,
    PULUMI_CONFIG_PASSPHRASE: randomSecret("passphrase-"),
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES: opts.override,
    PIMS_RETRY_MIN_DELAY_MS: "5",
  };
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
  return env;
}

/** The plugin directories the engine installed in `home`'s plugin cache. */
export function installedPlugins(home: string): string[] {
  const dir = path.join(home, "plugins");
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir).filter((f) => fs.statSync(path.join(dir, f)).isDirectory());
}

/**
 * `pulumi stack init <stack>` in the project `dir`, then its config: `pims:baseUrl`, `pims:token` (a secret, passed
 * through the environment, never on a command line) and `config` (plain values).
 */
export async function initStack(
  dir: string,
  env: NodeJS.ProcessEnv,
  stack: string,
  service: { baseUrl: string; token: string },
  config: Record<string, string>,
): Promise<void> {
  const sh = (command: string, extra: NodeJS.ProcessEnv = {}): Promise<Ran> =>
    run("bash", ["-c", command], { cwd: dir, env: { ...env, ...extra } });
  await sh(`pulumi stack init ${stack}`);
  await sh(`pulumi config set pims:baseUrl ${service.baseUrl}`);
  await sh('pulumi config set --secret pims:token -- "$PIMS_TEST_TOKEN"', { PIMS_TEST_TOKEN: service.token });
  for (const [k, v] of Object.entries(config)) await sh(`pulumi config set ${k} ${v}`);
}

/** One dist suite's stack, as the shared steps below drive it. */
export interface DistStack {
  sim: PimsSimulator;
  /** The simulator's project holding the stack's accounts; the release's server (a request = a download); the stub. */
  projectId: string;
  server: DistServer;
  node: ReturnType<typeof stubNode>;
  /** The `file://` backend directory; the `PULUMI_HOME` the engine installs plugins into (empty at first). */
  backend: string;
  home: string;
  /** `pulumi <args>` in the project directory, with the suite's environment; resolves with its stdout. */
  pulumi(args: string[]): Promise<string>;
  /** `up`, `refresh` or `destroy` the suite's way (an inline program, or the CLI); resolves with its changes. */
  op(operation: "up" | "refresh" | "destroy"): Promise<Changes>;
  /** Everything the engine and the suite's commands printed so far. */
  printed(): string;
}

/**
 * The stack of a dist suite, its program in `dir` with `env` (whose PULUMI_HOME and backend the stack's are). With
 * `runProgram`, the program runs as an Automation API inline program (Go, Python: no language host for them can be
 * obtained here), which prints `RESULT {"changes": …}`; without, with the CLI (`pulumi up|refresh|destroy`, YAML),
 * its changes read from the stack's history. What every command printed is kept for the scan.
 */
export function distStack(o: {
  sim: PimsSimulator;
  projectId: string;
  server: DistServer;
  node: ReturnType<typeof stubNode>;
  dir: string;
  env: NodeJS.ProcessEnv;
  runProgram?: InlineDriver;
}): DistStack {
  let printed = "";
  const record = (ran: Ran): Ran => {
    printed += ran.stdout + ran.stderr;
    return ran;
  };
  const stack: DistStack = {
    sim: o.sim,
    projectId: o.projectId,
    server: o.server,
    node: o.node,
    backend: (o.env.PULUMI_BACKEND_URL ?? "").replace(/^file:\/\//, ""),
    home: o.env.PULUMI_HOME ?? "",
    pulumi: async (args) => record(await run("pulumi", args, { cwd: o.dir, env: o.env })).stdout,
    op: async (operation) => {
      if (o.runProgram) return inlineResult(record(await o.runProgram(operation))).changes;
      await stack.pulumi([operation, "--yes", "--non-interactive"]);
      return lastChanges(stack);
    },
    printed: () => printed,
  };
  return stack;
}

/** The outputs naming the two accounts: `ci` rotated by replacement, `app` with its previous account kept. */
export interface AccountOutputs {
  ci: string;
  app: string;
  appPrevious: string;
  /** A token output (it must be a secret). */
  token: string;
}

/** The stack's outputs as `pulumi stack output --json` prints them (secrets as `[secret]`). */
export async function stackOutputs(stack: DistStack): Promise<Record<string, unknown>> {
  return JSON.parse(await stack.pulumi(["stack", "output", "--json"])) as Record<string, unknown>;
}

/** The change summary of the stack's last operation, from `pulumi stack history`. */
export async function lastChanges(stack: DistStack): Promise<Changes> {
  const history = JSON.parse(await stack.pulumi(["stack", "history", "--json"])) as Array<{
    resourceChanges?: Changes;
  }>;
  return history[0]?.resourceChanges ?? {};
}

const liveAccounts = (stack: DistStack): string[] => stack.sim.serviceAccounts(stack.projectId).map((a) => a.id);

/** `POST …/service-accounts` and `DELETE …/service-accounts/{id}` the simulator answered since `from` requests. */
function accountCalls(sim: PimsSimulator, from: number): { created: number; deleted: number } {
  const calls = sim.requests.slice(from);
  return {
    created: calls.filter((r) => r.method === "POST" && /\/service-accounts$/.test(r.path)).length,
    deleted: calls.filter((r) => r.method === "DELETE" && /\/service-accounts\/[^/]+$/.test(r.path)).length,
  };
}

/**
 * The first `up` into an empty plugin cache: the engine downloads this platform's archive from the release's server
 * (once) and installs it; `created` resources are created; the token output is a secret; the simulator holds
 * exactly the two accounts the outputs name. With `install`, `pulumi install` downloads it first and `up` uses it.
 */
export async function firstUpDownloadsPlugin(
  stack: DistStack,
  created: number,
  names: AccountOutputs,
  install = false,
): Promise<void> {
  expect(installedPlugins(stack.home)).toEqual([]);
  if (install) {
    await stack.pulumi(["install"]);
    expect(stack.server.requests).toEqual([{ path: `GET /${archiveName()}`, status: 200 }]);
    expect(installedPlugins(stack.home)).toEqual([`resource-pims-v${VERSION}`]);
    expect(stack.node.calls()).toEqual([]);
  }
  expect(await stack.op("up")).toEqual({ create: created });
  const out = await stackOutputs(stack);
  expect(out[names.token]).toBe("[secret]");
  expect(stack.server.requests).toEqual([{ path: `GET /${archiveName()}`, status: 200 }]);
  expect(installedPlugins(stack.home)).toEqual([`resource-pims-v${VERSION}`]);
  expect(liveAccounts(stack).sort()).toEqual([out[names.ci], out[names.app]].sort());
}

/** A refresh finds every resource as the state has it: its one change kind is `same`. */
export async function refreshChangesNothing(stack: DistStack): Promise<void> {
  expect(Object.keys(await stack.op("refresh"))).toEqual(["same"]);
}

/**
 * A rotation in each mode, one `up` each, by setting a trigger in the stack's config: `replace` gives the ci account a
 * new id and deletes the old one (one create, one delete; the app untouched); `overlap` gives the app a new account and
 * keeps the old one live as the previous one (one create, no delete). The simulator then holds exactly the new ci
 * account and both app accounts.
 */
export async function rotationInEachMode(
  stack: DistStack,
  names: AccountOutputs,
  triggers: { replace: [key: string, value: string]; overlap: [key: string, value: string] },
): Promise<void> {
  const before = await stackOutputs(stack);
  let from = stack.sim.requests.length;
  await stack.pulumi(["config", "set", ...triggers.replace]);
  await stack.op("up");
  const replaced = await stackOutputs(stack);
  expect(replaced[names.ci]).not.toBe(before[names.ci]);
  expect(stack.sim.deletedServiceAccounts()).toContain(before[names.ci]);
  expect(replaced[names.app]).toBe(before[names.app]);
  expect(accountCalls(stack.sim, from)).toEqual({ created: 1, deleted: 1 });

  from = stack.sim.requests.length;
  await stack.pulumi(["config", "set", ...triggers.overlap]);
  await stack.op("up");
  const overlapped = await stackOutputs(stack);
  expect(overlapped[names.app]).not.toBe(before[names.app]);
  expect(overlapped[names.appPrevious]).toBe(before[names.app]);
  expect(accountCalls(stack.sim, from)).toEqual({ created: 1, deleted: 0 });
  expect(liveAccounts(stack).sort()).toEqual([replaced[names.ci], before[names.app], overlapped[names.app]].sort());
}

/**
 * `destroy` deletes the stack's `deleted` resources and leaves no live account; the plugin was downloaded once in
 * the whole run and `node` never called.
 */
export async function destroyLeavesNothing(stack: DistStack, deleted: number): Promise<void> {
  expect(await stack.op("destroy")).toEqual({ delete: deleted });
  expect(liveAccounts(stack)).toEqual([]);
  expect(stack.server.requests).toHaveLength(1);
  expect(stack.node.calls()).toEqual([]);
}

/**
 * No token in plaintext (the stack's and every one the simulator issued, at least the four of the two rotations) in
 * the exported state, the backend's files or anything the engine and the commands printed.
 */
export async function noPlaintextTokens(stack: DistStack): Promise<void> {
  const secrets = [stack.sim.token, ...stack.sim.issuedSecrets()];
  expect(stack.sim.issuedSecrets().length).toBeGreaterThanOrEqual(4);
  expectNoPlaintextSecrets(await stack.pulumi(["stack", "export"]), secrets, "the exported state");
  expect(expectNoSecretsInFiles(stack.backend, secrets)).toBeGreaterThan(2);
  expectNoPlaintextSecrets(stack.printed(), secrets, "what the engine and the pulumi commands printed");
}
