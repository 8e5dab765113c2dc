/**
 * Peer-bug suite (issue 55), rows 7, 8, 9 and 15 through the plugin: a YAML program under the real engine and the
 * official YAML host, against a simulator that answers each create in another token layout (round robin); and row 7
 * through the dynamic provider too (a TypeScript program). The TypeScript side of rows 8, 9 and 15 is proven by tests
 * that were there before (tests/engine/peerBugs/table.ts names them).
 *
 * - Row 8, grafana/terraform-provider-grafana #1705 (PRs #2390, #2405): a rotation that kills the old token at once
 *   breaks whoever still holds it. Here two accounts with `keepPreviousToken` (one rotated by `rotationTrigger`, one by
 *   its `rotateBeforeExpiry` window) go through 4 rotations while a consumer per account calls the service every
 *   200 ms with the token it last read from the stack's outputs: 0 answers of 401.
 * - Row 9, pulumi/pulumi-pulumiservice #393: without an early-renewal window tokens expire in production. Here
 *   `pims tokens --expiring-within` warns first (exit 4, naming the account), and the first `up` inside the window
 *   rotates that account alone.
 * - Row 7, DataDog/terraform-provider-datadog PRs #2451 and #2765: the API omits the secret or sends it in a new shape
 *   and the state is overwritten. Here every layout the round robin sends is read (the consumers' tokens work), and a
 *   create answered without an identifiable secret fails the `up`, naming the members it saw: the account it made is
 *   deleted at once, the state keeps the accounts and tokens it held. The same through a TypeScript program.
 * - Row 15 (no public issue: POST is not idempotent): a create slower than the client's timeout must not be sent again.
 *   Here every POST /v2/projects/{project_id}/service-accounts answers after the timeout: each is sent once (≤ 1
 *   account per declared resource), every late account is named with its delete command, and `pims service-accounts
 *   delete` as named leaves nothing unknown live.
 *
 * What the user needs: no outage, no lost or duplicated account, and a message that says what to do.
 */
import * as path from "node:path";
import type { OutputMap } from "@pulumi/pulumi/automation";
import { writeYamlProject } from "../../../scripts/engine/yaml";
import { Consumer } from "../../kit/engine/consumer";
import { pimsCli, resources } from "../../kit/engine/engine";
import { useEngineStack, type EngineSuite } from "../../kit/engine/engineSuite";
import { accountYaml, useOneAccountStack } from "../../kit/engine/oneAccount";
import { liveIds } from "../../kit/sim/simulator";

/** Both accounts, with overlap, in the stack config's `projectId`: one rotated by a trigger, one by its window. */
const [OVERLAP, WINDOW] = [
  { name: "yaml-overlap", expiresIn: 2592000, rotationTrigger: "${trigger}" },
  { name: "yaml-window", expiresIn: 60, rotateBeforeExpiry: 59 },
].map((a) => ({ projectId: "${projectId}", keepPreviousToken: true, ...a }));
const PROGRAM = `
config:
  projectId:
    type: string
  trigger:
    type: string
    default: t0
resources:
${accountYaml("overlap", OVERLAP)}${accountYaml("window", WINDOW)}
outputs:
  overlapToken: \${overlap.token}
  windowToken: \${window.token}
`;
const NAMES = ["overlap", "window"] as const;
const ROTATIONS = 4;
/** The client's per-attempt timeout in the plugin during row 15's up, and how late its slow creates answer. */
const TIMEOUT_MS = 3000;
const SLOW_MS = 6000;

let home = "";
const consumers = {} as Record<(typeof NAMES)[number], Consumer>;
const suite = useEngineStack({
  scratchPrefix: "pims-e2e-peer-yaml-life-",
  yamlHost: true,
  stack: ({ sim, scratch }) => {
    sim.setTokenLayout("roundRobin"); // each create answers in the next layout
    home = sim.addProject({ name: "peer-yaml-life" }).id;
    for (const name of NAMES)
      consumers[name] = new Consumer(
        sim,
        () => home,
        (o) => o[`${name}Token`].value as string,
      );
    return {
      stackName: "dev",
      yaml: true,
      workDir: writeYamlProject(path.join(scratch, "life"), { name: "peer-yaml-life", program: PROGRAM }),
      config: { projectId: home },
      // the watch for a lost create outlasts the slow creates of row 15 (which alone shortens the timeout)
      env: { PIMS_LOST_CREATE_WATCH_MS: "10000" },
    };
  },
  stopAlso: () => Object.values(consumers),
});
const { engine } = suite;
let trigger = 0;

