/**
 * P5: `pulumi up` of 50 resources (20 ServiceAccounts, 15 VolumeSizes, 15 AppSecrets) with the same inputs into a
 * fresh stack (`file://` backend) through the Automation API, once with pulumi-pims and once with the docs-style
 * providers, alternating (ABBA) after a warm-up run of each; the median `stack.up()` ÷ the baseline's (goal ≤ 1.0).
 * Each run then previews (0 calls, no change), exports the state as stored (which also gives P1's sizes from real
 * state and the secrets readable in it), and destroys.
 */
import { execFileSync } from "node:child_process";
import * as path from "node:path";
import type { PulumiFn, Stack } from "@pulumi/pulumi/automation";
import {
  abba,
  cpuMs,
  loadEngine,
  loadNaive,
  loadPims,
  log,
  median,
  now,
  okOrMissed,
  plannedChanges,
  QUIET,
  round,
  seconds,
  withStack,
  type BenchOptions,
  type Row,
} from "./harness";
import { PimsSimulator } from "../simulator";
import type { AppSecretsArgs, ServiceAccountArgs, VolumeSizeArgs } from "../sdk/nodejs";
import type { ProviderCpuProbe } from "./provider-cpu";

type Variant = "ours" | "naive";

export interface UpRun {
  variant: string;
  upMs: number;
  /** CPU time of the `up`: this process (the inline program) and the CLI with what it waited for, ms. */
  upCpuMs: number;
  /** The part of it in the provider host processes, ms (with a {@link ProviderCpuProbe}). */
  upProviderCpuMs?: number;
  destroyMs: number;
  upCalls: number;
  previewCalls: number;
  previewChanges: number;
  providerBytes: Record<string, number>;
  tokenInStatePlaintext: boolean;
  /** Issued tokens (the provider's and the service accounts') and AppSecrets values in plaintext in the state. */
  plaintextSecretsInState: number;
}

export const PROJECTS = ["p-bench0051", "p-bench0052"];

/** 20 ServiceAccounts, 15 VolumeSizes, 15 AppSecrets: the same inputs and the same HTTP calls in both variants. */
export function plan(i: number): {
  sa: ServiceAccountArgs;
  vol: VolumeSizeArgs;
  sec: AppSecretsArgs & { secrets: Record<string, string> };
} {
  const p = PROJECTS[i % 2];
  return {
    sa: { projectId: p, name: `bench-sa-${i}`, description: "", grants: [p], expiresIn: 0 },
    vol: { projectId: p, volumeId: `vol-${i}`, sizeGb: 100 },
    sec: { projectId: p, appId: `${p}-app${i}`, secrets: { API_KEY: `bench-secret-value-${i}` } },
  };
}

function programs(sim: PimsSimulator): Record<Variant, PulumiFn> {
  const pims = loadPims();
  const naive = loadNaive(sim.baseUrl, sim.token);
  return {
    ours: async () => {
      for (let i = 0; i < 20; i++) new pims.ServiceAccount(`sa-${i}`, plan(i).sa);
      for (let i = 0; i < 15; i++) new pims.VolumeSize(`vol-${i}`, plan(i).vol);
      for (let i = 0; i < 15; i++) new pims.AppSecrets(`sec-${i}`, plan(i).sec);
    },
    naive: async () => {
      for (let i = 0; i < 20; i++) new naive.NaiveResource(naive.naiveServiceAccountProvider, `sa-${i}`, plan(i).sa);
      for (let i = 0; i < 15; i++) new naive.NaiveResource(naive.naiveVolumeSizeProvider, `vol-${i}`, plan(i).vol);
      for (let i = 0; i < 15; i++) new naive.NaiveResource(naive.naiveAppSecretsProvider, `sec-${i}`, plan(i).sec);
    },
  };
}

/** The state as stored (`pulumi stack export`; the Automation API's exportStack() would decrypt secrets). */
function storedState(stack: Stack): string {
  const ws = stack.workspace as unknown as { workDir: string; envVars: Record<string, string> };
  return execFileSync(
    path.join(loadEngine().ensureEngine(), "pulumi"),
    ["stack", "export", "--stack", stack.name, "--non-interactive"],
    {
      cwd: ws.workDir,
      env: { ...process.env, ...ws.envVars },
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    },
  );
}

