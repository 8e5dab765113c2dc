/**
 * Interrupted runs and accounts deleted outside the stack (issue 25), through the real engine and the simulator.
 * One stack, one step after another: a program (a project directory, so its `pulumi up` can be killed) with a
 * ServiceAccount in each rotation mode, `held` (keepPreviousToken) and `plain`, and an AppSecrets holding both
 * tokens. Every POST /v2/projects/{project_id}/service-accounts is held 4 s by the simulator's delay fault, which
 * commits after the client has gone, so the `kill -9` of the CLI and every process under it (as a CI timeout does)
 * lands while both creates are in flight:
 *
 * 1. a killed first `pulumi up` (a killed create in each mode), then the recovery of docs/interrupted-runs.md:
 *    `pulumi cancel`, `pulumi refresh --clear-pending-creates`, `pulumi up`, `pulumi refresh`;
 * 2. a killed rotation in each mode (a new rotationTrigger), then the same recovery;
 *    after each, every live account is held by the state or named in pulumi-pims' output with its delete command,
 *    and no account the state holds is named;
 * 3. both current accounts deleted outside the stack: one `pulumi up --refresh` brings back working tokens (the
 *    simulator accepts them, the AppSecrets holds them);
 * 4. a refresh right after that changes nothing in the decrypted state; one whose listing shows nothing (a
 *    credential that cannot see) keeps every account;
 * 5. `pulumi destroy` leaves exactly the accounts that were named.
 * No secret in plaintext in the engine's output, the CLI's output or the backend's files.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { ensureEngine } from "../../../scripts/engine";
import { resources, sleep, writeTypeScriptProject } from "../../kit/engine/engine";
import { addProjectWithApp, useEngineStack } from "../../kit/engine/engineSuite";
import { expectNoPlaintextSecrets } from "../../kit/secrets/secrets";
import { testClient } from "../../kit/sim/client";

const PROGRAM = `import * as pulumi from "@pulumi/pulumi";
import * as pims from "pulumi-pims";
const config = new pulumi.Config();
const projectId = config.require("projectId");
const common = { projectId, grants: [projectId], expiresIn: 3600, rotationTrigger: config.get("trigger") };
const held = new pims.ServiceAccount("held", { ...common, name: "held", keepPreviousToken: true });
const plain = new pims.ServiceAccount("plain", { ...common, name: "plain" });
const secrets = { HELD: held.token, PLAIN: plain.token };
new pims.AppSecrets("consumer", { projectId, appId: projectId + "-web", secrets });
export const heldToken = held.token;
export const plainToken = plain.token;
`;

let projectId: string;
/** What the killed CLIs printed. */
const killedOutput: string[] = [];

const suite = useEngineStack({
  scratchPrefix: "pims-e2e-interrupted-",
  profile: "default",
  stack: ({ sim, scratch }) => {
    ({ projectId } = addProjectWithApp(sim, "interrupted"));
    const workDir = writeTypeScriptProject(path.join(scratch, "program"), {
      name: "pims-interrupted",
      program: PROGRAM,
    });
    return {
      stackName: "interrupted",
      workDir,
      config: { projectId, trigger: "0" },
      // The accounts here are seconds old: a refresh concludes on them after 1 s, not the default 2 minutes.
      env: { PIMS_LISTING_LAG_MS: "1000", PIMS_RETRY_MIN_DELAY_MS: "20" },
    };
  },
});
const { engine } = suite;

const live = (): string[] => suite.sim.serviceAccounts(projectId).map((a) => a.id);

/** Every account id the state holds (ids, previous and retired ones), from the decrypted export. */
async function stateIds(): Promise<Set<string>> {
  const ids = new Set<string>();
  for (const r of resources(await suite.stack.exportStack())) {
    if (!r.type.endsWith("pims:ServiceAccount")) continue;
    const o = r.outputs ?? {};
    for (const v of [o.serviceAccountId, o.previousServiceAccountId, ...((o.retiredServiceAccountIds as []) ?? [])])
      if (typeof v === "string") ids.add(v);
  }
  return ids;
}

/** The accounts pulumi-pims named with their delete command so far. */
function named(): Set<string> {
  const re = new RegExp(`pims service-accounts delete ${projectId} (sa-[0-9a-f]+)`, "g");
  return new Set([...engine.text().matchAll(re)].map((m) => m[1]));
}

/** Every live account is held by the state or named with its delete command; no held account is named. */
async function expectAccountedFor(): Promise<void> {
  const held = await stateIds();
  expect(live().filter((id) => !held.has(id) && !named().has(id))).toEqual([]);
  expect([...named()].filter((id) => held.has(id))).toEqual([]);
}

/** The pids of `pid` and every process under it (from /proc), whatever their process group. */
function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const out = [pid];
  for (let i = 0; i < out.length; i++) out.push(...(children.get(out[i]) ?? []));
  return out;
}

/**
 * `pulumi up` run as the CLI, killed with SIGKILL (it and every process under it, as a CI timeout kills a job) once
 * both creates are in flight; returns when the simulator has committed them (after the delay).
 */
