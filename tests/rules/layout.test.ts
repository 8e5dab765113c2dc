/**
 * The maps of the repository stay whole, both ways: CONTRIBUTING.md's layout table and docs/design.md's drawing each
 * name every folder git tracks down to the depth below (`DEPTHS`, the one place that decides it), and every folder or
 * file a map names exists where its row says (./layoutMaps: how a map is read). So a new folder cannot land without a
 * line saying what it holds, and a moved or renamed one cannot stay on a map. tests/ is drawn one level: its own map,
 * every level, is tests/README.md's, which ./testMap.test.ts keeps true.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { drawingRows, drawnFolders, kindFolderProblems, mapProblems, tableRows, type Depths } from "./layoutMaps";

const ROOT = path.resolve(__dirname, "..", "..");
const tracked = execFileSync("git", ["ls-files"], { cwd: ROOT, encoding: "utf8" }).split("\n").filter(Boolean);
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), "utf8");

/** Levels below the root each map draws (both maps say so above their layout). */
const DEPTHS: Depths = {
  "": 1, // every top-level folder, .github/ and .ci/ included
  "provider/": Infinity,
  "sdk/": 2, // sdk/<language>/: python, go and java are generated, their inner layout is the generator's
  "sdk/nodejs/": Infinity,
  "scripts/": Infinity,
  "examples/": 3, // examples/<scenario>/<language>/
  "tests/": 2, // deeper: tests/README.md's map
};

const MAPS = {
  "CONTRIBUTING.md": (text: string) => tableRows(text),
  "docs/design.md": (text: string) => drawingRows(text, tracked),
};
const drawn = drawnFolders(tracked, DEPTHS);

test("the maps draw the folders they are about, at every level", () => {
  expect(drawn).toEqual(
    expect.arrayContaining(["provider/serviceAccount/", "sdk/nodejs/functions/", "scripts/generate/gen-sdk/", ".ci/"]),
  );
  expect(drawn).toEqual(
    expect.arrayContaining(["examples/quickstart/", "examples/quickstart/typescript/", "tests/kit/"]),
  );
  expect(
    drawn.filter((f) => /^(sdk\/(python|go|java)|tests\/[^/]+|examples\/[^/]+\/[^/]+|\.github)\/./.test(f)),
  ).toEqual([]);
});

test.each(Object.entries(MAPS))("%s names every drawn folder, and nothing that is not there", (file, rows) => {
  expect(rows(read(file)).length).toBeGreaterThan(10);
  expect(mapProblems(file, rows(read(file)), tracked, drawn)).toEqual([]);
});

test("every examples/<scenario>/ holds only its language folders (the maps name them) and a README", () => {
  const scenarios = drawn.filter((f) => /^examples\/[^/]+\/$/.test(f));
  expect(scenarios.length).toBeGreaterThan(3);
  for (const scenario of scenarios) {
    const files = tracked.filter((f) => f.startsWith(scenario) && !f.slice(scenario.length).includes("/"));
    expect({ scenario, files }).toEqual({ scenario, files: [`${scenario}README.md`] });
  }
});

/** The kinds of several files: `provider/<kind>/`, the declaration in `kind.ts` (CONTRIBUTING.md, Adding a resource) */
const kindFolders = tracked.filter((f) => /^provider\/[^/]+\/kind\.ts$/.test(f)).map((f) => f.replace(/kind\.ts$/, ""));

test("a kind's folder names every file it holds, in its index.ts's header and in its CONTRIBUTING.md row", () => {
  expect(kindFolders).toContain("provider/serviceAccount/");
  const rows = tableRows(read("CONTRIBUTING.md"));
  for (const folder of kindFolders)
    expect(kindFolderProblems(folder, tracked, rows, read(`${folder}index.ts`))).toEqual([]);
});