/** The largest `__provider` per resource kind in a stored state, in bytes. */
function providerBytes(stateText: string): Record<string, number> {
  const state = JSON.parse(stateText) as {
    deployment: { resources?: Array<{ urn: string; inputs?: Record<string, unknown> }> };
  };
  const bytes: Record<string, number> = {};
  for (const r of state.deployment.resources ?? []) {
    const p = r.inputs?.__provider;
    if (typeof p !== "string") continue;
    const name = r.urn.split("::").pop() ?? "";
    const kind = name.startsWith("sa-") ? "ServiceAccount" : name.startsWith("vol-") ? "VolumeSize" : "AppSecrets";
    bytes[kind] = Math.max(bytes[kind] ?? 0, Buffer.byteLength(p));
  }
  return bytes;
}

/**
 * One timed `up` of the P5 stack into a fresh stack, then preview, export and destroy (also bench/p5-sealed.ts, with
 * `probe` for the provider processes' CPU time of the `up`).
 */
export async function runOnce(
  sim: PimsSimulator,
  program: PulumiFn,
  variant: string,
  n: number,
  probe?: ProviderCpuProbe,
): Promise<UpRun> {
  const opts = {
    stackName: `${variant}${n}`,
    projectName: "pims-bench",
    program,
    baseUrl: sim.baseUrl,
    token: sim.token,
    env: probe?.env,
  };
  return withStack(opts, async (stack) => {
    sim.clearRequests();
    probe?.reset();
    const cpu0 = cpuMs();
    let t0 = now();
    const up = await stack.up(QUIET);
    const [upMs, cpu] = [now() - t0, cpuMs()];
    const upCpuMs = cpu.self + cpu.children - cpu0.self - cpu0.children;
    const upProviderCpuMs = probe?.take().ms;
    const upCalls = sim.requests.length;
    const created = up.summary.resourceChanges?.create ?? 0;
    if (created !== 51)
      throw new Error(`P5 ${variant}: up created ${created} resources instead of 51 (50 + the stack)`);
    sim.clearRequests();
    const preview = await stack.preview(QUIET);
    const previewCalls = sim.requests.length;
    const stateText = storedState(stack);
    t0 = now();
    await stack.destroy(QUIET);
    const destroyMs = now() - t0;
    await stack.workspace.removeStack(stack.name);
    const secrets = [...sim.issuedSecrets(), ...Array.from({ length: 15 }, (_, i) => plan(i).sec.secrets.API_KEY)];
    return {
      ...{
        variant,
        upMs,
        upCpuMs,
        upProviderCpuMs,
        destroyMs,
        upCalls,
        previewCalls,
        previewChanges: plannedChanges(preview.changeSummary),
      },
      providerBytes: providerBytes(stateText),
      tokenInStatePlaintext: stateText.includes(sim.token),
      plaintextSecretsInState: secrets.filter((x) => stateText.includes(x)).length,
    };
  });
}

function timeRows(runs: UpRun[]): Row[] {
  const of = (v: Variant): UpRun[] => runs.filter((r) => r.variant === v);
  const med = (v: Variant, key: "upMs" | "destroyMs"): number => median(of(v).map((r) => r[key]));
  const ratio = med("ours", "upMs") / med("naive", "upMs");
  const spread = (xs: number[]): string => `${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)} ms`;
  return [
    {
      id: "P5",
      measure: "pulumi up, 50 resources (20 SA, 15 VolumeSize, 15 AppSecrets)",
      ours: seconds(med("ours", "upMs"), 2),
      baseline: seconds(med("naive", "upMs"), 2),
      ratio: round(ratio),
      goal: "≤ 1.0",
      status: okOrMissed(ratio <= 1.0),
      reason:
        ratio <= 1.0
          ? undefined
          : `ours ${spread(of("ours").map((r) => r.upMs))}, ` +
            `naive ${spread(of("naive").map((r) => r.upMs))}: see bench/README.md`,
      raw: { runs },
    },
    {
      id: "P5",
      measure: "(also) pulumi destroy, same stack",
      ours: seconds(med("ours", "destroyMs"), 2),
      baseline: seconds(med("naive", "destroyMs"), 2),
      ratio: round(med("ours", "destroyMs") / med("naive", "destroyMs")),
      goal: "— (informative)",
      status: "N/A",
    },
  ];
}

