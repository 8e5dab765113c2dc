/**
 * Fault soak, 503s on service-account creates, and interrupted creates, with the real engine (scripts/engine/index.ts)
 * and the simulator.
 *
 * 1. A 50-resource stack (20 ServiceAccounts, 15 VolumeSizes, 15 AppSecrets on three projects) is deployed while
 *    the simulator fails about 30% of all requests (seeded): 429 with `Retry-After: 1`, 503, dropped connections
 *    and slow replies. PATCH and DELETE are retried by the client; a POST is retried by the client only on 429 (the
 *    service said it did nothing). After a 503 on a service-account POST the provider lists the project's API keys:
 *    no new account with that name → the create is sent again. A dropped connection loses the answer (the service
 *    may still create the account): the create is not sent again in that `up` (issue 20), which fails after watching
 *    the listing (PIMS_LOST_CREATE_WATCH_MS, 2 s here: these drops happen before the request is handled, so nothing
 *    ever appears and the window's length changes nothing). Such a failed POST created nothing: no orphan. `up` is
 *    repeated if it fails (bounded). Afterwards the simulator holds exactly the declared objects — 20 live
 *    accounts, one per name, each the one in the state; volumes and secrets as declared — refresh reads only the
 *    projects' API-key listings, preview makes no call, neither sees a change, and destroy leaves no live account (20
 *    deleted: none was created beyond those 20).
 * 1b. 50 ServiceAccounts while 30% of their creates answer 503: before the service commits, one `up` converges with
 *    no duplicate; after it commits (the account exists, its token is lost), `up` fails and its errors name every
 *    orphan and none of the stack's own accounts (which share their names with the orphans).
 * 2. Interrupted creates (a POST delayed 3 s, the `up` stopped while it is in flight):
 *    - a graceful cancel (SIGINT, what Ctrl-C and the Automation API's abort signal send) waits for the
 *      in-flight create and records it: the next `up` creates no duplicate;
 *    - a hard kill (SIGKILL of the CLI and its provider host) leaves a pending "creating" operation in the state
 *      while the service goes on to create the account: the next `up` warns about the pending operation and
 *      creates a second account. The first one is an orphan — live, holding a token nobody has — that the state
 *      does not know. This is the engine's documented behaviour for every provider; a ServiceAccount cannot
 *      adopt it (its token is returned only once). The test asserts this truth and shows the orphan is found
 *      through the API-key list (GET /v2/projects/{project_id}/api-keys: one key per live account, with principalId and
 *      name).
 *
 * 0. The provider host gets the stack's extra environment (createPimsStack's `env`): three 503s on a resize are
 *    retried after 20 ms-based backoffs (PIMS_RETRY_MIN_DELAY_MS=20), well under the default's 875 ms minimum.
 *
 * Uses the compiled package (`pulumi-pims`, as users do): needs `npm run build`, and the engine (ensureEngine()).
 * Bounded: PIMS_RETRY_MIN_DELAY_MS=20 for the provider host, Retry-After 1 s at most; ~1–2 minutes in all.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import type { Stack } from "@pulumi/pulumi/automation";
import { AppSecrets, ServiceAccount, VolumeSize } from "pulumi-pims";
import { createPimsStack, ensureEngine, randomSecret, tempDir } from "../../../scripts/engine";
import { exportEncrypted } from "../../kit/engine";
import { PimsSimulator } from "../../../simulator";
import { expectNoPlaintextSecrets } from "../../kit/secrets";
import { testClient } from "../../kit/client";

jest.setTimeout(240_000);

const SA_PATH = /^\/v2\/projects\/[^/]+\/service-accounts$/;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

let sim: PimsSimulator;
let engineDir: string;
const backendDirs: string[] = [];
/** Everything the engine printed: scanned for plaintext secrets at the end. */
const printed: string[] = [];

beforeAll(async () => {
  engineDir = ensureEngine();
  sim = await PimsSimulator.start();
});
afterAll(async () => {
  await sim?.stop();
  for (const d of backendDirs) fs.rmSync(d, { recursive: true, force: true });
});

