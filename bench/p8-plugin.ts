/**
 * P8: the P5 stack (20 ServiceAccounts, 15 VolumeSizes, 15 AppSecrets, same inputs) deployed through the provider
 * plugin from a YAML program (the official YAML host, `pulumi-resource-pims` named by `plugins.providers`) ÷ through
 * the dynamic resources from a TypeScript program (inline, as P5): the median `pulumi up` time (ABBA after a warm-up
 * of each, goal ≤ 1.0) and the stored state's bytes per resource (each resource's entry in `pulumi stack export`,
 * compact JSON; goal ≤ 0.55). Each P5-sized run also previews (0 calls, no change) and destroys. Then N = 1,000
 * ServiceAccounts, one `up` of each variant on a fresh simulator, where the engine's rewrite of the whole state after
 * every step makes the state's size the cost that grows fastest (not destroyed: the backend and simulator are dropped).
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import {
  abba,
  loadEngine,
  loadPims,
  log,
  median,
  now,
  okOrMissed,
  plannedChanges,
  QUIET,
  round,
  seconds,
  type BenchOptions,
  type Row,
} from "./harness";
import { kindOfStoredType } from "../provider/kinds";
import { plan, PROJECTS } from "./p5-stack-up";
import { PimsSimulator } from "../simulator";

/** yaml: the plugin's Node launcher from YAML; exe: the self-contained executable from YAML (P9); ts: dynamic. */
export type Variant = "yaml" | "ts" | "exe";
/** The directory holding the executable for the `exe` variant (set by bench/p9-executable.ts). */
export const executable = { dir: "" };
/** The P5 stack, or N ServiceAccounts alone. */
export type Shape = { kind: "p5" } | { kind: "accounts"; n: number };

export interface Run {
  variant: Variant;
  upMs: number;
  upCalls: number;
  created: number;
  previewCalls?: number;
  previewChanges?: number;
  /** Bytes of each pims resource's entry in the stored state, by kind (median) and over all of them (mean). */
  bytesByKind: Record<string, number>;
  bytesPerResource: number;
  /** The same without the engine's and the language host's bookkeeping (timestamps, source positions, stack traces). */
  ownBytesPerResource: number;
  /** The whole stored state (`pulumi stack export`), bytes. */
  stateBytes: number;
  /** Issued tokens and app secret values readable in the stored state. */
  plaintextSecrets: number;
  /** The plugin process's peak resident memory during `up` (VmHWM, bytes), for the YAML variants. */
  pluginPeakRss?: number;
}

const resourceCount = (shape: Shape): number => (shape.kind === "p5" ? 50 : shape.n);
/** The P5 plan for `i`, or the i-th account of the N-account stack (same form as P5's accounts). */
const account = (i: number): ReturnType<typeof plan>["sa"] => plan(i).sa;

/** The YAML program: the same resources and inputs as the TypeScript one, as a user writes them. */
function yamlProgram(shape: Shape): string {
  const j = (v: unknown): string => JSON.stringify(v); // JSON values are YAML values
  const lines = ["resources:"];
  const add = (name: string, type: string, props: object): void => {
    lines.push(`  ${name}:`, `    type: pims:index:${type}`, "    properties:");
    for (const [k, v] of Object.entries(props)) lines.push(`      ${k}: ${j(v)}`);
  };
  const accounts = shape.kind === "p5" ? 20 : shape.n;
  for (let i = 0; i < accounts; i++) add(`sa-${i}`, "ServiceAccount", account(i));
  if (shape.kind === "p5") {
    for (let i = 0; i < 15; i++) add(`vol-${i}`, "VolumeSize", plan(i).vol);
    for (let i = 0; i < 15; i++) add(`sec-${i}`, "AppSecrets", plan(i).sec);
  }
  return lines.join("\n");
}

function tsProgram(shape: Shape): () => Promise<void> {
  const pims = loadPims();
  return async () => {
    const accounts = shape.kind === "p5" ? 20 : shape.n;
    for (let i = 0; i < accounts; i++) new pims.ServiceAccount(`sa-${i}`, account(i));
    if (shape.kind !== "p5") return;
    for (let i = 0; i < 15; i++) new pims.VolumeSize(`vol-${i}`, plan(i).vol);
    for (let i = 0; i < 15; i++) new pims.AppSecrets(`sec-${i}`, plan(i).sec);
  };
}