/** Calls of the first timed run of each variant, and P1's figures read back from its stored state. */
function stateRows(last: UpRun, lastNaive: UpRun): Row[] {
  const callsOk = last.upCalls === 50 && last.previewCalls === 0;
  const rows: Row[] = [
    {
      id: "P5",
      measure: "HTTP calls: up of 50 resources / no-change preview after it",
      ours: `${last.upCalls} / ${last.previewCalls}`,
      baseline: `${lastNaive.upCalls} / ${lastNaive.previewCalls}`,
      ratio: round(last.upCalls / 50),
      goal: "50 / 0",
      status: okOrMissed(callsOk && last.previewChanges === 0),
      reason: callsOk
        ? undefined
        : `up made ${last.upCalls} calls, preview ${last.previewCalls} (${last.previewChanges} changes)`,
    },
  ];
  for (const kind of ["ServiceAccount", "VolumeSize", "AppSecrets"]) {
    const o = last.providerBytes[kind] ?? 0;
    const n = lastNaive.providerBytes[kind] ?? 0;
    const ok = o > 0 && o <= 1536;
    rows.push({
      ...{
        id: "P1",
        measure: `__provider bytes in exported state: ${kind}`,
        ours: `${o} B`,
        baseline: `${n} B`,
        ratio: n ? round(o / n) : null,
      },
      ...{ goal: "≤ 1.5 KB", status: okOrMissed(ok), reason: ok ? undefined : `${o} bytes` },
    });
  }
  const clean = last.plaintextSecretsInState === 0;
  rows.push({
    id: "P1",
    measure: "secrets in plaintext in the stored state (provider token, 20 account tokens, 15 app secrets)",
    ours: String(last.plaintextSecretsInState),
    baseline: String(lastNaive.plaintextSecretsInState),
    ratio: null,
    goal: "0",
    status: okOrMissed(clean),
    reason: clean ? undefined : `${last.plaintextSecretsInState} secrets readable in the state`,
    raw: { providerTokenInPlaintext: { ours: last.tokenInStatePlaintext, naive: lastNaive.tokenInStatePlaintext } },
  });
  return rows;
}

/** The simulator seeded with what the P5 stack needs (its projects, volumes and apps). */
export async function p5Simulator(): Promise<PimsSimulator> {
  const sim = await PimsSimulator.start();
  for (const id of PROJECTS) sim.addProject({ id });
  for (let i = 0; i < 15; i++) {
    sim.addVolume(PROJECTS[i % 2], { id: `vol-${i}`, sizeGb: 50 });
    sim.addApp(PROJECTS[i % 2], `app${i}`);
  }
  return sim;
}

export async function p5({ quick }: BenchOptions): Promise<Row[]> {
  const reps = quick ? 1 : 5;
  log(
    `P5: pulumi up of 50 resources, pulumi-pims vs docs-style providers ` +
      `(${reps} timed runs each after one warm-up each)`,
  );
  loadEngine();
  const sim = await p5Simulator();
  const program = programs(sim);
  try {
    log("P5: warm-up runs");
    await runOnce(sim, program.ours, "ours", 0);
    await runOnce(sim, program.naive, "naive", 0);
    const runs: UpRun[] = [];
    for (const [i, v] of abba<Variant>(["ours", "naive"], reps).entries()) {
      const r = await runOnce(sim, program[v], v, i + 1);
      log(`P5: ${v} up ${r.upMs.toFixed(0)} ms, destroy ${r.destroyMs.toFixed(0)} ms, ${r.upCalls} calls`);
      runs.push(r);
    }
    const first = (v: Variant): UpRun => runs.find((r) => r.variant === v) as UpRun;
    return [...timeRows(runs), ...stateRows(first("ours"), first("naive"))];
  } finally {
    await sim.stop();
  }
}
