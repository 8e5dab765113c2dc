/**
 * `npm run bench`: measures pulumi-pims against baselines measured in the same run, prints a table and writes
 * bench/results.json. Not a test: nothing here fails a build; a goal that is not met is printed as MISSED with
 * its reason.
 *
 *   P1  serialized `__provider` bytes per resource type (what dynamic.Resource stores in state:
 *       serializeFunction(() => provider)) ÷ a docs-style provider (bench/naive.ts). Goal ≤ 1.5 KB each.
 *   P2  HTTP calls per operation, counted by the simulator, ÷ the minimum (no-change preview 0, create 1,
 *       update 1, delete 1 where the service has the operation).
 *   P3  provider operation time ÷ a raw axios call to the same simulator endpoint (median of interleaved
 *       iterations after warm-up). Goal ≤ 1.2.
 *   P4  getAppLogs over 100 000 lines ÷ a raw sequential axios paging loop (goal ≤ 1.1); peak RSS growth of the
 *       iterator path (client.iterateAppLogs) over 10 000 vs 100 000 lines, each in a fresh child process
 *       (goal: flat, 100k/10k ≤ 1.5 — growing with the line count would give ≈ 10).
 *   P5  `pulumi up` of a 50-resource stack ÷ the same stack through the docs-style providers. Goal ≤ 1.0.
 *   P6  `pulumi up --parallel 64` of 500 resources of all four kinds against the simulator limited to 20 requests/s
 *       (burst 20), then `destroy` under the same limit: failures (goal 0), refused ÷ all requests (goal ≤ 5 %),
 *       wall time ÷ max(the same operation unthrottled, accepted requests ÷ rate) (goal ≤ 1.2); the docs-style
 *       providers beside it, throttled the same. `--only P6` runs it alone.
 *   P7  `up`, no-change `preview`, `refresh` and `destroy` of N = 50, 200 and 500 ServiceAccounts (default
 *       parallelism, simulator unthrottled): time per resource ÷ the docs-style provider's in the same run (goal
 *       ≤ 1.05 at every N), and how time per resource grows from the smallest to the largest N.
 *
 * Options: `--only P1,P3` runs some of them; `--quick` uses fewer iterations (for a smoke run).
 * Needs `npm run build` first (it measures the compiled package, as users run it); P5 needs the engine
 * (scripts/engine.ts: ensureEngine()).
 */
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as readline from "node:readline";
import * as pulumi from "@pulumi/pulumi";
import type { PulumiFn } from "@pulumi/pulumi/automation";
import type { MemoryJob, MemoryResult } from "./logs-memory";
import type { SeedPlan } from "./sim-server";
import { PimsSimulator } from "../simulator";
import type { SimulatorStats } from "../simulator/options";

const axios = require("axios") as typeof import("axios").default;

const REPO = path.resolve(__dirname, "..");
const RESULTS_FILE = path.join(__dirname, "results.json");
const args = process.argv.slice(2);
const QUICK = args.includes("--quick");
const onlyArg = args.find((a) => a.startsWith("--only"));
const ONLY = onlyArg
  ? new Set((onlyArg.includes("=") ? onlyArg.split("=")[1] : args[args.indexOf(onlyArg) + 1]).split(",").map((s) => s.trim().toUpperCase()))
  : undefined;
const wanted = (id: string): boolean => !ONLY || ONLY.has(id);

type Kind = "Project" | "ServiceAccount" | "VolumeSize" | "AppSecrets";
const KINDS: Kind[] = ["Project", "ServiceAccount", "VolumeSize", "AppSecrets"];
type Status = "OK" | "MISSED" | "N/A";

