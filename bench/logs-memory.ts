/**
 * One memory measurement of reading app logs, run by bench/run.ts in a fresh child process (with --expose-gc) so
 * runs do not pollute each other. Argument: JSON {@link MemoryJob}. Prints one JSON line {@link MemoryResult}.
 *
 * - mode `iterate`: `client.iterateAppLogs(...)`, counting lines and keeping none (the streaming path);
 * - mode `collect`: `getAppLogs({ limit })` (holds every line in memory: the contrast).
 *
 * The baseline is taken after the modules are loaded, `warmupLines` lines of another app have been read through
 * the same path (warm-up: sockets, JIT, V8's heap sizing) and a full GC. Then RSS and heap are sampled after every page
 * (no forced GC: what the process really reaches), and once more after a final forced GC.
 */
import type { PimsClient as PimsClientType } from "../provider/client";

export interface MemoryJob {
  mode: "iterate" | "collect";
  baseUrl: string;
  token: string;
  projectId: string;
  appId: string;
  /** Lines to read (the app holds at least this many). */
  lines: number;
  pageSize: number;
  /**
   * Lines read (and dropped) before the baseline, from `warmupAppId`, through the same code path: V8 sizes its
   * heap during the first ~20 pages, a one-time cost that does not depend on how many lines are read after.
   */
  warmupLines: number;
  warmupAppId: string;
}

export interface MemoryResult {
  mode: MemoryJob["mode"];
  lines: number;
  /** Lines actually read. */
  read: number;
  baselineRssBytes: number;
  /** Highest RSS sampled while reading, minus the baseline. */
  peakRssGrowthBytes: number;
  /** Highest heapUsed sampled while reading, minus the baseline heapUsed. */
  peakHeapGrowthBytes: number;
  /** heapUsed after a forced GC at the end (lines still referenced in `collect` mode), minus the baseline. */
  retainedHeapGrowthBytes: number;
  /** RSS minus the baseline after every 10 000 lines read: [lines, bytes]. */
  trajectory: Array<[number, number]>;
  ms: number;
}

const gc = (): void => {
  const g = (globalThis as { gc?: () => void }).gc;
  if (g) {
    g();
    g();
  }
};

async function main(): Promise<void> {
  const job = JSON.parse(process.argv[2] ?? "{}") as MemoryJob;
  // The compiled package, as a user runs it.
  const { PimsClient } = require("pulumi-pims/bin/provider/client") as { PimsClient: typeof PimsClientType };
  const { getAppLogs } = require("pulumi-pims/bin/sdk/nodejs/functions") as typeof import("../sdk/nodejs/functions");
  const client = new PimsClient({ baseUrl: job.baseUrl, token: job.token });

  // warm-up: at least one page, through the same code path, from another app
  let warm = 0;
  do {
    for await (const line of client.iterateAppLogs(job.projectId, job.warmupAppId, { pageSize: job.pageSize })) {
      if (line.logLine.length >= 0) warm++;
      if (warm >= job.warmupLines) break;
    }
  } while (warm < job.warmupLines);
  gc();
  const base = process.memoryUsage();
  let peakRss = base.rss;
  let peakHeap = base.heapUsed;
  const sample = (): void => {
    const m = process.memoryUsage();
    if (m.rss > peakRss) peakRss = m.rss;
    if (m.heapUsed > peakHeap) peakHeap = m.heapUsed;
  };
  const timer = setInterval(sample, 5);

  const trajectory: Array<[number, number]> = [];
  const t0 = process.hrtime.bigint();
  let read = 0;
  let kept: unknown = undefined;
  if (job.mode === "iterate") {
    for await (const line of client.iterateAppLogs(job.projectId, job.appId, { pageSize: job.pageSize })) {
      if (line.logLine.length >= 0) read++;
      if (read % job.pageSize === 0) sample();
      if (read % 10_000 === 0) trajectory.push([read, process.memoryUsage().rss - base.rss]);
      if (read >= job.lines) break;
    }
  } else {
    const r = await getAppLogs(
      { projectId: job.projectId, appId: job.appId, limit: job.lines, pageSize: job.pageSize },
      { baseUrl: job.baseUrl, token: job.token },
    );
    read = r.lines.length;
    kept = r;
    sample();
  }
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  clearInterval(timer);
  sample();
  gc();
  const end = process.memoryUsage();
  const result: MemoryResult = {
    mode: job.mode,
    lines: job.lines,
    read,
    baselineRssBytes: base.rss,
    peakRssGrowthBytes: peakRss - base.rss,
    peakHeapGrowthBytes: peakHeap - base.heapUsed,
    retainedHeapGrowthBytes: end.heapUsed - base.heapUsed,
    trajectory,
    ms,
  };
  if (kept === null) process.stdout.write(""); // keep `kept` alive until after the final measurement
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`logs-memory: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  },
);
