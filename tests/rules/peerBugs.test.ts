/**
 * The peer-bug suite's table (tests/engine/peerBugs/table.ts, issue 55) stays true: its rows are numbered 1..N without
 * a gap, each names a test in both hosts (TypeScript through the dynamic provider, YAML through the plugin), and every
 * test it names exists and is not skipped: the file is there and holds a `test`/`it` (or a `.each` of one) whose
 * title contains the table's text, with no `.skip`, `.todo`, `xit`/`xtest` on it nor `describe.skip`/`xdescribe`
 * around it. A title written once in a kit module the suite imports (describeFixtures, describeDist, …) counts for
 * that suite, and a title with `${host}` stands for one per host. Each new scenario file of the suite names its rows
 * in its header. The failure lists every row and host still lacking its test, so the state after a merge reads at
 * once. `PEER_BUGS_ROWS=1,2,7` checks only those rows'
 * tests (a branch that carries some of the rows before the others are merged); the numbering is always checked whole.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as ts from "typescript";
import { HOSTS, PEER_BUGS, type Proof } from "../engine/peerBugs/table";

const ROOT = path.resolve(__dirname, "..", "..");
/** The rows whose tests are checked: PEER_BUGS_ROWS, else all. */
const ONLY = process.env.PEER_BUGS_ROWS?.split(",").map(Number);
const CHECKED = PEER_BUGS.filter((b) => ONLY === undefined || ONLY.includes(b.row));

/** A test call found in a file: its title as written (template parts kept raw) and whether it would be skipped. */
interface FoundTest {
  title: string;
  skipped: boolean;
}

const TEST_FNS = new Set(["test", "it"]);
const SKIPPED_FNS = new Set(["xit", "xtest", "xdescribe"]);
const SKIPPING_MEMBERS = new Set(["skip", "todo"]);

/** The callee's chain of names: `test.each(…)(…)` → ["test", "each"], `describe.skip(…)` → ["describe", "skip"]. */
function calleeNames(e: ts.Expression): string[] {
  if (ts.isIdentifier(e)) return [e.text];
  if (ts.isPropertyAccessExpression(e)) return [...calleeNames(e.expression), e.name.text];
  if (ts.isCallExpression(e)) return calleeNames(e.expression); // the `(table)` of `.each(table)(title, fn)`
  return [];
}

/** The text of a title argument: a string, or a template with its `${…}` parts as written. */
function titleText(arg: ts.Expression | undefined, source: ts.SourceFile): string | undefined {
  if (arg === undefined) return undefined;
  if (ts.isStringLiteral(arg) || ts.isNoSubstitutionTemplateLiteral(arg)) return arg.text;
  if (ts.isTemplateExpression(arg)) return arg.getText(source).slice(1, -1);
  return undefined;
}

/** Every test and it of a TypeScript file, with whether it or a describe around it is skipped. */
function testsIn(file: string): FoundTest[] {
  const source = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const found: FoundTest[] = [];
  const visit = (node: ts.Node, skippedAround: boolean): void => {
    let skipped = skippedAround;
    if (ts.isCallExpression(node)) {
      const names = calleeNames(node.expression);
      const skipping = SKIPPED_FNS.has(names[0]) || names.slice(1).some((n) => SKIPPING_MEMBERS.has(n));
      const isTest = TEST_FNS.has(names[0]) || names[0] === "xit" || names[0] === "xtest";
      const title = titleText(node.arguments[0], source);
      if (isTest && title !== undefined) found.push({ title, skipped: skipped || skipping });
      if (names[0] === "describe" || names[0] === "xdescribe") skipped = skipped || skipping;
    }
    ts.forEachChild(node, (child) => visit(child, skipped));
  };
  visit(source, false);
  return found;
}

/** The kit modules (tests/kit/…) a file imports, as paths from the repository's root. */
function kitImports(file: string): string[] {
  const text = fs.readFileSync(file, "utf8");
  return [...text.matchAll(/from "(\.[^"]+)"/g)]
    .map((m) => path.resolve(path.dirname(file), `${m[1]}.ts`))
    .filter((p) => p.startsWith(path.join(ROOT, "tests", "kit") + path.sep) && fs.existsSync(p));
}

/** A title written once for both hosts (`row 5, ${host}: …` in a loop over them) stands for one test per host. */
function perHost(t: FoundTest): FoundTest[] {
  if (!t.title.includes("${host}")) return [t];
  return HOSTS.map((h) => ({ ...t, title: t.title.split("${host}").join(h) }));
}

