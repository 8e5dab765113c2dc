/**
 * A kind is one declaration, and the checklist of CONTRIBUTING.md's "Adding a resource" is true: every kind's
 * declaration (`declareKind`) is in the one list (`KINDS`, provider/kinds.ts); no shipped file lists the kinds by hand
 * (every registry derives from the list: a file naming two kinds or more as strings is a hand-made list); the lint
 * config's resource-class block covers every kind's SDK class; and every file the checklist's table names exists for
 * every kind and names it, in the number the text says. Each check is shown to bite on a planted case.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import type { Kind } from "../../provider/kindDeclaration";
import { KINDS, RESOURCE_KINDS } from "../../provider/kinds";

const ROOT = path.resolve(__dirname, "..", "..");
const read = (rel: string): string => fs.readFileSync(path.join(ROOT, rel), "utf8");
const lowerFirst = (s: string): string => s[0].toLowerCase() + s.slice(1);
/** The ways a file names a kind: `VolumeSize`, `volumeSize`, `VOLUME_SIZE`. */
const spellings = (kind: string): string[] => [
  kind,
  lowerFirst(kind),
  kind.replace(/(?<=.)([A-Z])/g, "_$1").toUpperCase(),
];
const git = (...args: string[]): string[] =>
  execFileSync("git", ["ls-files", ...args], { cwd: ROOT, encoding: "utf8" })
    .split("\n")
    .filter(Boolean);

// ---- every declaration is in the one list -------------------------------------------------------------------------

const isKind = (v: unknown): v is Kind =>
  typeof v === "object" &&
  v !== null &&
  typeof (v as Kind).kind === "string" &&
  typeof (v as Kind).instance === "function";

/** The declarations `modules` export (each a module's exports) that `list` lacks, by name. */
function undeclared(modules: Record<string, unknown>[], list: readonly Kind[]): string[] {
  return modules.flatMap((m) => Object.values(m).filter(isKind)).flatMap((k) => (list.includes(k) ? [] : [k.kind]));
}

/** The shipped modules that declare a kind (call `declareKind`). */
const declaring = git("provider")
  .filter((f) => f.endsWith(".ts") && f !== "provider/kindDeclaration.ts" && /\bdeclareKind\s*</.test(read(f)))
  .map((f) => f.replace(/\.ts$/, ""));

test("every kind's declaration is in KINDS, once", () => {
  expect(declaring.length).toBe(KINDS.length);
  expect(
    undeclared(
      declaring.map((f) => require(path.join(ROOT, f)) as Record<string, unknown>),
      KINDS,
    ),
  ).toEqual([]);
  expect(new Set(RESOURCE_KINDS).size).toBe(KINDS.length);
});

test("a declaration missing from the list is found", () => {
  const [first, ...rest] = KINDS;
  expect(undeclared([{ FIRST: first, other: 1 }], rest)).toEqual([first.kind]);
});

// ---- no hand-made list of kinds -------------------------------------------------------------------------------------

/** The kinds `text` names as string literals ("Project"), in code or config. */
const kindsNamed = (text: string): string[] => RESOURCE_KINDS.filter((k) => new RegExp(`(["'])${k}\\1`).test(text));

/** Files of `files` naming two kinds or more as strings: lists by hand, which must derive from KINDS instead. */
const handLists = (files: Array<[string, string]>): string[] =>
  files.filter(([, t]) => kindsNamed(t).length >= 2).map(([file, t]) => `${file}: ${kindsNamed(t).join(", ")}`);

test("no shipped file and not the lint config lists the kinds by hand", () => {
  const shipped = git("provider", "sdk/nodejs", "cli", "eslint.config.mjs").filter((f) => /\.(ts|mjs)$/.test(f));
  expect(shipped.length).toBeGreaterThan(20);
  expect(handLists(shipped.map((f): [string, string] => [f, read(f)]))).toEqual([]);
});

test("a hand-made list is found, one kind named alone is not", () => {
  const planted: Array<[string, string]> = [
    ["provider/plugin/server.ts", 'const KINDS = ["Project", "VolumeSize"];'],
    ["sdk/nodejs/project.ts", 'super(providerShim("Project"), name);'],
  ];
  expect(handLists(planted).map((l) => l.split(":")[0])).toEqual(["provider/plugin/server.ts"]);
});