/** A stack against the simulator; the provider host retries fast (PIMS_RETRY_MIN_DELAY_MS). */
async function newStack(stackName: string, program: () => Promise<Record<string, unknown> | void>): Promise<Stack> {
  const backendDir = tempDir("pims-soak-");
  backendDirs.push(backendDir);
  return createPimsStack({
    stackName,
    projectName: "pims-soak",
    program,
    backendDir,
    baseUrl: sim.baseUrl,
    token: sim.token,
    engineDir,
    env: { PIMS_RETRY_MIN_DELAY_MS: "20", PIMS_LOST_CREATE_WATCH_MS: "2000" },
  });
}

const collect = (s: string): void => {
  printed.push(s);
};

/** Resource ids in the exported state, by type suffix (e.g. "ServiceAccount"). */
async function stateIds(stack: Stack, type: string): Promise<string[]> {
  const st = await stack.exportStack();
  const resources = (st.deployment as { resources?: Array<{ type: string; id?: string }> }).resources ?? [];
  return resources.filter((r) => r.type === `pulumi-nodejs:dynamic/pims:${type}`).map((r) => r.id ?? "");
}

// ---- 0. the stack's env reaches the provider host -------------------------------------------------------

test("the stack env reaches the provider host: retries wait PIMS_RETRY_MIN_DELAY_MS (20), not 250 ms", async () => {
  const projectId = "p-e0e00001";
  sim.addProject({ id: projectId });
  sim.addVolume(projectId, { id: "vol-env", sizeGb: 50 });
  const resizePath = `/v2/projects/${projectId}/volumes/vol-env/resize`;
  const stack = await newStack("env", async () => {
    new VolumeSize("vol", { projectId, volumeId: "vol-env", sizeGb: 60 });
  });
  sim.addFault({ method: "PATCH", path: resizePath, kind: "status", status: 503, times: 3 });
  try {
    await stack.up({ onOutput: collect });
  } finally {
    sim.clearFaults();
  }
  const patches = sim.requests.filter((r) => r.method === "PATCH" && r.path === resizePath);
  expect(patches.map((r) => r.status)).toEqual([503, 503, 503, 200]);
  expect(sim.volume(projectId, "vol-env")?.sizeGb).toBe(60);
  // three backoffs: at most 20 + 40 + 80 ms with a 20 ms minimum; at least 125 + 250 + 500 ms with the default
  const waited = patches[3].at - patches[0].at;
  expect(waited).toBeLessThan(600);
  await stack.destroy({ onOutput: collect });
});

// ---- 1. fault soak ---------------------------------------------------------------------------------------

