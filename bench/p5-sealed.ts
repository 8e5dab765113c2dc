/**
 * P5s: what sealing costs (issue 47). The P5 stack (bench/p5-stack-up.ts: 20 ServiceAccounts, 15 VolumeSizes, 15
 * AppSecrets) `pulumi up` with every ServiceAccount's token sealed to an age recipient (`tokenDelivery.ageRecipients`)
 * ÷ the same stack with the tokens held (the default), alternating (ABBA) after a warm-up run of each; the median
 * `stack.up()` of each. Goal: sealing adds at most 5 % (≤ 1.05). The sealed runs' states must hold no issued token.
 */
import { execFileSync } from "node:child_process";
import type { PulumiFn } from "@pulumi/pulumi/automation";
import { abba, loadEngine, loadPims, log, median, okOrMissed, REPO, round, seconds } from "./harness";
import type { BenchOptions, Row } from "./harness";
import { plan, p5Simulator, runOnce, type UpRun } from "./p5-stack-up";

type Variant = "sealed" | "held";

/** An age X25519 recipient (its identity is thrown away: nobody opens these tokens). */
async function benchRecipient(): Promise<string> {
  const age = require("age-encryption") as typeof import("age-encryption");
  return age.identityToRecipient(await age.generateX25519Identity());
}

/**
 * Sealing's own cost as the provider process pays it, in a fresh Node process: loading age-encryption, then sealing
 * 20 tokens to the recipient one after another (what the P5 stack's creates add), in ms. Less noisy than two whole ups
 * on a loaded machine.
 */
function sealingCostMs(recipient: string): number {
  const script = `
    const t0 = performance.now();
    const age = require("age-encryption");
    (async () => {
      for (let i = 0; i < 20; i++) {
        const e = new age.Encrypter();
        e.addRecipient(${JSON.stringify(recipient)});
        age.armor.encode(await e.encrypt("pims_sa_" + "0123456789abcdef".repeat(3)));
      }
      process.stdout.write(String(performance.now() - t0));
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

export async function p5sealed({ quick }: BenchOptions): Promise<Row[]> {
  const reps = quick ? 1 : 5;
  log(`P5s: pulumi up of the P5 stack, tokens sealed vs held (${reps} timed runs each after one warm-up each)`);
  loadEngine();
  const sim = await p5Simulator();
  const recipient = await benchRecipient();
  const program = programs(recipient);
  try {
    await runOnce(sim, program.sealed, "sealed", 0);
    await runOnce(sim, program.held, "held", 0);
    const runs: UpRun[] = [];
    for (const [i, v] of abba<Variant>(["sealed", "held"], reps).entries()) {
      const r = await runOnce(sim, program[v], `${v}s`, i + 1);
      log(`P5s: ${v} up ${r.upMs.toFixed(0)} ms, ${r.upCalls} calls`);
      runs.push({ ...r, variant: v });
    }
    const med = (v: Variant): number => median(runs.filter((r) => r.variant === v).map((r) => r.upMs));
    const ratio = med("sealed") / med("held");
    const costs = Array.from({ length: reps }, () => sealingCostMs(recipient));
    const cost = median(costs) / med("held");
    const leaks = runs.filter((r) => r.variant === "sealed").reduce((n, r) => n + r.plaintextSecretsInState, 0);
    return [
      {
        id: "P5s",
        measure: "pulumi up of the P5 stack, the 20 tokens sealed (age) ÷ held as secrets",
        ours: seconds(med("sealed"), 2),
        baseline: seconds(med("held"), 2),
        ratio: round(ratio),
        goal: "≤ 1.05",
        status: okOrMissed(ratio <= 1.05 && leaks === 0),
        reason: leaks > 0 ? `${leaks} secrets readable in the sealed runs' states` : undefined,
        raw: { runs },
      },
      {
        id: "P5s",
        measure: "(also) sealing's own cost in a fresh process (load age-encryption, seal 20 tokens) ÷ the held up",
        ours: `${median(costs).toFixed(0)} ms`,
        baseline: seconds(med("held"), 2),
        ratio: round(cost),
        goal: "≤ 0.05",
        status: okOrMissed(cost <= 0.05),
        raw: { costs },
      },
    ];
  } finally {
    await sim.stop();
  }
}
