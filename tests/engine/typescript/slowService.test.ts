/**
 * A service slower than the client's timeout (issue 20), through the real engine (scripts/engine/index.ts) and the
 * simulator, whose `delay` fault answers late and commits after the client has gone:
 *
 * - 2 declared ServiceAccounts, every POST /v2/projects/{project_id}/service-accounts slower than PIMS_TIMEOUT_MS:
 *   `up` fails; each create is sent once (never repeated after a lost answer), so at most 2 unknown accounts exist
 *   after `up` and `destroy`, and every live one is named in the engine's output with its delete command.
 * - the same with a delay just under the timeout: `up` succeeds with exactly 2 accounts, and
 *   `pims service-accounts list --state` on the stack's real export marks them as the stack's, and another
 *   same-named account as not.
 * - a Project whose POST /v2/projects is slower than the timeout: exactly one project, and the error says that a
 *   project with that name may exist.
 *
 * The provider host's environment (createPimsStack's `env`) sets the timeout and a watch window
 * (PIMS_LOST_CREATE_WATCH_MS) shorter than the default 10 s but longer than the time the late commits need, so what
 * is tested does not change. No output a user sees may hold a JavaScript stack frame or a plaintext secret.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import { Project, ServiceAccount } from "pulumi-pims";
import { createPimsStack } from "../../../scripts/engine";
import type { PimsSimulator } from "../../../simulator";
import { EngineOutput, exportEncrypted, pimsCli, sleep } from "../../kit/engine/engine";
import { expectNoPlaintextSecrets } from "../../kit/secrets/secrets";
import { useEngineScratch } from "../../kit/engine/engineSuite";
import { testClient } from "../../kit/sim/client";

/** The client's per-attempt timeout in the provider host; a slow route takes twice as long. */
const TIMEOUT_MS = 1500;
const SLOW_MS = 3000;

/** The engine, one simulator (`suite.sim`) and a scratch directory holding each stack's backend. */
const suite = useEngineScratch({ scratchPrefix: "pims-slow-" });
let sim: PimsSimulator;
beforeAll(() => {
  sim = suite.sim;
});
/** Everything the engine printed and every error of up, scanned at the end. */
const printed: string[] = [];

afterAll(() => {
  expectNoPlaintextSecrets(printed.join("\n"), [...sim.issuedSecrets(), sim.token], "the engine's output and errors");
  expect(printed.join("\n")).not.toMatch(/^ {4}at /m); // the message alone, never a JavaScript stack frame
});
afterEach(() => sim.clearFaults());

async function newStack(stackName: string, timeoutMs: number, program: () => Promise<void>): Promise<Stack> {
  const backendDir = path.join(suite.scratch, `backend-${stackName}`);
  const env = { PIMS_TIMEOUT_MS: String(timeoutMs), PIMS_RETRY_MIN_DELAY_MS: "20", PIMS_LOST_CREATE_WATCH_MS: "5000" };
  return createPimsStack({
    stackName,
    projectName: "pims-slow",
    program,
    backendDir,
    baseUrl: sim.baseUrl,
    token: sim.token,
    engineDir: suite.engineDir,
    env,
  });
}

/** Runs `up`; returns the engine's output and the error's text ("" when it succeeded). */
async function up(stack: Stack): Promise<{ output: string; error: string }> {
  const out = new EngineOutput();
  const error = await stack.up(out.opts).then(
    () => "",
    (e: unknown) => String(e),
  );
  printed.push(out.text(), error);
  return { output: out.text(), error };
}

async function destroy(stack: Stack): Promise<void> {
  const out = new EngineOutput();
  await stack.destroy(out.opts);
  printed.push(out.text());
}

const saPath = (projectId: string): string => `/v2/projects/${projectId}/service-accounts`;

/** Two ServiceAccounts in `projectId`. */
const twoAccounts = (projectId: string) => async (): Promise<void> => {
  for (const name of ["slow-a", "slow-b"])
    new ServiceAccount(name, { projectId, name, grants: [projectId], expiresIn: 0 });
};

