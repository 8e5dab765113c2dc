/**
 * P6: `pulumi up --parallel 64` of 500 resources of all four kinds, then `destroy`, against the simulator limited to
 * 20 requests/s (burst 20), each variant against a fresh simulator process: pulumi-pims unthrottled first (the
 * floor), then pulumi-pims and the docs-style providers throttled. Failures are counted from the state after the
 * step (goal 0), requests and refusals by the simulator (goal ≤ 5 % refused); wall time ÷ max(the same step
 * unthrottled, accepted requests ÷ rate) (goal ≤ 1.2).
 */
import type { PulumiFn, Stack } from "@pulumi/pulumi/automation";
import type { SeedPlan } from "./sim-server";
import {
  countedOp,
  loadEngine,
  loadNaive,
  loadPims,
  log,
  okOrMissed,
  QUIET,
  round,
  seconds,
  startSimProcess,
  withStack,
  type CountedOp,
  type Naive,
  type Row,
} from "./harness";

const RATE = 20;
const PARALLEL = 64;
const N = 500;
const COUNTS = { Project: 20, ServiceAccount: 380, VolumeSize: 50, AppSecrets: 50 };
const PROJECTS = ["p-bench0601", "p-bench0602"];

type Variant = "ours" | "naive";

/** One step: its time and counts, and the resources not created (up) or not deleted (destroy). */
interface ThrottledOp extends CountedOp {
  failures: number;
}

const seed = (rateLimit?: SeedPlan["rateLimit"]): SeedPlan => ({
  projects: PROJECTS,
  volumes: Array.from({ length: COUNTS.VolumeSize }, (_, i): [string, string, number] => [
    PROJECTS[i % 2],
    `vol-${i}`,
    50,
  ]),
  apps: Array.from({ length: COUNTS.AppSecrets }, (_, i): [string, string] => [PROJECTS[i % 2], `app${i}`]),
  rateLimit,
});

/** The same inputs and the same HTTP calls in both variants: one request per create and per account delete. */
function inputs(i: number) {
  const p = PROJECTS[i % 2];
  return {
    project: { name: `bench-p6-project-${i}` },
    sa: { projectId: p, name: `bench-p6-sa-${i}`, description: "", grants: [p], expiresIn: 0 },
    vol: { projectId: p, volumeId: `vol-${i}`, sizeGb: 100 },
    sec: { projectId: p, appId: `${p}-app${i}`, secrets: { API_KEY: `bench-p6-value-${i}` } },
  };
}

const oursProgram: PulumiFn = async () => {
  const pims = loadPims();
  for (let i = 0; i < COUNTS.Project; i++) new pims.Project(`project-${i}`, inputs(i).project);
  for (let i = 0; i < COUNTS.ServiceAccount; i++) new pims.ServiceAccount(`sa-${i}`, inputs(i).sa);
  for (let i = 0; i < COUNTS.VolumeSize; i++) new pims.VolumeSize(`vol-${i}`, inputs(i).vol);
  for (let i = 0; i < COUNTS.AppSecrets; i++) new pims.AppSecrets(`sec-${i}`, inputs(i).sec);
};

const naiveProgram =
  (naive: Naive): PulumiFn =>
  async () => {
    for (let i = 0; i < COUNTS.Project; i++)
      new naive.NaiveResource(naive.naiveProjectProvider, `project-${i}`, inputs(i).project);
    for (let i = 0; i < COUNTS.ServiceAccount; i++)
      new naive.NaiveResource(naive.naiveServiceAccountProvider, `sa-${i}`, inputs(i).sa);
    for (let i = 0; i < COUNTS.VolumeSize; i++)
      new naive.NaiveResource(naive.naiveVolumeSizeProvider, `vol-${i}`, inputs(i).vol);
    for (let i = 0; i < COUNTS.AppSecrets; i++)
      new naive.NaiveResource(naive.naiveAppSecretsProvider, `sec-${i}`, inputs(i).sec);
  };

/** Dynamic resources in the stack's state. */
async function inState(stack: Stack): Promise<number> {
  const st = await stack.exportStack();
  const res = (st.deployment as { resources?: Array<{ type: string }> }).resources ?? [];
  return res.filter((r) => r.type.startsWith("pulumi-nodejs:dynamic")).length;
}

/**
 * The engine's experimental switch that writes the state once, at the end, instead of after every step: only for
 * the informative rows that show what the per-step checkpoints cost (never for real stacks).
 */
const SKIP_CHECKPOINTS = { PULUMI_SKIP_CHECKPOINTS: "true" };

