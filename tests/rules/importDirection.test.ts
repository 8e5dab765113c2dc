/**
 * One way only: tests may import from `scripts/`, never the reverse. A script (the live tier's gate, the recording
 * comparer, the release tooling) runs outside jest, so whatever it needs lives under `scripts/` (or `simulator/`,
 * `provider/`), and `tests/` stays free to change for the tests' sake. Every import, `require`, dynamic `import()`
 * and `export … from` of every tracked JavaScript or TypeScript file under `scripts/` is read with TypeScript's own
 * pre-processor (comments and strings are not imports) and resolved: a relative path against the file's folder, a
 * `pulumi-pims/…` path against the repository (node_modules/pulumi-pims is this repository, linked).
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import * as ts from "typescript";

const ROOT = path.resolve(__dirname, "..", "..");
const TESTS = path.join(ROOT, "tests");
const SELF = "pulumi-pims";
const SOURCE = /\.(c|m)?(t|j)s$/;

/** The module specifiers a file's code names (import, export … from, require, import()). */
function specifiers(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
}

/** Where a specifier in `file` points, as an absolute path; undefined for a package other than this one. */
function resolveSpecifier(file: string, spec: string): string | undefined {
  if (spec.startsWith(".")) return path.resolve(path.dirname(file), spec);
  if (spec === SELF || spec.startsWith(`${SELF}/`)) return path.join(ROOT, spec.slice(SELF.length));
  if (path.isAbsolute(spec)) return spec;
  return undefined;
}

/** `file`'s imports that land under `tests/`, as `<file>: <specifier>` (file relative to the repository). */
function importsOfTests(file: string, text: string): string[] {
  return specifiers(text)
    .filter((spec) => {
      const to = resolveSpecifier(file, spec);
      return to !== undefined && (to === TESTS || to.startsWith(TESTS + path.sep));
    })
    .map((spec) => `${path.relative(ROOT, file)}: ${spec}`);
}

const scripts = execFileSync("git", ["ls-files", "scripts"], { cwd: ROOT, encoding: "utf8" })
  .split("\n")
  .filter((f) => SOURCE.test(f))
  .map((f) => path.join(ROOT, f));

test("there are scripts to read (the list is not empty by mistake)", () => {
  expect(scripts.map((f) => path.relative(ROOT, f))).toEqual(
    expect.arrayContaining([
      path.join("scripts", "live", "tier.ts"),
      path.join("scripts", "live", "compare-recording.ts"),
    ]),
  );
});

test("no file under scripts/ imports or requires anything under tests/", () => {
  const found = scripts.flatMap((f) => importsOfTests(f, fs.readFileSync(f, "utf8")));
  expect(found).toEqual([]);
});

test("the search finds every form of import of tests/, and only those", () => {
  const file = path.join(ROOT, "scripts", "release", "x.ts");
  const text = [
    'import { a } from "../../tests/helpers";',
    'import type { B } from "../../tests/live/kit";',
    'export { c } from "../../tests/engine/distKit";',
    'const d = require("../../tests/unit/fuzz");',
    'const e = await import("pulumi-pims/tests/helpers");',
    'import "../../tests";',
    '// import { f } from "../../tests/helpers";',
    'const g = "../../tests/helpers";',
    'import { h } from "../engine";',
    'import { i } from "../../simulator";',
    'import { j } from "../tests-not/x";',
  ].join("\n");
  expect(importsOfTests(file, text)).toEqual([
    "scripts/release/x.ts: ../../tests/helpers",
    "scripts/release/x.ts: ../../tests/live/kit",
    "scripts/release/x.ts: ../../tests/engine/distKit",
    "scripts/release/x.ts: ../../tests/unit/fuzz",
    "scripts/release/x.ts: pulumi-pims/tests/helpers",
    "scripts/release/x.ts: ../../tests",
  ]);
});
