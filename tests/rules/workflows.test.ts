/**
 * This repository's workflows, checked by actionlint v1.7.12 (tests/kit/tools/actionlint.ts) in the unit tier
 * `npm test` runs: .github/workflows/ci.yml runs `.ci/run` on pushes and pull requests; .github/workflows/release.yml
 * runs on a `v*` tag the tests, `npm run release` and `npm run release:publish -- --yes`, in that order, with each
 * secret only in the environment of the step that uses it, and every secret and variable it reads named in
 * CONTRIBUTING.md. The linter is shown to catch a broken copy.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { ACTIONLINT_BUILD_TIMEOUT_MS, ensureActionlint, lint } from "../kit/tools/actionlint";

const ROOT = path.resolve(__dirname, "..", "..");
const file = (name: string): string => path.join(ROOT, ".github", "workflows", name);
const ci = fs.readFileSync(file("ci.yml"), "utf8");
const release = fs.readFileSync(file("release.yml"), "utf8");

// actionlint v1.7.12 from the cache, or built from the Go module proxy once when the cache is missing.
beforeAll(() => ensureActionlint(), ACTIONLINT_BUILD_TIMEOUT_MS);

test.each([
  ["ci.yml", ci],
  ["release.yml", release],
])("%s passes actionlint", async (name, text) => {
  expect(await lint(text, file(name))).toEqual([]);
});

test("actionlint finds a broken workflow (an unknown context, a bad key)", async () => {
  const broken = release.replace("${{ secrets.NPM_TOKEN }}", "${{ secret.NPM_TOKEN }}").replace("runs-on:", "run-on:");
  const kinds = (await lint(broken, file("release.yml"))).map((f) => f.message).join("\n");
  expect(kinds).toMatch(/undefined variable "secret"/);
  expect(kinds).toMatch(/"run-on"/);
});

test("ci.yml runs .ci/run on pushes to main and on pull requests", () => {
  expect(ci).toMatch(/^on:\n {2}push:\n {4}branches: \[main\]\n {2}pull_request:\n/m);
  expect(ci).toMatch(/^ {6}- run: bash \.ci\/run$/m);
});

test("release.yml: on a v* tag, the tests, then npm run release, then release:publish --yes", () => {
  expect(release).toMatch(/^on:\n {2}push:\n {4}tags: \["v\*"\]\n/m);
  const at = ["run: bash .ci/run", "run: npm run release\n", "run: npm run release:publish -- --yes"].map((s) =>
    release.indexOf(s),
  );
  expect(at.every((i) => i > 0)).toBe(true);
  expect([...at].sort((a, b) => a - b)).toEqual(at);
  expect(release).toContain("contents: write");
});

test("release.yml: secrets only in the steps that use them, each named in CONTRIBUTING.md", () => {
  const jobs = release.slice(release.indexOf("\njobs:"));
  const steps = jobs.split(/\n {6}- /);
  const jobHead = steps[0];
  expect(jobHead).not.toMatch(/secrets\./);
  for (const step of steps.filter((s) => s.includes("secrets.")))
    expect(step).toMatch(/^(name: (Import the release key|Publish))/);
  const contributing = fs.readFileSync(path.join(ROOT, "CONTRIBUTING.md"), "utf8");
  const read = [...release.matchAll(/\$\{\{ (secrets|vars)\.(\w+) \}\}/g)].map((m) => m[2]);
  expect(read.length).toBeGreaterThan(5);
  for (const name of new Set(read)) if (name !== "GITHUB_TOKEN") expect(contributing).toContain(`\`${name}\``);
});
