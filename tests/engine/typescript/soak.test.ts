/**
 * Fault soak and 503s on service-account creates, with the real engine (scripts/engine/index.ts)
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
 * 0. The provider host gets the stack's extra environment (createPimsStack's `env`): three 503s on a resize are
 *    retried after 20 ms-based backoffs (PIMS_RETRY_MIN_DELAY_MS=20), well under the default's 875 ms minimum.
 *
 * Uses the compiled package (`pulumi-pims`, as users do): needs `npm run build`, and the engine (ensureEngine()).
 * Bounded: PIMS_RETRY_MIN_DELAY_MS=20 for the provider host, Retry-After 1 s at most; ~1–2 minutes in all.
 * Interrupted creates: soakInterrupted.test.ts.
 */
import type { Stack } from "@pulumi/pulumi/automation";
import { AppSecrets, ServiceAccount, VolumeSize } from "pulumi-pims";
import { randomSecret } from "../../../scripts/engine";
import { exportEncrypted } from "../../kit/engine/engine";
import { expectNoPlaintextSecrets } from "../../kit/secrets/secrets";
import { testClient } from "../../kit/sim/client";
import { runUntilOk } from "../../kit/engine/engineSuite";
import { useSoakSuite } from "../../kit/engine/soak";

jest.setTimeout(240_000);

const SA_PATH = /^\/v2\/projects\/[^/]+\/service-accounts$/;

const soak = useSoakSuite();

// ---- 0. the stack's env reaches the provider host -------------------------------------------------------

test("the stack env reaches the provider host: retries wait PIMS_RETRY_MIN_DELAY_MS (20), not 250 ms", async () => {
  const projectId = "p-e0e00001";
  soak.sim.addProject({ id: projectId });
  soak.sim.addVolume(projectId, { id: "vol-env", sizeGb: 50 });
  const resizePath = `/v2/projects/${projectId}/volumes/vol-env/resize`;
  const stack = await soak.newStack("env", async () => {
    new VolumeSize("vol", { projectId, volumeId: "vol-env", sizeGb: 60 });
  });
  soak.sim.addFault({ method: "PATCH", path: resizePath, kind: "status", status: 503, times: 3 });
  try {
    await stack.up({ onOutput: soak.collect });
  } finally {
    soak.sim.clearFaults();
  }
  const patches = soak.sim.requests.filter((r) => r.method === "PATCH" && r.path === resizePath);
  expect(patches.map((r) => r.status)).toEqual([503, 503, 503, 200]);
  expect(soak.sim.volume(projectId, "vol-env")?.sizeGb).toBe(60);
  // three backoffs: at most 20 + 40 + 80 ms with a 20 ms minimum; at least 125 + 250 + 500 ms with the default
  const waited = patches[3].at - patches[0].at;
  expect(waited).toBeLessThan(600);
  await stack.destroy({ onOutput: soak.collect });
});

// ---- 1. fault soak ---------------------------------------------------------------------------------------

