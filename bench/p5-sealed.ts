/**
 * P5s: what sealing costs (issues 47, 53). The P5 stack (bench/p5-stack-up.ts: 20 ServiceAccounts, 15 VolumeSizes, 15
 * AppSecrets) `pulumi up` with every ServiceAccount's token sealed to an age recipient (`tokenDelivery.ageRecipients`)
 * ÷ the same stack with the tokens held (the default), in 5 pairs, the order alternating (ABBA) after a warm-up run of
 * each. A figure load cannot decide: CPU time, the median of the 5 pairs' ratios: of the whole `up` (the inline
 * program, the CLI and every process it waited for: the goal, ≤ 1.05), and beside it of the provider host processes
 * (bench/provider-cpu.ts: where sealing runs) and of the rest (the engine); wall time is informative. The sealed runs'
 * states must hold no issued token. Also sealing's own CPU time in a fresh Node process.
 */
import { execFileSync } from "node:child_process";
import type { PulumiFn } from "@pulumi/pulumi/automation";
import { abba, loadEngine, loadPims, log, median, okOrMissed, REPO, round, seconds } from "./harness";
import type { BenchOptions, Row } from "./harness";
import { plan, p5Simulator, runOnce, type UpRun } from "./p5-stack-up";
import { providerCpuProbe } from "./provider-cpu";

type Variant = "sealed" | "held";

/** An age X25519 recipient (its identity is thrown away: nobody opens these tokens). */
async function benchRecipient(): Promise<string> {
  const age = require("age-encryption") as typeof import("age-encryption");
  return age.identityToRecipient(await age.generateX25519Identity());
}

/**
 * Sealing's own cost as the provider process pays it, in a fresh Node process: loading age-encryption, then sealing
 * 20 tokens to the recipient one after another (what the P5 stack's creates add), in ms of CPU time.
 */
function sealingCostMs(recipient: string): number {
  const script = `
    const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
    const t0 = cpu();
    const age = require("age-encryption");
    (async () => {
      for (let i = 0; i < 20; i++) {
        const e = new age.Encrypter();
        e.addRecipient(${JSON.stringify(recipient)});
        age.armor.encode(await e.encrypt("pims_sa_" + "0123456789abcdef".repeat(3)));
      }
      process.stdout.write(String(cpu() - t0));
    })();`;
  return Number(execFileSync(process.execPath, ["-e", script], { cwd: REPO, encoding: "utf8" }));
}

function programs(recipient: string): Record<Variant, PulumiFn> {
  const pims = loadPims();
  const stack =
    (sealed: boolean): PulumiFn =>
    async () => {
      const tokenDelivery = sealed ? { ageRecipients: [recipient] } : undefined;
      for (let i = 0; i < 20; i++) new pims.ServiceAccount(`sa-${i}`, { ...plan(i).sa, tokenDelivery });
      for (let i = 0; i < 15; i++) new pims.VolumeSize(`vol-${i}`, plan(i).vol);
      for (let i = 0; i < 15; i++) new pims.AppSecrets(`sec-${i}`, plan(i).sec);
    };
  return { sealed: stack(true), held: stack(false) };
}

/** What is compared for each pair: CPU time of the whole `up`, of its provider processes, of the rest; wall time. */
const FIGURES = {
  cpu: (r: UpRun) => r.upCpuMs,
  providerCpu: (r: UpRun) => r.upProviderCpuMs ?? NaN,
  engineCpu: (r: UpRun) => r.upCpuMs - (r.upProviderCpuMs ?? NaN),
  wall: (r: UpRun) => r.upMs,
} satisfies Record<string, (r: UpRun) => number>;
type Figure = keyof typeof FIGURES;