// ---- the lint config covers every kind's class --------------------------------------------------------------------

test("the lint config's resource-class block holds every kind's SDK class, and only those", () => {
  // An ES module, which jest does not load: node prints what it finds.
  const script = 'import("./eslint.config.mjs").then((m) => console.log(JSON.stringify(m.RESOURCE_CLASS_FILES)))';
  const found = JSON.parse(execFileSync(process.execPath, ["-e", script], { cwd: ROOT, encoding: "utf8" })) as string[];
  expect([...found].sort()).toEqual(RESOURCE_KINDS.map((k) => `sdk/nodejs/${lowerFirst(k)}.ts`).sort());
});

// ---- the checklist of CONTRIBUTING.md -----------------------------------------------------------------------------

/** The checklist: the count the text says, and the files its table names (`<kind>` a placeholder). */
function checklist(contributing: string): { count: number; files: string[] } {
  const start = contributing.indexOf("## Adding a resource");
  const section = contributing.slice(start, contributing.indexOf("\n## ", start + 1));
  const count = Number(/touches these (\d+) hand-written files/.exec(section)?.[1]);
  const files = [...section.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]);
  return { count, files };
}

/** Where a file of the checklist is for `kind`, each place it may be (a kind's folder in place of its file). */
function placesOf(file: string, kind: string): string[] {
  const name = lowerFirst(kind);
  const at = file.replace("<kind>", name);
  if (!file.includes("<kind>")) return [at];
  if (file === "provider/<kind>.ts") return [at, `provider/${name}/kind.ts`];
  return [at, at.replace(/\.test\.ts$|\.ts$/, "/")];
}

/** A file's text, "" for a folder, undefined when there is none. */
type Reader = (rel: string) => string | undefined;
const fromDisk: Reader = (rel) => {
  const p = path.join(ROOT, rel);
  if (!fs.existsSync(p)) return undefined;
  return fs.statSync(p).isDirectory() ? "" : fs.readFileSync(p, "utf8");
};

/** What is wrong with the checklist for the kinds: files missing or not naming the kind, a count that differs. */
function checklistProblems(list: { count: number; files: string[] }, kinds: readonly string[], at: Reader): string[] {
  const problems = list.count === list.files.length ? [] : [`says ${list.count} files, lists ${list.files.length}`];
  for (const kind of kinds)
    for (const file of list.files) {
      const places = placesOf(file, kind);
      const found = places.find((p) => at(p) !== undefined);
      if (found === undefined) problems.push(`${kind}: no ${places.join(" or ")}`);
      else if (!file.includes("<kind>") && !spellings(kind).some((n) => (at(found) ?? "").includes(n)))
        problems.push(`${kind}: ${found} does not name it`);
    }
  return problems;
}

test("every file the checklist names exists for every kind and names it, in the number the text says", () => {
  const list = checklist(read("CONTRIBUTING.md"));
  expect(list.files).toEqual(
    expect.arrayContaining(["provider/<kind>.ts", "provider/kinds.ts", "sdk/nodejs/index.ts"]),
  );
  expect(checklistProblems(list, RESOURCE_KINDS, fromDisk)).toEqual([]);
});

test("the checklist check bites: a wrong count, a kind without its file, a shared file that does not name it", () => {
  const list = { count: 3, files: ["provider/<kind>.ts", "sdk/nodejs/<kind>.ts", "docs/yaml.md", "docs/cli.md"] };
  const texts: Record<string, string> = {
    "provider/project.ts": "",
    "sdk/nodejs/project.ts": "",
    "docs/yaml.md": "## Project",
    "docs/cli.md": "## pims runs",
  };
  expect(checklistProblems(list, ["Project", "Bucket"], (rel) => texts[rel])).toEqual([
    "says 3 files, lists 4",
    "Project: docs/cli.md does not name it",
    "Bucket: no provider/bucket.ts or provider/bucket/kind.ts",
    "Bucket: no sdk/nodejs/bucket.ts or sdk/nodejs/bucket/",
    "Bucket: docs/yaml.md does not name it",
    "Bucket: docs/cli.md does not name it",
  ]);
});
