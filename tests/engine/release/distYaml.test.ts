/**
 * Installs like every Pulumi provider, YAML: a YAML program naming the pims package's version (the resource option
 * `version`) runs under the official YAML host with nothing but the release directory (tests/kit/dist.ts): an
 * empty plugin cache, no plugin on PATH, no `plugins.providers`, a `node` first on PATH that fails if anything calls
 * it. `pulumi install` downloads the plugin from the loopback server into `$PULUMI_HOME/plugins`; then `up`, a
 * rotation by replacement (`rotationTrigger`), one with overlap (`keepPreviousToken`), `refresh` and `destroy` (the
 * steps of tests/kit/dist.ts every dist suite takes), one stack throughout, checked against the simulator; the
 * state, the backend's files and everything printed are scanned for tokens. Last, `pulumi plugin install resource
 * pims <version> --file <archive>` into another empty cache.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { tempDir } from "../../../scripts/engine";
import type { PimsSimulator } from "../../../simulator";
import {
  archiveName,
  destroyLeavesNothing,
  distEnv,
  downloadOverride,
  ensureDist,
  installedPlugins,
  lastChanges,
  noPlaintextTokens,
  refreshChangesNothing,
  rotationInEachMode,
  startDistServer,
  stubNode,
  VERSION,
  type Dist,
  type DistServer,
  type DistStack,
} from "../../kit/dist";
import { ENGINE_SETUP_TIMEOUT_MS, E2E_TIMEOUT_MS } from "../../kit/engine";
import { run } from "../../kit/sdk";
import { startSimulator } from "../../kit/simulator";
import { tearDown } from "../../kit/teardown";

jest.setTimeout(E2E_TIMEOUT_MS);

const DAY = 86400;
const program = (version: string): string => `name: pims-dist-yaml
runtime: yaml
config:
  projectId:
    type: string
  triggerReplace:
    type: string
    default: "0"
  triggerOverlap:
    type: string
    default: "0"
resources:
  ci:
    type: pims:index:ServiceAccount
    properties:
      projectId: \${projectId}
      name: dist-ci
      grants:
        - \${projectId}
      expiresIn: ${30 * DAY}
      rotationTrigger: \${triggerReplace}
    options:
      version: ${version}
  app:
    type: pims:index:ServiceAccount
    properties:
      projectId: \${projectId}
      name: dist-app
      grants:
        - \${projectId}
      expiresIn: ${30 * DAY}
      rotateBeforeExpiry: ${20 * DAY}
      keepPreviousToken: true
      rotationTrigger: \${triggerOverlap}
outputs:
  ciId: \${ci.serviceAccountId}
  ciToken: \${ci.token}
  appId: \${app.serviceAccountId}
  appPreviousId: \${app.previousServiceAccountId}
`;
/** The program's outputs naming the accounts. */
const NAMES = { ci: "ciId", app: "appId", appPrevious: "appPreviousId", token: "ciToken" };

let dist: Dist;
let server: DistServer;
let sim: PimsSimulator;
let scratch: string;
let dir: string;
let env: NodeJS.ProcessEnv;
let node: ReturnType<typeof stubNode>;
let projectId: string;
let printed = "";
let stack: DistStack;

/** `pulumi <args>` in the project; what it prints joins `printed` (scanned for tokens) unless `record` is false. */
async function pulumi(args: string, record = true): Promise<string> {
  const ran = await run("bash", ["-c", `pulumi ${args}`], { cwd: dir, env });
  if (record) printed += ran.stdout + ran.stderr;
  return ran.stdout;
}
const outputs = async (): Promise<Record<string, string>> =>
  JSON.parse(await pulumi("stack output --json")) as Record<string, string>;
const live = (): string[] => sim.serviceAccounts(projectId).map((a) => a.id);

