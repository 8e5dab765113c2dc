/**
 * P4: app logs. Time: `getAppLogs` over 100 000 lines ÷ a raw sequential axios loop that follows `nextToken`,
 * alternately (goal ≤ 1.1). Memory: peak RSS growth of the iterator path (`client.iterateAppLogs`) over 10 000 vs
 * 100 000 lines, each in a fresh child process (bench/logs-memory.ts) — flat is the goal (≤ 1.5; growing with the
 * line count would give ≈ 10) — from a warm and from a cold process, and `getAppLogs` holding every line as contrast.
 */
import * as path from "node:path";
import type { MemoryJob, MemoryResult } from "./logs-memory";
import {
  interleaved,
  log,
  mb,
  median,
  msText,
  okOrMissed,
  round,
  runJsonChild,
  startSimProcess,
  type BenchOptions,
  type Row,
  type SimProcess,
} from "./harness";

const axios = require("axios") as typeof import("axios").default;

const BIG = 100_000;
const SMALL = 10_000;
const PROJECT = "p-bench0004";
const APP_BIG = `${PROJECT}-big`;
const APP_SMALL = `${PROJECT}-small`;
/** Warm: the baseline is taken after 30 000 lines of warm-up (V8 has sized its heap). Cold: after one page. */
const WARM = 30_000;
const COLD = 1000;
/**
 * Growth below 1 MB is noise (one page is ~0.3 MB of JSON): the denominator is clamped so the ratio means something.
 */
const FLOOR = 1024 * 1024;

const growthRatio = (a: MemoryResult, b: MemoryResult): number =>
  Math.max(a.peakRssGrowthBytes, FLOOR) / Math.max(b.peakRssGrowthBytes, FLOOR);
const kb = (bytes: number): string => `${(bytes / 1024).toFixed(0)} KB`;
const trajectoryText = (r: MemoryResult): string =>
  r.trajectory
    .filter(([n]) => n % 20_000 === 0 || n === 10_000)
    .map(([n, b]) => `${n / 1000}k:${(b / 1048576).toFixed(1)}`)
    .join(" ");

function memory(
  sim: SimProcess,
  mode: MemoryJob["mode"],
  lines: number,
  appId: string,
  warmupLines: number,
): Promise<MemoryResult> {
  const job: MemoryJob = {
    mode,
    baseUrl: sim.baseUrl,
    token: sim.token,
    projectId: PROJECT,
    appId,
    lines,
    pageSize: 1000,
    warmupLines,
    warmupAppId: APP_SMALL,
  };
  return runJsonChild<MemoryResult>([
    "--expose-gc",
    "-r",
    "ts-node/register/transpile-only",
    path.join(__dirname, "logs-memory.ts"),
    JSON.stringify(job),
  ]);
}

async function memoryRows(sim: SimProcess, quick: boolean): Promise<Row[]> {
  // Peak RSS is noisy (allocator and GC timing): five fresh processes per size, alternating; the median counts.
  const smalls: MemoryResult[] = [];
  const bigs: MemoryResult[] = [];
  for (let i = 0; i < (quick ? 1 : 5); i++) {
    smalls.push(await memory(sim, "iterate", SMALL, APP_SMALL, WARM));
    bigs.push(await memory(sim, "iterate", BIG, APP_BIG, WARM));
  }
  const byPeak = (rs: MemoryResult[]): MemoryResult =>
    [...rs].sort((a, b) => a.peakRssGrowthBytes - b.peakRssGrowthBytes)[Math.floor(rs.length / 2)];
  const [small, big] = [byPeak(smalls), byPeak(bigs)];
  const smallCold = await memory(sim, "iterate", SMALL, APP_SMALL, COLD);
  const bigCold = await memory(sim, "iterate", BIG, APP_BIG, COLD);
  const collectBig = await memory(sim, "collect", BIG, APP_BIG, WARM);
  for (const r of [small, big, smallCold, bigCold, collectBig])
    if (r.read !== r.lines) throw new Error(`P4 memory: read ${r.read} of ${r.lines} lines`);
  const ratio = growthRatio(big, small);
  const heapText =
    `heap retained after GC ${kb(small.retainedHeapGrowthBytes)} vs ${kb(big.retainedHeapGrowthBytes)} ` +
    `and peak heap ${mb(small.peakHeapGrowthBytes)} vs ${mb(big.peakHeapGrowthBytes)}`;
  return [
    {
      id: "P4",
      measure: `iterateAppLogs peak RSS growth (warm): ${BIG} ÷ ${SMALL} lines`,
      ours: mb(big.peakRssGrowthBytes),
      baseline: mb(small.peakRssGrowthBytes),
      ratio: round(ratio),
      goal: "flat (≤ 1.5; linear would be ≈ 10)",
      status: okOrMissed(ratio <= 1.5),
      reason: ratio <= 1.5 ? undefined : `${heapText}; RSS by lines read: ${trajectoryText(big)}`,
      raw: {
        smallRuns: smalls.map((r) => r.peakRssGrowthBytes),
        bigRuns: bigs.map((r) => r.peakRssGrowthBytes),
        small,
        big,
      },
    },
    {
      id: "P4",
      measure: `iterateAppLogs peak RSS growth (cold): ${BIG} ÷ ${SMALL} lines`,
      ours: mb(bigCold.peakRssGrowthBytes),
      baseline: mb(smallCold.peakRssGrowthBytes),
      ratio: round(growthRatio(bigCold, smallCold)),
      goal: "— (informative)",
      status: "N/A",
      reason:
        `from a cold process V8 grows its heap during the first ~20 pages and then stays flat: RSS growth (MB) by ` +
        `lines read in the ${BIG / 1000}k run: ${trajectoryText(bigCold)}; ` +
        `heap retained after GC: ${kb(smallCold.retainedHeapGrowthBytes)} (10k) vs ` +
        `${kb(bigCold.retainedHeapGrowthBytes)} (100k)`,
      raw: { smallCold, bigCold },
    },
    {
      id: "P4",
      measure: `(contrast) getAppLogs peak RSS growth, ${BIG} lines held`,
      ours: mb(collectBig.peakRssGrowthBytes),
      baseline: mb(big.peakRssGrowthBytes),
      ratio: round(growthRatio(collectBig, big)),
      goal: "— (informative)",
      status: "N/A",
      reason: "getAppLogs returns every line, so its memory grows with the limit; use iterateAppLogs for large reads",
      raw: { collectBig },
    },
  ];
}

