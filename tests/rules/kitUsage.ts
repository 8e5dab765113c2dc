/**
 * Who uses each module of tests/kit/, computed from the sources, for tests/rules/kitMap.test.ts and for writing
 * tests/kit/README.md's "Used by" column (`npx ts-node tests/rules/kitUsage.ts` prints every row's column).
 *
 * A module is used by a file that imports it (a relative `from`, `import()`, `require()` or `jest.mock()` specifier
 * resolving to it) or names it as `<rootDir>/tests/kit/…` (jest's config). A user is written as its folder: from
 * tests/ for a file under it (`engine/typescript`, `kit/languages`), from the root otherwise (`bench`,
 * `scripts/release`), or its name at the root (`jest.config.ts`).
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

const ROOT = path.resolve(__dirname, "..", "..");
const SPECIFIER = /(?:\bfrom|\bimport|\brequire|\bjest\.mock)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g;
const ROOT_DIR = /<rootDir>\/(tests\/kit\/[\w./-]+)/g;

function tracked(...patterns: string[]): string[] {
  return execFileSync("git", ["ls-files", ...patterns], { cwd: ROOT, encoding: "utf8" })
    .split("\n")
    .filter(Boolean);
}

/** The kit's modules, from tests/kit/ (`engine/engine.ts`, `sim/simulator.ts`). */
export function kitModules(): string[] {
  return tracked("tests/kit")
    .filter((f) => /\.(ts|js)$/.test(f))
    .map((f) => path.relative("tests/kit", f))
    .sort();
}

/** A user's folder as the README writes it. */
function userOf(file: string): string {
  const dir = path.dirname(file);
  if (dir === ".") return file;
  return file.startsWith("tests/") ? path.relative("tests", dir) : dir;
}

/** The module a relative specifier in `file` names, from tests/kit/, if it names one. */
function kitModuleNamed(file: string, specifier: string, modules: Set<string>): string | undefined {
  const target = path.relative(path.join(ROOT, "tests", "kit"), path.resolve(ROOT, path.dirname(file), specifier));
  return [target, `${target}.ts`, `${target}.js`].find((m) => modules.has(m));
}

/** Module (from tests/kit/) → the files that import it (from the root), sorted. */
export function kitImporters(): Map<string, string[]> {
  const modules = kitModules();
  const known = new Set(modules);
  const users = new Map<string, Set<string>>(modules.map((m) => [m, new Set<string>()]));
  for (const file of tracked("*.ts", "*.js", "*.mjs", "*.cjs")) {
    if (file.startsWith("sdk/")) continue;
    const text = fs.readFileSync(path.join(ROOT, file), "utf8");
    const named = [
      ...[...text.matchAll(SPECIFIER)].map((m) => kitModuleNamed(file, m[1], known)),
      ...[...text.matchAll(ROOT_DIR)].map((m) => path.relative("tests/kit", m[1])).filter((m) => known.has(m)),
    ];
    for (const m of named) if (m && `tests/kit/${m}` !== file) users.get(m)?.add(file);
  }
  return new Map([...users].map(([m, u]) => [m, [...u].sort()]));
}

/** Module (from tests/kit/) → its users' folders, sorted. */
export function kitUsage(): Map<string, string[]> {
  const folders = (files: string[]) => [...new Set(files.map(userOf))].sort();
  return new Map([...kitImporters()].map(([m, files]) => [m, folders(files)]));
}

/** The "Used by" cell of a module's row. */
export const usedByCell = (users: string[]): string => users.map((u) => `\`${u}\``).join(", ");

if (require.main === module) {
  for (const [m, u] of kitUsage()) console.log(`| \`${m}\` | | ${usedByCell(u)} |`);
}
