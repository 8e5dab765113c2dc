/**
 * P7: `up`, a no-change `preview`, `refresh` and `destroy` of one stack of N ServiceAccounts (N = 50, 200, 500;
 * default parallelism, simulator unthrottled, in its own process), each run on a fresh `file://` backend and
 * simulator. Variants, alternating after a warm-up: pulumi-pims; the docs-style provider with the token marked
 * secret (`additionalSecretOutputs`) and the same declared output keys as pulumi-pims' class, as a careful typed
 * hand-written provider has them (the fair baseline, goal ≤ 1.05 in time per resource at every N); without the
 * declared keys, token secret (informative); as the docs show it, token in plaintext (informative). Also how time
 * per resource grows from the smallest to the largest N.
 */
import type { PulumiFn } from "@pulumi/pulumi/automation";
import type { Kind } from "../provider/kindDeclaration";
import { SERVICE_ACCOUNT } from "../provider/serviceAccount/kind";
import {
  abba,
  countedOp,
  loadNaive,
  loadPims,
  log,
  median,
  okOrMissed,
  plannedChanges,
  QUIET,
  round,
  seconds,
  startSimProcess,
  withStack,
  type BenchOptions,
  type Naive,
  type Row,
} from "./harness";

export type StackOp = "up" | "preview" | "refresh" | "destroy";
const STACK_OPS: StackOp[] = ["up", "preview", "refresh", "destroy"];
const PROJECTS = ["p-bench0701", "p-bench0702"];

/** How one variant declares resource `i` of the stack (given the docs-style module loaded for the run's simulator). */
export type Declare = (i: number, naive: Naive) => void;

/** The inputs of ServiceAccount `i`: the same in every variant. */
export function inputs(i: number) {
  const p = PROJECTS[i % 2];
  return { projectId: p, name: `bench-p7-sa-${i}`, description: "", grants: [p], expiresIn: 0 };
}

const VARIANTS = {
  ours: (i) => new (loadPims().ServiceAccount)(`sa-${i}`, inputs(i)),
  naiveTyped: (i, naive) => new naive.NaiveTypedServiceAccount(`sa-${i}`, inputs(i)),
  naiveSecret: (i, naive) => new naive.NaiveSecretServiceAccount(`sa-${i}`, inputs(i)),
  naive: (i, naive) => new naive.NaiveResource(naive.naiveServiceAccountProvider, `sa-${i}`, inputs(i)),
} satisfies Record<string, Declare>;
type Variant = keyof typeof VARIANTS;

/** The baseline of the goal; the other docs-style variants are informative rows. */
const BASELINE: Variant = "naiveTyped";
const INFORMATIVE: readonly Variant[] = ["naiveSecret", "naive"];

const LABEL: Record<Variant, string> = {
  ours: "pulumi-pims",
  naiveTyped: "docs-style, secret token, same declared outputs",
  naiveSecret: "docs-style, secret token",
  naive: "docs-style, plaintext token",
};

export interface ScaleRun {
  variant: string;
  n: number;
  /** Wall time of each operation, ms. */
  ms: Partial<Record<StackOp, number>>;
  /** CPU time of each operation (the program, the CLI and what it waited for), ms. */
  cpuMs: Partial<Record<StackOp, number>>;
  /** The part of it in the program (this process: the inline program and the Automation API), ms. */
  programCpuMs: Partial<Record<StackOp, number>>;
  /** Requests the simulator received during each operation. */
  requests: Partial<Record<StackOp, number>>;
}

/** What {@link scaleRun} does: which operations it times, and more environment for the engine (e.g. for `up`). */
export interface ScaleRunOptions {
  ops: readonly StackOp[];
  env?: Record<string, string>;
}

