/**
 * The P7 preview probe (`npm run bench -- --only P7probe`; not part of a default run): where the no-change preview's
 * time per resource goes. The same stack of N ServiceAccounts is declared by variants of the docs-style provider
 * that each add one thing pulumi-pims has — the token as a secret output, the 11 outputs pulumi-pims keeps instead
 * of 7, every output key of its class declared (sent as a mostly undefined input: `NaiveTypedServiceAccount`, P7's
 * baseline) — and by pulumi-pims itself. Each run deploys with the engine's `PULUMI_SKIP_CHECKPOINTS` (state
 * written once, at the end: only to make the `up` that sets up the stack fast; never for real stacks) and times one
 * no-change `preview`. Every figure is informative: CPU time per resource (the program, the CLI and the provider
 * host: it hardly moves with the load of a shared machine, where wall time does) ÷ the plain docs-style provider's,
 * with wall time beside it.
 */
import { abba, loadPims, log, round, type BenchOptions, type Row } from "./harness";
import { inputs, perResource, scaleRun, type Declare, type ScaleRun } from "./p7-scale";

const PROBES: Array<[string, string, Declare]> = [
  [
    "plain7",
    "docs-style: 7 outputs, token in plaintext",
    (i, n) => new n.NaiveResource(n.naiveServiceAccountProvider, `sa-${i}`, inputs(i)),
  ],
  [
    "secret7",
    "+ token as a secret output (the fair baseline)",
    (i, n) => new n.NaiveSecretServiceAccount(`sa-${i}`, inputs(i)),
  ],
  [
    "plain11",
    "docs-style with 11 outputs, token in plaintext",
    (i, n) => new n.NaiveResource(n.naiveServiceAccountProviderAllOutputs, `sa-${i}`, inputs(i)),
  ],
  [
    "secret11",
    "11 outputs, token secret",
    (i, n) => new n.NaiveSecretServiceAccount(`sa-${i}`, inputs(i), undefined, n.naiveServiceAccountProviderAllOutputs),
  ],
  [
    "typed",
    "11 outputs, token secret, the 19 output keys of pulumi-pims' class declared (P7's baseline)",
    (i, n) => new n.NaiveTypedServiceAccount(`sa-${i}`, inputs(i)),
  ],
  ["ours", "pulumi-pims", (i) => new (loadPims().ServiceAccount)(`sa-${i}`, inputs(i))],
];

export async function p7probe({ quick }: BenchOptions): Promise<Row[]> {
  // CPU time moves little with the machine's load, so two runs each at the largest N of P7 are enough.
  const sizes = quick ? [50] : [500];
  const reps = quick ? 1 : 2;
  log(
    `P7 probe: no-change preview of N ServiceAccounts, N = ${sizes.join(", ")}, ` +
      `${PROBES.length} variants (${reps} runs each)`,
  );
  const options = { ops: ["up", "preview"] as const, env: { PULUMI_SKIP_CHECKPOINTS: "true" } };
  const runs: ScaleRun[] = [];
  for (const n of sizes) {
    for (const [i, [name, , declare]] of abba(PROBES, reps).entries())
      runs.push(await scaleRun(name, declare, n, Math.floor(i / PROBES.length) + 1, options));
  }
  const rows: Row[] = [];
  for (const n of sizes) {
    const per = (name: string, of: "ms" | "cpuMs" | "programCpuMs"): number =>
      perResource(runs, name, n, "preview", of);
    const text = (name: string): string =>
      `${per(name, "cpuMs").toFixed(2)} ms ` +
      `(program ${per(name, "programCpuMs").toFixed(2)}, wall ${per(name, "ms").toFixed(1)})`;
    for (const [name, label] of PROBES) {
      rows.push({
        id: "P7probe",
        measure: `preview (no change), ${n} ServiceAccounts, CPU ms per resource: ${label}`,
        ours: text(name),
        baseline: text("plain7"),
        ratio: round(per(name, "cpuMs") / per("plain7", "cpuMs")),
        goal: "— (informative)",
        status: "N/A",
        reason:
          `program CPU ratio ${(per(name, "programCpuMs") / per("plain7", "programCpuMs")).toFixed(2)}, ` +
          `wall ratio ${(per(name, "ms") / per("plain7", "ms")).toFixed(2)}`,
        raw: {
          preview: runs
            .filter((r) => r.variant === name && r.n === n)
            .map((r) => ({ ms: r.ms.preview, cpuMs: r.cpuMs.preview, programCpuMs: r.programCpuMs.preview })),
        },
      });
    }
  }
  return rows;
}
