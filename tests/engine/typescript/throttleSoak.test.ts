/**
 * Throttle soak, not timed: a 200-resource stack (170 ServiceAccounts in one project, 10 Projects, 10 VolumeSizes,
 * 10 AppSecrets) goes through the real engine at `parallel: 64` (what `--parallel 64` gives on a 16-core CI runner)
 * against a simulator that allows 20 requests/s per bearer token, bursts of 5, and answers 429 with
 * `Retry-After` in whole seconds beyond that.
 *
 * The engine starts up to 64 resource operations at once in the one dynamic-provider host; the host's single request
 * scheduler keeps them to its concurrency cap and paces them after the first 429, so that one `up` converges with no
 * failure and only a small share of refused requests, and one `destroy` deletes every account. A 429 means the
 * service did nothing, so a service-account POST (`POST /v2/projects/{project_id}/service-accounts`) sent again
 * after one creates no duplicate: the simulator holds exactly the accounts in the state, one per name.
 *
 * Uses the compiled package (`pulumi-pims`, as users do): needs `npm run build`, and the engine (ensureEngine()).
 * About a minute: 200 creates and 170 deletes at 20 requests/s is ≈ 20 s of requests.
 *
 * Set-up: its own, because its simulator is rate-limited (20 requests/s, bursts of 5), which the shared set-up's
 * simulators are not.
 */
import * as fs from "node:fs";
import type { Stack } from "@pulumi/pulumi/automation";
import * as pulumi from "@pulumi/pulumi";
import { AppSecrets, Project, ServiceAccount, VolumeSize } from "pulumi-pims";
import { createPimsStack, ensureEngine, tempDir } from "../../../scripts/engine";
import { E2E_TIMEOUT_MS, ENGINE_SETUP_TIMEOUT_MS, EngineOutput, resources } from "../../kit/engine/engine";
import { PimsSimulator } from "../../../simulator";
import { expectNoPlaintextSecrets } from "../../kit/secrets/secrets";

jest.setTimeout(E2E_TIMEOUT_MS);

const RATE = 20;
// A small burst: the first requests in flight together already exceed it, so the limit bites on any machine (a loaded
// one may never reach 20 requests/s).
const BURST = 5;
const PARALLEL = 64;
const ACCOUNTS = 170;
const OTHERS = 10; // of each of the three other kinds
const PROJECT_ID = "p-7420a001";
const SA_TYPE = "pulumi-nodejs:dynamic/pims:ServiceAccount";

const saName = (i: number): string => `throttled-sa-${i}`;

let sim: PimsSimulator;
let stack: Stack;
let backendDir: string;
const engine = new EngineOutput();

beforeAll(async () => {
  const engineDir = ensureEngine();
  sim = await PimsSimulator.start({ rateLimit: { rate: RATE, burst: BURST, retryAfter: "seconds" } });
  sim.addProject({ id: PROJECT_ID });
  for (let i = 0; i < OTHERS; i++) {
    sim.addVolume(PROJECT_ID, { id: `vol-${i}`, sizeGb: 50 });
    sim.addApp(PROJECT_ID, `app${i}`);
  }
  backendDir = tempDir("pims-throttle-soak-");
  stack = await createPimsStack({
    stackName: "throttled",
    projectName: "pims-throttle-soak",
    backendDir,
    baseUrl: sim.baseUrl,
    token: sim.token,
    engineDir,
    program: async () => {
      const accounts: pulumi.Output<string>[] = [];
      for (let i = 0; i < ACCOUNTS; i++) {
        const sa = new ServiceAccount(`sa-${i}`, {
          projectId: PROJECT_ID,
          name: saName(i),
          grants: [PROJECT_ID],
          expiresIn: 0,
        });
        accounts.push(sa.serviceAccountId);
      }
      for (let i = 0; i < OTHERS; i++) {
        new Project(`project-${i}`, { name: `throttled-project-${i}` });
        new VolumeSize(`vol-${i}`, { projectId: PROJECT_ID, volumeId: `vol-${i}`, sizeGb: 100 + i });
        new AppSecrets(`sec-${i}`, {
          projectId: PROJECT_ID,
          appId: `${PROJECT_ID}-app${i}`,
          secrets: { REGION: `eu-${i}` },
        });
      }
      return { serviceAccountIds: pulumi.all(accounts) };
    },
  });
}, ENGINE_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await sim?.stop();
  if (backendDir) fs.rmSync(backendDir, { recursive: true, force: true });
});

