/**
 * `npm run release` twice from the same tree gives byte-identical files: the checksums files of both runs are equal.
 * Each run builds linux-amd64 only (`PIMS_RELEASE_PLATFORMS`), into a directory of its own, with a release cache of
 * its own (so the bundle and the executable are made again, not taken from a cache; only the Node binaries, fetched
 * from the npm registry once, are shared). Slow (about a minute a run), so it sits in the engine tier. The Java jars
 * are left out (`PIMS_RELEASE_JAVA=0`): Maven stamps build times into them.
 *
 * Set-up: its own, because no engine and no service: it runs `npm run release` twice and compares the checksums.
 */
import { execFileSync } from "node:child_process";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as tar from "tar";
import { REPO_ROOT } from "../../../scripts/engine";
import { CACHE_DIR } from "../../../scripts/release/common";
import { checksumsName } from "../../../scripts/release/main";
import { packageVersion } from "../../../provider/plugin/tokens";

jest.setTimeout(15 * 60_000);

const version = packageVersion();
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "pims-release-"));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** One release run into `<scratch>/<name>/dist`; returns that directory. */
function release(name: string): string {
  const cache = path.join(scratch, name, "cache");
  const dist = path.join(scratch, name, "dist");
  fs.mkdirSync(path.join(CACHE_DIR, "node"), { recursive: true });
  fs.mkdirSync(cache, { recursive: true });
  fs.symlinkSync(path.join(CACHE_DIR, "node"), path.join(cache, "node"));
  execFileSync(
    path.join(REPO_ROOT, "node_modules", ".bin", "ts-node"),
    ["--transpile-only", "scripts/release/main.ts"],
    {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        PATH: `${path.join(REPO_ROOT, "node_modules", ".bin")}${path.delimiter}${process.env.PATH ?? ""}`,
        PIMS_RELEASE_PLATFORMS: "linux-amd64",
        PIMS_RELEASE_DIST: dist,
        PIMS_RELEASE_CACHE_DIR: cache,
        // The Java jars are left out: Maven stamps build times into them (not yet byte-identical between runs).
        PIMS_RELEASE_JAVA: "0",
      },
      stdio: ["ignore", "ignore", "inherit"],
    },
  );
  return dist;
}

const sums = (dist: string): string => fs.readFileSync(path.join(dist, checksumsName(version)), "utf8");

let first: string;
let second: string;
beforeAll(() => {
  first = release("first");
  second = release("second");
});

test("two runs give the same checksums, for every file", () => {
  expect(sums(second)).toBe(sums(first));
});

test("the checksums file names every other file of dist/ with its SHA-256", () => {
  const lines = sums(first).trim().split("\n");
  const names = lines.map((l) => l.slice(66));
  expect(names).toEqual(
    expect.arrayContaining([
      `pulumi-resource-pims-v${version}-linux-amd64.tar.gz`,
      `pulumi-pims-${version}.tgz`,
      `pulumi_pims-${version}-py3-none-any.whl`,
      `pulumi_pims-${version}.tar.gz`,
      "schema.json",
    ]),
  );
  expect([...names, checksumsName(version)].sort()).toEqual(fs.readdirSync(first).sort());
  for (const line of lines) {
    const [hex, name] = [line.slice(0, 64), line.slice(66)];
    expect(
      crypto
        .createHash("sha256")
        .update(fs.readFileSync(path.join(first, name)))
        .digest("hex"),
    ).toBe(hex);
  }
});

test("the archive holds the executable at its root (mode 0755, no owner, the fixed time) and the licenses", () => {
  const entries: { path: string; mode: number; uid?: number; mtime?: Date }[] = [];
  tar.t({
    file: path.join(first, `pulumi-resource-pims-v${version}-linux-amd64.tar.gz`),
    sync: true,
    onReadEntry: (e) => entries.push({ path: e.path, mode: e.mode ?? 0, uid: e.uid, mtime: e.mtime }),
  });
  expect(entries.map((e) => e.path)).toEqual(["pulumi-resource-pims", "LICENSE", "THIRD-PARTY-LICENSES"]);
  expect(entries[0].mode & 0o777).toBe(0o755);
  for (const e of entries) expect(e.mtime?.toISOString()).toBe("2000-01-01T00:00:00.000Z");
  expect(entries.every((e) => e.uid === undefined || e.uid === 0)).toBe(true);
});

test("the executable runs with an empty environment and no Node.js on PATH: it prints the port it listens on", () => {
  const dir = path.join(scratch, "unpacked");
  fs.mkdirSync(dir);
  tar.x({ file: path.join(first, `pulumi-resource-pims-v${version}-linux-amd64.tar.gz`), cwd: dir, sync: true });
  const script = `"${path.join(dir, "pulumi-resource-pims")}" & pid=$!; sleep 3; kill $pid`;
  const out = execFileSync("/usr/bin/env", ["-i", "/bin/sh", "-c", script], { encoding: "utf8" });
  expect(out.trim()).toMatch(/^\d+$/);
});
