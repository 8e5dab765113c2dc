/**
 * The settings rule of the code base: every read of an environment variable (`process.env`) or of the package's stack
 * config (`config.get…`, `new …Config(…)`) in shipped code is in provider/settings/, so a setting has one parser and
 * a third host (the native plugin's Configure) feeds the same table. Messages may name variables anywhere; only code
 * that reads them is counted. Comments are stripped before the search.
 */
import * as fs from "node:fs";
import * as path from "node:path";

const ROOT = path.resolve(__dirname, "..", "..");
const SHIPPED = ["provider", "sdk", "cli"];
const SETTINGS_MODULE = path.join("provider", "settings") + path.sep;
/** A read of the environment or of stack config, in code (not in a string or comment). */
const READS = [/\bprocess\.env\b/, /\bconfig\.get(Secret|Number|Boolean|Object)?\(/i, /\bnew\s+[\w.()"' ]*Config\(/];

function tsFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return tsFiles(p);
    return e.name.endsWith(".ts") ? [p] : [];
  });
}

/** The file's code lines: comments removed, string and template literal contents blanked. */
function codeLines(text: string): string[] {
  const noBlock = text.replace(/\/\*[\s\S]*?\*\//g, (m) => m.replace(/[^\n]/g, " "));
  return noBlock.split("\n").map((line) =>
    line
      .replace(/\/\/.*$/, "")
      .replace(/"(?:[^"\\]|\\.)*"/g, '""')
      .replace(/'(?:[^'\\]|\\.)*'/g, "''")
      .replace(/`(?:[^`\\$]|\\.)*`/g, "``"),
  );
}

test("only provider/settings/ reads the environment or stack config in shipped code", () => {
  const found: string[] = [];
  for (const dir of SHIPPED) {
    for (const file of tsFiles(path.join(ROOT, dir))) {
      const rel = path.relative(ROOT, file);
      if (rel.startsWith(SETTINGS_MODULE)) continue;
      codeLines(fs.readFileSync(file, "utf8")).forEach((line, i) => {
        if (READS.some((r) => r.test(line))) found.push(`${rel}:${i + 1}: ${line.trim()}`);
      });
    }
  }
  expect(found).toEqual([]);
});

test("the search finds a read where there is one", () => {
  const lines = codeLines('const a = process.env.PIMS_TOKEN; // process.env in a comment\nconst b = "process.env";');
  expect(READS.some((r) => r.test(lines[0]))).toBe(true);
  expect(READS.some((r) => r.test(lines[1]))).toBe(false);
  expect(READS.some((r) => r.test(codeLines('const c = new pulumi.Config("pims");')[0]))).toBe(true);
});