test("2 accounts, each create beyond the timeout: up fails, ≤ 2 accounts, each named with its delete", async () => {
  const projectId = sim.addProject().id;
  const stack = await newStack("slowsa", TIMEOUT_MS, twoAccounts(projectId));
  sim.addFault({ method: "POST", path: saPath(projectId), kind: "delay", delayMs: SLOW_MS });
  const { output, error } = await up(stack);
  expect(error).not.toBe("");
  await destroy(stack); // nothing is in the state: nothing to delete, and the late accounts stay

  expect(sim.countRequests({ method: "POST", path: saPath(projectId) })).toBe(2); // never sent again
  const live = sim.serviceAccounts(projectId);
  expect(sim.deletedServiceAccounts()).toEqual([]); // destroy had nothing to delete: the state holds no account
  expect(live.map((a) => a.name).sort()).toEqual(["slow-a", "slow-b"]); // the service committed both, late
  for (const a of live) expect(output).toContain(`pims service-accounts delete ${projectId} ${a.id}`);
  expect(output).toMatch(/not sent again; watching GET \/v2\/projects\/.*\/api-keys/); // the progress line
});

test("2 accounts, every create just under the timeout: up succeeds with exactly 2 accounts", async () => {
  const projectId = sim.addProject().id;
  // A timeout 1 s above the 3 s the creates take: they finish inside it.
  const stack = await newStack("quicksa", SLOW_MS + 1000, twoAccounts(projectId));
  sim.addFault({ method: "POST", path: saPath(projectId), kind: "delay", delayMs: SLOW_MS });
  const { error } = await up(stack);
  expect(error).toBe("");
  const live = sim.serviceAccounts(projectId);
  expect(live.map((a) => a.name).sort()).toEqual(["slow-a", "slow-b"]);
  expect(sim.countRequests({ method: "POST", path: saPath(projectId) })).toBe(2);
  const state = (await stack.exportStack()).deployment as { resources?: Array<{ type: string; id?: string }> };
  const ids = (state.resources ?? []).filter((r) => r.type.endsWith("pims:ServiceAccount")).map((r) => r.id);
  expect(ids.sort()).toEqual(live.map((a) => a.id).sort());

  // `pims service-accounts list --state` on the real (encrypted) export tells the stack's accounts from another one.
  sim.clearFaults();
  const stranger = await testClient(sim).createServiceAccount(projectId, {
    name: "slow-a",
    grants: [projectId],
    expiresIn: 0,
  });
  const stateFile = path.join(suite.scratch, "export.json");
  fs.writeFileSync(stateFile, JSON.stringify(exportEncrypted(stack)));
  // Asynchronously: the simulator serves from this process.
  const { stdout: listed } = await pimsCli(["service-accounts", "list", projectId, "--json", "--state", stateFile], {
    baseUrl: sim.baseUrl,
    token: sim.token,
  });
  printed.push(listed);
  const marks = (JSON.parse(listed) as { accounts: Array<{ id: string; stack: boolean }> }).accounts.map((a) => [
    a.id,
    a.stack,
  ]);
  expect(marks.sort()).toEqual([...live.map((a) => [a.id, true]), [stranger.id, false]].sort());
  await testClient(sim).deleteServiceAccount(projectId, stranger.id);

  await destroy(stack);
  expect(sim.serviceAccounts(projectId)).toEqual([]);
});

test("a project create slower than the timeout: one project; the error says it may exist, how to check", async () => {
  const name = "slow-project-e2e";
  const stack = await newStack("slowproject", TIMEOUT_MS, async () => {
    new Project("proj", { name });
  });
  sim.addFault({ method: "POST", path: "/v2/projects", kind: "delay", delayMs: SLOW_MS, times: 1 });
  const { output, error } = await up(stack);
  expect(error).not.toBe("");
  expect(output).toContain(
    `A project named "${name}" may exist anyway: the service did not answer, and may still create it.`,
  );
  expect(output).toContain("Before you run `pulumi up` again, check");
  for (let i = 0; i < 100 && !sim.projects().some((p) => p.name === name); i++) await sleep(100); // the late commit
  expect(sim.projects().filter((p) => p.name === name)).toHaveLength(1);
  expect(sim.countRequests({ method: "POST", path: "/v2/projects" })).toBe(1);
  await destroy(stack);
});
