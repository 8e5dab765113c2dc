/**
 * The test kit and its table agree (tests/kit/README.md): every module of tests/kit/ has a row, every row names a
 * module that exists, and each row's "Used by" is the folders that import it (tests/rules/kitUsage.ts computes them
 * from the sources). The kit keeps its layout: two levels, at most `MAX_TOP` modules at the top (what any tier uses),
 * everything of a kind in its room. And every engine suite uses one of the shared set-up styles, or says in its header
 * why not.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { kitImporters, kitModules, kitUsage, usedByCell } from "./kitUsage";

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
/** At the top until the ESC adapter's rework moves them into their room (`esc/`): then delete these lines. */
const IN_TRANSIT: string[] = [];
/**
 * One-line forwarders to a room, kept only for files reworked on other branches that import the old path; once none
 * does, the forwarder is deleted (the check says so).
 */
const FORWARDERS = ["client.ts", "simulator.ts"];
const REWORKED_ELSEWHERE = ["tests/engine/peerBugs/"];

/** What is wrong with the kit's layout: too many modules at the top, a third level, a forwarder used or unused. */
function layoutProblems(modules: string[], importers: Map<string, string[]>): string[] {
  const problems: string[] = [];
  const top = modules.filter((m) => !m.includes("/") && ![...IN_TRANSIT, ...FORWARDERS].includes(m));
  if (top.length > MAX_TOP)
    problems.push(
      `tests/kit/ holds ${top.length} modules at its top (${top.join(", ")}); at most ${MAX_TOP}: use a room`,
    );
  for (const m of modules.filter((m) => m.split("/").length > 2)) problems.push(`tests/kit/${m} is a third level`);
  for (const m of [...IN_TRANSIT, ...FORWARDERS].filter((m) => !modules.includes(m)))
    problems.push(`tests/kit/${m} is gone: take it off kitMap.test.ts's lists`);
  for (const m of FORWARDERS.filter((m) => modules.includes(m))) {
    const users = importers.get(m) ?? [];
    const others = users.filter((f) => !REWORKED_ELSEWHERE.some((r) => f.startsWith(r)));
    if (others.length > 0)
      problems.push(`${others.join(", ")} import(s) the forwarder tests/kit/${m}: import its room`);
    if (users.length === 0) problems.push(`nothing imports the forwarder tests/kit/${m}: delete it`);
  }
  return problems;
}

test("the kit is two levels, a few modules at its top, forwarders used only by files reworked elsewhere", () => {
  expect(layoutProblems(kitModules(), kitImporters())).toEqual([]);
});

test("the layout check bites: a module at the top, a third level, a new import of a forwarder, a stale one", () => {
  const modules = [...kitModules(), "extra.ts", "sim/deep/x.ts"];
  const importers = new Map([...kitImporters(), ["client.ts", ["tests/unit/x.test.ts"]]]);
  importers.set("cli.ts", []);
  expect(layoutProblems(modules, importers)).toEqual([
    expect.stringMatching(/^tests\/kit\/ holds 5 modules at its top \(.*extra\.ts\); at most 4: use a room$/),
    "tests/kit/sim/deep/x.ts is a third level",
    "nothing imports the forwarder tests/kit/cli.ts: delete it",
    "tests/unit/x.test.ts import(s) the forwarder tests/kit/client.ts: import its room",
  ]);
  expect(
    layoutProblems(
      modules.filter((m) => m !== "escTable.ts"),
      kitImporters(),
    ),
  ).toContain("tests/kit/escTable.ts is gone: take it off kitMap.test.ts's lists");
});

/**
 * The shared set-up styles of an engine suite: the engine suite hooks (tests/kit/engine/engineSuite.ts, soak.ts) and
 * the tables over them (the dist rows and published paths, the docs pages, the state fixtures).
 */
const SHARED_STYLES =
  /\b(useEngineStack|useEngineScratch|useSoakSuite|describeDist|describeStackRow|describeDocsPage|describePublished|describeFixtures)\(/;
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