/** One row of the printed table and of results.json. */
interface Row {
  /** The measure (P1…P5). */
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

const rows: Row[] = [];
const log = (msg: string): void => {
  process.stderr.write(`[bench] ${msg}\n`);
};

// ---- small helpers -------------------------------------------------------------------------------------

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const quantile = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
const round = (x: number, digits = 2): number => Number(x.toFixed(digits));
const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const msText = (ms: number): string => (ms >= 100 ? `${ms.toFixed(0)} ms` : `${ms.toFixed(3)} ms`);
const now = (): number => Number(process.hrtime.bigint()) / 1e6;

/** A fake token in the PIMS format, for serialization measurements (never sent anywhere). */
const FAKE_TOKEN = "pims_admin_" + "5eed".repeat(8);

/** Loads bench/naive.ts afresh with the given credentials (it reads them into module-level constants). */
function loadNaive(baseUrl: string, token: string): typeof import("./naive") {
  process.env.PIMS_BASE_URL = baseUrl;
  process.env.PIMS_TOKEN = token;
  const file = require.resolve("./naive");
  delete require.cache[file];
  const mod = require(file) as typeof import("./naive");
  delete process.env.PIMS_BASE_URL;
  delete process.env.PIMS_TOKEN;
  return mod;
}

const loadShim = (): typeof import("../sdk/shim") => require("pulumi-pims/bin/sdk/shim") as typeof import("../sdk/shim");
const loadProviders = (): typeof import("../provider/index") => require("pulumi-pims/bin/provider") as typeof import("../provider/index");

function configureRequest(baseUrl: string, token: string): pulumi.dynamic.ConfigureRequest {
  const cfg: Record<string, string> = { "pims:baseUrl": baseUrl, "pims:token": token };
  return {
    config: {
      get: (k: string) => cfg[k],
      require: (k: string) => {
        if (cfg[k] === undefined) throw new Error(`missing ${k}`);
        return cfg[k];
      },
    },
  };
}

async function configuredProvider(kind: Kind, baseUrl: string, token: string): Promise<pulumi.dynamic.ResourceProvider> {
  const p = loadProviders().newProvider(kind);
  await p.configure?.(configureRequest(baseUrl, token));
  return p;
}

/** A simulator in a child process (bench/sim-server.ts). */
async function startSimProcess(plan: SeedPlan): Promise<{ baseUrl: string; token: string; stats(): Promise<SimulatorStats>; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ["-r", "ts-node/register/transpile-only", path.join(__dirname, "sim-server.ts"), JSON.stringify(plan)], {
    cwd: REPO,
    stdio: ["pipe", "pipe", "inherit"],
  });
  const rl = readline.createInterface({ input: child.stdout });
  const first = await new Promise<string>((resolve, reject) => {
    rl.once("line", resolve);
    child.once("exit", (code) => reject(new Error(`sim-server exited with ${code}`)));
  });
  const { baseUrl, token } = JSON.parse(first) as { baseUrl: string; token: string };
  return {
    baseUrl,
    token,
    // The request counters since the last call (the child resets them when it answers).
    stats: () =>
      new Promise<SimulatorStats>((resolve) => {
        rl.once("line", (line) => resolve(JSON.parse(line) as SimulatorStats));
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
function runJsonChild<T>(argv: string[]): Promise<T> {
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

/** Median times of two operations, run alternately (order flipped every iteration) after a warm-up. */
async function interleaved(a: () => Promise<unknown>, b: () => Promise<unknown>, iterations: number, warmup: number): Promise<{ a: number[]; b: number[] }> {
  for (let i = 0; i < warmup; i++) {
    await a();
    await b();
  }
  const ta: number[] = [];
  const tb: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const order: Array<[() => Promise<unknown>, number[]]> =
      i % 2 === 0
        ? [
            [a, ta],
            [b, tb],
          ]
        : [
            [b, tb],
            [a, ta],
          ];
    for (const [fn, into] of order) {
      const t0 = now();
      await fn();
      into.push(now() - t0);
    }
  }
  return { a: ta, b: tb };
}

// ---- P1: serialized provider size ------------------------------------------------------------------------

/** Bytes of what dynamic.Resource stores: serializeFunction(() => provider), as pulumi/dynamic does. */
async function storedProviderBytes(provider: pulumi.dynamic.ResourceProvider): Promise<{ bytes: number; text: string }> {
  const s = await pulumi.runtime.serializeFunction(() => provider, { allowSecrets: true });
  return { bytes: Buffer.byteLength(s.text), text: s.text };
}

async function p1(): Promise<void> {
  log("P1: serialized __provider size");
  const { providerShim } = loadShim();
  const naive = loadNaive("https://pims.example.com", FAKE_TOKEN);
  for (const kind of KINDS) {
    const ours = await storedProviderBytes(providerShim(kind));
    const base = await storedProviderBytes(naive.naiveProviders[kind]);
    const ratio = ours.bytes / base.bytes;
    const ok = ours.bytes <= 1536;
    rows.push({
      id: "P1",
      measure: `__provider bytes: ${kind}`,
      ours: `${ours.bytes} B`,
      baseline: `${base.bytes} B`,
      ratio: round(ratio),
      goal: "≤ 1.5 KB",
      status: ok ? "OK" : "MISSED",
      reason: ok ? undefined : "the serialized shim captures more than its kind and the module name",
      raw: {
        oursBytes: ours.bytes,
        naiveBytes: base.bytes,
        oursContainsToken: ours.text.includes(FAKE_TOKEN),
        naiveContainsToken: base.text.includes(FAKE_TOKEN),
      },
    });
  }
}

// ---- P2: HTTP calls per operation ------------------------------------------------------------------------

async function p2(): Promise<void> {
  log("P2: HTTP calls per operation");
  const sim = await PimsSimulator.start();
  const project = sim.addProject({ id: "p-bench0001" });
  sim.addVolume(project.id, { id: "default-us-east-1", sizeGb: 50 });
  const app = sim.addApp(project.id, "web");
  const warn = console.warn;
  console.warn = () => undefined; // the delete warnings of resources the service cannot delete
  type Step = { op: string; goal: number | null; note?: string; run: () => Promise<unknown> };
  try {
    const inputsOf: Record<Kind, Record<string, unknown>> = {
      Project: { name: "bench-project" },
      ServiceAccount: { projectId: project.id, name: "bench-sa", description: "", grants: [project.id], expiresIn: 3600 },
      VolumeSize: { projectId: project.id, volumeId: "default-us-east-1", sizeGb: 100 },
      AppSecrets: { projectId: project.id, appId: app.id, secrets: { API_KEY: "bench-value-1" } },
    };
    const changed: Record<Kind, Record<string, unknown> | undefined> = {
      Project: undefined,
      ServiceAccount: undefined,
      VolumeSize: { ...inputsOf.VolumeSize, sizeGb: 200 },
      AppSecrets: { ...inputsOf.AppSecrets, secrets: { API_KEY: "bench-value-2" } },
    };
    const hasDelete: Record<Kind, boolean> = { Project: false, ServiceAccount: true, VolumeSize: false, AppSecrets: false };
    for (const kind of KINDS) {
      const provider = await configuredProvider(kind, sim.baseUrl, sim.token);
      const inputs = inputsOf[kind];
      let id = "";
      let outs: Record<string, unknown> = {};
      const steps: Step[] = [
        {
          op: "check + create",
          goal: 1,
          run: async () => {
            const checked = await provider.check!({}, inputs);
            const r = await provider.create(checked.inputs);
            id = r.id;
            outs = r.outs as Record<string, unknown>;
          },
        },
        {
          op: "no-change preview (check + diff)",
          goal: 0,
          run: async () => {
            const checked = await provider.check!(inputs, inputs);
            const d = await provider.diff!(id, outs, checked.inputs);
            if (d.changes) throw new Error(`${kind}: diff with equal inputs reports changes`);
          },
        },
        { op: "refresh (read)", goal: 0, run: () => provider.read!(id, outs) },
        changed[kind]
          ? {
              op: "update",
              goal: 1,
              run: async () => {
                const d = await provider.diff!(id, outs, changed[kind]);
                if (!d.changes || (d.replaces ?? []).length > 0) throw new Error(`${kind}: expected an in-place update`);
                const r = await provider.update!(id, outs, changed[kind]);
                outs = r.outs as Record<string, unknown>;
              },
            }
          : { op: "update", goal: null, note: "every change replaces (the service has no update)", run: async () => undefined },
        {
          op: "delete",
          goal: hasDelete[kind] ? 1 : null,
          note: hasDelete[kind] ? undefined : "the service has no delete operation: removes from the stack only",
          run: () => provider.delete!(id, outs),
        },
      ];
      for (const step of steps) {
        const before = sim.requests.length;
        await step.run();
        const calls = sim.requests.length - before;
        const na = step.goal === null;
        const ok = na ? calls === 0 : calls <= step.goal!;
        rows.push({
          id: "P2",
          measure: `HTTP calls: ${kind} ${step.op}`,
          ours: String(calls),
          baseline: na ? "—" : `${step.goal} (minimum)`,
          ratio: na || step.goal === 0 ? null : round(calls / step.goal!),
          goal: na ? "N/A" : `${step.goal}`,
          status: na ? "N/A" : ok ? "OK" : "MISSED",
          reason: na ? `${step.note}; ${calls} calls` : ok ? undefined : `${calls} calls instead of ${step.goal}`,
          raw: { calls, requests: sim.requests.slice(before).map((r) => `${r.method} ${r.path} ${r.status}`) },
        });
      }
    }
  } finally {
    console.warn = warn;
    await sim.stop();
  }
}

// ---- P3: provider operation vs raw axios ---------------------------------------------------------------

async function p3(): Promise<void> {
  const iterations = QUICK ? 60 : 300;
  const warmup = QUICK ? 10 : 50;
  log(`P3: provider operation vs raw axios (${iterations} interleaved iterations after ${warmup} warm-up)`);
  const projectId = "p-bench0003";
  const sim = await startSimProcess({ projects: [projectId], volumes: [[projectId, "default-us-east-1", 100]], apps: [[projectId, "web"]] });
  const headers = { Authorization: `Bearer ${sim.token}`, "Content-Type": "application/json" };
  const appId = `${projectId}-web`;
  try {
    const vol = await configuredProvider("VolumeSize", sim.baseUrl, sim.token);
    const sec = await configuredProvider("AppSecrets", sim.baseUrl, sim.token);
    const sa = await configuredProvider("ServiceAccount", sim.baseUrl, sim.token);
    const proj = await configuredProvider("Project", sim.baseUrl, sim.token);
    const volIn = { projectId, volumeId: "default-us-east-1", sizeGb: 100 };
    const secIn = { projectId, appId, secrets: { API_KEY: "bench-value", DB_URL: "postgres://bench" } };
    const saIn = { projectId, name: "bench-sa", description: "", grants: [projectId], expiresIn: 3600 };
    const cases: Array<{ measure: string; ours: () => Promise<unknown>; raw: () => Promise<unknown> }> = [
      {
        measure: "VolumeSize.update ÷ raw PATCH resize",
        ours: () => vol.update!(`${projectId}/default-us-east-1`, volIn, volIn),
        raw: () => axios.patch(`${sim.baseUrl}/v2/projects/${projectId}/volumes/default-us-east-1/resize`, { newSizeGb: 100 }, { headers }),
      },
      {
        measure: "AppSecrets.update ÷ raw PATCH secrets",
        ours: () => sec.update!(`${projectId}/${appId}`, { ...secIn, secretNames: ["API_KEY", "DB_URL"] }, secIn),
        raw: () => axios.patch(`${sim.baseUrl}/v2/projects/${projectId}/apps/${appId}/secrets`, secIn.secrets, { headers }),
      },
      {
        measure: "ServiceAccount.create ÷ raw POST service-accounts",
        ours: () => sa.create(saIn),
        raw: () =>
          axios.post(
            `${sim.baseUrl}/v2/projects/${projectId}/service-accounts`,
            { name: saIn.name, description: "", grants: saIn.grants, expiresIn: 3600 },
            { headers },
          ),
      },
      {
        measure: "Project.create ÷ raw POST projects",
        ours: () => proj.create({ name: "bench-project" }),
        raw: () => axios.post(`${sim.baseUrl}/v2/projects`, { name: "bench-project" }, { headers }),
      },
    ];
    for (const c of cases) {
      const t = await interleaved(c.ours, c.raw, iterations, warmup);
      const mo = median(t.a);
      const mr = median(t.b);
      const ratio = mo / mr;
      const ok = ratio <= 1.2;
      rows.push({
        id: "P3",
        measure: c.measure,
        ours: msText(mo),
        baseline: msText(mr),
        ratio: round(ratio),
        goal: "≤ 1.2",
        status: ok ? "OK" : "MISSED",
        reason: ok ? undefined : "see bench/results.json raw.p90 and the README's Performance section",
        raw: {
          iterations,
          warmup,
          oursMedianMs: round(mo, 4),
          rawMedianMs: round(mr, 4),
          oursP90Ms: round(quantile(t.a, 0.9), 4),
          rawP90Ms: round(quantile(t.b, 0.9), 4),
        },
      });
    }
  } finally {
    await sim.stop();
  }
}

// ---- P4: app logs ----------------------------------------------------------------------------------------

async function p4(): Promise<void> {
  const BIG = 100_000;
  const SMALL = 10_000;
  const reps = QUICK ? 3 : 11;
  log(`P4: getAppLogs over ${BIG} lines vs a raw paging loop (${reps} interleaved runs), iterator memory ${SMALL} vs ${BIG}`);
  const projectId = "p-bench0004";
  const sim = await startSimProcess({
    projects: [projectId],
    apps: [
      [projectId, "big"],
      [projectId, "small"],
    ],
    logs: [
      [projectId, `${projectId}-big`, BIG],
      [projectId, `${projectId}-small`, SMALL],
    ],
  });
  const appBig = `${projectId}-big`;
  const appSmall = `${projectId}-small`;
  try {
    const { getAppLogs } = require("pulumi-pims/bin/sdk/functions") as typeof import("../sdk/functions");
    // Memory first, while the simulator is quiet; then the timing runs.
    const memory = (mode: MemoryJob["mode"], lines: number, appId: string, warmupLines: number): Promise<MemoryResult> => {
      const job: MemoryJob = { mode, baseUrl: sim.baseUrl, token: sim.token, projectId, appId, lines, pageSize: 1000, warmupLines, warmupAppId: appSmall };
      return runJsonChild<MemoryResult>(["--expose-gc", "-r", "ts-node/register/transpile-only", path.join(__dirname, "logs-memory.ts"), JSON.stringify(job)]);
    };
    // Warm: the baseline is taken after 30 000 lines of warm-up (V8 has sized its heap). Cold: after one page.
    const WARM = 30_000;
    // Peak RSS is noisy (allocator and GC timing): five fresh processes per size, alternating; the median counts.
    const smalls: MemoryResult[] = [];
    const bigs: MemoryResult[] = [];
    for (let i = 0; i < (QUICK ? 1 : 5); i++) {
      smalls.push(await memory("iterate", SMALL, appSmall, WARM));
      bigs.push(await memory("iterate", BIG, appBig, WARM));
    }
    const byPeak = (rs: MemoryResult[]): MemoryResult => [...rs].sort((a, b) => a.peakRssGrowthBytes - b.peakRssGrowthBytes)[Math.floor(rs.length / 2)];
    const small = byPeak(smalls);
    const big = byPeak(bigs);
    const smallCold = await memory("iterate", SMALL, appSmall, 1000);
    const bigCold = await memory("iterate", BIG, appBig, 1000);
    const collectBig = await memory("collect", BIG, appBig, WARM);
    for (const r of [small, big, smallCold, bigCold, collectBig]) if (r.read !== r.lines) throw new Error(`P4 memory: read ${r.read} of ${r.lines} lines`);
    // Growth below 1 MB is noise (one page is ~0.3 MB of JSON): clamp the denominator so the ratio means something.
    const floor = 1024 * 1024;
    const growthRatio = (a: MemoryResult, b: MemoryResult): number => Math.max(a.peakRssGrowthBytes, floor) / Math.max(b.peakRssGrowthBytes, floor);
    const ratio = growthRatio(big, small);
    const trajectoryText = (r: MemoryResult): string =>
      r.trajectory
        .filter(([n]) => n % 20_000 === 0 || n === 10_000)
        .map(([n, b]) => `${n / 1000}k:${(b / 1048576).toFixed(1)}`)
        .join(" ");
    rows.push({
      id: "P4",
      measure: `iterateAppLogs peak RSS growth (warm): ${BIG} ÷ ${SMALL} lines`,
      ours: mb(big.peakRssGrowthBytes),
      baseline: mb(small.peakRssGrowthBytes),
      ratio: round(ratio),
      goal: "flat (≤ 1.5; linear would be ≈ 10)",
      status: ratio <= 1.5 ? "OK" : "MISSED",
      reason:
        ratio <= 1.5
          ? undefined
          : `heap retained after GC ${(small.retainedHeapGrowthBytes / 1024).toFixed(0)} KB vs ${(big.retainedHeapGrowthBytes / 1024).toFixed(0)} KB and peak heap ${mb(small.peakHeapGrowthBytes)} vs ${mb(big.peakHeapGrowthBytes)}; RSS by lines read: ${trajectoryText(big)}`,
      raw: { smallRuns: smalls.map((r) => r.peakRssGrowthBytes), bigRuns: bigs.map((r) => r.peakRssGrowthBytes), small, big },
    });
    const coldRatio = growthRatio(bigCold, smallCold);
    rows.push({
      id: "P4",
      measure: `iterateAppLogs peak RSS growth (cold): ${BIG} ÷ ${SMALL} lines`,
      ours: mb(bigCold.peakRssGrowthBytes),
      baseline: mb(smallCold.peakRssGrowthBytes),
      ratio: round(coldRatio),
      goal: "— (informative)",
      status: "N/A",
      reason:
        `from a cold process V8 grows its heap during the first ~20 pages and then stays flat: RSS growth (MB) by lines read in the ${BIG / 1000}k run: ${trajectoryText(bigCold)}; ` +
        `heap retained after GC: ${(smallCold.retainedHeapGrowthBytes / 1024).toFixed(0)} KB (10k) vs ${(bigCold.retainedHeapGrowthBytes / 1024).toFixed(0)} KB (100k)`,
      raw: { smallCold, bigCold },
    });
    rows.push({
      id: "P4",
      measure: `(contrast) getAppLogs peak RSS growth, ${BIG} lines held`,
      ours: mb(collectBig.peakRssGrowthBytes),
      baseline: mb(big.peakRssGrowthBytes),
      ratio: round(growthRatio(collectBig, big)),
      goal: "— (informative)",
      status: "N/A",
      reason: "getAppLogs returns every line, so its memory grows with the limit; use iterateAppLogs for large reads",
      raw: { collectBig },
    });
    const headers = { Authorization: `Bearer ${sim.token}` };
    let oursLines = 0;
    let rawLines = 0;
    const ours = async (): Promise<void> => {
      const r = await getAppLogs({ projectId, appId: appBig, limit: BIG }, { baseUrl: sim.baseUrl, token: sim.token });
      oursLines = r.lines.length;
    };
    const raw = async (): Promise<void> => {
      const lines: unknown[] = [];
      let nextToken: string | undefined;
      for (;;) {
        const res = await axios.get(`${sim.baseUrl}/v2/projects/${projectId}/apps/${appBig}/logs`, {
          headers,
          params: { pageSize: 1000, ...(nextToken ? { nextToken } : {}) },
        });
        if (res.status === 204 || !res.data) break;
        const page = res.data as { hasMore: boolean; logs: unknown[]; nextPageToken?: string };
        lines.push(...page.logs);
        if (!page.hasMore || !page.nextPageToken) break;
        nextToken = page.nextPageToken;
      }
      rawLines = lines.length;
    };
    const t = await interleaved(ours, raw, reps, 1);
    if (oursLines !== BIG || rawLines !== BIG) throw new Error(`P4: read ${oursLines} / ${rawLines} lines instead of ${BIG}`);
    const mo = median(t.a);
    const mr = median(t.b);
    rows.push({
      id: "P4",
      measure: `getAppLogs ${BIG} lines ÷ raw axios paging loop`,
      ours: msText(mo),
      baseline: msText(mr),
      ratio: round(mo / mr),
      goal: "≤ 1.1",
      status: mo / mr <= 1.1 ? "OK" : "MISSED",
      reason: mo / mr <= 1.1 ? undefined : "see the README's Performance section",
      raw: { reps, oursMs: t.a.map((x) => round(x, 1)), rawMs: t.b.map((x) => round(x, 1)) },
    });
  } finally {
    await sim.stop();
  }
}

// ---- P5: pulumi up of 50 resources -----------------------------------------------------------------------

interface UpRun {
  variant: "ours" | "naive";
  upMs: number;
  destroyMs: number;
  upCalls: number;
  previewCalls: number;
  previewChanges: number;
  providerBytes: Record<string, number>;
  tokenInStatePlaintext: boolean;
  /** Issued tokens (the provider's and the service accounts') and AppSecrets values found in plaintext in the stored state. */
  plaintextSecretsInState: number;
}

async function p5(): Promise<void> {
  const reps = QUICK ? 1 : 5;
  log(`P5: pulumi up of 50 resources, pulumi-pims vs docs-style providers (${reps} timed runs each after one warm-up each)`);
  const engine = require("../scripts/engine") as typeof import("../scripts/engine");
  engine.ensureEngine();
  const pims = require("pulumi-pims") as typeof import("../sdk/index");

  const sim = await PimsSimulator.start();
  const projects = ["p-bench0051", "p-bench0052"];
  for (const id of projects) sim.addProject({ id });
  for (let i = 0; i < 15; i++) {
    sim.addVolume(projects[i % 2], { id: `vol-${i}`, sizeGb: 50 });
    sim.addApp(projects[i % 2], `app${i}`);
  }
  const naive = loadNaive(sim.baseUrl, sim.token);

  /** 20 ServiceAccounts, 15 VolumeSizes, 15 AppSecrets: the same inputs and the same HTTP calls in both variants. */
  const plan = (i: number): { sa: Record<string, unknown>; vol: Record<string, unknown>; sec: Record<string, unknown> } => {
    const p = projects[i % 2];
    return {
      sa: { projectId: p, name: `bench-sa-${i}`, description: "", grants: [p], expiresIn: 0 },
      vol: { projectId: p, volumeId: `vol-${i}`, sizeGb: 100 },
      sec: { projectId: p, appId: `${p}-app${i}`, secrets: { API_KEY: `bench-secret-value-${i}` } },
    };
  };
  const programs: Record<UpRun["variant"], PulumiFn> = {
    ours: async () => {
      for (let i = 0; i < 20; i++) new pims.ServiceAccount(`sa-${i}`, plan(i).sa as unknown as import("../sdk/index").ServiceAccountArgs);
      for (let i = 0; i < 15; i++) new pims.VolumeSize(`vol-${i}`, plan(i).vol as unknown as import("../sdk/index").VolumeSizeArgs);
      for (let i = 0; i < 15; i++) new pims.AppSecrets(`sec-${i}`, plan(i).sec as unknown as import("../sdk/index").AppSecretsArgs);
    },
    naive: async () => {
      for (let i = 0; i < 20; i++) new naive.NaiveResource(naive.naiveServiceAccountProvider, `sa-${i}`, plan(i).sa);
      for (let i = 0; i < 15; i++) new naive.NaiveResource(naive.naiveVolumeSizeProvider, `vol-${i}`, plan(i).vol);
      for (let i = 0; i < 15; i++) new naive.NaiveResource(naive.naiveAppSecretsProvider, `sec-${i}`, plan(i).sec);
    },
  };

  const runOnce = async (variant: UpRun["variant"], n: number): Promise<UpRun> => {
    const backendDir = engine.tempDir("pims-bench-be-");
    try {
      const stack = await engine.createPimsStack({
        stackName: `${variant}${n}`,
        projectName: "pims-bench",
        program: programs[variant],
        backendDir,
        baseUrl: sim.baseUrl,
        token: sim.token,
      });
      sim.clearRequests();
      let t0 = now();
      const up = await stack.up({ onOutput: () => undefined });
      const upMs = now() - t0;
      const upCalls = sim.requests.length;
      const created = up.summary.resourceChanges?.create ?? 0;
      if (created !== 51) throw new Error(`P5 ${variant}: up created ${created} resources instead of 51 (50 + the stack)`);
      sim.clearRequests();
      const preview = await stack.preview({ onOutput: () => undefined });
      const previewCalls = sim.requests.length;
      const previewChanges = Object.entries(preview.changeSummary)
        .filter(([k]) => k !== "same")
        .reduce((s, [, v]) => s + (v ?? 0), 0);
      // The state as stored (`pulumi stack export`; the Automation API's exportStack() would decrypt secrets).
      const ws = stack.workspace as unknown as { workDir: string; envVars: Record<string, string> };
      const stateText = execFileSync(path.join(engine.ensureEngine(), "pulumi"), ["stack", "export", "--stack", stack.name, "--non-interactive"], {
        cwd: ws.workDir,
        env: { ...process.env, ...ws.envVars },
        encoding: "utf8",
        maxBuffer: 64 * 1024 * 1024,
      });
      const state = JSON.parse(stateText) as { deployment: unknown };
      const providerBytes: Record<string, number> = {};
      for (const r of (state.deployment as { resources?: Array<{ urn: string; inputs?: Record<string, unknown> }> }).resources ?? []) {
        const p = r.inputs?.__provider;
        if (typeof p !== "string") continue;
        const name = r.urn.split("::").pop() ?? "";
        const kind = name.startsWith("sa-") ? "ServiceAccount" : name.startsWith("vol-") ? "VolumeSize" : "AppSecrets";
        providerBytes[kind] = Math.max(providerBytes[kind] ?? 0, Buffer.byteLength(p));
      }
      t0 = now();
      await stack.destroy({ onOutput: () => undefined });
      const destroyMs = now() - t0;
      await stack.workspace.removeStack(stack.name);
      const secrets = [...sim.issuedSecrets(), ...Array.from({ length: 15 }, (_, i) => (plan(i).sec.secrets as Record<string, string>).API_KEY)];
      return {
        variant,
        upMs,
        destroyMs,
        upCalls,
        previewCalls,
        previewChanges,
        providerBytes,
        tokenInStatePlaintext: stateText.includes(sim.token),
        plaintextSecretsInState: secrets.filter((x) => stateText.includes(x)).length,
      };
    } finally {
      fs.rmSync(backendDir, { recursive: true, force: true });
    }
  };

  const warn = console.warn;
  try {
    log("P5: warm-up runs");
    await runOnce("ours", 0);
    await runOnce("naive", 0);
    const runs: UpRun[] = [];
    const order: Array<UpRun["variant"]> = [];
    const pairs: ReadonlyArray<Array<UpRun["variant"]>> = [
      ["ours", "naive"],
      ["naive", "ours"],
    ];
    for (let i = 0; i < reps; i++) order.push(...pairs[i % 2]);
    for (const [i, v] of order.entries()) {
      const r = await runOnce(v, i + 1);
      log(`P5: ${v} up ${r.upMs.toFixed(0)} ms, destroy ${r.destroyMs.toFixed(0)} ms, ${r.upCalls} calls`);
      runs.push(r);
    }
    const of = (v: UpRun["variant"]): UpRun[] => runs.filter((r) => r.variant === v);
    const upOurs = median(of("ours").map((r) => r.upMs));
    const upNaive = median(of("naive").map((r) => r.upMs));
    const ratio = upOurs / upNaive;
    const spread = (xs: number[]): string => `${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)} ms`;
    rows.push({
      id: "P5",
      measure: "pulumi up, 50 resources (20 SA, 15 VolumeSize, 15 AppSecrets)",
      ours: `${(upOurs / 1000).toFixed(2)} s`,
      baseline: `${(upNaive / 1000).toFixed(2)} s`,
      ratio: round(ratio),
      goal: "≤ 1.0",
      status: ratio <= 1.0 ? "OK" : "MISSED",
      reason:
        ratio <= 1.0
          ? undefined
          : `ours ${spread(of("ours").map((r) => r.upMs))}, naive ${spread(of("naive").map((r) => r.upMs))}: see the README's Performance section`,
      raw: { runs },
    });
    const dOurs = median(of("ours").map((r) => r.destroyMs));
    const dNaive = median(of("naive").map((r) => r.destroyMs));
    rows.push({
      id: "P5",
      measure: "(also) pulumi destroy, same stack",
      ours: `${(dOurs / 1000).toFixed(2)} s`,
      baseline: `${(dNaive / 1000).toFixed(2)} s`,
      ratio: round(dOurs / dNaive),
      goal: "— (informative)",
      status: "N/A",
    });
    const last = of("ours")[0];
    const lastNaive = of("naive")[0];
    rows.push({
      id: "P5",
      measure: "HTTP calls: up of 50 resources / no-change preview after it",
      ours: `${last.upCalls} / ${last.previewCalls}`,
      baseline: `${lastNaive.upCalls} / ${lastNaive.previewCalls}`,
      ratio: round(last.upCalls / 50),
      goal: "50 / 0",
      status: last.upCalls === 50 && last.previewCalls === 0 && last.previewChanges === 0 ? "OK" : "MISSED",
      reason:
        last.upCalls === 50 && last.previewCalls === 0
          ? undefined
          : `up made ${last.upCalls} calls, preview ${last.previewCalls} (${last.previewChanges} changes)`,
    });
    for (const kind of ["ServiceAccount", "VolumeSize", "AppSecrets"]) {
      const o = last.providerBytes[kind] ?? 0;
      const n = lastNaive.providerBytes[kind] ?? 0;
      rows.push({
        id: "P1",
        measure: `__provider bytes in exported state: ${kind}`,
        ours: `${o} B`,
        baseline: `${n} B`,
        ratio: n ? round(o / n) : null,
        goal: "≤ 1.5 KB",
        status: o > 0 && o <= 1536 ? "OK" : "MISSED",
        reason: o > 0 && o <= 1536 ? undefined : `${o} bytes`,
      });
    }
    rows.push({
      id: "P1",
      measure: "secrets in plaintext in the stored state (provider token, 20 account tokens, 15 app secrets)",
      ours: String(last.plaintextSecretsInState),
      baseline: String(lastNaive.plaintextSecretsInState),
      ratio: null,
      goal: "0",
      status: last.plaintextSecretsInState === 0 ? "OK" : "MISSED",
      reason: last.plaintextSecretsInState === 0 ? undefined : `${last.plaintextSecretsInState} secrets readable in the state`,
      raw: { providerTokenInPlaintext: { ours: last.tokenInStatePlaintext, naive: lastNaive.tokenInStatePlaintext } },
    });
  } finally {
    console.warn = warn;
    await sim.stop();
  }
}

// ---- P6: 500 resources at --parallel 64 against a rate-limited service -----------------------------------

interface ThrottledOp {
  ms: number;
  /** Resources not created (up) or not deleted (destroy). */
  failures: number;
  requests: number;
  refused: number;
  error?: string;
}

async function p6(): Promise<void> {
  const RATE = 20;
  const PARALLEL = 64;
  const N = 500;
  const COUNTS = { Project: 20, ServiceAccount: 380, VolumeSize: 50, AppSecrets: 50 };
  log(`P6: pulumi up/destroy of ${N} resources at --parallel ${PARALLEL}, simulator limited to ${RATE} requests/s (burst ${RATE})`);
  const engine = require("../scripts/engine") as typeof import("../scripts/engine");
  engine.ensureEngine();
  const pims = require("pulumi-pims") as typeof import("../sdk/index");
  const projects = ["p-bench0601", "p-bench0602"];
  const seed = (rateLimit?: SeedPlan["rateLimit"]): SeedPlan => ({
    projects,
    volumes: Array.from({ length: COUNTS.VolumeSize }, (_, i): [string, string, number] => [projects[i % 2], `vol-${i}`, 50]),
    apps: Array.from({ length: COUNTS.AppSecrets }, (_, i): [string, string] => [projects[i % 2], `app${i}`]),
    rateLimit,
  });
  /** The same inputs and the same HTTP calls in both variants: one request per create and per account delete. */
  const inputs = (i: number) => {
    const p = projects[i % 2];
    return {
      project: { name: `bench-p6-project-${i}` },
      sa: { projectId: p, name: `bench-p6-sa-${i}`, description: "", grants: [p], expiresIn: 0 },
      vol: { projectId: p, volumeId: `vol-${i}`, sizeGb: 100 },
      sec: { projectId: p, appId: `${p}-app${i}`, secrets: { API_KEY: `bench-p6-value-${i}` } },
    };
  };
  const oursProgram: PulumiFn = async () => {
    for (let i = 0; i < COUNTS.Project; i++) new pims.Project(`project-${i}`, inputs(i).project);
    for (let i = 0; i < COUNTS.ServiceAccount; i++) new pims.ServiceAccount(`sa-${i}`, inputs(i).sa);
    for (let i = 0; i < COUNTS.VolumeSize; i++) new pims.VolumeSize(`vol-${i}`, inputs(i).vol);
    for (let i = 0; i < COUNTS.AppSecrets; i++) new pims.AppSecrets(`sec-${i}`, inputs(i).sec);
  };
  const naiveProgram =
    (naive: typeof import("./naive")): PulumiFn =>
    async () => {
      for (let i = 0; i < COUNTS.Project; i++) new naive.NaiveResource(naive.naiveProjectProvider, `project-${i}`, inputs(i).project);
      for (let i = 0; i < COUNTS.ServiceAccount; i++) new naive.NaiveResource(naive.naiveServiceAccountProvider, `sa-${i}`, inputs(i).sa);
      for (let i = 0; i < COUNTS.VolumeSize; i++) new naive.NaiveResource(naive.naiveVolumeSizeProvider, `vol-${i}`, inputs(i).vol);
      for (let i = 0; i < COUNTS.AppSecrets; i++) new naive.NaiveResource(naive.naiveAppSecretsProvider, `sec-${i}`, inputs(i).sec);
    };

  /** up then destroy of one variant against a fresh simulator process (throttled or not). */
  const runBoth = async (variant: "ours" | "naive", throttled: boolean): Promise<{ up: ThrottledOp; destroy: ThrottledOp }> => {
    const sim = await startSimProcess(seed(throttled ? { rate: RATE, burst: RATE, retryAfter: "seconds" } : undefined));
    const backendDir = engine.tempDir("pims-bench-p6-");
    try {
      const program = variant === "ours" ? oursProgram : naiveProgram(loadNaive(sim.baseUrl, sim.token));
      const stack = await engine.createPimsStack({
        stackName: `p6${variant}`,
        projectName: "pims-bench-p6",
        program,
        backendDir,
        baseUrl: sim.baseUrl,
        token: sim.token,
      });
      const inState = async (): Promise<number> => {
        const st = await stack.exportStack();
        const res = (st.deployment as { resources?: Array<{ type: string }> }).resources ?? [];
        return res.filter((r) => r.type.startsWith("pulumi-nodejs:dynamic")).length;
      };
      const op = async (run: () => Promise<unknown>, failures: () => Promise<number>): Promise<ThrottledOp> => {
        await sim.stats(); // reset the counters
        let error: string | undefined;
        const t0 = now();
        try {
          await run();
        } catch (e) {
          error = (e instanceof Error ? e.message : String(e)).slice(-600);
        }
        const ms = now() - t0;
        const { requests, refused } = await sim.stats();
        return { ms, failures: await failures(), requests, refused, error };
      };
      const quiet = { onOutput: () => undefined, onError: () => undefined, parallel: PARALLEL };
      const up = await op(
        () => stack.up(quiet),
        async () => N - (await inState()),
      );
      const destroy = await op(() => stack.destroy(quiet), inState);
      log(
        `P6: ${variant}${throttled ? " throttled" : " unthrottled"}: up ${(up.ms / 1000).toFixed(1)} s, ${up.failures} failures, ${up.refused}/${up.requests} refused; ` +
          `destroy ${(destroy.ms / 1000).toFixed(1)} s, ${destroy.failures} failures, ${destroy.refused}/${destroy.requests} refused`,
      );
      return { up, destroy };
    } finally {
      await sim.stop();
      fs.rmSync(backendDir, { recursive: true, force: true });
    }
  };

  const baseline = await runBoth("ours", false);
  const ours = await runBoth("ours", true);
  const naive = await runBoth("naive", true);
  for (const step of ["up", "destroy"] as const) {
    const o = ours[step];
    const nv = naive[step];
    const base = baseline[step];
    // The least the step can take: the same step unthrottled, or the accepted requests at the allowed rate.
    const floorMs = (x: ThrottledOp): number => Math.max(base.ms, ((x.requests - x.refused) / RATE) * 1000);
    const share = (x: ThrottledOp): string => `${((100 * x.refused) / Math.max(1, x.requests)).toFixed(1)} %`;
    const time = (x: ThrottledOp): string => `${(x.ms / 1000).toFixed(1)} s`;
    const label = `pulumi ${step} ${N} resources, --parallel ${PARALLEL}, ${RATE} req/s`;
    rows.push({
      id: "P6",
      measure: `${label}: failures`,
      ours: String(o.failures),
      baseline: `${nv.failures} (naive)`,
      ratio: null,
      goal: "0",
      status: o.failures === 0 ? "OK" : "MISSED",
      reason: o.failures === 0 ? undefined : o.error,
      raw: { ours: o, naive: nv, unthrottled: base },
    });
    rows.push({
      id: "P6",
      measure: `${label}: refused ÷ all requests`,
      ours: `${o.refused}/${o.requests}`,
      baseline: `${nv.refused}/${nv.requests} (naive)`,
      ratio: round(o.refused / Math.max(1, o.requests), 3),
      goal: "≤ 0.05",
      status: o.refused / Math.max(1, o.requests) <= 0.05 ? "OK" : "MISSED",
      reason: `ours ${share(o)}, naive ${share(nv)}`,
    });
    const ratio = o.ms / floorMs(o);
    rows.push({
      id: "P6",
      measure: `${label}: wall ÷ max(unthrottled, requests ÷ rate)`,
      ours: `${time(o)} ÷ ${(floorMs(o) / 1000).toFixed(1)} s`,
      baseline: `${time(nv)} ÷ ${(floorMs(nv) / 1000).toFixed(1)} s (naive)`,
      ratio: round(ratio),
      goal: "≤ 1.2",
      status: ratio <= 1.2 ? "OK" : "MISSED",
      reason:
        `unthrottled ${time(base)}; naive ratio ${(nv.ms / floorMs(nv)).toFixed(2)}` + (nv.error ? `; naive ${step} failed: ${nv.error.slice(-200)}` : ""),
    });
  }
}

// ---- P7: how time per resource grows with the stack -----------------------------------------------------

type StackOp = "up" | "preview" | "refresh" | "destroy";
const STACK_OPS: StackOp[] = ["up", "preview", "refresh", "destroy"];

interface ScaleRun {
  variant: "ours" | "naive";
  n: number;
  /** Wall time of each operation, ms. */
  ms: Record<StackOp, number>;
  /** Requests the simulator received during each operation. */
  requests: Record<StackOp, number>;
}

async function p7(): Promise<void> {
  const SIZES = QUICK ? [50, 200] : [50, 200, 500];
  // Runs per variant and size, alternating which variant goes first (the engine's time is noisy on 2 cores).
  const REPS = QUICK ? 1 : 2;
  log(`P7: up / no-change preview / refresh / destroy of N ServiceAccounts, N = ${SIZES.join(", ")}, pulumi-pims vs docs-style (${REPS} runs each)`);
  const engine = require("../scripts/engine") as typeof import("../scripts/engine");
  engine.ensureEngine();
  const pims = require("pulumi-pims") as typeof import("../sdk/index");
  const projects = ["p-bench0701", "p-bench0702"];
  const inputs = (i: number) => {
    const p = projects[i % 2];
    return { projectId: p, name: `bench-p7-sa-${i}`, description: "", grants: [p], expiresIn: 0 };
  };

  const runOnce = async (variant: ScaleRun["variant"], n: number, rep: number): Promise<ScaleRun> => {
    const sim = await startSimProcess({ projects });
    const backendDir = engine.tempDir("pims-bench-p7-");
    try {
      const naive = variant === "naive" ? loadNaive(sim.baseUrl, sim.token) : undefined;
      const program: PulumiFn = async () => {
        for (let i = 0; i < n; i++) {
          if (naive) new naive.NaiveResource(naive.naiveServiceAccountProvider, `sa-${i}`, inputs(i));
          else new pims.ServiceAccount(`sa-${i}`, inputs(i));
        }
      };
      const stack = await engine.createPimsStack({
        stackName: `p7${variant}${n}r${rep}`,
        projectName: "pims-bench-p7",
        program,
        backendDir,
        baseUrl: sim.baseUrl,
        token: sim.token,
      });
      const quiet = { onOutput: () => undefined, onError: () => undefined };
      const steps: Record<StackOp, () => Promise<unknown>> = {
        up: async () => {
          const r = await stack.up(quiet);
          const created = r.summary.resourceChanges?.create ?? 0;
          if (created !== n + 1) throw new Error(`P7 ${variant} N=${n}: up created ${created} resources instead of ${n + 1}`);
        },
        preview: async () => {
          const r = await stack.preview(quiet);
          const changes = Object.entries(r.changeSummary).filter(([k, v]) => k !== "same" && (v ?? 0) > 0);
          if (changes.length > 0) throw new Error(`P7 ${variant} N=${n}: the no-change preview planned ${JSON.stringify(Object.fromEntries(changes))}`);
        },
        refresh: () => stack.refresh(quiet),
        destroy: () => stack.destroy(quiet),
      };
      const ms = {} as Record<StackOp, number>;
      const requests = {} as Record<StackOp, number>;
      for (const op of STACK_OPS) {
        await sim.stats(); // reset the counters
        const t0 = now();
        await steps[op]();
        ms[op] = now() - t0;
        requests[op] = (await sim.stats()).requests;
      }
      await stack.workspace.removeStack(stack.name);
      log(`P7: ${variant} N=${n}: ${STACK_OPS.map((op) => `${op} ${(ms[op] / 1000).toFixed(1)} s (${requests[op]} req)`).join(", ")}`);
      return { variant, n, ms, requests };
    } finally {
      await sim.stop();
      fs.rmSync(backendDir, { recursive: true, force: true });
    }
  };

  log("P7: warm-up runs");
  await runOnce("ours", 10, 0);
  await runOnce("naive", 10, 0);
  const runs: ScaleRun[] = [];
  for (const n of SIZES) {
    for (let rep = 0; rep < REPS; rep++) {
      const order: Array<ScaleRun["variant"]> = rep % 2 === 0 ? ["ours", "naive"] : ["naive", "ours"];
      for (const v of order) runs.push(await runOnce(v, n, rep + 1));
    }
  }
  const perResource = (v: ScaleRun["variant"], n: number, op: StackOp): number =>
    median(runs.filter((r) => r.variant === v && r.n === n).map((r) => r.ms[op])) / n;
  for (const op of STACK_OPS) {
    for (const n of SIZES) {
      const o = perResource("ours", n, op);
      const nv = perResource("naive", n, op);
      const ratio = o / nv;
      const reqs = (v: ScaleRun["variant"]): number => runs.find((r) => r.variant === v && r.n === n)?.requests[op] ?? 0;
      rows.push({
        id: "P7",
        measure: `pulumi ${op === "preview" ? "preview (no change)" : op}, ${n} ServiceAccounts: ms per resource`,
        ours: `${o.toFixed(1)} ms`,
        baseline: `${nv.toFixed(1)} ms`,
        ratio: round(ratio),
        goal: "≤ 1.05",
        status: ratio <= 1.05 ? "OK" : "MISSED",
        reason: ratio <= 1.05 ? undefined : `requests ours ${reqs("ours")}, naive ${reqs("naive")}: see the README's Performance section`,
        raw: {
          ours: runs.filter((r) => r.variant === "ours" && r.n === n).map((r) => r.ms[op]),
          naive: runs.filter((r) => r.variant === "naive" && r.n === n).map((r) => r.ms[op]),
        },
      });
    }
  }
  // Growth: time per resource at the largest N ÷ at the smallest; 1.0 would be linear. Informative.
  const [lo, hi] = [SIZES[0], SIZES[SIZES.length - 1]];
  for (const op of STACK_OPS) {
    const growth = (v: ScaleRun["variant"]): number => perResource(v, hi, op) / perResource(v, lo, op);
    rows.push({
      id: "P7",
      measure: `${op}: ms per resource at N=${hi} ÷ at N=${lo} (1.0 = linear)`,
      ours: growth("ours").toFixed(2),
      baseline: `${growth("naive").toFixed(2)} (naive)`,
      ratio: round(growth("ours") / growth("naive")),
      goal: "— (informative)",
      status: "N/A",
    });
  }
}

// ---- main ------------------------------------------------------------------------------------------------

function printTable(): void {
  const header = ["id", "measure", "pulumi-pims", "baseline", "ratio", "goal", "status"];
  const body = rows.map((r) => [r.id, r.measure, r.ours, r.baseline, r.ratio === null ? "—" : r.ratio.toFixed(2), r.goal, r.status]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i])).join("  ");
  process.stdout.write(`${line(header)}\n${widths.map((w) => "-".repeat(w)).join("  ")}\n`);
  for (const b of body) process.stdout.write(`${line(b)}\n`);
  const notes = rows.filter((r) => r.status !== "OK" && r.reason);
  if (notes.length) {
    process.stdout.write("\n");
    for (const r of notes) process.stdout.write(`${r.status === "MISSED" ? "MISSED" : "note"}  ${r.id} ${r.measure}: ${r.reason}\n`);
  }
}

async function main(): Promise<void> {
  if (!fs.existsSync(path.join(REPO, "bin", "provider", "index.js"))) {
    throw new Error("bin/ is missing: run `npm run build` first (the benchmark measures the compiled package)");
  }
  const started = Date.now();
  const loadAverageAtStart = os.loadavg().map((x) => round(x));
  const parts: Array<[string, () => Promise<void>]> = [
    ["P1", p1],
    ["P2", p2],
    ["P3", p3],
    ["P4", p4],
    ["P5", p5],
    ["P6", p6],
    ["P7", p7],
  ];
  for (const [id, fn] of parts) {
    if (!wanted(id)) continue;
    const first = rows.length;
    try {
      await fn();
      for (const r of rows.slice(first)) r.part = id;
    } catch (e) {
      log(`${id} failed: ${e instanceof Error ? e.stack : String(e)}`);
      rows.push({
        id,
        part: id,
        measure: `${id} could not run`,
        ours: "—",
        baseline: "—",
        ratio: null,
        goal: "—",
        status: "MISSED",
        reason: e instanceof Error ? e.message : String(e),
      });
    }
  }
  printTable();
  const results = {
    generatedAt: new Date().toISOString(),
    durationS: round((Date.now() - started) / 1000, 1),
    machine: {
      node: process.version,
      platform: `${os.platform()} ${os.arch()}`,
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? "",
      loadAverageAtStart,
      loadAverageAtEnd: os.loadavg().map((x) => round(x)),
    },
    quick: QUICK,
    rows,
  };
  // With --only, keep the other parts' previous results.
  if (ONLY && fs.existsSync(RESULTS_FILE)) {
    try {
      const previous = JSON.parse(fs.readFileSync(RESULTS_FILE, "utf8")) as { rows?: Row[] };
      results.rows = [...(previous.rows ?? []).filter((r) => !ONLY.has(r.part ?? r.id)), ...rows].sort((a, b) => a.id.localeCompare(b.id));
    } catch {
      // unreadable previous results: overwrite
    }
  }
  fs.writeFileSync(RESULTS_FILE, `${JSON.stringify(results, null, 2)}\n`);
  log(`wrote ${path.relative(REPO, RESULTS_FILE)} in ${results.durationS} s`);
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    log(e instanceof Error ? (e.stack ?? e.message) : String(e));
    process.exit(1);
  },
);