/** One stack of N resources declared by `declare`, on a fresh backend and simulator: each of `ops` in order, timed. */
export async function scaleRun(
  variant: string,
  declare: Declare,
  n: number,
  rep: number,
  options: ScaleRunOptions = { ops: STACK_OPS },
): Promise<ScaleRun> {
  const sim = await startSimProcess({ projects: PROJECTS });
  try {
    const naive = loadNaive(sim.baseUrl, sim.token);
    const program: PulumiFn = async () => {
      for (let i = 0; i < n; i++) declare(i, naive);
    };
    const opts = {
      stackName: `p7${variant}${n}r${rep}`,
      projectName: "pims-bench-p7",
      program,
      baseUrl: sim.baseUrl,
      token: sim.token,
      env: options.env,
    };
    return await withStack(opts, async (stack) => {
      const steps: Record<StackOp, () => Promise<unknown>> = {
        up: async () => {
          const created = (await stack.up(QUIET)).summary.resourceChanges?.create ?? 0;
          if (created !== n + 1)
            throw new Error(`P7 ${variant} N=${n}: up created ${created} resources instead of ${n + 1}`);
        },
        preview: async () => {
          const r = await stack.preview(QUIET);
          if (plannedChanges(r.changeSummary) > 0)
            throw new Error(`P7 ${variant} N=${n}: the no-change preview planned ${JSON.stringify(r.changeSummary)}`);
        },
        refresh: () => stack.refresh(QUIET),
        destroy: () => stack.destroy(QUIET),
      };
      const run: ScaleRun = { variant, n, ms: {}, cpuMs: {}, programCpuMs: {}, requests: {} };
      for (const op of options.ops) {
        const { ms, cpuMs, programCpuMs, requests } = await countedOp(sim, steps[op]);
        [run.ms[op], run.cpuMs[op], run.programCpuMs[op], run.requests[op]] = [ms, cpuMs, programCpuMs, requests];
      }
      // A stack that still has resources (the probe does not destroy) goes with its backend directory.
      if (options.ops.includes("destroy")) await stack.workspace.removeStack(stack.name);
      const text = (op: StackOp): string =>
        `${op} ${seconds(run.ms[op] ?? 0)}, CPU ${seconds(run.cpuMs[op] ?? 0)} (${run.requests[op]} req)`;
      log(`P7: ${variant} N=${n}: ${options.ops.map(text).join(", ")}`);
      return run;
    });
  } finally {
    await sim.stop();
  }
}

/** Median time per resource of `variant` at N for `op`, ms: wall time, or CPU time (all, or the program's). */
export function perResource(
  runs: ScaleRun[],
  variant: string,
  n: number,
  op: StackOp,
  of: "ms" | "cpuMs" | "programCpuMs" = "ms",
): number {
  return median(runs.filter((r) => r.variant === variant && r.n === n).map((r) => r[of][op] ?? NaN)) / n;
}

function ratioRows(runs: ScaleRun[], op: StackOp, n: number): Row[] {
  const of = (v: Variant): number => perResource(runs, v, n, op);
  const times = (v: Variant): number[] => runs.filter((r) => r.variant === v && r.n === n).map((r) => r.ms[op] ?? NaN);
  const reqs = (v: Variant): number => runs.find((r) => r.variant === v && r.n === n)?.requests[op] ?? 0;
  const label = `pulumi ${op === "preview" ? "preview (no change)" : op}, ${n} ServiceAccounts: ms per resource`;
  const ratio = of("ours") / of(BASELINE);
  const cpu = (of: "cpuMs" | "programCpuMs"): Record<string, number> =>
    Object.fromEntries(Object.keys(VARIANTS).map((v) => [v, perResource(runs, v, n, op, of)]));
  // CPU time beside the wall time: on a shared machine it moves less with the load, so it tells a disturbed run.
  const withCpu = (v: Variant): string =>
    `${of(v).toFixed(1)} ms (CPU ${perResource(runs, v, n, op, "cpuMs").toFixed(1)})`;
  return [
    {
      id: "P7",
      measure: `${label} ÷ ${LABEL[BASELINE]}`,
      ours: withCpu("ours"),
      baseline: withCpu(BASELINE),
      ratio: round(ratio),
      goal: "≤ 1.05",
      status: okOrMissed(ratio <= 1.05),
      reason:
        ratio <= 1.05 ? undefined : `requests ours ${reqs("ours")}, docs-style ${reqs(BASELINE)}: see bench/README.md`,
      raw: {
        ...Object.fromEntries(Object.keys(VARIANTS).map((v) => [v, times(v as Variant)])),
        cpuMsPerResource: cpu("cpuMs"),
        programCpuMsPerResource: cpu("programCpuMs"),
      },
    },
    ...INFORMATIVE.map((v): Row => ({
      id: "P7",
      measure: `(${LABEL[v]}) ${label}`,
      ours: `${of("ours").toFixed(1)} ms`,
      baseline: `${of(v).toFixed(1)} ms`,
      ratio: round(of("ours") / of(v)),
      goal: "— (informative)",
      status: "N/A",
    })),
  ];
}