export function seed(sim: PimsSimulator): void {
  for (const id of PROJECTS) sim.addProject({ id });
  for (let i = 0; i < 15; i++) {
    sim.addVolume(PROJECTS[i % 2], { id: `vol-${i}`, sizeGb: 50 });
    sim.addApp(PROJECTS[i % 2], `app${i}`);
  }
}

/** The state as stored (secrets encrypted). */
function storedState(stack: Stack): string {
  const ws = stack.workspace as unknown as { workDir: string; envVars: Record<string, string> };
  return execFileSync(
    path.join(loadEngine().ensureEngine(), "pulumi"),
    ["stack", "export", "--stack", stack.name, "--non-interactive"],
    { cwd: ws.workDir, env: { ...process.env, ...ws.envVars }, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 },
  );
}

/** What the engine and the language host record about every resource, whatever its provider. */
const BOOKKEEPING = ["created", "modified", "sourcePosition", "stackTrace"];

/**
 * Bytes of each pims resource's entry, whichever host wrote it (provider/kinds.ts `kindOfStoredType`):
 * median by kind, mean over all, and the mean without {@link BOOKKEEPING} (what the provider and the SDK decide).
 */
function entryBytes(stateText: string): { byKind: Record<string, number>; mean: number; meanOwn: number } {
  const state = JSON.parse(stateText) as { deployment: { resources?: Array<Record<string, unknown>> } };
  const sizes: Record<string, number[]> = {};
  const own: number[] = [];
  for (const r of state.deployment.resources ?? []) {
    const kind = kindOfStoredType(r.type);
    if (!kind) continue;
    (sizes[kind] ??= []).push(Buffer.byteLength(JSON.stringify(r)));
    own.push(Buffer.byteLength(JSON.stringify(r, (k, v: unknown) => (BOOKKEEPING.includes(k) ? undefined : v))));
  }
  const all = Object.values(sizes).flat();
  const mean = (xs: number[]): number => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);
  const byKind = Object.fromEntries(Object.entries(sizes).map(([k, xs]) => [k, median(xs)]));
  return { byKind, mean: mean(all), meanOwn: mean(own) };
}

/** The largest VmHWM (bytes) of the processes whose environment holds `marker` and whose command line is the plugin. */
function pluginPeakRss(marker: string): number {
  let peak = 0;
  for (const pid of fs.readdirSync("/proc").filter((e) => /^\d+$/.test(e))) {
    try {
      if (!fs.readFileSync(`/proc/${pid}/environ`, "utf8").includes(marker)) continue;
      if (!/plugin\/main\.js|pulumi-resource-pims/.test(fs.readFileSync(`/proc/${pid}/cmdline`, "utf8"))) continue;
      const kb = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
      peak = Math.max(peak, Number(kb ?? 0) * 1024);
    } catch {
      // gone meanwhile
    }
  }
  return peak;
}