describe("fault soak: a 50-resource stack while ~30% of requests fail", () => {
  const projects = ["p-50a50001", "p-50a50002", "p-50a50003"];
  const secretValues = Array.from({ length: 15 }, (_, i) => randomSecret(`soak-secret-${i}-`));
  const saName = (i: number): string => `soak-sa-${i}`;
  let stack: Stack;
  const upErrors: string[] = [];

  beforeAll(async () => {
    for (const id of projects) soak.sim.addProject({ id });
    for (let i = 0; i < 15; i++) {
      soak.sim.addVolume(projects[i % 3], { id: `vol-${i}`, sizeGb: 50 });
      soak.sim.addApp(projects[i % 3], `app${i}`);
    }
    stack = await soak.newStack("soak", async () => {
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
    soak.sim.addFault({ kind: "rateLimit", retryAfter: "1", probability: 0.08, seed: 101 });
    soak.sim.addFault({ kind: "status", status: 503, probability: 0.08, seed: 202 });
    soak.sim.addFault({ kind: "drop", probability: 0.08, seed: 303 });
    soak.sim.addFault({ kind: "delay", delayMs: 250, probability: 0.1, seed: 404 });
    soak.sim.clearRequests();
  });
  afterAll(() => soak.sim.clearFaults());

  test("up converges (repeated while creates fail) and the simulator holds exactly the declared objects", async () => {
    const ups = await runUntilOk(
      "up",
      8,
      () => stack.up({ onOutput: soak.collect }),
      (e) => upErrors.push(String(e)),
    );
    const total = soak.sim.requests.length;
    const faulted = soak.sim.requests.filter((r) => r.status === 0 || r.status === 429 || r.status === 503).length;
    const failedPosts = soak.sim.requests.filter(
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
    const live = soak.sim.serviceAccounts();
    expect(live.map((a) => a.name).sort()).toEqual(Array.from({ length: 20 }, (_, i) => saName(i)).sort());
    expect(new Set(live.map((a) => a.name)).size).toBe(20);
    expect(soak.sim.deletedServiceAccounts()).toEqual([]);
    expect((await soak.stateIds(stack, "ServiceAccount")).sort()).toEqual(live.map((a) => a.id).sort());
    for (const a of live) expect(a.grants).toEqual([a.projectId]);
    // volumes and secrets as declared
    for (let i = 0; i < 15; i++) {
      expect(soak.sim.volume(projects[i % 3], `vol-${i}`)?.sizeGb).toBe(100 + i);
      expect(soak.sim.appSecrets(projects[i % 3], `${projects[i % 3]}-app${i}`)).toEqual({
        API_KEY: secretValues[i],
        REGION: "eu",
      });
    }
    expect(await soak.stateIds(stack, "VolumeSize")).toHaveLength(15);
    expect(await soak.stateIds(stack, "AppSecrets")).toHaveLength(15);

    // the state as stored (stack.exportStack() would decrypt the secrets: it passes --show-secrets)
    const state = JSON.stringify(exportEncrypted(stack));
    expectNoPlaintextSecrets(state, [...soak.sim.issuedSecrets(), ...secretValues], "the exported state");
    expectNoPlaintextSecrets(
      upErrors.join("\n"),
      [...soak.sim.issuedSecrets(), ...secretValues],
      "the errors of the failed runs of up",
    );
  });

  test("refresh reads only the listings and preview makes no call; neither sees a change, faults or not", async () => {
    soak.sim.clearRequests();
    const refreshed = await stack.refresh({ onOutput: soak.collect });
    expect(Object.keys(refreshed.summary.resourceChanges ?? {}).filter((k) => k !== "same")).toEqual([]);
    // The refresh's only calls: GET /v2/projects/{project_id}/api-keys (once per project, repeated only by faults).
    expect(soak.sim.requests.filter((r) => !(r.method === "GET" && r.path.endsWith("/api-keys")))).toEqual([]);
    soak.sim.clearRequests();
    const preview = await stack.preview({ onOutput: soak.collect });
    expect(preview.changeSummary).toEqual({ same: 51 });
    expect(soak.sim.requests).toEqual([]);
  });

  test("destroy leaves nothing behind: no live account, and only the 20 ever created", async () => {
    // a DELETE is retried 4 times: all five attempts failing (0.3^5 ≈ 0.2%) fails a run; run it again, 3 runs at most
    await runUntilOk("destroy", 3, () => stack.destroy({ onOutput: soak.collect }));
    expect(soak.sim.serviceAccounts()).toEqual([]);
    expect(soak.sim.deletedServiceAccounts()).toHaveLength(20);
    expect(await soak.stateIds(stack, "ServiceAccount")).toEqual([]);
    expectNoPlaintextSecrets(
      soak.printed.join("\n"),
      [...soak.sim.issuedSecrets(), ...secretValues],
      "the engine's output",
    );
  });
});

// ---- 1b. 503s on service-account creates -------------------------------------------------------------------

describe("503 on 30% of service-account creates (50 accounts)", () => {
  const COUNT = 50;
  const saPaths = (projectId: string): RegExp => new RegExp(`^/v2/projects/${projectId}/service-accounts$`);

  /** A stack of 50 ServiceAccounts in a project of their own; `names(i)` is the account name of resource i. */
  async function fleet(stackName: string, projectId: string, names: (i: number) => string): Promise<Stack> {
    soak.sim.addProject({ id: projectId });
    return soak.newStack(stackName, async () => {
      for (let i = 0; i < COUNT; i++)
        new ServiceAccount(`sa-${i}`, { projectId, name: names(i), grants: [projectId], expiresIn: 0 });
    });
  }
  afterEach(() => soak.sim.clearFaults());

  test("before the service commits: one up converges, with no duplicate", async () => {
    const projectId = "p-503b0001";
    const stack = await fleet("fail503before", projectId, (i) => `fleet-${i}`);
    soak.sim.addFault({
      method: "POST",
      path: saPaths(projectId),
      kind: "status",
      status: 503,
      probability: 0.3,
      seed: 505,
    });
    soak.sim.clearRequests();
    await stack.up({ onOutput: soak.collect }); // one run: no retry of up
    const posts = soak.sim.requests.filter((r) => r.method === "POST" && saPaths(projectId).test(r.path));
    const failed = posts.filter((r) => r.status === 503).length;
    process.stdout.write(
      `503 before commit: ${posts.length} POSTs for ${COUNT} accounts, ${failed} answered 503 and were sent again\n`,
    );
    expect(failed).toBeGreaterThan(5); // the faults really hit

    const live = soak.sim.serviceAccounts(projectId);
    expect(live).toHaveLength(COUNT); // no duplicate, no orphan
    expect(new Set(live.map((a) => a.name)).size).toBe(COUNT);
    expect((await soak.stateIds(stack, "ServiceAccount")).sort()).toEqual(live.map((a) => a.id).sort());
    soak.sim.clearFaults();
    await stack.destroy({ onOutput: soak.collect });
    expect(soak.sim.serviceAccounts(projectId)).toEqual([]);
  });

  test("after the service commits: up fails, naming every orphan and none of the stack's own accounts", async () => {
    const projectId = "p-503a0001";
    // 3 names for 50 accounts: the stack's own accounts share their name with the orphans
    const stack = await fleet("fail503after", projectId, (i) => `shared-${i % 3}`);
    soak.sim.addFault({
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
    const err = await stack.up({ onOutput: soak.collect, parallel: COUNT }).then(
      () => "",
      (e: unknown) => String(e),
    );
    soak.sim.clearFaults();
    soak.printed.push(err);
    expect(err).toMatch(/The service may have created the account anyway\. Project/);

    const own = await soak.stateIds(stack, "ServiceAccount");
    const orphans = soak.sim.serviceAccounts(projectId).filter((a) => !own.includes(a.id));
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
    expectNoPlaintextSecrets(err, soak.sim.issuedSecrets(), "the errors of up");

    // cleaning up: the orphans by hand (as the error says), then the stack; nothing is left
    const client = testClient(soak.sim);
    for (const o of orphans) await client.deleteServiceAccount(projectId, o.id);
    await stack.destroy({ onOutput: soak.collect });
    expect(soak.sim.serviceAccounts(projectId)).toEqual([]);
  });
});