/** The raw loop: GET .../apps/{app_id}/logs, following `nextPageToken` while `hasMore`, keeping every line. */
async function rawPaging(sim: SimProcess): Promise<number> {
  const lines: unknown[] = [];
  let nextToken: string | undefined;
  for (;;) {
    const res = await axios.get(`${sim.baseUrl}/v2/projects/${PROJECT}/apps/${APP_BIG}/logs`, {
      headers: { Authorization: `Bearer ${sim.token}` },
      params: { pageSize: 1000, ...(nextToken ? { nextToken } : {}) },
    });
    if (res.status === 204 || !res.data) break;
    const page = res.data as { hasMore: boolean; logs: unknown[]; nextPageToken?: string };
    lines.push(...page.logs);
    if (!page.hasMore || !page.nextPageToken) break;
    nextToken = page.nextPageToken;
  }
  return lines.length;
}

async function timeRow(sim: SimProcess, reps: number): Promise<Row> {
  const { getAppLogs } = require("pulumi-pims/bin/sdk/nodejs/functions") as typeof import("../sdk/nodejs/functions");
  let oursLines = 0;
  let rawLines = 0;
  const ours = async (): Promise<void> => {
    oursLines = (
      await getAppLogs({ projectId: PROJECT, appId: APP_BIG, limit: BIG }, { baseUrl: sim.baseUrl, token: sim.token })
    ).lines.length;
  };
  const raw = async (): Promise<void> => {
    rawLines = await rawPaging(sim);
  };
  const t = await interleaved(ours, raw, reps, 1);
  if (oursLines !== BIG || rawLines !== BIG)
    throw new Error(`P4: read ${oursLines} / ${rawLines} lines instead of ${BIG}`);
  const [mo, mr] = [median(t.a), median(t.b)];
  return {
    id: "P4",
    measure: `getAppLogs ${BIG} lines ÷ raw axios paging loop`,
    ours: msText(mo),
    baseline: msText(mr),
    ratio: round(mo / mr),
    goal: "≤ 1.1",
    status: okOrMissed(mo / mr <= 1.1),
    reason: mo / mr <= 1.1 ? undefined : "see bench/README.md",
    raw: { reps, oursMs: t.a.map((x) => round(x, 1)), rawMs: t.b.map((x) => round(x, 1)) },
  };
}

export async function p4({ quick }: BenchOptions): Promise<Row[]> {
  const reps = quick ? 3 : 11;
  log(
    `P4: getAppLogs over ${BIG} lines vs a raw paging loop (${reps} interleaved runs), ` +
      `iterator memory ${SMALL} vs ${BIG}`,
  );
  const sim = await startSimProcess({
    projects: [PROJECT],
    apps: [
      [PROJECT, "big"],
      [PROJECT, "small"],
    ],
    logs: [
      [PROJECT, APP_BIG, BIG],
      [PROJECT, APP_SMALL, SMALL],
    ],
  });
  try {
    // Memory first, while the simulator is quiet; then the timing runs.
    const rows = await memoryRows(sim, quick);
    rows.push(await timeRow(sim, reps));
    return rows;
  } finally {
    await sim.stop();
  }
}