export async function runOnce(sim: PimsSimulator, variant: Variant, shape: Shape, tag: string): Promise<Run> {
  const engine = loadEngine();
  const yaml = require("../scripts/engine/yaml") as typeof import("../scripts/engine/yaml");
  const backendDir = engine.tempDir("pims-bench-p8-");
  try {
    const marker = `PIMS_BENCH_RUN=${path.basename(backendDir)}`;
    const env = { PIMS_BENCH_RUN: path.basename(backendDir) };
    const common = { stackName: `${variant}${tag}`, backendDir, baseUrl: sim.baseUrl, token: sim.token, env };
    const stack =
      variant !== "ts"
        ? await yaml.createYamlStack({
            ...common,
            workDir: yaml.writeYamlProject(path.join(backendDir, "project"), {
              name: "pims-bench",
              program: yamlProgram(shape),
              pluginDir: variant === "exe" ? executable.dir : undefined,
            }),
          })
        : await engine.createPimsStack({ ...common, projectName: "pims-bench", program: tsProgram(shape) });
    sim.clearRequests();
    let peakRss = 0;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, pluginPeakRss(marker))), 250);
    const t0 = now();
    const up = await stack.up(QUIET).finally(() => clearInterval(sampler));
    const upMs = now() - t0;
    const upCalls = sim.requests.length;
    const created = up.summary.resourceChanges?.create ?? 0;
    if (created !== resourceCount(shape) + 1)
      throw new Error(`P8 ${variant}: up created ${created} resources instead of ${resourceCount(shape) + 1}`);
    const run: Run = {
      variant,
      upMs,
      upCalls,
      created,
      bytesByKind: {},
      bytesPerResource: 0,
      ownBytesPerResource: 0,
      stateBytes: 0,
      plaintextSecrets: 0,
      ...(variant === "ts" ? {} : { pluginPeakRss: peakRss }),
    };
    const stateText = storedState(stack);
    const bytes = entryBytes(stateText);
    const secrets = [...sim.issuedSecrets(), ...Array.from({ length: 15 }, (_, i) => plan(i).sec.secrets.API_KEY)];
    Object.assign(run, {
      bytesByKind: bytes.byKind,
      bytesPerResource: bytes.mean,
      ownBytesPerResource: bytes.meanOwn,
      stateBytes: Buffer.byteLength(stateText),
      plaintextSecrets: secrets.filter((s) => stateText.includes(s)).length,
    });
    if (shape.kind === "p5") {
      sim.clearRequests();
      const preview = await stack.preview(QUIET);
      run.previewCalls = sim.requests.length;
      run.previewChanges = plannedChanges(preview.changeSummary);
      await stack.destroy(QUIET);
    }
    return run;
  } finally {
    fs.rmSync(backendDir, { recursive: true, force: true });
  }
}

const kb = (b: number): string => `${Math.round(b).toLocaleString("en-US")} B`;

