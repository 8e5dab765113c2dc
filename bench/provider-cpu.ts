/**
 * CPU time of the provider processes of one engine operation (P5s, bench/p5-sealed.ts). The engine starts the
 * dynamic provider host (`pulumi-resource-pulumi-nodejs`, a Node process) for every CLI call and ends it when the call
 * ends; this process cannot read its CPU time afterwards. So every Node process the CLI starts is given, through
 * `NODE_OPTIONS=--require`, a few lines that write its own `process.cpuUsage()` to a file named by its pid: every
 * 100 ms, when a signal ends it, and at its exit. The provider host is the process whose script is the SDK's
 * `dynamic-provider`; CPU time hardly moves with the load of a shared machine, unlike wall time.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const REPORTER = `
const fs = require("node:fs");
const file = require("node:path").join(process.env.PIMS_BENCH_CPU_DIR, process.pid + ".json");
const report = () => {
  const u = process.cpuUsage();
  try {
    fs.writeFileSync(file, JSON.stringify({ argv: process.argv.slice(1), ms: (u.user + u.system) / 1000 }));
  } catch {}
};
setInterval(report, 100).unref();
process.on("exit", report);
for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, () => { report(); process.exit(0); });
`;

export interface ProviderCpuProbe {
  /** For the stack's CLI calls (and so for the processes the CLI starts). */
  env: Record<string, string>;
  /** Forgets what was reported so far: call before the operation. */
  reset(): void;
  /** CPU time of the provider host processes reported since {@link reset}, ms, and how many there were. */
  take(): { ms: number; processes: number };
  dispose(): void;
}

export function providerCpuProbe(): ProviderCpuProbe {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pims-bench-cpu-"));
  const reports = path.join(dir, "reports");
  fs.mkdirSync(reports);
  const reporter = path.join(dir, "reporter.js");
  fs.writeFileSync(reporter, REPORTER);
  const read = (f: string): { argv: string[]; ms: number } | undefined => {
    try {
      return JSON.parse(fs.readFileSync(path.join(reports, f), "utf8")) as { argv: string[]; ms: number };
    } catch {
      return undefined; // being rewritten by a process that is still running
    }
  };
  const nodeOptions = [process.env.NODE_OPTIONS, `--require ${reporter}`].filter(Boolean).join(" ");
  return {
    env: { NODE_OPTIONS: nodeOptions, PIMS_BENCH_CPU_DIR: reports },
    reset: () => {
      for (const f of fs.readdirSync(reports)) fs.rmSync(path.join(reports, f), { force: true });
    },
    take: () => {
      const providers = fs
        .readdirSync(reports)
        .map(read)
        .filter((r) => r?.argv.some((a) => a.includes("dynamic-provider")));
      return { ms: providers.reduce((s, r) => s + (r?.ms ?? 0), 0), processes: providers.length };
    },
    dispose: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}
