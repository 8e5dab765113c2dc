/**
 * What the measures of `npm run bench` share: the result row, statistics, the compiled package and the docs-style
 * baseline loaded at run time, the simulator in its own process, interleaved timing, and stacks on the real engine.
 * Each measure (bench/p1-provider-size.ts … bench/p7-scale.ts) returns its rows; bench/run.ts prints them.
 */
import { execFileSync, spawn } from "node:child_process";
import { RESOURCE_KINDS, type ResourceKind } from "../provider/kinds";
import * as fs from "node:fs";
import * as path from "node:path";
import * as readline from "node:readline";
import type * as pulumi from "@pulumi/pulumi";
import type { PulumiFn, Stack } from "@pulumi/pulumi/automation";
import type { SeedPlan } from "./sim-server";
import type { SimulatorStats } from "../simulator/options";
import { errorText } from "../provider/client";

export const REPO = path.resolve(__dirname, "..");

export type Kind = ResourceKind;
export const KINDS: readonly Kind[] = RESOURCE_KINDS;
export type Status = "OK" | "MISSED" | "N/A";

/** One row of the printed table and of results.json. */
export interface Row {
  /** The measure (P1…P7). */
  id: string;
  /** The part of the run that produced it (P5 also reports P1 figures read from real state). */
  part?: string;
  measure: string;
  ours: string;
  baseline: string;
  ratio: number | null;
  goal: string;
  status: Status;
  reason?: string;
  raw?: Record<string, unknown>;
}

/** What every measure is given. */
export interface BenchOptions {
  /** Fewer iterations and sizes: a smoke run. */
  quick: boolean;
}

/** A measure: its rows, or a throw (bench/run.ts then reports it as a row that could not run). */
export type Measure = (options: BenchOptions) => Promise<Row[]>;

export const log = (msg: string): void => {
  process.stderr.write(`[bench] ${msg}\n`);
};

// ---- statistics and formatting ---------------------------------------------------------------------------

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
export const quantile = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
export const round = (x: number, digits = 2): number => Number(x.toFixed(digits));
export const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
export const msText = (ms: number): string => (ms >= 100 ? `${ms.toFixed(0)} ms` : `${ms.toFixed(3)} ms`);
export const seconds = (ms: number, digits = 1): string => `${(ms / 1000).toFixed(digits)} s`;
export const now = (): number => Number(process.hrtime.bigint()) / 1e6;

/** "OK" when the goal holds, else "MISSED". */
export const okOrMissed = (ok: boolean): Status => (ok ? "OK" : "MISSED");

// ---- the compiled package and the baseline ---------------------------------------------------------------

/** A fake token in the PIMS format, for serialization measurements (never sent anywhere). */
export const FAKE_TOKEN = "pims_admin_" + "5eed".repeat(8);

export type Naive = typeof import("./naive");

/** Loads bench/naive.ts afresh with the given credentials (it reads them into module-level constants). */
export function loadNaive(baseUrl: string, token: string): Naive {
  process.env.PIMS_BASE_URL = baseUrl;
  process.env.PIMS_TOKEN = token;
  const file = require.resolve("./naive");
  delete require.cache[file];
  const mod = require(file) as Naive;
  delete process.env.PIMS_BASE_URL;
  delete process.env.PIMS_TOKEN;
  return mod;
}

export const loadShim = (): typeof import("../sdk/nodejs/shim") =>
  require("pulumi-pims/bin/sdk/nodejs/shim") as typeof import("../sdk/nodejs/shim");
export const loadPims = (): typeof import("../sdk/nodejs") => require("pulumi-pims") as typeof import("../sdk/nodejs");
const loadProviders = (): typeof import("../provider") =>
  require("pulumi-pims/bin/provider") as typeof import("../provider");

/** A provider of the compiled package, configured as the provider host configures it (stack config). */
export async function configuredProvider(
  kind: Kind,
  baseUrl: string,
  token: string,
): Promise<pulumi.dynamic.ResourceProvider> {
  const cfg: Record<string, string> = { "pims:baseUrl": baseUrl, "pims:token": token };
  const p = loadProviders().newProvider(kind);
  await p.configure?.({
    config: {
      get: (k: string) => cfg[k],
      require: (k: string) => {
        if (cfg[k] === undefined) throw new Error(`missing ${k}`);
        return cfg[k];
      },
    },
  });
  return p;
}

// ---- processes -------------------------------------------------------------------------------------------

export interface SimProcess {
  baseUrl: string;
  token: string;
  /**
   * The request counters since the last call, and the first request's arrival (the child resets them when it answers).
   */
  stats(): Promise<SimulatorStats & { firstAt?: number }>;
  stop(): Promise<void>;
}

/** A simulator in a child process (bench/sim-server.ts), seeded by `plan`. */
export async function startSimProcess(plan: SeedPlan): Promise<SimProcess> {
  const child = spawn(
    process.execPath,
    ["-r", "ts-node/register/transpile-only", path.join(__dirname, "sim-server.ts"), JSON.stringify(plan)],
    {
      cwd: REPO,
      stdio: ["pipe", "pipe", "inherit"],
    },
  );
  const rl = readline.createInterface({ input: child.stdout });
  const first = await new Promise<string>((resolve, reject) => {
    rl.once("line", resolve);
    child.once("exit", (code) => reject(new Error(`sim-server exited with ${code}`)));
  });
  const { baseUrl, token } = JSON.parse(first) as { baseUrl: string; token: string };
  return {
    baseUrl,
    token,
    stats: () =>
      new Promise((resolve) => {
        rl.once("line", (line) => resolve(JSON.parse(line) as SimulatorStats & { firstAt?: number }));
        child.stdin.write("stats\n");
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.stdin.end();
        setTimeout(() => child.kill("SIGTERM"), 2000).unref();
      }),
  };
}

