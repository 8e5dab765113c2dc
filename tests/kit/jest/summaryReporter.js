// Prints, after jest's own summary, the time you can see: each tier's (jest project's) wall time and the ten slowest
// suites' wall times, so a suite that grows slow is seen the day it does. Then one plain closing line,
// `tests: N passed, M failed` (plus skipped), always last and in this format: `.ci/run` greps it.
const path = require("node:path");

const SLOWEST = 10;

/** Seconds, one decimal: wall times are read by people, not asserted. */
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/** The lines the reporter prints, from jest's aggregated results (exported for its unit test). */
function summaryLines(results, rootDir = process.cwd()) {
  const suites = results.testResults
    .filter((s) => s.perfStats && s.perfStats.end > 0)
    .map((s) => ({
      file: path.relative(rootDir, s.testFilePath),
      tier: (s.displayName && s.displayName.name) || "tests",
      start: s.perfStats.start,
      end: s.perfStats.end,
    }));
  const lines = [];
  // A tier's wall time is from its first suite's start to its last suite's end (suites of one tier run in parallel).
  const tiers = new Map();
  for (const s of suites) {
    const t = tiers.get(s.tier) || { start: s.start, end: s.end, count: 0 };
    tiers.set(s.tier, { start: Math.min(t.start, s.start), end: Math.max(t.end, s.end), count: t.count + 1 });
  }
  if (tiers.size > 0) {
    lines.push("tier wall times:");
    for (const [name, t] of tiers) lines.push(`  ${name}: ${seconds(t.end - t.start)} (${t.count} suites)`);
    lines.push(`slowest ${Math.min(SLOWEST, suites.length)} suites:`);
    const slowest = [...suites].sort((a, b) => b.end - b.start - (a.end - a.start)).slice(0, SLOWEST);
    for (const s of slowest) lines.push(`  ${seconds(s.end - s.start)}  ${s.file} (${s.tier})`);
  }
  const skipped = results.numPendingTests + results.numTodoTests;
  const counts = `tests: ${results.numPassedTests} passed, ${results.numFailedTests} failed`;
  lines.push(`${counts}${skipped ? `, ${skipped} skipped` : ""}`);
  return lines;
}

class SummaryReporter {
  constructor(globalConfig) {
    this.rootDir = (globalConfig && globalConfig.rootDir) || process.cwd();
  }
  onRunComplete(_contexts, results) {
    process.stderr.write(`\n${summaryLines(results, this.rootDir).join("\n")}\n`);
  }
}
module.exports = SummaryReporter;
module.exports.summaryLines = summaryLines;
