/**
 * The test kit and its table agree (tests/kit/README.md): every module of tests/kit/ has a row, every row names a
 * module that exists, and each row's "Used by" is the folders that import it (tests/rules/kitUsage.ts computes them
 * from the sources). The kit keeps its layout: two levels, at most `MAX_TOP` modules at the top (what any tier uses),
 * everything of a kind in its room. And every engine suite uses one of the shared set-up styles, or says in its header
 * why not.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { kitModules, kitUsage, usedByCell } from "./kitUsage";

const ROOT = path.resolve(__dirname, "..", "..");
const readme = fs.readFileSync(path.join(ROOT, "tests", "kit", "README.md"), "utf8");
/** Module → its row's "Used by" cell, from every table row whose first cell is a code span. */
const rows = new Map([...readme.matchAll(/^\| `([^`]+)` \|[^|\n]*\| ([^\n]*?) \|$/gm)].map((m) => [m[1], m[2]]));
const usage = kitUsage();

test("the table has rows and the kit has modules", () => {
  expect(rows.size).toBeGreaterThan(10);
  expect(kitModules()).toContain("engine/engineSuite.ts");
});

test.each(kitModules())("tests/kit/%s has a row", (m) => {
  expect([...rows.keys()]).toContain(m);
});

test.each([...rows.keys()])("the row of %s names a module that exists", (m) => {
  expect(kitModules()).toContain(m);
});

test.each([...usage.keys()])("tests/kit/%s is used, by the folders its row names", (m) => {
  const users = usage.get(m) ?? [];
  expect(users.length).toBeGreaterThan(0);
  // The cell to write is the expected value in the failure message.
  expect(rows.get(m)).toBe(usedByCell(users));
});

/** Modules at the top of tests/kit/ beyond the rooms: what any tier uses (env, rejection, teardown) and live's. */
const MAX_TOP = 4;

/** What is wrong with the kit's layout: too many modules at the top, or a third level. */
function layoutProblems(modules: string[]): string[] {
  const problems: string[] = [];
  const top = modules.filter((m) => !m.includes("/"));
  if (top.length > MAX_TOP)
    problems.push(
      `tests/kit/ holds ${top.length} modules at its top (${top.join(", ")}); at most ${MAX_TOP}: use a room`,
    );
  for (const m of modules.filter((m) => m.split("/").length > 2)) problems.push(`tests/kit/${m} is a third level`);
  return problems;
}

test("the kit is two levels, a few modules at its top", () => {
  expect(layoutProblems(kitModules())).toEqual([]);
});

test("the layout check bites: a module at the top, a third level", () => {
  expect(layoutProblems([...kitModules(), "extra.ts", "sim/deep/x.ts"])).toEqual([
    expect.stringMatching(/^tests\/kit\/ holds 5 modules at its top \(.*extra\.ts\); at most 4: use a room$/),
    "tests/kit/sim/deep/x.ts is a third level",
  ]);
});

/**
 * The shared set-up styles of an engine suite: the engine suite hooks (tests/kit/engine/engineSuite.ts, soak.ts,
 * oneAccount.ts) and the tables over them (the dist rows and published paths, the docs pages, the state fixtures).
 */
const SHARED_STYLES =
  /\b(useEngineStack|useEngineScratch|useSoakSuite|useOneAccountStack|describeDist|describeStackRow|describeDocsPage|describePublished|describeFixtures)\(/;
/** A suite that keeps its own set-up says why in its header comment, in this form. */
const OWN_SET_UP = /^ \* Set-up: its own, because \S.*$/m;

function engineSuites(dir = path.join(ROOT, "tests", "engine")): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return engineSuites(p);
    return e.name.endsWith(".test.ts") ? [path.relative(ROOT, p)] : [];
  });
}

test.each(engineSuites())("%s uses a shared set-up style or says in its header why not", (suite) => {
  const text = fs.readFileSync(path.join(ROOT, suite), "utf8");
  const header = text.slice(0, text.indexOf("*/") + 2);
  expect(SHARED_STYLES.test(text) || OWN_SET_UP.test(header)).toBe(true);
});