/** Time per resource at the largest N ÷ at the smallest; 1.0 would be linear. Informative. */
function growthRow(runs: ScaleRun[], op: StackOp, lo: number, hi: number): Row {
  const growth = (v: Variant): number => perResource(runs, v, hi, op) / perResource(runs, v, lo, op);
  return {
    id: "P7",
    measure: `${op}: ms per resource at N=${hi} ÷ at N=${lo} (1.0 = linear)`,
    ours: growth("ours").toFixed(2),
    baseline: [BASELINE, ...INFORMATIVE].map((v) => `${growth(v).toFixed(2)} (${LABEL[v]})`).join(", "),
    ratio: round(growth("ours") / growth(BASELINE)),
    goal: "— (informative)",
    status: "N/A",
  };
}

/**
 * P7's self-check, before any timing: the fair baseline declares exactly the outputs the kind declares (its class's
 * output keys), and marks the same secrets. Each difference, named; none: the baseline is fair. The unit tier runs it
 * (tests/unit/tooling/bench.test.ts), so a new output of the kind cannot stop the measure unnoticed.
 */
export function p7BaselineProblems(
  naive: Pick<Naive, "TYPED_SERVICE_ACCOUNT_OUTPUT_KEYS" | "TYPED_SERVICE_ACCOUNT_SECRETS">,
  kind: Pick<Kind, "outputKeys" | "secret"> = SERVICE_ACCOUNT,
): string[] {
  const declared = new Set(naive.TYPED_SERVICE_ACCOUNT_OUTPUT_KEYS);
  const secrets = new Set(naive.TYPED_SERVICE_ACCOUNT_SECRETS);
  return [
    ...kind.outputKeys.filter((k) => !declared.has(k)).map((k) => `${k} is not declared`),
    ...[...declared].filter((k) => !kind.outputKeys.includes(k)).map((k) => `${k} is not an output of the kind`),
    ...kind.secret.filter((k) => !secrets.has(k)).map((k) => `${k} is not secret`),
    ...[...secrets].filter((k) => !kind.secret.includes(k)).map((k) => `${k} is secret only in the baseline`),
  ];
}

export async function p7({ quick }: BenchOptions): Promise<Row[]> {
  const sizes = quick ? [50, 200] : [50, 200, 500];
  // Runs per variant and size, alternating which variant goes first (the engine's time is noisy on 2 cores).
  const reps = quick ? 1 : 2;
  const variants = Object.keys(VARIANTS) as Variant[];
  const problems = p7BaselineProblems(loadNaive("http://127.0.0.1:1", "unused"));
  if (problems.length > 0) throw new Error(`P7: the baseline is not ServiceAccount's: ${problems.join("; ")}`);
  log(
    `P7: up / no-change preview / refresh / destroy of N ServiceAccounts, N = ${sizes.join(", ")}, ` +
      `${variants.join(" vs ")} (${reps} runs each)`,
  );
  log("P7: warm-up runs");
  for (const v of variants) await scaleRun(v, VARIANTS[v], 10, 0);
  const runs: ScaleRun[] = [];
  for (const n of sizes) {
    for (const [i, v] of abba(variants, reps).entries())
      runs.push(await scaleRun(v, VARIANTS[v], n, Math.floor(i / variants.length) + 1));
  }
  const rows: Row[] = [];
  for (const op of STACK_OPS) for (const n of sizes) rows.push(...ratioRows(runs, op, n));
  for (const op of STACK_OPS) rows.push(growthRow(runs, op, sizes[0], sizes[sizes.length - 1]));
  return rows;
}
