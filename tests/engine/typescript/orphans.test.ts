/**
 * Nothing is left behind when `pulumi up` is killed with -9 (as a CI timeout kills it). The engine starts each plugin
 * in a process group of its own, so the kill does not reach them: this repository's processes must notice that the
 * engine is gone and exit within seconds. Three runs, each killed while a create is held in flight by the simulator:
 *
 * - a YAML program with the plugin's Node launcher (plugin/pulumi-resource-pims, `plugins.providers`);
 * - the same program with the self-contained executable of this machine's platform (built as `npm run release`
 *   builds it, from the release cache);
 * - a TypeScript program run by this repository's Node language host (scripts/engine/language-host), which also stops
 * the
 *   program's process.
 *
 * Each run's processes are found by a marker in their environment (the CLI passes its environment to every plugin).
 * Processes that are not this repository's (the YAML host, Pulumi's dynamic-provider plugin) are ended by the test.
 */
import { spawn } from "node:child_process";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { createPimsStack, ensureEngine, REPO_ROOT } from "../../../scripts/engine";
import { createYamlStack, writeYamlProject } from "../../../scripts/engine/yaml";
import { bundlePlugin } from "../../../scripts/release/bundle";
import { buildExecutable } from "../../../scripts/release/executable";
import { executableName, hostPlatform } from "../../../scripts/release/platforms";
import { sleep, writeTypeScriptProject } from "../../kit/engine/engine";
import { useEngineScratch } from "../../kit/engine/engineSuite";

/**
 * This repository's processes: the plugin (launcher or executable), the Node language host and the program process
 * that host starts (`@pulumi/pulumi/cmd/run`).
 */
const OURS = /plugin\/main\.js|pulumi-resource-pims|pulumi-language-nodejs|cmd\/run(\.js)? /;

const suite = useEngineScratch({ scratchPrefix: "pims-e2e-orphans-", yamlHost: true });

/** The processes whose environment holds `marker`, with their command lines (from /proc). */
function processesWith(marker: string): { pid: number; cmd: string }[] {
  const out: { pid: number; cmd: string }[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!fs.readFileSync(`/proc/${entry}/environ`, "utf8").includes(marker)) continue;
      out.push({ pid: Number(entry), cmd: fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").join(" ") });
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return out;
}

/**
 * Runs `pulumi up` of `stack`'s project as the CLI with a marker in its environment, kills the CLI alone with
 * SIGKILL once a POST to `path` is held in flight, and returns this repository's processes of that run seen just
 * before the kill and still alive 10 s after it (every other process of the run is then ended).
 */
async function killedUp(
  stack: { workspace: unknown; name: string },
  postPath: string,
): Promise<{ before: string[]; after: string[] }> {
  const marker = `PIMS_ORPHAN_RUN=${crypto.randomBytes(8).toString("hex")}`;
  suite.sim.clearRequests();
  suite.sim.addFault({ method: "POST", path: postPath, kind: "delay", delayMs: 20_000 });
  const ws = stack.workspace as { workDir: string; envVars: Record<string, string> };
  const [key, value] = marker.split("=");
  const cli = spawn(
    path.join(ensureEngine(), "pulumi"),
    ["up", "--yes", "--skip-preview", "--non-interactive", "--stack", stack.name],
    { cwd: ws.workDir, env: { ...process.env, ...ws.envVars, [key]: value }, stdio: "ignore" },
  );
  const exited = new Promise<void>((resolve) => cli.on("exit", () => resolve()));
  const inFlight = (): boolean => suite.sim.requests.some((r) => r.method === "POST" && r.path === postPath);
  for (let i = 0; i < 1200 && !inFlight(); i++) await sleep(50);
  expect(inFlight()).toBe(true);
  const before = processesWith(marker).filter((p) => p.pid !== cli.pid && OURS.test(p.cmd));
  cli.kill("SIGKILL");
  await exited;
  let after = before;
  for (let i = 0; i < 100 && after.length > 0; i++) {
    await sleep(100);
    after = processesWith(marker).filter((p) => OURS.test(p.cmd));
  }
  for (const p of processesWith(marker)) {
    try {
      process.kill(p.pid, "SIGKILL");
    } catch {
      // gone meanwhile
    }
  }
  suite.sim.clearFaults();
  return { before: before.map((p) => p.cmd), after: after.map((p) => p.cmd) };
}

const YAML_PROGRAM = `
resources:
  project:
    type: pims:index:Project
    properties:
      name: orphan-check
`;

async function yamlStack(name: string, pluginDir?: string): Promise<{ workspace: unknown; name: string }> {
  const workDir = writeYamlProject(path.join(suite.scratch, name), { name, program: YAML_PROGRAM, pluginDir });
  return createYamlStack({
    stackName: "dev",
    workDir,
    backendDir: path.join(suite.scratch, `${name}-backend`),
    baseUrl: suite.sim.baseUrl,
    token: suite.sim.token,
  });
}

test("the plugin's Node launcher exits within seconds of a kill -9 of the engine", async () => {
  const { before, after } = await killedUp(await yamlStack("orphans-launcher"), "/v2/projects");
  expect(before.some((c) => c.includes("plugin/main.js"))).toBe(true);
  expect(after).toEqual([]);
});

test("the self-contained executable exits within seconds of a kill -9 of the engine", async () => {
  const platform = hostPlatform();
  if (platform === undefined) throw new Error(`no release platform for ${process.platform}-${process.arch}`);
  const exe = await buildExecutable(platform, (await bundlePlugin(REPO_ROOT)).file);
  const pluginDir = path.join(suite.scratch, "executable");
  fs.mkdirSync(pluginDir);
  fs.copyFileSync(exe, path.join(pluginDir, executableName(platform)));
  fs.chmodSync(path.join(pluginDir, executableName(platform)), 0o755);
  const { before, after } = await killedUp(await yamlStack("orphans-executable", pluginDir), "/v2/projects");
  expect(before.some((c) => c.includes(path.join(pluginDir, "pulumi-resource-pims")))).toBe(true);
  expect(after).toEqual([]);
});

test("the Node language host and the program it runs exit within seconds of a kill -9 of the engine", async () => {
  const workDir = writeTypeScriptProject(path.join(suite.scratch, "orphans-nodejs"), {
    name: "orphans-nodejs",
    program: [
      'import * as pims from "pulumi-pims";',
      'export const id = new pims.Project("p", { name: "orphan-ts" }).projectId;',
      "",
    ].join("\n"),
  });
  const stack = await createPimsStack({
    stackName: "dev",
    workDir,
    backendDir: path.join(suite.scratch, "orphans-nodejs-backend"),
    baseUrl: suite.sim.baseUrl,
    token: suite.sim.token,
  });
  const { before, after } = await killedUp(stack, "/v2/projects");
  expect(before.some((c) => c.includes("pulumi-language-nodejs"))).toBe(true);
  expect(after).toEqual([]);
});
