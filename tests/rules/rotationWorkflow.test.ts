/**
 * The scheduled-CI workflow users copy from examples/rotation, checked by a real workflow linter: rhysd/actionlint
 * (v1.7.12, built from the Go module proxy once and cached: tests/kit/tools/actionlint.ts). It
 * checks the workflow's syntax, expressions and contexts (`secrets.X`, `vars.X`), cron schedules, job and step keys,
 * and runner labels (not the inputs of actions newer than its release, such as actions/checkout@v5). The linter is
 * shown to fail on broken copies.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { buildProgram } from "../../cli/pims";
import { ACTIONLINT_BUILD_TIMEOUT_MS, ensureActionlint, lint, type Finding } from "../kit/tools/actionlint";

const WORKFLOW = path.resolve(
  __dirname,
  "..",
  "..",
  "examples",
  "rotation",
  "typescript",
  ".github",
  "workflows",
  "rotate.yml",
);

const original = fs.readFileSync(WORKFLOW, "utf8");
let scratch: string;
beforeAll(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "pims-workflow-"));
});
beforeAll(() => ensureActionlint(), ACTIONLINT_BUILD_TIMEOUT_MS);
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** Lints `text` as a copy in a temp dir's .github/workflows (where users put it). */
function lintCopy(text: string): Promise<Finding[]> {
  const file = path.join(scratch, ".github", "workflows", "rotate.yml");
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return lint(text, file);
}

describe("examples/rotation/typescript/.github/workflows/rotate.yml", () => {
  it("passes actionlint", async () => {
    expect(await lint(original, WORKFLOW)).toEqual([]);
  });

  it("runs daily and on demand, then pulumi up of the stack, then the expiry check even when up failed", () => {
    expect(original).toMatch(/^on:\n {2}schedule:\n(?: {4}#.*\n)* {4}- cron: "\d+ \d+ \* \* \*"\n/m);
    expect(original).toMatch(/^ {2}workflow_dispatch:$/m);
    const up = original.indexOf('run: pulumi up --yes --skip-preview --stack "$PULUMI_STACK"');
    const check = original.indexOf('npx --no-install pims tokens "$project_id" --expiring-within "$EXPIRY_WINDOW"');
    expect(up).toBeGreaterThan(original.indexOf("uses: pulumi/actions@"));
    expect(check).toBeGreaterThan(up);
    expect(original.slice(up, check)).toContain("if: ${{ !cancelled() }}");
    expect(original).toMatch(/node-version: 22\n/);
    // Secrets only in the environment of the steps that use them, never in the job's (npm ci runs package scripts).
    const jobEnv = original.slice(original.indexOf("    env:\n"), original.indexOf("    steps:\n"));
    expect(jobEnv).not.toContain("secrets.");
  });

  it("uses only options the pims tokens command has", () => {
    const tokens = buildProgram(() => undefined).commands.find((c) => c.name() === "tokens");
    const flags = tokens?.options.map((o) => o.long) ?? [];
    const used = [...original.matchAll(/pims tokens [^\n]*/g)].flatMap((m) => m[0].match(/--[a-z-]+/g) ?? []);
    expect(used).toEqual(["--expiring-within"]);
    for (const flag of used) expect(flags).toContain(flag);
  });

  it.each([
    [
      "a misspelt context (secret. for secrets.)",
      (t: string) => t.replace("secrets.PIMS_TOKEN", "secret.PIMS_TOKEN"),
      "expression",
    ],
    ["an impossible cron hour", (t: string) => t.replace(/cron: "(\d+) \d+ /, 'cron: "$1 25 '), "events"],
    ["a job without runs-on", (t: string) => t.replace("    runs-on: ubuntu-latest\n", ""), "syntax-check"],
    [
      "a runner label GitHub does not have",
      (t: string) => t.replace("runs-on: ubuntu-latest", "runs-on: ubuntu-lastest"),
      "runner-label",
    ],
    [
      "a step both uses an action and runs a command",
      (t: string) => t.replace("      - run: npm ci\n", "      - run: npm ci\n        uses: actions/cache@v4\n"),
      "syntax-check",
    ],
    [
      "an unknown step key",
      (t: string) => t.replace("        if: ${{ !cancelled() }}", "        iff: ${{ !cancelled() }}"),
      "syntax-check",
    ],
  ])("fails on a broken copy: %s", async (_what, breakIt, kind) => {
    const broken = breakIt(original);
    expect(broken).not.toBe(original);
    const findings = await lintCopy(broken);
    expect(findings.map((f) => f.kind)).toContain(kind);
  });
});
