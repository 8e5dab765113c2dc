/**
 * The run's closing lines (tests/kit/jest/summaryReporter.js), from made-up results: each tier's wall time, the ten
 * slowest suites by wall time, and the plain counts line last, in the format `.ci/run` greps.
 */
import * as path from "node:path";

const { summaryLines } = require("../../kit/jest/summaryReporter.js") as {
  summaryLines: (results: unknown, rootDir: string) => string[];
};

const ROOT = "/repo";
const suite = (tier: string, name: string, start: number, seconds: number) => ({
  testFilePath: path.join(ROOT, "tests", tier, `${name}.test.ts`),
  displayName: { name: tier },
  perfStats: { start, end: start + seconds * 1000 },
});
const results = (testResults: unknown[], counts = { passed: 40, failed: 2, pending: 1, todo: 0 }) => ({
  testResults,
  numPassedTests: counts.passed,
  numFailedTests: counts.failed,
  numPendingTests: counts.pending,
  numTodoTests: counts.todo,
});

test("prints each tier's wall time, the ten slowest suites, then the counts line last", () => {
  const t0 = 1_000_000;
  // u0..u8 take 1..9 s; u8 starts at t0+0.8 s and ends at t0+9.8 s.
  const unit = Array.from({ length: 9 }, (_, i) => suite("unit", `u${i}`, t0 + i * 100, i + 1));
  const engine = [suite("engine", "slow", t0 + 10_000, 95), suite("engine", "fast", t0 + 12_000, 0.5)];
  const lines = summaryLines(results([...unit, ...engine]), ROOT);

  expect(lines.slice(0, 3)).toEqual(["tier wall times:", "  unit: 9.8 s (9 suites)", "  engine: 95.0 s (2 suites)"]);
  expect(lines[3]).toBe("slowest 10 suites:");
  const slowest = lines.slice(4, 14);
  expect(slowest[0]).toBe("  95.0 s  tests/engine/slow.test.ts (engine)");
  expect(slowest[1]).toBe("  9.0 s  tests/unit/u8.test.ts (unit)");
  // The 11th suite, 0.5 s, is below the ten (the quickest unit suite takes 1 s).
  expect(slowest.some((l) => l.includes("fast.test.ts"))).toBe(false);
  expect(lines[14]).toBe("tests: 40 passed, 2 failed, 1 skipped");
  expect(lines).toHaveLength(15);
});

test("fewer than ten suites are all listed, and the counts line keeps its format without skips", () => {
  const lines = summaryLines(
    results([suite("rules", "layout", 0, 2)], { passed: 3, failed: 0, pending: 0, todo: 0 }),
    ROOT,
  );
  expect(lines).toEqual([
    "tier wall times:",
    "  rules: 2.0 s (1 suites)",
    "slowest 1 suites:",
    "  2.0 s  tests/rules/layout.test.ts (rules)",
    "tests: 3 passed, 0 failed",
  ]);
});

test("a run that ran no suite prints only the counts line", () => {
  expect(summaryLines(results([], { passed: 0, failed: 0, pending: 0, todo: 0 }), ROOT)).toEqual([
    "tests: 0 passed, 0 failed",
  ]);
});