/** What is wrong with a proof, or undefined when its test is there and runs. */
function problemOf(proof: Proof, root = ROOT): string | undefined {
  const file = path.join(root, proof.file);
  if (!fs.existsSync(file)) return `${proof.file} does not exist`;
  const tests = [file, ...kitImports(file)]
    .flatMap(testsIn)
    .flatMap(perHost)
    .filter((t) => t.title.includes(proof.test));
  if (tests.length === 0) return `${proof.file} has no test whose title contains "${proof.test}"`;
  if (tests.every((t) => t.skipped)) return `${proof.file}: the test "${proof.test}" is skipped`;
  return undefined;
}

test("the rows are numbered 1..N, in order, without a gap, at least the issue's 16", () => {
  expect(PEER_BUGS.map((b) => b.row)).toEqual(PEER_BUGS.map((_, i) => i + 1));
  expect(PEER_BUGS.length).toBeGreaterThanOrEqual(16);
});

test("every row says what goes wrong, where it comes from, what pims must do, and has a test in each host", () => {
  const incomplete = CHECKED.flatMap((b) => [
    ...(b.elsewhere && b.anchors.length > 0 && b.pimsMust ? [] : [`row ${b.row}: a text or its anchors missing`]),
    ...HOSTS.filter((h) => !b[h]?.file || !b[h]?.test).map((h) => `row ${b.row}: no ${h} test named`),
  ]);
  expect(incomplete).toEqual([]);
});

test("every test the table names exists and is not skipped (the list: each row and host still lacking one)", () => {
  const missing = CHECKED.flatMap((b) => [
    ...HOSTS.map((h) => [`row ${b.row}, ${h}`, problemOf(b[h])] as const),
    ...(b.also ?? []).map((p) => [`row ${b.row}, also`, problemOf(p)] as const),
  ])
    .filter(([, problem]) => problem !== undefined)
    .map(([where, problem]) => `${where}: ${problem}`);
  expect(missing).toEqual([]);
});

test("each scenario file of the suite names, in its header, the rows the table proves with it", () => {
  const rowsOf = new Map<string, Set<number>>();
  for (const b of CHECKED)
    for (const p of [b.typescript, b.yaml])
      if (p.file.startsWith("tests/engine/peerBugs/")) rowsOf.set(p.file, (rowsOf.get(p.file) ?? new Set()).add(b.row));
  const unnamed = [...rowsOf].flatMap(([file, rows]) => {
    const full = path.join(ROOT, file);
    if (!fs.existsSync(full)) return []; // reported by the test above
    const text = fs.readFileSync(full, "utf8");
    // the header comment's text, its lines joined: "rows 4 and\n * 13" names 13 too
    const header = text
      .slice(0, text.indexOf("*/"))
      .split("\n")
      .map((l) => l.replace(/^\s*\/?\*+\s?/, ""))
      .join(" ");
    return [...rows]
      .filter((r) => !new RegExp(`\\b[Rr]ows?\\b[^.;:]*?\\b${r}\\b`).test(header))
      .map((r) => `${file}: row ${r}`);
  });
  expect(unnamed).toEqual([]);
});

test("the rule itself: a skipped test, a .todo and a missing title are each found", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pims-peer-rule-"));
  try {
    const file = path.join(dir, "probe.test.ts");
    fs.writeFileSync(
      file,
      [
        'test("row 1, typescript: runs", () => {});',
        'test.skip("row 2, typescript: skipped", () => {});',
        'it.todo("row 3, typescript: to do");',
        'describe.skip("off", () => { test("row 4, typescript: inside", () => {}); });',
        'test.each([1])("row 5, typescript: %s", () => {});',
        'xit("row 6, typescript: x", () => {});',
      ].join("\n"),
    );
    const probe = (n: number): string | undefined =>
      problemOf({ file: "probe.test.ts", test: `row ${n}, typescript:` }, dir);
    const problems = [1, 2, 3, 4, 5, 6, 7].map(probe);
    expect(problems.map((p) => (p === undefined ? "ok" : p.includes("skipped") ? "skipped" : "missing"))).toEqual([
      "ok",
      "skipped",
      "skipped",
      "skipped",
      "ok",
      "skipped",
      "missing",
    ]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
