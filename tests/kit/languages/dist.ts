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
 * The steps every dist suite takes with its one stack are in ./distSteps.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { NODE_BIN, randomSecret, REPO_ROOT } from "../../../scripts/engine";
import { packageVersion } from "../../../provider/identity";
import { GO_CACHE_VARS } from "./go";
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
