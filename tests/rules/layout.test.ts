/**
 * The maps of the repository stay whole: every top-level folder git tracks (and each folder of `provider/`, `sdk/`,
 * `scripts/` and `tests/`) is named in CONTRIBUTING.md's layout table and in docs/design.md's layout, so a new folder
 * cannot land without a line saying what it holds; and every folder the table names exists.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

const ROOT = path.resolve(__dirname, "..", "..");
const tracked = execFileSync("git", ["ls-files"], { cwd: ROOT, encoding: "utf8" }).split("\n").filter(Boolean);

/** Folders holding tracked files: the top level, and the first level under the folders the maps draw deeper. */
const DRAWN_DEEPER = ["provider", "sdk", "scripts", "tests"];
const folders = [
  ...new Set(
    tracked.flatMap((f) => {
      const parts = f.split("/");
      if (parts.length < 2) return [];
      const top = `${parts[0]}/`;
      return DRAWN_DEEPER.includes(parts[0]) && parts.length > 2 ? [top, `${top}${parts[1]}/`] : [top];
    }),
  ),
].sort();

const contributing = fs.readFileSync(path.join(ROOT, "CONTRIBUTING.md"), "utf8");
const design = fs.readFileSync(path.join(ROOT, "docs", "design.md"), "utf8");
/** CONTRIBUTING.md's layout table: its rows' first cells. */
const tableFolders = contributing
  .split("\n")
  .filter((l) => l.startsWith("| `"))
  .flatMap((l) => [...(l.split("|")[1] ?? "").matchAll(/`([^`]+)`/g)].map((m) => m[1]));
/** docs/design.md's layout block. */
const designLayout = design.slice(
  design.indexOf("## Layout"),
  design.indexOf("\n## ", design.indexOf("## Layout") + 1),
);

test("the repository has the folders the maps are about", () => {
  expect(folders).toEqual(expect.arrayContaining(["provider/", "provider/plugin/", "sdk/nodejs/", "tests/"]));
});

test.each(folders)("%s is in CONTRIBUTING.md's layout table (itself or its folders, one row each)", (folder) => {
  expect(tableFolders.filter((f) => f.startsWith(folder))).not.toEqual([]);
});

test.each(tableFolders.filter((f) => f.endsWith("/")))(
  "%s, named in CONTRIBUTING.md's layout table, exists",
  (folder) => {
    expect(tracked.some((f) => f.startsWith(folder))).toBe(true);
  },
);

test.each(folders)("%s is in docs/design.md's layout", (folder) => {
  const name = folder.split("/").filter(Boolean).pop() ?? folder;
  // The drawing names nested folders by their own name under their parent (provider/ … serviceAccount/).
  expect(designLayout).toMatch(new RegExp(`(^|[\\s(/·])(${folder.replace(/[./]/g, "\\$&")}|${name}/)`, "m"));
});
