/**
 * The check behind tests/rules/layout.test.ts, as plain functions over (tracked files, map text), so that the test can
 * also run it on small inputs and show it failing.
 *
 * A map is read as rows. A row is about some folders (written from the root) and names files and folders in them:
 * - CONTRIBUTING.md's layout table: a row's folders are its first cell's code spans; its names are those and the
 *   paths in its second cell's code spans;
 * - docs/design.md's drawing: each line is a row; its folders are the paths on it that begin with a top-level folder
 *   (`provider/`, `sdk/nodejs/`); a line naming none continues the last line that did.
 * A name beginning with a top-level folder is a path from the root; any other (`diff.ts`, `gen-sdk/`,
 * `workflows/ci.yml`) is a path from one of its row's folders, or from the root in a row of none. `<scenario>` and `*`
 * stand for one path segment. A path names a folder when it ends with `/`, a file when it has another `/` or ends
 * in a known extension; other words are prose.
 */

/** Levels below the root the maps draw, by folder; the longest prefix that matches a folder decides. */
export type Depths = Record<string, number>;
export interface Row {
  folders: string[];
  names: string[];
}

const FILE_EXTENSION = /\.(ts|js|json|md|go|mod|sum|yml|yaml|xml)$/;
/** A path-like word: not preceded by another path character (so `a/b/c` is one word). */
const WORD = /(?<![\w.<>*/-])\.?[\w<>*-][\w.<>*-]*(?:\/[\w.<>*-]+)*\/?/g;
const pathsIn = (text: string) =>
  [...text.matchAll(WORD)].map((m) => m[0]).filter((w) => w.includes("/") || FILE_EXTENSION.test(w));

/** Every folder holding a tracked file, at every level (`a/`, `a/b/`). */
export function foldersOf(tracked: string[]): string[] {
  const all = tracked.flatMap((f) => {
    const parts = f.split("/").slice(0, -1);
    return parts.map((_, i) => `${parts.slice(0, i + 1).join("/")}/`);
  });
  return [...new Set(all)].sort();
}

/** The folders the maps must name: each tracked folder no deeper than its entry in `depths` allows. */
export function drawnFolders(tracked: string[], depths: Depths): string[] {
  const depthOf = (folder: string) =>
    Object.entries(depths)
      .filter(([prefix]) => folder.startsWith(prefix))
      .sort(([a], [b]) => b.length - a.length)[0]?.[1] ?? 0;
  return foldersOf(tracked).filter((f) => f.split("/").length - 1 <= depthOf(f));
}

/** CONTRIBUTING.md's layout table (the one headed `| Folder | Holds |`) as rows. */
export function tableRows(markdown: string): Row[] {
  const lines = markdown.split("\n");
  const start = lines.findIndex((l) => l.startsWith("| Folder | Holds |"));
  const rows = start < 0 ? [] : lines.slice(start + 2);
  const end = rows.findIndex((l) => !l.startsWith("|"));
  const spans = (cell = "") => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
  return rows.slice(0, end < 0 ? undefined : end).map((line) => {
    const [, first, second] = line.split("|");
    const folders = spans(first);
    return { folders, names: [...folders, ...spans(second).flatMap(pathsIn)] };
  });
}

/** docs/design.md's drawing: the first code block of its "## Layout" section, one row per line. */
export function drawingRows(markdown: string, tracked: string[]): Row[] {
  const topLevel = topLevelOf(tracked);
  const section = markdown.slice(markdown.indexOf("## Layout"));
  const block = /```\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
  let folders: string[] = [];
  return block.split("\n").map((line) => {
    const names = pathsIn(line);
    const fromRoot = names.filter((n) => n.endsWith("/") && isFromRoot(n, topLevel));
    if (fromRoot.length > 0) folders = fromRoot;
    return { folders, names };
  });
}

const topLevelOf = (tracked: string[]) => foldersOf(tracked).filter((f) => f.split("/").length === 2);
const isFromRoot = (name: string, topLevel: string[]) => topLevel.includes(`${name.split("/")[0]}/`);
const matcher = (pattern: string) =>
  new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/<[^>/]*>|\*/g, "[^/]+")}$`);
/** A placeholder as the last segment (`examples/<scenario>/`) names what the folders hold, not the folders. */
const namesEachFolder = (pattern: string) => !/(<[^>/]*>|\*)\/?$/.test(pattern);

/**
 * What is wrong with one map: each drawn folder it does not name, and each name of a file or folder git does not
 * track where the row says. Each message names the map and the folder or file.
 */
export function mapProblems(map: string, rows: Row[], tracked: string[], drawn: string[]): string[] {
  const topLevel = topLevelOf(tracked);
  const existing = [...tracked, ...foldersOf(tracked)];
  const exists = (pattern: string) => {
    const re = matcher(pattern);
    return existing.some((e) => re.test(e));
  };
  const named: string[] = [];
  const problems: string[] = [];
  for (const { folders, names } of rows) {
    for (const name of names) {
      const bases = isFromRoot(name, topLevel) || folders.length === 0 ? [""] : folders;
      const paths = bases.map((base) => base + name);
      const found = paths.filter(exists);
      if (found.length === 0) problems.push(`${map} names ${paths.join(" or ")}, which git does not track`);
      named.push(...found.filter((p) => p.endsWith("/") && namesEachFolder(p)));
    }
  }
  const namedMatchers = [...new Set(named)].map(matcher);
  const missing = drawn.filter((folder) => !namedMatchers.some((re) => re.test(folder)));
  return [...new Set([...missing.map((f) => `${map} does not name ${f}`), ...problems])];
}

/**
 * A kind's folder (`provider/<kind>/`, the one holding a `kind.ts`) is read from its `index.ts`: each file the folder
 * holds (not deeper) is named in that file's header comment as `./<name>` (no extension) and in the folder's row of
 * CONTRIBUTING.md's table (`rows`, its second cell) as `<name>.<ext>`. What is missing, each message naming the place.
 */
export function kindFolderProblems(folder: string, tracked: string[], rows: Row[], index: string): string[] {
  const files = tracked.filter((f) => f.startsWith(folder) && !f.slice(folder.length).includes("/"));
  const header = /^\s*\/\*\*([\s\S]*?)\*\//.exec(index)?.[1] ?? "";
  const inHeader = new Set([...header.matchAll(/\.\/([\w-]+)(?![\w/-])/g)].map((m) => m[1]));
  const row = rows.find((r) => r.folders.includes(folder));
  const problems: string[] = [];
  for (const file of files.map((f) => f.slice(folder.length))) {
    if (!inHeader.has(file.replace(/\.[^.]+$/, ""))) problems.push(`${folder}index.ts's header does not name ${file}`);
    if (!row?.names.includes(file)) problems.push(`CONTRIBUTING.md's ${folder} row does not name ${file}`);
  }
  return problems;
}
