/**
 * The arrows the maps draw (CONTRIBUTING.md, docs/design.md), each checked over every tracked source file and each
 * shown to bite on a planted violation: `sdk/nodejs` and `cli` never import `provider/plugin/` (but the launcher's
 * entry, `runPlugin.ts`), `provider/plugin` never imports `provider/index.ts` (the dynamic host's entry),
 * `provider/client` imports nothing above it, `simulator` nothing of `provider`.
 *
 * And one way only: tests may import from `scripts/`, never the reverse. A script (the live tier's gate, the recording
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

/** The tracked source files under `dirs`, as absolute paths. */
const tracked = (...dirs: string[]): string[] =>
  execFileSync("git", ["ls-files", ...dirs], { cwd: ROOT, encoding: "utf8" })
    .split("\n")
    .filter((f) => SOURCE.test(f))
    .map((f) => path.join(ROOT, f));

const scripts = tracked("scripts");

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

// ---- the arrows of the maps ---------------------------------------------------------------------------------------

/** One arrow: files under `from` may not import what `forbidden` says (a repository-relative path, no extension). */
interface Arrow {
  name: string;
  from: string[];
  forbidden(target: string, file: string): boolean;
}

const under = (p: string, dir: string): boolean => p === dir || p.startsWith(`${dir}/`);

/** Where a specifier points, repository-relative with `/`, no extension, a folder as its `index`; else undefined. */
function targetOf(file: string, spec: string): string | undefined {
  const to = resolveSpecifier(file, spec);
  if (to === undefined) return undefined;
  const rel = path.relative(ROOT, to).split(path.sep).join("/").replace(SOURCE, "");
  const isDir = fs.existsSync(to) && fs.statSync(to).isDirectory();
  return isDir ? `${rel}/index` : rel;
}

const ARROWS: Arrow[] = [
  {
    name: "sdk/nodejs and cli never import provider/plugin/ (but the launcher's entry)",
    from: ["sdk/nodejs", "cli"],
    forbidden: (t) => under(t, "provider/plugin") && t !== "provider/plugin/runPlugin",
  },
  {
    name: "provider/plugin never imports provider/index.ts (the dynamic host's entry)",
    from: ["provider/plugin"],
    forbidden: (t) => t === "provider/index",
  },
  {
    name: "provider/client imports nothing above it",
    from: ["provider/client"],
    forbidden: (t) => !under(t, "provider/client"),
  },
  {
    name: "simulator imports nothing of provider",
    from: ["simulator"],
    forbidden: (t) => under(t, "provider"),
  },
  {
    name: "provider/escRotator never imports the hosts, the SDK or the CLI",
    from: ["provider/escRotator"],
    forbidden: (t) => under(t, "provider/plugin") || t === "provider/index" || under(t, "sdk") || under(t, "cli"),
  },
  {
    // The adapter (and jose) loads only where it is served: a program importing the package never loads it.
    name: "provider/escRotator is reached only from its two doors (cli/escRotator.ts, sdk/nodejs/escAdapter.ts)",
    from: ["provider", "sdk", "cli"],
    forbidden: (t, from) =>
      under(t, "provider/escRotator") &&
      !under(from, "provider/escRotator") &&
      !["cli/escRotator.ts", "sdk/nodejs/escAdapter.ts"].includes(from),
  },
];

/** The imports of `file` (its `text`) that break `arrow`, as `<file>: <specifier>`; none when it is not under it. */
function arrowViolations(arrow: Arrow, file: string, text: string): string[] {
  const rel = path.relative(ROOT, file).split(path.sep).join("/");
  if (!arrow.from.some((dir) => under(rel, dir))) return [];
  return specifiers(text)
    .filter((spec) => {
      const t = targetOf(file, spec);
      return t !== undefined && arrow.forbidden(t, rel);
    })
    .map((spec) => `${rel}: ${spec}`);
}

describe.each(ARROWS.map((a): [string, Arrow] => [a.name, a]))("%s", (_name, arrow) => {
  const files = tracked(...arrow.from);

  test("holds in every tracked file", () => {
    expect(files.length).toBeGreaterThan(0);
    expect(files.flatMap((f) => arrowViolations(arrow, f, fs.readFileSync(f, "utf8")))).toEqual([]);
  });
});