async function killedUp(): Promise<void> {
  const { sim } = suite;
  const before = live().length;
  sim.clearRequests();
  sim.addFault({ method: "POST", path: `/v2/projects/${projectId}/service-accounts`, kind: "delay", delayMs: 4000 });
  const ws = suite.stack.workspace as unknown as { workDir: string; envVars: Record<string, string> };
  const cli = spawn(
    path.join(ensureEngine(), "pulumi"),
    ["up", "--yes", "--skip-preview", "--non-interactive", "--stack", suite.stack.name],
    { cwd: ws.workDir, env: { ...process.env, ...ws.envVars }, stdio: ["ignore", "pipe", "pipe"] },
  );
  cli.stdout.on("data", (d: Buffer) => killedOutput.push(d.toString()));
  cli.stderr.on("data", (d: Buffer) => killedOutput.push(d.toString()));
  const exited = new Promise<void>((resolve) => cli.on("exit", () => resolve()));
  const inFlight = (): number =>
    suite.sim.requests.filter((r) => r.method === "POST" && r.path.endsWith("/service-accounts") && r.status === 0)
      .length;
  for (let i = 0; i < 1200 && inFlight() < 2; i++) await sleep(50);
  expect(inFlight()).toBe(2);
  for (const pid of processTree(cli.pid ?? -1)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  await exited;
  for (let i = 0; i < 200 && live().length < before + 2; i++) await sleep(50); // the late commits
  expect(live()).toHaveLength(before + 2);
  suite.sim.clearFaults();
}

/** The recovery of docs/interrupted-runs.md: the lock, the pending creates, `up`, then a refresh that names. */
async function recover(): Promise<void> {
  await suite.stack.cancel();
  await suite.stack.refresh({ ...engine.opts, clearPendingCreates: true });
  expect((await suite.stack.up(engine.opts)).summary.result).toBe("succeeded");
  await suite.stack.refresh(engine.opts);
}

test("a killed first up (one create per mode), then the documented recovery: every account accounted for", async () => {
  await killedUp();
  const orphans = live();
  await recover();
  expect(live()).toHaveLength(4); // the two orphans, and the two accounts the retried creates made
  await expectAccountedFor();
  for (const id of orphans) expect(named()).toContain(id);
});

test("a killed rotation in each mode, then the documented recovery: every account accounted for", async () => {
  const before = new Set(live());
  await suite.stack.setConfig("trigger", { value: "1" });
  await killedUp();
  const orphans = live().filter((id) => !before.has(id));
  await recover();
  await expectAccountedFor();
  for (const id of orphans) expect(named()).toContain(id);
  const outs = (await suite.stack.outputs()) as Record<string, { value: unknown }>;
  for (const k of ["heldToken", "plainToken"])
    await expect(
      testClient(suite.sim, { token: String(outs[k].value), retries: 0 }).listApiKeys(projectId),
    ).resolves.toBeDefined();
});

test("both current accounts deleted outside: one `pulumi up --refresh` brings back working tokens", async () => {
  const outs = (await suite.stack.outputs()) as Record<string, { value: unknown }>;
  const current = [...(await stateIds())].filter((id) => live().includes(id));
  const state = resources(await suite.stack.exportStack()).filter((r) => r.type.endsWith("pims:ServiceAccount"));
  for (const r of state)
    await testClient(suite.sim).deleteServiceAccount(projectId, String(r.outputs?.serviceAccountId));
  await sleep(1100); // past PIMS_LISTING_LAG_MS of the accounts' creation
  const res = await suite.stack.up({ ...engine.opts, refresh: true });
  expect(res.summary.result).toBe("succeeded");
  const after = (await suite.stack.outputs()) as Record<string, { value: unknown }>;
  for (const k of ["heldToken", "plainToken"]) {
    expect(after[k].value).not.toBe(outs[k].value);
    await expect(
      testClient(suite.sim, { token: String(after[k].value), retries: 0 }).listApiKeys(projectId),
    ).resolves.toBeDefined();
  }
  expect(suite.sim.appSecrets(projectId, `${projectId}-web`)).toEqual({
    HELD: after.heldToken.value,
    PLAIN: after.plainToken.value,
  });
  expect(engine.text()).toContain("no longer shows it");
  expect(current.length).toBeGreaterThan(0);
  await expectAccountedFor();
});

test("a refresh right after a create changes nothing; one whose listing shows nothing keeps all", async () => {
  const snapshot = async (): Promise<unknown> =>
    resources(await suite.stack.exportStack()).map((r) => [r.urn, r.id, r.outputs]);
  const before = await snapshot();
  await suite.stack.refresh(engine.opts);
  expect(await snapshot()).toEqual(before);
  const listing = `/v2/projects/${projectId}/api-keys`;
  suite.sim.addFault({ method: "GET", path: listing, kind: "status", status: 200, body: [] });
  await suite.stack.refresh(engine.opts);
  suite.sim.clearFaults();
  expect(await snapshot()).toEqual(before);
  expect(engine.text()).toContain("the credential cannot see this project's keys");
});

test("destroy leaves exactly the accounts pulumi-pims named; no secret in any output or file", async () => {
  await suite.stack.destroy(engine.opts);
  expect(live().sort()).toEqual([...named()].sort());
  expect(named().size).toBe(4); // a killed create and a killed rotation, in each mode
  // no secret, the stack's own token included, in the engine's output or the backend's files
  const secrets = suite.expectNoSecrets([suite.sim.token]);
  expectNoPlaintextSecrets(killedOutput.join(""), secrets, "the killed CLIs' output");
});