describe("fault soak: a 50-resource stack while ~30% of requests fail", () => {
  const projects = ["p-50a50001", "p-50a50002", "p-50a50003"];
  const secretValues = Array.from({ length: 15 }, (_, i) => randomSecret(`soak-secret-${i}-`));
  const saName = (i: number): string => `soak-sa-${i}`;
  let stack: Stack;
  const upErrors: string[] = [];

  beforeAll(async () => {
    for (const id of projects) sim.addProject({ id });
    for (let i = 0; i < 15; i++) {
      sim.addVolume(projects[i % 3], { id: `vol-${i}`, sizeGb: 50 });
      sim.addApp(projects[i % 3], `app${i}`);
    }
    stack = await newStack("soak", async () => {
      for (let i = 0; i < 20; i++) {
        const p = projects[i % 3];
        new ServiceAccount(`sa-${i}`, { projectId: p, name: saName(i), grants: [p], expiresIn: 0 });
      }
      for (let i = 0; i < 15; i++)
        new VolumeSize(`vol-${i}`, { projectId: projects[i % 3], volumeId: `vol-${i}`, sizeGb: 100 + i });
      for (let i = 0; i < 15; i++) {
        const p = projects[i % 3];
        new AppSecrets(`sec-${i}`, {
          projectId: p,
          appId: `${p}-app${i}`,
          secrets: { API_KEY: secretValues[i], REGION: "eu" },
        });
      }
    });
    // ≈ 30% of all requests: 1 − 0.92 × 0.92 × 0.92 × 0.90 ≈ 0.30 (each rule draws from its own seeded PRNG).
    sim.addFault({ kind: "rateLimit", retryAfter: "1", probability: 0.08, seed: 101 });
    sim.addFault({ kind: "status", status: 503, probability: 0.08, seed: 202 });
    sim.addFault({ kind: "drop", probability: 0.08, seed: 303 });
    sim.addFault({ kind: "delay", delayMs: 250, probability: 0.1, seed: 404 });
    sim.clearRequests();
  });
  afterAll(() => sim.clearFaults());

  test("up converges (repeated while creates fail) and the simulator holds exactly the declared objects", async () => {
    let ups = 0;
    for (;;) {
      ups++;
      try {
        await stack.up({ onOutput: collect });
        break;
      } catch (e) {
        upErrors.push(String(e));
        if (ups >= 8)
          throw new Error(`no convergence after ${ups} runs of up; last error: ${String(e).slice(0, 2000)}`, {
            cause: e,
          });
      }
    }
    const total = sim.requests.length;
    const faulted = sim.requests.filter((r) => r.status === 0 || r.status === 429 || r.status === 503).length;
    const failedPosts = sim.requests.filter(
      (r) => r.method === "POST" && SA_PATH.test(r.path) && (r.status === 0 || r.status === 503),
    ).length;
    process.stdout.write(
      `soak: converged after ${ups} run(s) of up; ${total} requests, ${faulted} failed by a fault ` +
        `(${((100 * faulted) / total).toFixed(0)}%), ` +
        `${failedPosts} service-account POSTs failed with 503 or a dropped connection\n`,
    );
    // the soak really soaked: roughly 30% of requests failed (plus the slow ones)
    expect(faulted / total).toBeGreaterThan(0.12);
    expect(faulted / total).toBeLessThan(0.45);
    // every failed run of up failed because a service-account create met a 503 or a dropped connection
    expect(upErrors).toHaveLength(ups - 1);
    for (const err of upErrors) expect(err).toMatch(/creating service account "soak-sa-\d+"/);

    // exactly 20 live accounts, one per declared name, each the one in the state: no duplicate, no orphan
    const live = sim.serviceAccounts();
    expect(live.map((a) => a.name).sort()).toEqual(Array.from({ length: 20 }, (_, i) => saName(i)).sort());
    expect(new Set(live.map((a) => a.name)).size).toBe(20);
    expect(sim.deletedServiceAccounts()).toEqual([]);
    expect((await stateIds(stack, "ServiceAccount")).sort()).toEqual(live.map((a) => a.id).sort());
    for (const a of live) expect(a.grants).toEqual([a.projectId]);
    // volumes and secrets as declared
    for (let i = 0; i < 15; i++) {
      expect(sim.volume(projects[i % 3], `vol-${i}`)?.sizeGb).toBe(100 + i);
      expect(sim.appSecrets(projects[i % 3], `${projects[i % 3]}-app${i}`)).toEqual({
        API_KEY: secretValues[i],
        REGION: "eu",
      });
    }
    expect(await stateIds(stack, "VolumeSize")).toHaveLength(15);
    expect(await stateIds(stack, "AppSecrets")).toHaveLength(15);

    // the state as stored (stack.exportStack() would decrypt the secrets: it passes --show-secrets)
    const state = JSON.stringify(exportEncrypted(stack));
    expectNoPlaintextSecrets(state, [...sim.issuedSecrets(), ...secretValues], "the exported state");
    expectNoPlaintextSecrets(
      upErrors.join("\n"),
      [...sim.issuedSecrets(), ...secretValues],
      "the errors of the failed runs of up",
    );
  });

  test("refresh reads only the listings and preview makes no call; neither sees a change, faults or not", async () => {
    sim.clearRequests();
    const refreshed = await stack.refresh({ onOutput: collect });
    expect(Object.keys(refreshed.summary.resourceChanges ?? {}).filter((k) => k !== "same")).toEqual([]);
    // The refresh's only calls: GET /v2/projects/{project_id}/api-keys (once per project, repeated only by faults).
    expect(sim.requests.filter((r) => !(r.method === "GET" && r.path.endsWith("/api-keys")))).toEqual([]);
    sim.clearRequests();
    const preview = await stack.preview({ onOutput: collect });
    expect(preview.changeSummary).toEqual({ same: 51 });
    expect(sim.requests).toEqual([]);
  });

  test("destroy leaves nothing behind: no live account, and only the 20 ever created", async () => {
    let runs = 0;
    for (;;) {
      runs++;
      try {
        await stack.destroy({ onOutput: collect });
        break;
      } catch (e) {
        // a DELETE is retried 4 times: all five attempts failing (0.3^5 ≈ 0.2%) fails this run; run it again
        if (runs >= 3) throw e;
      }
    }
    expect(sim.serviceAccounts()).toEqual([]);
    expect(sim.deletedServiceAccounts()).toHaveLength(20);
    expect(await stateIds(stack, "ServiceAccount")).toEqual([]);
    expectNoPlaintextSecrets(printed.join("\n"), [...sim.issuedSecrets(), ...secretValues], "the engine's output");
  });
});

