/**
 * A newcomer reads a module in one sitting: no hand-written file of the shipped code (provider/, sdk/, cli/,
 * simulator/, scripts/, plugin/) or of the tests (tests/, but the state fixtures tests/fixtures/v*) is over
 * 400 lines. The generated SDKs (sdk/python, sdk/go, sdk/java but its
 * hand-written pom.xml), the generated schema (provider/schema.json) and the public-API report
 * (sdk/nodejs/pulumi-pims.api.md) are generators' output and go.sum a checksum list: not counted.
 */
import * as fs from "node:fs";
import * as path from "node:path";

const ROOT = path.resolve(__dirname, "..", "..");
const SHIPPED = ["provider", "sdk", "cli", "simulator", "scripts", "plugin", "tests"];
const GENERATED = [
  path.join("sdk", "python"),
  path.join("sdk", "go"),
  path.join("sdk", "java", "src"),
  path.join("sdk", "java", "README.md"),
  path.join("sdk", "java", "target"), // a local Maven build's output (ignored by git)
  path.join("provider", "schema.json"),
  path.join("sdk", "nodejs", "pulumi-pims.api.md"), // API Extractor's report
];
/** The state fixtures: what each released version wrote, kept byte for byte. */
const isFixtureVersion = (rel: string) => /^tests\/fixtures\/v[^/]+\//.test(rel.split(path.sep).join("/"));
const MAX_LINES = 400;

function files(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    const rel = path.relative(ROOT, p);
    if (GENERATED.some((g) => rel === g || rel.startsWith(g + path.sep))) return [];
    if (isFixtureVersion(rel + path.sep)) return [];
    if (e.isDirectory()) return e.name === "node_modules" || e.name.startsWith(".") ? [] : files(p);
    return e.name === "go.sum" ? [] : [p]; // a checksum list, written by go
  });
}

test(`no hand-written file of the code or the tests is over ${MAX_LINES} lines`, () => {
  const long = SHIPPED.filter((d) => fs.existsSync(path.join(ROOT, d)))
    .flatMap((d) => files(path.join(ROOT, d)))
    .map((f) => ({ file: path.relative(ROOT, f), lines: fs.readFileSync(f, "utf8").split("\n").length - 1 }))
    .filter((f) => f.lines > MAX_LINES);
  expect(long).toEqual([]);
});
