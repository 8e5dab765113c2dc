/**
 * P7floor (issue 53): the engine's floor. P7's stacks of N ServiceAccounts (N = 50, 200, 500; `up`, a no-change
 * `preview`, `refresh`, `destroy`, each on a fresh `file://` backend and simulator) with pulumi-pims ÷ the same
 * program with a provider that answers every call at once with the same declared outputs and makes no request
 * (bench/floor.ts): what the engine and the Node SDK charge every provider. Printed per operation and N: the ratio of
 * ms per resource, and pims' own share (pims − floor, ms per resource), with CPU time beside (the program, the CLI
 * and what it waited for: the language and provider hosts). Goal: pims' own share ≤ 30 % of the floor at N = 500.
 * Only with `--only P7floor` (about 20–45 minutes on 2 loaded cores).
 */
import { floorServiceAccount } from "./floor";
import { loadNaive, loadPims, log, okOrMissed, round, abba, type BenchOptions, type Row } from "./harness";
import {
  inputs,
  p7BaselineProblems,
  perResource,
  scaleRun,
  type Declare,
  type ScaleRun,
  type StackOp,
} from "./p7-scale";

const OPS: StackOp[] = ["up", "preview", "refresh", "destroy"];

const VARIANTS = {
  ours: (i) => new (loadPims().ServiceAccount)(`sa-${i}`, inputs(i)),
  floor: (i) => floorServiceAccount(`sa-${i}`, inputs(i)),
} satisfies Record<string, Declare>;
type Variant = keyof typeof VARIANTS;

/** pims' own share ÷ the floor at the goal's N. */
const GOAL_SHARE = 0.3;

function floorRow(runs: ScaleRun[], op: StackOp, n: number, goalN: number): Row {
  const wall = (v: Variant): number => perResource(runs, v, n, op);
  const cpu = (v: Variant): number => perResource(runs, v, n, op, "cpuMs");
  const ratio = wall("ours") / wall("floor");
  const own = wall("ours") - wall("floor");
  const ownCpu = cpu("ours") - cpu("floor");
  const label = op === "preview" ? "preview (no change)" : op;
  const atGoal = n === goalN;
  return {
    id: "P7floor",
    measure:
      `pulumi ${label}, ${n} ServiceAccounts: ms per resource ÷ the floor; pims' own share ` +
      `${own.toFixed(1)} ms = ${((own / wall("floor")) * 100).toFixed(0)} % (CPU ${ownCpu.toFixed(1)} ms = ` +
      `${((ownCpu / cpu("floor")) * 100).toFixed(0)} %)`,
    ours: `${wall("ours").toFixed(1)} ms (CPU ${cpu("ours").toFixed(1)})`,
    baseline: `${wall("floor").toFixed(1)} ms (CPU ${cpu("floor").toFixed(1)})`,
    ratio: round(ratio),
    goal: atGoal ? `own share ≤ ${GOAL_SHARE * 100} % (≤ ${(1 + GOAL_SHARE).toFixed(2)})` : "— (informative)",
    status: atGoal ? okOrMissed(own <= GOAL_SHARE * wall("floor")) : "N/A",
    raw: {
      msPerResource: { ours: wall("ours"), floor: wall("floor") },
      cpuMsPerResource: { ours: cpu("ours"), floor: cpu("floor") },
      programCpuMsPerResource: {
        ours: perResource(runs, "ours", n, op, "programCpuMs"),
        floor: perResource(runs, "floor", n, op, "programCpuMs"),
      },
      ownMsPerResource: own,
      ownCpuMsPerResource: ownCpu,
      runs: runs.filter((r) => r.n === n).map((r) => ({ variant: r.variant, ms: r.ms[op], cpuMs: r.cpuMs[op] })),
    },
  };
}

export async function p7floor({ quick }: BenchOptions): Promise<Row[]> {
  // PIMS_BENCH_FLOOR_SIZES (e.g. "500") and PIMS_BENCH_FLOOR_REPS narrow a run to fit a loaded machine's time.
  const sizes = process.env.PIMS_BENCH_FLOOR_SIZES?.split(",").map(Number) ?? (quick ? [20, 50] : [50, 200, 500]);
  const reps = Number(process.env.PIMS_BENCH_FLOOR_REPS ?? (quick ? 1 : 2));
  const variants = Object.keys(VARIANTS) as Variant[];
  // The floor declares its outputs through P7's baseline class: the same self-check.
  const problems = p7BaselineProblems(loadNaive("http://127.0.0.1:1", "unused"));
  if (problems.length > 0)
    throw new Error(`P7floor: the floor's outputs are not ServiceAccount's: ${problems.join("; ")}`);
  log(`P7floor: N = ${sizes.join(", ")}, pulumi-pims vs the floor (${reps} runs each, alternating)`);
  for (const v of variants) await scaleRun(`floor${v}`, VARIANTS[v], 10, 0);
  const runs: ScaleRun[] = [];
  for (const n of sizes) {
    for (const [i, v] of abba(variants, reps).entries()) {
      const run = await scaleRun(`floor${v}`, VARIANTS[v], n, Math.floor(i / variants.length) + 1);
      runs.push({ ...run, variant: v });
    }
  }
  const problemRuns = runs.filter((r) => r.variant === "floor" && OPS.some((op) => (r.requests[op] ?? 0) > 0));
  if (problemRuns.length > 0) throw new Error("P7floor: the floor made requests to the simulator");
  return OPS.flatMap((op) => sizes.map((n) => floorRow(runs, op, n, sizes[sizes.length - 1])));
}