/** up then destroy of one variant against a fresh simulator process (throttled or not). */
async function runBoth(
  variant: Variant,
  throttled: boolean,
  env?: Record<string, string>,
): Promise<{ up: ThrottledOp; destroy: ThrottledOp }> {
  const sim = await startSimProcess(seed(throttled ? { rate: RATE, burst: RATE, retryAfter: "seconds" } : undefined));
  try {
    const program = variant === "ours" ? oursProgram : naiveProgram(loadNaive(sim.baseUrl, sim.token));
    const opts = {
      stackName: `p6${variant}`,
      projectName: "pims-bench-p6",
      program,
      baseUrl: sim.baseUrl,
      token: sim.token,
      env,
    };
    return await withStack(opts, async (stack) => {
      const quiet = { ...QUIET, parallel: PARALLEL };
      const upOp = await countedOp(sim, () => stack.up(quiet), true);
      const up = { ...upOp, failures: N - (await inState(stack)) };
      const destroyOp = await countedOp(sim, () => stack.destroy(quiet), true);
      const destroy = { ...destroyOp, failures: await inState(stack) };
      const text = (x: ThrottledOp): string =>
        `${seconds(x.ms)}, ${x.failures} failures, ${x.refused}/${x.requests} refused`;
      log(
        `P6: ${variant}${throttled ? " throttled" : " unthrottled"}${env ? " (checkpoints skipped)" : ""}: up ` +
          `${text(up)}; destroy ${text(destroy)}`,
      );
      return { up, destroy };
    });
  } finally {
    await sim.stop();
  }
}

function stepRows(step: "up" | "destroy", o: ThrottledOp, nv: ThrottledOp, base: ThrottledOp): Row[] {
  // The least the step can take: the same step unthrottled, or the accepted requests at the allowed rate.
  const floorMs = (x: ThrottledOp): number => Math.max(base.ms, ((x.requests - x.refused) / RATE) * 1000);
  const share = (x: ThrottledOp): string => `${((100 * x.refused) / Math.max(1, x.requests)).toFixed(1)} %`;
  const label = `pulumi ${step} ${N} resources, --parallel ${PARALLEL}, ${RATE} req/s`;
  const refusedShare = o.refused / Math.max(1, o.requests);
  const ratio = o.ms / floorMs(o);
  return [
    {
      id: "P6",
      measure: `${label}: failures`,
      ours: String(o.failures),
      baseline: `${nv.failures} (naive)`,
      ratio: null,
      goal: "0",
      status: okOrMissed(o.failures === 0),
      reason: o.failures === 0 ? undefined : o.error,
      raw: { ours: o, naive: nv, unthrottled: base },
    },
    {
      id: "P6",
      measure: `${label}: refused ÷ all requests`,
      ours: `${o.refused}/${o.requests}`,
      baseline: `${nv.refused}/${nv.requests} (naive)`,
      ratio: round(refusedShare, 3),
      goal: "≤ 0.05",
      status: okOrMissed(refusedShare <= 0.05),
      reason: `ours ${share(o)}, naive ${share(nv)}`,
    },
    {
      id: "P6",
      measure: `${label}: wall ÷ max(unthrottled, requests ÷ rate)`,
      ours: `${seconds(o.ms)} ÷ ${seconds(floorMs(o))}`,
      baseline: `${seconds(nv.ms)} ÷ ${seconds(floorMs(nv))} (naive)`,
      ratio: round(ratio),
      goal: "≤ 1.2",
      status: okOrMissed(ratio <= 1.2),
      reason:
        `unthrottled ${seconds(base.ms)}; naive ratio ${(nv.ms / floorMs(nv)).toFixed(2)}` +
        (nv.error ? `; naive ${step} failed: ${nv.error.slice(-200)}` : ""),
    },
  ];
}

/**
 * The throttled `up` with the engine's per-step checkpoints off, where an engine step costs the same throughout.
 * (With checkpoints, a step costs more the more resources are done: unthrottled, most creates run while the state is
 * small, while a rate limit pushes them into the part of the run where steps cost more, which the goal's floor, the
 * unthrottled `up`, does not count.) Its floor is what a perfect client could do: nothing before the engine's first
 * request, then the service's bucket (RATE at once, then RATE per second). What remains above 1 is the pacing's.
 */
function checkpointsSkippedRow(throttled: ThrottledOp): Row {
  const startMs = throttled.firstRequestMs ?? 0;
  const floorMs = startMs + (Math.max(0, throttled.requests - throttled.refused - RATE) / RATE) * 1000;
  return {
    id: "P6",
    measure:
      `(engine checkpoints skipped, PULUMI_SKIP_CHECKPOINTS) pulumi up ${N} resources: ` +
      `wall ÷ (first request + (requests − burst) ÷ rate)`,
    ours: `${seconds(throttled.ms)} ÷ ${seconds(floorMs)}`,
    baseline: `first request after ${seconds(startMs)}`,
    ratio: round(throttled.ms / floorMs),
    goal: "— (informative)",
    status: "N/A",
    reason: `${throttled.failures} failures, ${throttled.refused}/${throttled.requests} refused`,
  };
}

export async function p6(): Promise<Row[]> {
  log(
    `P6: pulumi up/destroy of ${N} resources at --parallel ${PARALLEL}, ` +
      `simulator limited to ${RATE} requests/s (burst ${RATE})`,
  );
  loadEngine();
  const baseline = await runBoth("ours", false);
  const ours = await runBoth("ours", true);
  const naive = await runBoth("naive", true);
  const skipped = await runBoth("ours", true, SKIP_CHECKPOINTS);
  return [
    ...stepRows("up", ours.up, naive.up, baseline.up),
    ...stepRows("destroy", ours.destroy, naive.destroy, baseline.destroy),
    checkpointsSkippedRow(skipped.up),
  ];
}