// ---- 1b. 503s on service-account creates -------------------------------------------------------------------

describe("503 on 30% of service-account creates (50 accounts)", () => {
  const COUNT = 50;
  const saPaths = (projectId: string): RegExp => new RegExp(`^/v2/projects/${projectId}/service-accounts$`);

  /** A stack of 50 ServiceAccounts in a project of their own; `names(i)` is the account name of resource i. */
  async function fleet(stackName: string, projectId: string, names: (i: number) => string): Promise<Stack> {
    sim.addProject({ id: projectId });
    return newStack(stackName, async () => {
      for (let i = 0; i < COUNT; i++)
        new ServiceAccount(`sa-${i}`, { projectId, name: names(i), grants: [projectId], expiresIn: 0 });
    });
  }
  afterEach(() => sim.clearFaults());

  test("before the service commits: one up converges, with no duplicate", async () => {
    const projectId = "p-503b0001";
    const stack = await fleet("fail503before", projectId, (i) => `fleet-${i}`);
    sim.addFault({
      method: "POST",
      path: saPaths(projectId),
      kind: "status",
      status: 503,
      probability: 0.3,
      seed: 505,
    });
    sim.clearRequests();
    await stack.up({ onOutput: collect }); // one run: no retry of up
    const posts = sim.requests.filter((r) => r.method === "POST" && saPaths(projectId).test(r.path));
    const failed = posts.filter((r) => r.status === 503).length;
    process.stdout.write(
      `503 before commit: ${posts.length} POSTs for ${COUNT} accounts, ${failed} answered 503 and were sent again\n`,
    );
    expect(failed).toBeGreaterThan(5); // the faults really hit

    const live = sim.serviceAccounts(projectId);
    expect(live).toHaveLength(COUNT); // no duplicate, no orphan
    expect(new Set(live.map((a) => a.name)).size).toBe(COUNT);
    expect((await stateIds(stack, "ServiceAccount")).sort()).toEqual(live.map((a) => a.id).sort());
    sim.clearFaults();
    await stack.destroy({ onOutput: collect });
    expect(sim.serviceAccounts(projectId)).toEqual([]);
  });

  test("after the service commits: up fails, naming every orphan and none of the stack's own accounts", async () => {
    const projectId = "p-503a0001";
    // 3 names for 50 accounts: the stack's own accounts share their name with the orphans
    const stack = await fleet("fail503after", projectId, (i) => `shared-${i % 3}`);
    sim.addFault({
      method: "POST",
      path: saPaths(projectId),
      kind: "status",
      status: 503,
      afterCommit: true,
      probability: 0.3,
      seed: 606,
    });
    // As many creates at once as the engine will start: it starts no new operation after the first error (and
    // --continue-on-error would leave the failed registrations as unhandled rejections in this in-process program).
    const err = await stack.up({ onOutput: collect, parallel: COUNT }).then(
      () => "",
      (e: unknown) => String(e),
    );
    sim.clearFaults();
    printed.push(err);
    expect(err).toMatch(/The service may have created the account anyway\. Project/);

    const own = await stateIds(stack, "ServiceAccount");
    const orphans = sim.serviceAccounts(projectId).filter((a) => !own.includes(a.id));
    const named = new Set([...err.matchAll(/^\s*(sa-[0-9a-f]+) \(created /gm)].map((m) => m[1]));
    process.stdout.write(
      `503 after commit: ${own.length} accounts in the state, ${orphans.length} orphans, ` +
        `${named.size} ids named in the errors\n`,
    );
    // The faults really hit. How many creates run before the engine stops starting new ones after the first error
    // depends on timing, so one orphan is the floor that always holds.
    expect(orphans.length).toBeGreaterThanOrEqual(1);
    for (const o of orphans) expect(named).toContain(o.id); // every orphan is named
    for (const id of own) expect(named).not.toContain(id); // none of the stack's own accounts is
    expect([...named].every((id) => orphans.some((o) => o.id === id))).toBe(true); // and nothing else
    expectNoPlaintextSecrets(err, sim.issuedSecrets(), "the errors of up");

    // cleaning up: the orphans by hand (as the error says), then the stack; nothing is left
    const client = testClient(sim);
    for (const o of orphans) await client.deleteServiceAccount(projectId, o.id);
    await stack.destroy({ onOutput: collect });
    expect(sim.serviceAccounts(projectId)).toEqual([]);
  });
});

// ---- 2. interrupted creates ------------------------------------------------------------------------------

/** Pids of every descendant of `pid` (children first). */
function descendants(pid: number): number[] {
  const table = execFileSync("ps", ["-e", "-o", "pid=,ppid="], { encoding: "utf8" });
  const children = new Map<number, number[]>();
  for (const line of table.trim().split("\n")) {
    const [p, pp] = line.trim().split(/\s+/).map(Number);
    children.set(pp, [...(children.get(pp) ?? []), p]);
  }
  const out: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const c of children.get(queue.shift()!) ?? []) {
      out.push(c);
      queue.push(c);
    }
  }
  return out;
}