beforeAll(async () => {
  dist = ensureDist();
  server = await startDistServer(dist.dir);
  sim = await startSimulator();
  projectId = sim.addProject({ name: "dist-yaml" }).id;
  scratch = tempDir("pims-dist-yaml-");
  node = stubNode(path.join(scratch, "stub"));
  dir = path.join(scratch, "project");
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), program(VERSION));
  env = distEnv({
    home: path.join(scratch, "home"),
    backend: path.join(scratch, "backend"),
    stubDir: node.dir,
    override: downloadOverride(server.url, dist.downloadUrl),
  });
  stack = {
    sim,
    projectId,
    server,
    node,
    backend: path.join(scratch, "backend"),
    home: env.PULUMI_HOME ?? "",
    pulumi: async (args) => {
      const ran = await run("pulumi", args, { cwd: dir, env });
      printed += ran.stdout + ran.stderr;
      return ran.stdout;
    },
    // `pulumi up|refresh|destroy`, its changes read from the stack's history.
    op: async (operation) => {
      await pulumi(`${operation} --yes --non-interactive`);
      return lastChanges(stack);
    },
    printed: () => printed,
  };
}, ENGINE_SETUP_TIMEOUT_MS);

afterAll(() => tearDown([sim, server], scratch));

test("pulumi install downloads the plugin from the release's server into the empty plugin cache", async () => {
  expect(installedPlugins(env.PULUMI_HOME ?? "")).toEqual([]);
  await pulumi("install");
  expect(server.requests).toEqual([{ path: `GET /${archiveName()}`, status: 200 }]);
  expect(installedPlugins(env.PULUMI_HOME ?? "")).toEqual([`resource-pims-v${VERSION}`]);
  expect(node.calls()).toEqual([]);
});

test("up creates both accounts with the installed plugin; the token is a secret output", async () => {
  await pulumi("stack init dev");
  await pulumi(`config set pims:baseUrl ${sim.baseUrl}`);
  await run("bash", ["-c", 'pulumi config set --secret pims:token -- "$T"'], {
    cwd: dir,
    env: { ...env, T: sim.token },
  });
  await pulumi(`config set projectId ${projectId}`);
  await pulumi("up --yes --non-interactive");
  const out = await outputs();
  expect(out.ciToken).toBe("[secret]");
  expect(live().sort()).toEqual([out.ciId, out.appId].sort());
  expect(server.requests).toHaveLength(1); // installed once, not downloaded again
});

test("rotationTrigger replaces the ci account; keepPreviousToken keeps the previous app account live", async () => {
  await rotationInEachMode(stack, NAMES, { replace: ["triggerReplace", "r1"], overlap: ["triggerOverlap", "o1"] });
});

test("refresh keeps the stack as it is; destroy leaves 0 live accounts", async () => {
  await refreshChangesNothing(stack);
  await pulumi("preview --expect-no-changes --non-interactive");
  await destroyLeavesNothing(stack, 3);
});

test("no token in plaintext in the state, the backend's files or anything printed", async () => {
  await noPlaintextTokens(stack);
});

test("pulumi plugin install resource pims <version> --file <archive> installs it into an empty cache", async () => {
  const home = path.join(scratch, "home-file");
  fs.mkdirSync(home);
  const fileEnv = { ...env, PULUMI_HOME: home, PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES: "" };
  await run("pulumi", ["plugin", "install", "resource", "pims", VERSION, "--file", dist.archive], { env: fileEnv });
  expect(installedPlugins(home)).toEqual([`resource-pims-v${VERSION}`]);
  const listed = await run("pulumi", ["plugin", "ls", "--json"], { env: fileEnv });
  expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ name: "pims", version: VERSION })]);
  expect(node.calls()).toEqual([]);
});

test("with the option pluginDownloadURL (the release address) and no override, pulumi install downloads", async () => {
  const other = path.join(scratch, "with-address");
  fs.mkdirSync(other);
  const withAddress = program(VERSION).replace(
    `      version: ${VERSION}\n`,
    `      version: ${VERSION}\n      pluginDownloadURL: ${server.url}\n`,
  );
  expect(withAddress).toContain(`pluginDownloadURL: ${server.url}`);
  fs.writeFileSync(path.join(other, "Pulumi.yaml"), withAddress);
  const home = path.join(scratch, "home-address");
  const addressEnv = { ...env, PULUMI_HOME: home, PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES: "" };
  const before = server.requests.length;
  await run("pulumi", ["install"], { cwd: other, env: addressEnv });
  expect(server.requests.slice(before)).toEqual([{ path: `GET /${archiveName()}`, status: 200 }]);
  expect(installedPlugins(home)).toEqual([`resource-pims-v${VERSION}`]);
  expect(node.calls()).toEqual([]);
});
