/**
 * The plugin archives and the checksums file, written so that two runs from the same commit give the same bytes:
 * entries in a fixed order with a fixed modification time, mode 0755/0644 and no owner (tar's `portable` mode), and
 * a gzip header without a time. The executable sits at the archive's root, as the engine expects
 * (`pulumi plugin install` unpacks the archive into the plugin's directory and runs `pulumi-resource-pims` there),
 * with this package's LICENSE and the licenses of what the executable carries (Node.js and the bundled packages).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as tar from "tar";
import { filesUnder, sha256 } from "./common";

/** The time every archive entry carries (2000-01-01T00:00:00Z): fixed, so archives do not change with the clock. */
export const ARCHIVE_MTIME = new Date(Date.UTC(2000, 0, 1));

/**
 * Writes `out` (a .tar.gz) holding `files` (name in the archive → file on disk); executables get mode 0755, the
 * others 0644. The entries go in in the order given.
 */
export function writeArchive(out: string, files: Record<string, { from: string; executable?: boolean }>): void {
  const stage = fs.mkdtempSync(`${out}.stage-`);
  try {
    for (const [name, { from, executable }] of Object.entries(files)) {
      const to = path.join(stage, name);
      fs.copyFileSync(from, to);
      fs.chmodSync(to, executable === true ? 0o755 : 0o644);
    }
    tar.c(
      { gzip: { level: 6 }, portable: true, mtime: ARCHIVE_MTIME, cwd: stage, file: out, sync: true, strict: true },
      Object.keys(files),
    );
  } finally {
    fs.rmSync(stage, { recursive: true, force: true });
  }
}

/**
 * Rewrites a .tar.gz made by another tool (the Python sdist: its gzip header and generated files carry the build's
 * time) as writeArchive writes: same content and modes, entries sorted, the fixed time, no owner.
 */
export function normalizeTarGz(file: string): void {
  const stage = fs.mkdtempSync(`${file}.stage-`);
  try {
    tar.x({ file, cwd: stage, sync: true, strict: true });
    const entries = (fs.readdirSync(stage, { recursive: true }) as string[]).map((f) => f.split(path.sep).join("/"));
    for (const f of entries) fs.utimesSync(path.join(stage, f), ARCHIVE_MTIME, ARCHIVE_MTIME);
    fs.rmSync(file);
    tar.c(
      {
        gzip: { level: 6 },
        portable: true,
        mtime: ARCHIVE_MTIME,
        cwd: stage,
        file,
        sync: true,
        strict: true,
        noDirRecurse: true,
      },
      entries.sort(),
    );
  } finally {
    fs.rmSync(stage, { recursive: true, force: true });
  }
}

/**
 * Writes the checksums file of every other file in `dir` (`sha256sum -c` reads it: `<hex>  <name>` lines sorted by
 * name) and returns its lines.
 */
export function writeChecksums(dir: string, name: string): string[] {
  const lines = filesUnder(dir)
    .filter((f) => f !== name)
    .map((f) => `${sha256(fs.readFileSync(path.join(dir, f)))}  ${f}`);
  fs.writeFileSync(path.join(dir, name), lines.join("\n") + "\n");
  return lines;
}

/**
 * The licenses of the packages in a bundle, one section per package, in name order: what the executable carries
 * besides Node.js. `packages` are the names esbuild reports; a package without a license file is named as such.
 */
export function thirdPartyLicenses(root: string, packages: readonly string[]): string {
  const sections = [...packages]
    .filter((p) => p !== "(own)")
    .sort()
    .map((name) => {
      const dir = path.join(root, "node_modules", name);
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as {
        version?: string;
        license?: string;
      };
      const file = fs.readdirSync(dir).find((f) => /^(licen[cs]e|copying)(\..*)?$/i.test(f));
      const text =
        file === undefined ? "(no license file in the package)" : fs.readFileSync(path.join(dir, file), "utf8");
      return `${name}@${pkg.version ?? "?"} (${pkg.license ?? "license not stated"})\n\n${text.trim()}\n`;
    });
  return sections.join(`\n${"-".repeat(80)}\n\n`);
}