/** An up after a new rotationTrigger: its change summary holds only updates (`updates` of them) and unchanged. */
async function upRotating(updates: number, newTrigger = true): Promise<OutputMap> {
  if (newTrigger) await suite.stack.setConfig("trigger", { value: `t${++trigger}` });
  suite.clearRequests();
  const up = await suite.stack.up(engine.opts);
  const { same, ...changed } = up.summary.resourceChanges ?? {};
  expect([changed, same]).toEqual([{ update: updates }, expect.any(Number)]);
  return up.outputs;
}

/** The ids and outputs (tokens revealed) of a stack's accounts, in either host. */
async function held(s: EngineSuite = suite): Promise<unknown[]> {
  return resources(await s.stack.exportStack())
    .filter((r) => r.type.endsWith(":ServiceAccount"))
    .map((r) => [r.id, r.outputs]);
}

/** `pims` as a user runs it: its exit code and what it printed. */
const pimsRun = (args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
  pimsCli(args, suite.sim).then(
    (r) => ({ code: 0, ...r }),
    (e: { code?: number; stdout?: string; stderr?: string }) => ({
      code: e.code ?? -1,
      stdout: e.stdout ?? "",
      stderr: e.stderr ?? "",
    }),
  );

test("row 8, yaml: keepPreviousToken, 4 rotations (trigger and window): 0 consumer 401s", async () => {
  const first = await suite.up({ create: 3 }); // the stack and the two accounts
  for (const name of NAMES) {
    consumers[name].take(first);
    consumers[name].start();
  }
  for (let i = 1; i <= ROTATIONS; i++) {
    const outputs = await upRotating(2); // both accounts updated in place: a new account beside the previous one
    for (const name of NAMES) await consumers[name].reread(outputs);
    expect(liveIds(suite.sim, home)).toHaveLength(4); // per account: the current one and the previous one
  }
  for (const c of Object.values(consumers)) await c.stop();
  for (const name of NAMES) {
    expect([name, consumers[name].others]).toEqual([name, []]);
    expect([name, consumers[name].count("401")]).toEqual([name, 0]);
    expect(consumers[name].afterUp).toEqual(Array(ROTATIONS).fill("ok"));
  }
  expect(engine.text()).toMatch(/service account "yaml-overlap" in project \S+: rotated \(rotationTrigger\)/);
  expect(engine.text()).toMatch(/service account "yaml-window" in project \S+: rotated \(rotateBeforeExpiry\)/);
});

test("row 9, yaml: pims tokens warns first (exit 4); the first up inside the window rotates that account", async () => {
  const warned = await pimsRun(["tokens", home, "--expiring-within", "1m"]);
  expect(warned.code).toBe(4);
  expect(warned.stderr).toMatch(/^expiring: yaml-window \(/m);
  expect(warned.stderr).not.toContain("yaml-overlap");
  const overlapToken = (await suite.shown("overlap")).token;
  const windowToken = (await suite.shown("window")).token as string;

  const outputs = await upRotating(1, false); // no input changed: the window alone rotates the account
  expect((await suite.shown("overlap")).token).toBe(overlapToken);
  expect(outputs.windowToken.value).not.toBe(windowToken);
  expect((await suite.shown("window")).previousToken).toBe(windowToken);
  for (const token of [windowToken, outputs.windowToken.value as string])
    expect(await suite.tokenWorks(token, home)).toBe(true);
});

test("row 7, yaml: a token in no layout pims reads: up fails naming the members; nothing unknown kept", async () => {
  const before = await held();
  const live = liveIds(suite.sim, home);
  suite.sim.setTokenLayout("hashOnly");
  await suite.stack.setConfig("trigger", { value: `t${++trigger}` });
  suite.clearRequests();
  const from = engine.text().length;
  const failed = await suite.stack.up(engine.opts).then(
    () => "",
    (e: unknown) => `${engine.text().slice(from)}\n${String(e)}`,
  );
  suite.sim.setTokenLayout("roundRobin");
  expect(failed).toMatch(/its token object has no member pulumi-pims can identify as the secret \(members seen: /);
  const made = suite.sim.requests.filter((r) => r.method === "POST").length;
  expect(made).toBe(2); // both accounts were due: the trigger and the window
  expect(failed).toContain("was deleted at once, so nothing is left behind");
  expect(liveIds(suite.sim, home)).toEqual(live); // what the service made is gone again
  expect(await held()).toEqual(before); // the state still holds every account with its token
  for (const name of NAMES) expect(await suite.tokenWorks(await suite.tokenOf(name), home)).toBe(true);
  await upRotating(2, false); // a readable layout again: the rotation goes through
});

test("row 15, yaml: creates slower than the timeout: each sent once, every late account named, deleted", async () => {
  const before = await held();
  const live = liveIds(suite.sim, home);
  const saPath = `/v2/projects/${home}/service-accounts`;
  // This up's plugin gives up on an answer after TIMEOUT_MS (the workspace's environment is read at each command).
  const env = (suite.stack.workspace as unknown as { envVars: Record<string, string> }).envVars;
  env.PIMS_TIMEOUT_MS = String(TIMEOUT_MS);
  suite.sim.addFault({ method: "POST", path: saPath, kind: "delay", delayMs: SLOW_MS });
  await suite.stack.setConfig("trigger", { value: `t${++trigger}` });
  suite.clearRequests();
  const from = engine.text().length;
  const failed = await suite.stack.up(engine.opts).then(
    () => "",
    (e: unknown) => String(e),
  );
  suite.sim.clearFaults();
  delete env.PIMS_TIMEOUT_MS;
  expect(failed).not.toBe("");
  expect(suite.sim.countRequests({ method: "POST", path: saPath })).toBe(2); // never sent again
  const late = liveIds(suite.sim, home).filter((id) => !live.includes(id));
  expect(late.length).toBeLessThanOrEqual(2); // at most one per declared account
  expect(late.length).toBeGreaterThan(0);
  const said = engine.text().slice(from) + failed;
  for (const id of late) expect(said).toContain(`pims service-accounts delete ${home} ${id}`);
  expect(await held()).toEqual(before);

  for (const id of late) expect((await pimsRun(["service-accounts", "delete", home, id])).code).toBe(0);
  expect(liveIds(suite.sim, home)).toEqual(live);
  await upRotating(2, false); // the next up makes the rotation once
  expect(liveIds(suite.sim, home)).toHaveLength(4);
});

test("destroy: no account left live; no token in any output or file", async () => {
  await suite.stack.destroy(engine.opts);
  expect(liveIds(suite.sim, home)).toEqual([]);
  suite.expectNoSecrets();
});

describe("row 7 through the dynamic provider (a TypeScript program)", () => {
  let tsTrigger = "r0";
  const { suite: ts, home } = useOneAccountStack({
    host: "typescript",
    project: "peer-ts-layout",
    account: (_suite, projectId) => ({
      resource: "layout",
      inputs: () => ({ projectId, name: "ts-layout", expiresIn: 2_592_000, rotationTrigger: tsTrigger }),
      outputs: { token: "token" },
    }),
  });

  test("row 7, typescript: each layout read, its token works; an unreadable one fails the up, none kept", async () => {
    const project = home();
    ts.sim.setTokenLayout("roundRobin");
    for (const t of ["r1", "r2", "r3"]) {
      tsTrigger = t; // a replacement: each account answered in the next layout
      const up = await ts.stack.up(ts.engine.opts);
      expect(await ts.tokenWorks(up.outputs.token.value as string, project)).toBe(true);
      expect(liveIds(ts.sim, project)).toHaveLength(1);
    }
    const before = await held(ts);
    const live = liveIds(ts.sim, project);
    ts.sim.setTokenLayout("hashOnly");
    tsTrigger = "r4";
    const from = ts.engine.text().length;
    const failed = await ts.stack.up(ts.engine.opts).then(
      () => "",
      (e: unknown) => `${ts.engine.text().slice(from)}\n${String(e)}`,
    );
    ts.sim.setTokenLayout("roundRobin");
    expect(failed).toMatch(/its token object has no member pulumi-pims can identify as the secret \(members seen: /);
    expect(failed).toContain("was deleted at once, so nothing is left behind");
    expect(liveIds(ts.sim, project)).toEqual(live);
    expect(await held(ts)).toEqual(before);
    expect(await ts.tokenWorks(await ts.tokenOf("layout"), project)).toBe(true);
    await ts.stack.destroy(ts.engine.opts);
    expect(liveIds(ts.sim, project)).toEqual([]);
    ts.expectNoSecrets();
  });
});
