/**
 * A PIMS simulator in its own process, for the timing and memory benchmarks: the service's work then runs on
 * another core, as a real service's would, and its memory (100 000 log lines) is not counted in the measured
 * process. Started by bench/run.ts with a seeding plan as the first argument (JSON, {@link SeedPlan}); prints one
 * JSON line `{ baseUrl, token }` when it listens; stops when its stdin closes or on SIGTERM.
 */
import * as readline from "node:readline";
import { PimsSimulator } from "../simulator";
import type { RateLimit } from "../simulator/rateLimit";

export interface SeedPlan {
  /** Projects to create with these ids. */
  projects: string[];
  /** Volumes: [projectId, volumeId, sizeGb]. */
  volumes?: Array<[string, string, number]>;
  /** Apps: [projectId, appName]. */
  apps?: Array<[string, string]>;
  /** Generated log lines: [projectId, appId, count]. */
  logs?: Array<[string, string, number]>;
  /** The simulator's rate limit (token bucket per bearer token); none when absent. */
  rateLimit?: RateLimit;
}

async function main(): Promise<void> {
  const plan = JSON.parse(process.argv[2] ?? "{}") as SeedPlan;
  const sim = await PimsSimulator.start(plan.rateLimit ? { rateLimit: plan.rateLimit } : {});
  for (const id of plan.projects ?? []) sim.addProject({ id });
  for (const [p, v, size] of plan.volumes ?? []) sim.addVolume(p, { id: v, sizeGb: size });
  for (const [p, name] of plan.apps ?? []) sim.addApp(p, name);
  for (const [p, app, count] of plan.logs ?? [])
    sim.generateLogs(p, app, count, { containers: ["web", "worker"], stepMs: 10 });
  // The request log would grow by one entry per request for the whole run: keep it empty, and only the arrival of
  // the first request since the last `stats` (when the engine got to its first call).
  let firstAt: number | undefined;
  const clear = (): void => {
    firstAt ??= sim.requests[0]?.at;
    sim.clearRequests();
  };
  setInterval(clear, 1000).unref();
  process.stdout.write(`${JSON.stringify({ baseUrl: sim.baseUrl, token: sim.token })}\n`);
  const stop = (): void => {
    void sim.stop().then(() => process.exit(0));
  };
  process.stdin.on("end", stop);
  process.stdin.on("close", stop);
  process.stdin.resume();
  // A `stats` line on stdin is answered with one JSON line of the request counters (sim.stats()) and `firstAt`, the
  // arrival of the first request since the last `stats` (ms since the epoch), which are then reset.
  readline.createInterface({ input: process.stdin }).on("line", (line) => {
    if (line.trim() !== "stats") return;
    clear();
    process.stdout.write(`${JSON.stringify({ ...sim.stats(), firstAt })}\n`);
    sim.resetStats();
    firstAt = undefined;
  });
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

main().catch((e: unknown) => {
  process.stderr.write(`sim-server: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