describe("the check bites", () => {
  const files = "a/x.ts a/b/y.ts a/b/c/z.ts d/e/w.ts ex/one/ts/i.ts ex/one/README.md ex/two/go/m.go".split(" ");
  const depths: Depths = { "": 1, "a/": Infinity, "ex/": 3 };
  const table = (...rows: string[]) => ["| Folder | Holds |", "|---|---|", ...rows, ""].join("\n");
  const problems = (rows: string[]) =>
    mapProblems("MAP", tableRows(table(...rows)), files, drawnFolders(files, depths));
  const whole = [
    "| `a/` | `x.ts` |",
    "| `a/b/` | `y.ts`, `c/z.ts` |",
    "| `a/b/c/` | `z.ts` |",
    "| `d/` | `e/w.ts` |",
    "| `ex/` | `one/`, `two/` |",
    "| `ex/<scenario>/` | `ts/`, `go/`, `README.md` |",
  ];

  test("a whole map passes; the depth table decides which folders must be named", () => {
    const drawnHere = "a/ a/b/ a/b/c/ d/ ex/ ex/one/ ex/one/ts/ ex/two/ ex/two/go/".split(" ");
    expect(drawnFolders(files, depths)).toEqual(drawnHere);
    expect(problems(whole)).toEqual([]);
  });

  test("a missing row, a folder or file that is not there, a stale name, an unnamed language folder", () => {
    const broken = whole.filter((row) => !row.startsWith("| `a/b/c/`")).concat("| `a/bogus/` | |");
    broken[0] = "| `a/` | `x.ts`, `state.ts` |";
    broken[3] = "| `ex/` | `one/`, `two/`, `three/` |";
    broken[4] = "| `ex/<scenario>/` | `ts/`, `README.md` |";
    expect(problems(broken)).toEqual([
      "MAP does not name a/b/c/",
      "MAP does not name ex/two/go/",
      "MAP names a/state.ts, which git does not track",
      "MAP names ex/three/, which git does not track",
      "MAP names a/bogus/, which git does not track",
    ]);
  });

  test("the drawing: names from the line's folder, a line without one continues the one above", () => {
    const drawing = (...lines: string[]) => `## Layout\n\n\`\`\`\n${lines.join("\n")}\n\`\`\`\n`;
    const lines = [
      " a/  x.ts · b/ · b/c/ · b/c/z.ts",
      "     b/y.ts",
      " d/ · ex/ one/ · two/ (in each: <scenario>/ts/,",
      "           <scenario>/go/, <scenario>/README.md)",
    ];
    const check = (text: string) => mapProblems("MAP", drawingRows(text, files), files, drawnFolders(files, depths));
    expect(check(drawing(...lines))).toEqual([]);
    lines[0] = " a/  x.ts · b/ · bogus/ · z.ts";
    expect(check(drawing(...lines))).toEqual([
      "MAP does not name a/b/c/",
      "MAP names a/bogus/, which git does not track",
      "MAP names a/z.ts, which git does not track",
    ]);
  });

  test("a kind's folder: a file its header or its row leaves out is named", () => {
    const folder = "provider/serviceAccount/";
    const withSpare = [...tracked, `${folder}spare.ts`];
    const index = read(`${folder}index.ts`).replace(" * - ./seal:", " * - seal:");
    const contributing = read("CONTRIBUTING.md").replace("`sink.ts` (", "sink (");
    expect(kindFolderProblems(folder, withSpare, tableRows(contributing), index)).toEqual([
      `${folder}index.ts's header does not name seal.ts`,
      `CONTRIBUTING.md's ${folder} row does not name sink.ts`,
      `${folder}index.ts's header does not name spare.ts`,
      `CONTRIBUTING.md's ${folder} row does not name spare.ts`,
    ]);
  });

  test("the real maps with one row removed and a bogus folder added fail, naming both", () => {
    const contributing = read("CONTRIBUTING.md")
      .replace(/^\| `scripts\/live\/` .*\n/m, "")
      .replace(/^(\| `scripts\/` .*\n)/m, "$1| `scripts/bogus/` | nothing |\n");
    expect(mapProblems("CONTRIBUTING.md", tableRows(contributing), tracked, drawn)).toEqual([
      "CONTRIBUTING.md does not name scripts/live/",
      "CONTRIBUTING.md names scripts/bogus/, which git does not track",
    ]);
    const design = read("docs/design.md").replace("· generate/gen-sdk/ (", "· generate/bogus/ (");
    expect(mapProblems("docs/design.md", MAPS["docs/design.md"](design), tracked, drawn)).toEqual([
      "docs/design.md does not name scripts/generate/gen-sdk/",
      "docs/design.md names scripts/generate/bogus/, which git does not track",
    ]);
  });
});
