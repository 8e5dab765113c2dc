/**
 * One naming style: test files are camelCase with no dot but the `.test.ts` suffix (`rotationWorkflow.test.ts`, not
 * `rotation.workflow.test.ts` or `rotation-workflow.test.ts`), and every file and folder of scripts/ is kebab-case
 * (`ensure-pulumi`, `gen-sdk/`, `check-pack.js`).
 */
import { execFileSync } from "node:child_process";
import * as path from "node:path";

const ROOT = path.resolve(__dirname, "..", "..");
const tracked = (dir: string) =>
  execFileSync("git", ["ls-files", dir], { cwd: ROOT, encoding: "utf8" }).split("\n").filter(Boolean);

const CAMEL_TEST = /^[a-z][a-zA-Z0-9]*\.test\.ts$/;
/** kebab-case words, then any extensions (`.ts`, `.d.ts`, `.json`). */
const KEBAB = /^[a-z0-9]+(-[a-z0-9]+)*(\.[a-z0-9]+)*$/;

test("the rules recognise each style", () => {
  expect(["rotationWorkflow.test.ts", "fuzz.test.ts"].every((n) => CAMEL_TEST.test(n))).toBe(true);
  expect(
    ["rotation.workflow.test.ts", "rotation-workflow.test.ts", "Rotation.test.ts"].some((n) => CAMEL_TEST.test(n)),
  ).toBe(false);
  expect(["ensure-pulumi", "check-pack.js", "gen-sdk"].every((n) => KEBAB.test(n))).toBe(true);
  expect(["writeSchema.ts", "live_tier.ts"].some((n) => KEBAB.test(n))).toBe(false);
});

test("the trees have files to check", () => {
  expect(tracked("tests").filter((f) => f.endsWith(".test.ts")).length).toBeGreaterThan(10);
  expect(tracked("scripts").length).toBeGreaterThan(5);
});

test("every test file under tests/ is camelCase", () => {
  const bad = tracked("tests").filter((f) => f.endsWith(".test.ts") && !CAMEL_TEST.test(path.posix.basename(f)));
  expect(bad).toEqual([]);
});

test("every file and folder under scripts/ is kebab-case", () => {
  const bad = tracked("scripts").filter((f) =>
    f
      .split("/")
      .slice(1)
      .some((part) => !KEBAB.test(part)),
  );
  expect(bad).toEqual([]);
});