/** The runs in pairs (one sealed, one held: the ABBA order's consecutive two), and the median of each figure. */
function pairFigures(runs: UpRun[]): Record<Figure, { sealed: number; held: number; ratio: number }> {
  const pairs: Array<{ sealed: UpRun; held: UpRun }> = [];
  for (let i = 0; i + 1 < runs.length; i += 2) {
    const two = [runs[i], runs[i + 1]];
    const sealed = two.find((r) => r.variant === "sealed");
    const held = two.find((r) => r.variant === "held");
    if (sealed && held) pairs.push({ sealed, held });
  }
  const of = (f: Figure) => ({
    sealed: median(pairs.map((p) => FIGURES[f](p.sealed))),
    held: median(pairs.map((p) => FIGURES[f](p.held))),
    ratio: median(pairs.map((p) => FIGURES[f](p.sealed) / FIGURES[f](p.held))),
  });
  return { cpu: of("cpu"), providerCpu: of("providerCpu"), engineCpu: of("engineCpu"), wall: of("wall") };
}

export async function p5sealed({ quick }: BenchOptions): Promise<Row[]> {
  const reps = quick ? 1 : 5;
  log(`P5s: pulumi up of the P5 stack, tokens sealed vs held (${reps} pairs after one warm-up each)`);
  loadEngine();
  const sim = await p5Simulator();
  const probe = providerCpuProbe();
  const recipient = await benchRecipient();
  const program = programs(recipient);
  try {
    await runOnce(sim, program.sealed, "sealed", 0, probe);
    await runOnce(sim, program.held, "held", 0, probe);
    const runs: UpRun[] = [];
    for (const [i, v] of abba<Variant>(["sealed", "held"], reps).entries()) {
      const r = await runOnce(sim, program[v], `${v}s`, i + 1, probe);
      log(
        `P5s: ${v} up ${r.upMs.toFixed(0)} ms, CPU ${r.upCpuMs.toFixed(0)} ms ` +
          `(providers ${r.upProviderCpuMs?.toFixed(0)} ms), ${r.upCalls} calls`,
      );
      runs.push({ ...r, variant: v });
    }
    const f = pairFigures(runs);
    const costs = Array.from({ length: reps }, () => sealingCostMs(recipient));
    const cost = median(costs) / f.cpu.held;
    const leaks = runs.filter((r) => r.variant === "sealed").reduce((n, r) => n + r.plaintextSecretsInState, 0);
    const ms = (x: number): string => `${x.toFixed(0)} ms`;
    const informative = (measure: string, figure: Figure, text = ms): Row => ({
      id: "P5s",
      measure,
      ours: text(f[figure].sealed),
      baseline: text(f[figure].held),
      ratio: round(f[figure].ratio),
      goal: "— (informative)",
      status: "N/A",
    });
    return [
      {
        id: "P5s",
        measure:
          "pulumi up of the P5 stack, the 20 tokens sealed (age) ÷ held: CPU time of the program, the engine and the " +
          `provider hosts (median of ${reps} pairs' ratios)`,
        ours: ms(f.cpu.sealed),
        baseline: ms(f.cpu.held),
        ratio: round(f.cpu.ratio),
        goal: "≤ 1.05",
        status: okOrMissed(f.cpu.ratio <= 1.05 && leaks === 0),
        reason: leaks > 0 ? `${leaks} secrets readable in the sealed runs' states` : undefined,
        raw: { runs, pairs: f },
      },
      informative("(also) the same, CPU time of the provider host processes (where sealing runs)", "providerCpu"),
      informative("(also) the same, CPU time of the rest: the program and the engine", "engineCpu"),
      informative("(also) the same, wall time", "wall", (x) => seconds(x, 2)),
      {
        id: "P5s",
        measure:
          "(also) sealing's own CPU time in a fresh process (load age-encryption, seal 20 tokens) ÷ the held up's",
        ours: ms(median(costs)),
        baseline: ms(f.cpu.held),
        ratio: round(cost),
        goal: "≤ 0.05",
        status: okOrMissed(cost <= 0.05),
        raw: { costs },
      },
    ];
  } finally {
    probe.dispose();
    await sim.stop();
  }
}
