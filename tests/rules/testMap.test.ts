/**
 * tests/README.md's map stays true: every folder of tests/ that git tracks, at every level, has a line in its "The
 * map" section, and every folder the map names exists. The fixtures' version folders are one line (`fixtures/v*`).
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

const ROOT = path.resolve(__dirname, "..", "..");
const readme = fs.readFileSync(path.join(ROOT, "tests", "README.md"), "utf8");
const start = readme.indexOf("## The map");
const section = readme.slice(start, readme.indexOf("\n## ", start + 1));

/** Folders of tests/ (relative to it) holding tracked files, every level; fixtures' versions collapsed. */
const folders = [
  ...new Set(
    execFileSync("git", ["ls-files", "tests"], { cwd: ROOT, encoding: "utf8" })
      .split("\n")
      .filter(Boolean)
      .flatMap((f) => {
        const parts = f.split("/").slice(1, -1);
        return parts.map((_, i) => `${parts.slice(0, i + 1).join("/")}/`);
      })
      .map((f) => f.replace(/^fixtures\/v[^/]+\/.*$/, "fixtures/v*/")),
  ),
].sort();
/** The folders the map's lines name (the first code span of each list item). */
const mapped = [...section.matchAll(/^\s*- `([^`]+\/)`/gm)].map((m) => m[1]);

test("the map has a section and names folders", () => {
  expect(start).toBeGreaterThan(0);
  expect(mapped).toEqual(expect.arrayContaining(["rules/", "unit/", "sim/", "engine/", "kit/"]));
});

test.each(folders)("tests/%s is on the map", (folder) => {
  expect(mapped).toContain(folder);
});

test.each(mapped)("the map's tests/%s exists", (folder) => {
  expect(folders).toContain(folder);
});
