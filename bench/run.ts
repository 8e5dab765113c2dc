/**
 * `npm run bench`: measures pulumi-pims against baselines measured in the same run, prints a table and writes
 * bench/results.json. Not a test: nothing here fails a build; a goal that is not met is printed as MISSED with
 * its reason. bench/README.md describes each measure and its method; each lives in its own file:
 *
 *   P1  bench/p1-provider-size.ts   serialized `__provider` bytes per resource type
 *   P2  bench/p2-http-calls.ts      HTTP calls per operation
 *   P3  bench/p3-operation-time.ts  provider operation time ÷ a raw axios call
 *   P4  bench/p4-app-logs.ts        getAppLogs time; iterator memory, 10 000 vs 100 000 lines
 *   P5  bench/p5-stack-up.ts        `pulumi up` of 50 resources ÷ the docs-style providers
 *   P5s bench/p5-sealed.ts          the P5 stack with its tokens sealed (age) ÷ held
 *   P6  bench/p6-throttled.ts       500 resources at --parallel 64 against 20 requests/s
 *   P7  bench/p7-scale.ts           up / preview / refresh / destroy of N = 50, 200, 500 ServiceAccounts
 *   P7probe  bench/p7-preview-probe.ts  where P7's preview time goes (only with `--only P7probe`)
 *   P7floor  bench/p7-floor.ts  the engine's floor: P7 ÷ a provider that makes no request (only with `--only P7floor`)
 *   P8  bench/p8-plugin.ts         the P5 stack and N = 1,000 accounts: the plugin from YAML ÷ the dynamic resources
 *   P9  bench/p9-executable.ts     the self-contained plugin executable ÷ the Node launcher: start, size, memory, P8
 *   P10 bench/p10-esc-rotator.ts   an ESC rotation / open through the adapter ÷ the bare calls it needs; verification
 *   P11 bench/p11-refresh-reads.ts a refresh's reads of one project's accounts: per account at N = 1,000 ÷ N = 250
 *
 * Options: `--only P1,P3` runs some of them; `--quick` uses fewer iterations (for a smoke run).
 * Needs `npm run build` first (it measures the compiled package, as users run it); P5–P7 need the engine
 * (scripts/engine/index.ts: ensureEngine()).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { log, REPO, round, type Measure, type Row } from "./harness";
import { p1 } from "./p1-provider-size";
import { p2 } from "./p2-http-calls";
import { p3 } from "./p3-operation-time";
import { p4 } from "./p4-app-logs";
import { p5 } from "./p5-stack-up";
import { p5sealed } from "./p5-sealed";
import { p6 } from "./p6-throttled";
import { p7 } from "./p7-scale";
import { p7probe } from "./p7-preview-probe";
import { p7floor } from "./p7-floor";
import { p8 } from "./p8-plugin";
import { p9 } from "./p9-executable";
import { p10 } from "./p10-esc-rotator";
import { p11 } from "./p11-refresh-reads";
import { errorText } from "../provider/client";

const RESULTS_FILE = path.join(__dirname, "results.json");

/** Every measure, in the order they run; `byDefault: false` runs only when named with `--only`. */
const MEASURES: Array<{ id: string; run: Measure; byDefault: boolean }> = [
  { id: "P1", run: p1, byDefault: true },
  { id: "P2", run: p2, byDefault: true },
  { id: "P3", run: p3, byDefault: true },
  { id: "P4", run: p4, byDefault: true },
  { id: "P5", run: p5, byDefault: true },
  { id: "P5S", run: p5sealed, byDefault: true },
  { id: "P6", run: p6, byDefault: true },
  { id: "P7", run: p7, byDefault: true },
  { id: "P7PROBE", run: p7probe, byDefault: false },
  { id: "P7FLOOR", run: p7floor, byDefault: false },
  { id: "P8", run: p8, byDefault: true },
  { id: "P9", run: p9, byDefault: true },
  { id: "P10", run: p10, byDefault: true },
  { id: "P11", run: p11, byDefault: true },
];

function parseArgs(args: string[]): { quick: boolean; only: Set<string> | undefined } {
  const onlyArg = args.find((a) => a.startsWith("--only"));
  const list = onlyArg && (onlyArg.includes("=") ? onlyArg.split("=")[1] : args[args.indexOf(onlyArg) + 1]);
  return {
    quick: args.includes("--quick"),
    only: list ? new Set(list.split(",").map((s) => s.trim().toUpperCase())) : undefined,
  };
}

/** The measure's rows, each marked with the part that produced it; a measure that throws gives one MISSED row. */
async function runMeasure(id: string, run: Measure, quick: boolean): Promise<Row[]> {
  try {
    return (await run({ quick })).map((r) => ({ ...r, part: id }));
  } catch (e) {
    log(`${id} failed: ${e instanceof Error ? e.stack : String(e)}`);
    const reason = errorText(e);
    return [
      {
        id,
        part: id,
        measure: `${id} could not run`,
        ours: "—",
        baseline: "—",
        ratio: null,
        goal: "—",
        status: "MISSED",
        reason,
      },
    ];
  }
}

function printTable(rows: Row[]): void {
  const header = ["id", "measure", "pulumi-pims", "baseline", "ratio", "goal", "status"];
  const body = rows.map((r) => [
    r.id,
    r.measure,
    r.ours,
    r.baseline,
    r.ratio === null ? "—" : r.ratio.toFixed(2),
    r.goal,
    r.status,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i])).join("  ");
  process.stdout.write(`${line(header)}\n${widths.map((w) => "-".repeat(w)).join("  ")}\n`);
  for (const b of body) process.stdout.write(`${line(b)}\n`);
  const notes = rows.filter((r) => r.status !== "OK" && r.reason);
  if (notes.length) {
    process.stdout.write("\n");
    for (const r of notes)
      process.stdout.write(`${r.status === "MISSED" ? "MISSED" : "note"}  ${r.id} ${r.measure}: ${r.reason}\n`);
  }
}

/** With `--only`, the other parts' previous rows are kept; an unreadable previous file is overwritten. */
function mergedWithPrevious(rows: Row[], only: Set<string> | undefined): Row[] {
  if (!only || !fs.existsSync(RESULTS_FILE)) return rows;
  try {
    const previous = JSON.parse(fs.readFileSync(RESULTS_FILE, "utf8")) as { rows?: Row[] };
    return [...(previous.rows ?? []).filter((r) => !only.has((r.part ?? r.id).toUpperCase())), ...rows].sort((a, b) =>
      a.id.localeCompare(b.id),
    );
  } catch {
    return rows;
  }
}

async function main(): Promise<void> {
  if (!fs.existsSync(path.join(REPO, "bin", "provider", "index.js"))) {
    throw new Error("bin/ is missing: run `npm run build` first (the benchmark measures the compiled package)");
  }
  const { quick, only } = parseArgs(process.argv.slice(2));
  const started = Date.now();
  const loadAverageAtStart = os.loadavg().map((x) => round(x));
  const rows: Row[] = [];
  for (const m of MEASURES)
    if (only ? only.has(m.id) : m.byDefault) rows.push(...(await runMeasure(m.id, m.run, quick)));
  printTable(rows);
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
    quick,
    rows: mergedWithPrevious(rows, only),
  };
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