/** The `pulumi up` process this test started for `stackName`, and its descendants (the provider host). */
function pulumiUpTree(stackName: string): number[] {
  const mine = descendants(process.pid);
  if (mine.length === 0) return [];
  const table = execFileSync("ps", ["-o", "pid=,args=", "-p", mine.join(",")], { encoding: "utf8" });
  const cli = table
    .trim()
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => /\/pulumi up /.test(l) && l.includes(`--stack ${stackName}`))
    .map((l) => Number(l.split(/\s+/)[0]));
  return cli.flatMap((c) => [c, ...descendants(c)]);
}

async function until(cond: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

describe("interrupted creates", () => {
  let n = 0;
  /** A project of its own and a one-account stack. */
  async function oneAccount(): Promise<{ stack: Stack; projectId: string; name: string }> {
    n++;
    const projectId = `p-1a7e0${String(n).padStart(3, "0")}`;
    sim.addProject({ id: projectId });
    const name = `interrupted-${n}`;
    // No stack outputs: an output waiting for the interrupted create would make the stack's final RPC fail when
    // the engine goes away, as an unhandled rejection inside the Automation API's in-process runtime.
    const stack = await newStack(`interrupt${n}`, async () => {
      new ServiceAccount("sa", { projectId, name, grants: [projectId], expiresIn: 0 });
    });
    return { stack, projectId, name };
  }
  const postsTo = (projectId: string): number =>
    sim.requests.filter((r) => r.method === "POST" && r.path === `/v2/projects/${projectId}/service-accounts`).length;
  afterEach(() => sim.clearFaults());

  test("a POST dropped before being handled is not resent; up fails, none appeared; next up creates it", async () => {
    const { stack, projectId, name } = await oneAccount();
    sim.addFault({ method: "POST", path: `/v2/projects/${projectId}/service-accounts`, kind: "drop", times: 1 });
    const err = await stack.up({ onOutput: collect }).then(
      () => "",
      (e: unknown) => String(e),
    );
    printed.push(err);
    // the dropped POST, then only looks at the listing (GET /v2/projects/{project_id}/api-keys) for the watch window
    const calls = sim.requests
      .filter((r) => r.path.startsWith(`/v2/projects/${projectId}/`))
      .map((r) => `${r.method} ${r.path.split("/").pop() ?? ""} ${r.status}`);
    expect(calls[0]).toBe("POST service-accounts 0");
    expect(new Set(calls.slice(1))).toEqual(new Set(["GET api-keys 200"]));
    expect(err).toContain(`no account named "${name}" appeared in project ${projectId}`);
    expect(err).toContain(`pims service-accounts list ${projectId}`);
    expect(sim.serviceAccounts(projectId)).toEqual([]);

    await stack.up({ onOutput: collect });
    expect(postsTo(projectId)).toBe(2);
    const live = sim.serviceAccounts(projectId);
    expect(live.map((a) => a.name)).toEqual([name]);
    expect(await stateIds(stack, "ServiceAccount")).toEqual([live[0].id]);
    await stack.destroy({ onOutput: collect });
    expect(sim.serviceAccounts(projectId)).toEqual([]);
  });

  test("a graceful cancel (SIGINT) waits for the in-flight create and records it: no duplicate next up", async () => {
    const { stack, projectId, name } = await oneAccount();
    sim.addFault({
      method: "POST",
      path: `/v2/projects/${projectId}/service-accounts`,
      kind: "delay",
      delayMs: 3000,
      times: 1,
    });
    const abort = new AbortController();
    const up = stack.up({ onOutput: collect, signal: abort.signal }).then(
      () => "",
      (e: unknown) => String(e),
    );
    await until(() => postsTo(projectId) === 1, "the POST to reach the service");
    abort.abort(); // the Automation API sends SIGINT, as Ctrl-C does
    expect(await up).toMatch(/update canceled/);
    // the engine waited for the create: the account exists and the state has it
    const live = sim.serviceAccounts(projectId);
    expect(live.map((a) => a.name)).toEqual([name]);
    expect(await stateIds(stack, "ServiceAccount")).toEqual([live[0].id]);

    const again = await stack.up({ onOutput: collect });
    expect(again.summary.resourceChanges).toEqual({ same: 2 });
    expect(sim.serviceAccounts(projectId).map((a) => a.id)).toEqual([live[0].id]);
    expect(postsTo(projectId)).toBe(1);
    await stack.destroy({ onOutput: collect });
    expect(sim.serviceAccounts(projectId)).toEqual([]);
  });

  test("a SIGKILL mid-create: the next up creates a second account; the first, an orphan, is in the keys", async () => {
    const { stack, projectId, name } = await oneAccount();
    sim.addFault({
      method: "POST",
      path: `/v2/projects/${projectId}/service-accounts`,
      kind: "delay",
      delayMs: 3000,
      times: 1,
    });
    const up = stack.up({ onOutput: collect }).then(
      () => "",
      (e: unknown) => String(e),
    );
    await until(() => postsTo(projectId) === 1, "the POST to reach the service");
    const tree = pulumiUpTree(stack.name);
    expect(tree.length).toBeGreaterThanOrEqual(2); // the CLI and the provider host
    for (const pid of tree) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    expect(await up).toMatch(/SIGKILL/);
    // the service handles the POST it had received: the account exists, its token went to a dead process
    await until(() => sim.serviceAccounts(projectId).length === 1, "the delayed create to complete");
    const orphan = sim.serviceAccounts(projectId)[0];

    // the killed CLI left its lock and a pending "creating" operation, and no resource
    await stack.cancel(); // removes the lock of the killed update
    const deployment = (await stack.exportStack()).deployment as {
      pending_operations?: Array<{ type: string; resource: { urn: string } }>;
    };
    expect(deployment.pending_operations?.map((p) => [p.type, p.resource.urn.split("::").pop()])).toEqual([
      ["creating", "sa"],
    ]);
    expect(await stateIds(stack, "ServiceAccount")).toEqual([]);

    // the next up warns about the pending operation, then creates the account again
    const out: string[] = [];
    await stack.up({ onOutput: (s) => out.push(s) });
    printed.push(...out);
    expect(out.join("")).toMatch(/pending operations from previous deployment/);
    const live = sim.serviceAccounts(projectId);
    expect(live.map((a) => a.name)).toEqual([name, name]); // a duplicate: the known limitation
    const [inState] = await stateIds(stack, "ServiceAccount");
    expect(live.map((a) => a.id).sort()).toEqual([inState, orphan.id].sort());

    // the orphan is visible through the API-key list (GET /v2/projects/{project_id}/api-keys): principalId = the
    // account, not in the state
    const client = testClient(sim);
    const keys = await client.listApiKeys(projectId);
    const orphanKeys = keys.filter((k) => k.principalId !== undefined && k.principalId !== inState);
    expect(orphanKeys.map((k) => [k.principalId, k.name])).toEqual([[orphan.id, name]]);

    // cleaning up: delete the orphan by hand, destroy the stack; nothing is left
    await client.deleteServiceAccount(projectId, orphan.id);
    await stack.destroy({ onOutput: collect });
    expect(sim.serviceAccounts(projectId)).toEqual([]);
    expect(out.join("")).not.toContain(sim.token);
  });
});