describe("each arrow bites on a planted violation (made-up files), and lets the allowed imports through", () => {
  const at = (rel: string): string => path.join(ROOT, rel);
  const [sdkArrow, pluginArrow, clientArrow, simulatorArrow, escOutArrow, escInArrow] = ARROWS;

  test("sdk/nodejs and cli: provider/plugin/ refused, runPlugin and the rest of provider allowed", () => {
    const text = [
      'import { nativeToken } from "../../provider/plugin/tokens";',
      'import { runPluginEntry } from "../../provider/plugin/runPlugin";',
      'import { packageVersion } from "../../provider/identity";',
      'export * from "pulumi-pims/provider/plugin/schema";',
    ].join("\n");
    expect(arrowViolations(sdkArrow, at("sdk/nodejs/x.ts"), text)).toEqual([
      "sdk/nodejs/x.ts: ../../provider/plugin/tokens",
      "sdk/nodejs/x.ts: pulumi-pims/provider/plugin/schema",
    ]);
    expect(arrowViolations(sdkArrow, at("cli/x.ts"), 'const p = require("../provider/plugin/server");')).toEqual([
      "cli/x.ts: ../provider/plugin/server",
    ]);
    expect(arrowViolations(sdkArrow, at("provider/x.ts"), 'import "./plugin/server";')).toEqual([]);
  });

  test("provider/plugin: provider/index.ts refused in every spelling, its siblings allowed", () => {
    const text = ['import { a } from "..";', 'import { b } from "../index";', 'import { c } from "../registry";'];
    expect(arrowViolations(pluginArrow, at("provider/plugin/x.ts"), text.join("\n"))).toEqual([
      "provider/plugin/x.ts: ..",
      "provider/plugin/x.ts: ../index",
    ]);
  });

  test("provider/client: anything outside it refused, packages and its own files allowed", () => {
    const text = [
      'import { a } from "../settings";',
      'import { b } from "./retry";',
      'import axios from "axios";',
      'import { c } from "../../simulator";',
    ].join("\n");
    expect(arrowViolations(clientArrow, at("provider/client/x.ts"), text)).toEqual([
      "provider/client/x.ts: ../settings",
      "provider/client/x.ts: ../../simulator",
    ]);
  });

  test("provider/escRotator: the plugin, the dynamic host's entry, sdk and cli refused; the client allowed", () => {
    const text = [
      'import { a } from "../plugin/server";',
      'import { b } from "..";',
      'import { c } from "../../sdk/nodejs";',
      'import { d } from "../client";',
      'import { e } from "../serviceAccount/create";',
    ].join("\n");
    expect(arrowViolations(escOutArrow, at("provider/escRotator/x.ts"), text)).toEqual([
      "provider/escRotator/x.ts: ../plugin/server",
      "provider/escRotator/x.ts: ..",
      "provider/escRotator/x.ts: ../../sdk/nodejs",
    ]);
  });

  test("provider/escRotator: reached from its two doors only, in any form of import", () => {
    const planted = 'export { createEscRotator } from "../../provider/escRotator";';
    expect(arrowViolations(escInArrow, at("sdk/nodejs/index.ts"), planted)).toEqual([
      "sdk/nodejs/index.ts: ../../provider/escRotator",
    ]);
    expect(arrowViolations(escInArrow, at("provider/plugin/x.ts"), 'require("../escRotator/open");')).toEqual([
      "provider/plugin/x.ts: ../escRotator/open",
    ]);
    expect(arrowViolations(escInArrow, at("sdk/nodejs/escAdapter.ts"), planted)).toEqual([]);
    expect(arrowViolations(escInArrow, at("cli/escRotator.ts"), 'import "../provider/escRotator";')).toEqual([]);
  });

  test("simulator: anything of provider refused", () => {
    const text = ['import type { ApiKey } from "../provider/client/types";', 'import { d } from "./state";'];
    expect(arrowViolations(simulatorArrow, at("simulator/x.ts"), text.join("\n"))).toEqual([
      "simulator/x.ts: ../provider/client/types",
    ]);
  });
});