/** Runs a child process and parses its last stdout line as JSON. */
export function runJsonChild<T>(argv: string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, { cwd: REPO, stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString("utf8")));
    child.once("exit", (code) => {
      if (code !== 0) return reject(new Error(`${argv.join(" ")} exited with ${code}`));
      try {
        resolve(JSON.parse(out.trim().split("\n").pop() ?? "") as T);
      } catch (e) {
        reject(e instanceof Error ? e : new Error(String(e)));
      }
    });
  });
}

// ---- timing ----------------------------------------------------------------------------------------------

/** Times of two operations, run alternately (order flipped every iteration) after a warm-up. */
export async function interleaved(
  a: () => Promise<unknown>,
  b: () => Promise<unknown>,
  iterations: number,
  warmup: number,
): Promise<{ a: number[]; b: number[] }> {
  for (let i = 0; i < warmup; i++) {
    await a();
    await b();
  }
  const ta: number[] = [];
  const tb: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const order: Array<[() => Promise<unknown>, number[]]> = [
      [a, ta],
      [b, tb],
    ];
    if (i % 2 === 1) order.reverse();
    for (const [fn, into] of order) {
      const t0 = now();
      await fn();
      into.push(now() - t0);
    }
  }
  return { a: ta, b: tb };
}

/** The variants run in ABBA order, `reps` times each: alternating which goes first evens out drift in the load. */
export function abba<V>(variants: readonly V[], reps: number): V[] {
  const order: V[] = [];
  for (let i = 0; i < reps; i++) order.push(...(i % 2 === 0 ? variants : [...variants].reverse()));
  return order;
}

let clockTicksPerSecond: number | undefined;

/**
 * CPU time, in ms, from `/proc/self/stat`: of this process (utime + stime; the inline program runs here) and of the
 * descendants it has waited for (cutime + cstime: the pulumi CLI, and what the CLI waited for). Unlike wall time it
 * hardly moves with the load of a shared machine. NaN where there is no /proc.
 */
export function cpuMs(): { self: number; children: number } {
  try {
    const stat = fs.readFileSync("/proc/self/stat", "utf8");
    const fields = stat
      .slice(stat.lastIndexOf(")") + 2)
      .split(" ")
      .map(Number); // fields[0] is field 3 of proc(5)
    clockTicksPerSecond ??= Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
    const ms = (ticks: number): number => (ticks * 1000) / (clockTicksPerSecond ?? 100);
    return { self: ms(fields[11] + fields[12]), children: ms(fields[13] + fields[14]) };
  } catch {
    return { self: NaN, children: NaN };
  }
}

/** One operation against a simulator process: its wall time and the requests the simulator counted meanwhile. */
export interface CountedOp {
  ms: number;
  /** CPU time meanwhile of this process and its waited-for descendants ({@link cpuMs}), ms. */
  cpuMs: number;
  /** The part of it spent in this process (where an inline program runs), ms. */
  programCpuMs: number;
  requests: number;
  refused: number;
  /** From the operation's start to the first request the simulator received (the engine's start-up), ms. */
  firstRequestMs?: number;
  /** The operation's error (its end), when it threw and `tolerate` was set. */
  error?: string;
}

/** Times `run`, with the simulator's counters reset before; a throw is rethrown unless `tolerate`. */
export async function countedOp(sim: SimProcess, run: () => Promise<unknown>, tolerate = false): Promise<CountedOp> {
  await sim.stats(); // reset the counters
  let error: string | undefined;
  const [t0, cpu0, started] = [now(), cpuMs(), Date.now()];
  try {
    await run();
  } catch (e) {
    if (!tolerate) throw e;
    error = errorText(e).slice(-600);
  }
  const [ms, cpu] = [now() - t0, cpuMs()];
  const { requests, refused, firstAt } = await sim.stats();
  const firstRequestMs = firstAt === undefined ? undefined : firstAt - started;
  return {
    ms,
    cpuMs: cpu.self + cpu.children - cpu0.self - cpu0.children,
    programCpuMs: cpu.self - cpu0.self,
    requests,
    refused,
    firstRequestMs,
    error,
  };
}

// ---- the engine ------------------------------------------------------------------------------------------

export type Engine = typeof import("../scripts/engine");

/** scripts/engine/index.ts, with the CLI made available (built the first time). */
export function loadEngine(): Engine {
  const engine = require("../scripts/engine") as Engine;
  engine.ensureEngine();
  return engine;
}

/** What {@link withStack} needs: a stack of an inline program against a PIMS service, on a fresh backend. */
export interface BenchStackOptions {
  stackName: string;
  projectName: string;
  program: PulumiFn;
  baseUrl: string;
  token: string;
  /** More environment for the CLI and the provider host. */
  env?: Record<string, string>;
}

/** Runs `body` with a new stack on a fresh temporary `file://` backend, which is removed afterwards. */
export async function withStack<T>(opts: BenchStackOptions, body: (stack: Stack) => Promise<T>): Promise<T> {
  const engine = loadEngine();
  const backendDir = engine.tempDir("pims-bench-");
  try {
    const stack = await engine.createPimsStack({ ...opts, backendDir });
    return await body(stack);
  } finally {
    fs.rmSync(backendDir, { recursive: true, force: true });
  }
}

/** Automation API options that keep the engine's output out of the benchmark's. */
export const QUIET = { onOutput: (): void => undefined, onError: (): void => undefined };

/** How many resources a preview plans to change (every kind of step but `same`). */
export const plannedChanges = (changeSummary: Record<string, number | undefined>): number =>
  Object.entries(changeSummary)
    .filter(([k]) => k !== "same")
    .reduce((s, [, v]) => s + (v ?? 0), 0);