function rows(p5runs: Run[], big: Run[], n: number): Row[] {
  const of = (rs: Run[], v: Variant): Run[] => rs.filter((r) => r.variant === v);
  const med = (rs: Run[], v: Variant, f: (r: Run) => number): number => median(of(rs, v).map(f));
  const out: Row[] = [];
  const time = med(p5runs, "yaml", (r) => r.upMs) / med(p5runs, "ts", (r) => r.upMs);
  const spread = (v: Variant): string =>
    of(p5runs, v)
      .map((r) => (r.upMs / 1000).toFixed(2))
      .join(", ");
  out.push({
    id: "P8",
    measure: "pulumi up of the P5 stack (50 resources): plugin from YAML ÷ dynamic resources from TypeScript",
    ours: seconds(
      med(p5runs, "yaml", (r) => r.upMs),
      2,
    ),
    baseline: seconds(
      med(p5runs, "ts", (r) => r.upMs),
      2,
    ),
    ratio: round(time),
    goal: "≤ 1.0",
    status: okOrMissed(time <= 1.0),
    reason: time <= 1.0 ? undefined : `yaml ${spread("yaml")} s; ts ${spread("ts")} s`,
    raw: { runs: p5runs },
  });
  const first = (v: Variant): Run => of(p5runs, v)[0];
  const bytes = first("yaml").bytesPerResource / first("ts").bytesPerResource;
  out.push({
    id: "P8",
    measure: "state bytes per resource, P5 stack (each entry of the stored state, compact JSON)",
    ours: kb(first("yaml").bytesPerResource),
    baseline: kb(first("ts").bytesPerResource),
    ratio: round(bytes),
    goal: "≤ 0.55",
    status: okOrMissed(bytes <= 0.55),
    reason:
      bytes <= 0.55 ? undefined : JSON.stringify({ yaml: first("yaml").bytesByKind, ts: first("ts").bytesByKind }),
  });
  const own = first("yaml").ownBytesPerResource / first("ts").ownBytesPerResource;
  out.push({
    ...{ id: "P8", measure: `(also) the same without ${BOOKKEEPING.join(", ")} (the engine's and host's records)` },
    ...{ ours: kb(first("yaml").ownBytesPerResource), baseline: kb(first("ts").ownBytesPerResource) },
    ...{ ratio: round(own), goal: "— (informative)", status: "N/A" as const },
  });
  for (const kind of ["ServiceAccount", "VolumeSize", "AppSecrets"]) {
    const [y, t] = [first("yaml").bytesByKind[kind], first("ts").bytesByKind[kind]];
    out.push({
      ...{ id: "P8", measure: `(also) state bytes of one ${kind}`, ours: kb(y), baseline: kb(t) },
      ...{ ratio: round(y / t), goal: "— (informative)", status: "N/A" as const },
    });
  }
  const calls = (v: Variant): string => `${first(v).upCalls} / ${first(v).previewCalls} (${first(v).previewChanges})`;
  const callsOk = (["yaml", "ts"] as const).every(
    (v) => first(v).upCalls === 50 && first(v).previewCalls === 0 && first(v).previewChanges === 0,
  );
  out.push({
    ...{ id: "P8", measure: "HTTP calls: up / no-change preview (planned changes)", ours: calls("yaml") },
    ...{ baseline: calls("ts"), ratio: null, goal: "50 / 0 (0)", status: okOrMissed(callsOk) },
  });
  const leaks = first("yaml").plaintextSecrets;
  out.push({
    ...{
      id: "P8",
      measure: "secrets readable in the stored state (20 account tokens, 15 app secrets, the provider's)",
    },
    ...{ ours: String(leaks), baseline: String(first("ts").plaintextSecrets), ratio: null, goal: "0" },
    ...{ status: okOrMissed(leaks === 0) },
  });
  const [by, bt] = [of(big, "yaml")[0], of(big, "ts")[0]];
  if (by && bt) {
    const t = by.upMs / bt.upMs;
    const b = by.bytesPerResource / bt.bytesPerResource;
    out.push({
      ...{ id: "P8", measure: `pulumi up of N = ${n} ServiceAccounts: plugin from YAML ÷ dynamic from TypeScript` },
      ...{ ours: seconds(by.upMs, 1), baseline: seconds(bt.upMs, 1), ratio: round(t), goal: "≤ 1.0" },
      ...{ status: okOrMissed(t <= 1.0), raw: { runs: big } },
    });
    out.push({
      ...{
        id: "P8",
        measure: `state bytes per resource at N = ${n} (whole state: ${kb(by.stateBytes)} ÷ ${kb(bt.stateBytes)})`,
      },
      ...{ ours: kb(by.bytesPerResource), baseline: kb(bt.bytesPerResource), ratio: round(b), goal: "≤ 0.55" },
      ...{ status: okOrMissed(b <= 0.55) },
    });
  }
  return out;
}

export async function p8({ quick }: BenchOptions): Promise<Row[]> {
  const reps = quick ? 1 : 3;
  const n = quick ? 100 : 1000;
  log(`P8: the P5 stack through the plugin (YAML) vs the dynamic resources (TypeScript), ${reps} timed runs each`);
  loadEngine();
  (require("../scripts/engine/yaml") as typeof import("../scripts/engine/yaml")).ensureYamlHost();
  const sim = await PimsSimulator.start();
  seed(sim);
  const p5runs: Run[] = [];
  try {
    log("P8: warm-up runs");
    await runOnce(sim, "yaml", { kind: "p5" }, "w");
    await runOnce(sim, "ts", { kind: "p5" }, "w");
    for (const [i, v] of abba<Variant>(["yaml", "ts"], reps).entries()) {
      const r = await runOnce(sim, v, { kind: "p5" }, String(i));
      log(`P8: ${v} up ${r.upMs.toFixed(0)} ms, ${Math.round(r.bytesPerResource)} B per resource`);
      p5runs.push(r);
    }
  } finally {
    await sim.stop();
  }
  const big: Run[] = [];
  for (const v of ["yaml", "ts"] as const) {
    const fresh = await PimsSimulator.start();
    seed(fresh);
    try {
      log(`P8: ${v}, N = ${n} ServiceAccounts`);
      const r = await runOnce(fresh, v, { kind: "accounts", n }, "big");
      log(`P8: ${v} up of ${n}: ${(r.upMs / 1000).toFixed(1)} s, state ${r.stateBytes} B`);
      big.push(r);
    } finally {
      await fresh.stop();
    }
  }
  return rows(p5runs, big, n);
}
