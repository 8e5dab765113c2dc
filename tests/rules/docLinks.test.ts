/**
 * The documentation's links: every relative link of the README, the pages under docs/ and every other Markdown file
 * of the repository names a file that exists, and a `#anchor` into a Markdown file names one of its headings (GitHub's
 * heading ids). Links to the web are not followed: no network in this tier. Also the README's size (a front page, not
 * the manual) and the front matter the Pulumi Registry reads in docs/_index.md and docs/installation-configuration.md.
 */
import * as fs from "node:fs";
import * as path from "node:path";

const ROOT = path.resolve(__dirname, "..", "..");

/**
 * Folders that hold no documentation of ours: hidden ones (.git, scratch, local state, virtual environments),
 * dependencies, build output, generated API pages (docs/api), state fixtures.
 */
const SKIP = new Set(["node_modules", "bin", "coverage", "api", "fixtures", "venv", "__pycache__", "dist", "build"]);
const skipped = (name: string): boolean => name.startsWith(".") || SKIP.has(name);

function markdownFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return skipped(e.name) ? [] : markdownFiles(p);
    return e.name.endsWith(".md") ? [p] : [];
  });
}

/** The text with fenced code blocks blanked (their line count kept) and inline code spans removed. */
function prose(text: string): string {
  let fence: string | undefined;
  const lines = text.split("\n").map((line) => {
    const marker = /^\s*(```|~~~)/.exec(line)?.[1];
    if (fence === undefined && marker !== undefined) {
      fence = marker;
      return "";
    }
    if (fence !== undefined) {
      if (marker === fence) fence = undefined;
      return "";
    }
    return line;
  });
  return lines.join("\n").replace(/(`+)[^`]*?\1/g, "");
}

/** GitHub's id of a heading: lower case, punctuation dropped (letters, digits, `_` and `-` kept), spaces as `-`. */
export function headingId(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, "")
    .replace(/ /g, "-");
}

/** The ids of a Markdown file's headings, a repeated one suffixed `-1`, `-2`, … as GitHub does. */
export function anchorsOf(text: string): Set<string> {
  const ids = new Set<string>();
  let fence: string | undefined;
  for (const line of text.split("\n")) {
    const marker = /^\s*(```|~~~)/.exec(line)?.[1];
    if (marker !== undefined && (fence === undefined || marker === fence)) {
      fence = fence === undefined ? marker : undefined;
      continue;
    }
    const m = fence === undefined ? /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line) : null;
    if (!m) continue;
    const base = headingId(m[1]);
    let id = base;
    for (let n = 1; ids.has(id); n++) id = `${base}-${n}`;
    ids.add(id);
  }
  return ids;
}

/** Every link and image target of the prose, with the line it is on. */
export function linksOf(text: string): Array<{ target: string; line: number }> {
  const body = prose(text);
  const out: Array<{ target: string; line: number }> = [];
  for (const m of body.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    out.push({ target: m[1], line: body.slice(0, m.index).split("\n").length });
  }
  return out;
}

/** What is wrong with one link of `file`, or undefined when it resolves. */
function problem(file: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined; // https:, mailto: … (not followed: no network)
  const [pathPart, anchor] = target.split("#", 2);
  const resolved = pathPart === "" ? file : path.resolve(path.dirname(file), decodeURIComponent(pathPart));
  if (!resolved.startsWith(ROOT)) return "points outside the repository";
  if (!fs.existsSync(resolved)) return "no such file";
  if (anchor === undefined || anchor === "" || !resolved.endsWith(".md")) return undefined;
  return anchorsOf(fs.readFileSync(resolved, "utf8")).has(decodeURIComponent(anchor))
    ? undefined
    : `no heading with the id #${anchor}`;
}

const files = markdownFiles(ROOT);
const rel = (f: string): string => path.relative(ROOT, f);

test("the documentation is found: the README, the docs pages and the other Markdown files", () => {
  const names = files.map(rel);
  expect(names).toEqual(expect.arrayContaining(["README.md", "CONTRIBUTING.md", "tests/README.md"]));
  expect(names).toEqual(
    expect.arrayContaining(["docs/_index.md", "docs/installation-configuration.md", "docs/large-stacks.md"]),
  );
});

test.each(files.map((f) => [rel(f), f]))("every relative link in %s resolves", (_name, file) => {
  const broken = linksOf(fs.readFileSync(file, "utf8"))
    .map(({ target, line }) => ({ target, line, problem: problem(file, target) }))
    .filter((l) => l.problem !== undefined)
    .map((l) => `${rel(file)}:${l.line}: ${l.target}: ${l.problem}`);
  expect(broken).toEqual([]);
});

describe("the checker itself", () => {
  test("heading ids follow GitHub's rule", () => {
    expect(headingId("Several accounts: pims.Provider")).toBe("several-accounts-pimsprovider");
    expect(headingId("`pims tokens <project>`")).toBe("pims-tokens-project");
    expect(headingId("Adding an endpoint / operation")).toBe("adding-an-endpoint--operation");
    expect(headingId("P6 with the start-up fix (2026-11-24)")).toBe("p6-with-the-start-up-fix-2026-11-24");
    expect([...anchorsOf("# A\n\n## A\n\n```\n# not a heading\n```\n### B ###\n")]).toEqual(["a", "a-1", "b"]);
  });

  test("links in code are not links; a link may span lines; a missing file and a missing anchor are caught", () => {
    const text = "see [a](x.md) and `[b](y.md)`\n\n```\n[c](z.md)\n```\n[two\nlines](w.md#h) ![img](i.png)\n";
    expect(linksOf(text)).toEqual([
      { target: "x.md", line: 1 },
      { target: "w.md#h", line: 6 },
      { target: "i.png", line: 7 },
    ]);
    const readme = path.join(ROOT, "README.md");
    expect(problem(readme, "docs/nope.md")).toBe("no such file");
    expect(problem(readme, "docs/large-stacks.md#nope")).toBe("no heading with the id #nope");
    expect(problem(readme, "docs/large-stacks.md#when-to-split-a-stack")).toBeUndefined();
    expect(problem(readme, "#design")).toBeUndefined();
    expect(problem(readme, "https://example.com/#anything")).toBeUndefined();
  });
});

test("the README is a front page: at most 300 lines", () => {
  expect(fs.readFileSync(path.join(ROOT, "README.md"), "utf8").trimEnd().split("\n").length).toBeLessThanOrEqual(300);
});

test.each(["_index.md", "installation-configuration.md"])(
  "docs/%s has the front matter the Pulumi Registry reads (title, meta_desc, layout: package)",
  (page) => {
    const text = fs.readFileSync(path.join(ROOT, "docs", page), "utf8");
    const front = /^---\n([\s\S]*?)\n---\n/.exec(text)?.[1] ?? "";
    expect(front).toMatch(/^title: \S.*$/m);
    expect(front).toMatch(/^meta_desc: \S.*$/m);
    expect(front).toMatch(/^layout: package$/m);
  },
);