/** Requests and refusals since the last call, printed and returned. */
function takeStats(step: string): { requests: number; refused: number } {
  const { requests, refused } = sim.stats();
  sim.resetStats();
  process.stdout.write(
    `throttle soak ${step}: ${requests} requests, ${refused} refused ` +
      `(${((100 * refused) / Math.max(1, requests)).toFixed(1)} %)\n`,
  );
  return { requests, refused };
}

test(`one up of ${ACCOUNTS + 3 * OTHERS} resources, parallel ${PARALLEL}, ${RATE}/s: converges, no dupes`, async () => {
  sim.resetStats();
  const up = await stack.up({ parallel: PARALLEL, ...engine.opts });
  const { requests, refused } = takeStats("up");

  // 0 failures: every resource (and the stack itself) created in the one run
  expect(up.summary.result).toBe("succeeded");
  expect(up.summary.resourceChanges).toEqual({ create: ACCOUNTS + 3 * OTHERS + 1 });
  // the limit really bit, and few requests were refused
  expect(refused).toBeGreaterThan(0);
  expect(refused / requests).toBeLessThanOrEqual(0.1);
  // 200 creates (Project, ServiceAccount, resize, secrets PATCH: one request each) plus the refused ones, nothing more
  expect(requests).toBe(ACCOUNTS + 3 * OTHERS + refused);

  // 0 duplicates: the simulator holds one account per name, each the one in the outputs and the state, none extra
  const live = sim.serviceAccounts(PROJECT_ID);
  expect(live.map((a) => a.name).sort()).toEqual(Array.from({ length: ACCOUNTS }, (_, i) => saName(i)).sort());
  const liveIds = live.map((a) => a.id).sort();
  expect((up.outputs.serviceAccountIds.value as string[]).slice().sort()).toEqual(liveIds);
  const state = await stack.exportStack();
  expect(
    resources(state)
      .filter((r) => r.type === SA_TYPE)
      .map((r) => r.id)
      .sort(),
  ).toEqual(liveIds);
  expect(sim.deletedServiceAccounts()).toEqual([]);
  // the other kinds as declared
  expect(sim.projects().filter((p) => p.name.startsWith("throttled-project-"))).toHaveLength(OTHERS);
  for (let i = 0; i < OTHERS; i++) {
    expect(sim.volume(PROJECT_ID, `vol-${i}`)?.sizeGb).toBe(100 + i);
    expect(sim.appSecrets(PROJECT_ID, `${PROJECT_ID}-app${i}`)).toEqual({ REGION: `eu-${i}` });
  }
});

test(`one destroy at parallel ${PARALLEL} against ${RATE} requests/s deletes every account`, async () => {
  sim.resetStats();
  const destroyed = await stack.destroy({ parallel: PARALLEL, ...engine.opts });
  const { requests, refused } = takeStats("destroy");

  expect(destroyed.summary.result).toBe("succeeded");
  expect(destroyed.summary.resourceChanges).toEqual({ delete: ACCOUNTS + 3 * OTHERS + 1 });
  expect(refused / requests).toBeLessThanOrEqual(0.1);
  expect(sim.serviceAccounts()).toEqual([]);
  expect(sim.deletedServiceAccounts()).toHaveLength(ACCOUNTS); // each deleted once; none was created beyond these
  expect(resources(await stack.exportStack())).toEqual([]);
  expectNoPlaintextSecrets(engine.text(), sim.issuedSecrets(), "the engine's output");
});
