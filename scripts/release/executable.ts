/**
 * The plugin executable of one platform: that platform's Node.js binary (the npm package `node-<os>-<cpu>`, fetched
 * with `npm pack` and checked against the integrity pinned in ./platforms) with the bundled plugin injected as a Node
 * single-executable application (`node --experimental-sea-config`, then `postject`). The blob is built without code
 * cache or snapshot, so the same bundle gives the same bytes on every run. macOS: Node's binary is signed, and
 * injecting breaks that signature, so it is removed first (`macho-unsign`): the darwin-amd64 executable is unsigned
 * (x86-64 code needs no signature to run on macOS; there is no tool here to add an ad-hoc one). Windows: the same
 * with Node's Authenticode signature (`portable-executable-signature`, by the same author); the executable is
 * unsigned. Node binaries and executables are cached under the release cache, keyed by version and by the blob's hash.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { unsign } from "macho-unsign";
import { signatureGet, signatureSet } from "portable-executable-signature";
import { inject } from "postject";
import * as tar from "tar";
import { CACHE_DIR, log, sha256 } from "./common";
import { executableName, platformName, PLATFORMS, type Platform } from "./platforms";

/** Node's single-executable fuse (the sentinel postject flips). */
export const SEA_FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";
/** The resource name Node looks for. */
export const SEA_RESOURCE = "NODE_SEA_BLOB";

const npm = process.platform === "win32" ? "npm.cmd" : "npm";

/** The cached Node.js binary of a platform and its license, fetched from the npm registry on first use. */
export function nodeBinary(p: Platform): { bin: string; license: string } {
  const dir = path.join(CACHE_DIR, "node", `${p.nodePackage}-${p.nodeVersion}`);
  const bin = path.join(dir, path.basename(p.nodePath));
  const license = p.licensePath === undefined ? nodeBinary(PLATFORMS[0]).license : path.join(dir, "LICENSE");
  if (fs.existsSync(bin) && fs.existsSync(license)) return { bin, license };
  fs.mkdirSync(CACHE_DIR, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(CACHE_DIR, "fetch-"));
  try {
    log(`node: fetching ${p.nodePackage}@${p.nodeVersion} from the npm registry (about 50 MB)`);
    const out = execFileSync(npm, ["pack", `${p.nodePackage}@${p.nodeVersion}`, "--json", "--pack-destination", tmp], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
      maxBuffer: 64 * 1024 * 1024,
    });
    const [info] = JSON.parse(out) as { filename: string; integrity: string }[];
    if (info.integrity !== p.integrity)
      throw new Error(
        `${p.nodePackage}@${p.nodeVersion} has integrity ${info.integrity}, not the pinned ${p.integrity} ` +
          `(scripts/release/platforms.ts): refusing to build from it`,
      );
    const wanted = p.licensePath === undefined ? [p.nodePath] : [p.nodePath, p.licensePath];
    tar.x({ file: path.join(tmp, info.filename), cwd: tmp, sync: true, filter: (f) => wanted.includes(f) });
    for (const f of wanted)
      if (!fs.existsSync(path.join(tmp, f))) throw new Error(`${p.nodePackage}@${p.nodeVersion} holds no ${f}`);
    fs.mkdirSync(dir, { recursive: true });
    if (p.licensePath !== undefined) fs.renameSync(path.join(tmp, p.licensePath), license);
    fs.renameSync(path.join(tmp, p.nodePath), bin);
    log(`node: cached ${path.relative(CACHE_DIR, bin)}`);
    return { bin, license };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * Node's Windows binary without its Authenticode signature, as `signtool remove /s` leaves it (Node's documentation
 * asks for that before the injection, which would leave a signature that no longer matches): the certificate table,
 * which PE files keep at their end, is cut off, its data-directory entry zeroed and the header checksum recomputed
 * (`portable-executable-signature`, which refuses a table that is not at the end). Null when there is none.
 */
export function unsignPe(exe: Buffer): Buffer | null {
  if (signatureGet(exe) === null) return null;
  return Buffer.from(signatureSet(exe, null, true, true));
}

/**
 * The single-executable blob of a bundle, made by the Node.js running this script. The blob records the main
 * script's path as the config names it, so it is given the same relative name on every run: same bundle, same bytes.
 */
export function seaBlob(bundle: string, work: string): Buffer {
  fs.copyFileSync(bundle, path.join(work, "pulumi-resource-pims.js"));
  fs.writeFileSync(
    path.join(work, "sea-config.json"),
    JSON.stringify({
      main: "pulumi-resource-pims.js",
      output: "sea.blob",
      disableExperimentalSEAWarning: true,
      useSnapshot: false,
      useCodeCache: false,
    }),
  );
  execFileSync(process.execPath, ["--experimental-sea-config", "sea-config.json"], { cwd: work, stdio: "pipe" });
  return fs.readFileSync(path.join(work, "sea.blob"));
}

/** What an executable of `p` must start with: its format and CPU, as the loader of that system reads them. */
function formatProblem(p: Platform, exe: Buffer): string | undefined {
  const want = `${p.os}-${p.arch}`;
  if (p.os === "linux") {
    const machine = exe.readUInt16LE(0x12);
    const ok = exe.readUInt32BE(0) === 0x7f454c46 && machine === (p.arch === "amd64" ? 0x3e : 0xb7);
    return ok ? undefined : `not an ELF executable for ${want} (e_machine 0x${machine.toString(16)})`;
  }
  if (p.os === "darwin") {
    const ok = exe.readUInt32LE(0) === 0xfeedfacf && exe.readUInt32LE(4) === 0x01000007;
    return ok ? undefined : `not a 64-bit Mach-O executable for x86-64`;
  }
  const pe = exe.readUInt32LE(0x3c);
  const ok = exe.toString("latin1", 0, 2) === "MZ" && exe.readUInt32BE(pe) === 0x50450000;
  return ok && exe.readUInt16LE(pe + 4) === 0x8664 ? undefined : "not a PE executable for x86-64";
}

/**
 * Checks what can be checked of an executable without running it: its format and CPU, Node's single-executable fuse
 * flipped, and the blob inside. Throws naming what is wrong.
 */
export function checkExecutable(p: Platform, file: string, blob: Buffer): void {
  const exe = fs.readFileSync(file);
  const problem =
    formatProblem(p, exe) ??
    (exe.includes(`${SEA_FUSE}:1`) ? undefined : "Node's single-executable fuse is not flipped") ??
    (exe.includes(blob) ? undefined : "the plugin's blob is not inside");
  if (problem !== undefined) throw new Error(`the ${platformName(p)} executable ${file}: ${problem}`);
}

/**
 * The executable of `p` for a bundle (cached by the blob's hash; older executables of that platform are removed).
 * Returns its path.
 */
export async function buildExecutable(p: Platform, bundle: string): Promise<string> {
  fs.mkdirSync(CACHE_DIR, { recursive: true });
  const work = fs.mkdtempSync(path.join(CACHE_DIR, "sea-"));
  try {
    const blob = seaBlob(bundle, work);
    const key = sha256(`${p.nodePackage}@${p.nodeVersion}:${sha256(blob)}`).slice(0, 16);
    const platformDir = path.join(CACHE_DIR, "executables", platformName(p));
    const exe = path.join(platformDir, key, executableName(p));
    if (fs.existsSync(exe)) {
      checkExecutable(p, exe, blob);
      log(`${platformName(p)}: cached executable ${key} (checked: format, fuse, blob)`);
      return exe;
    }
    const tmp = path.join(work, executableName(p));
    let bytes: Buffer = fs.readFileSync(nodeBinary(p).bin);
    if (p.os === "darwin") {
      const unsigned = unsign(bytes);
      if (unsigned !== null) bytes = Buffer.from(unsigned);
      log(`${platformName(p)}: removed Node's code signature (${unsigned === null ? "none found" : "done"})`);
    }
    if (p.os === "windows") {
      const unsigned = unsignPe(bytes);
      if (unsigned !== null) bytes = unsigned;
      log(`${platformName(p)}: removed Node's Authenticode signature (${unsigned === null ? "none found" : "done"})`);
    }
    fs.writeFileSync(tmp, bytes, { mode: 0o755 });
    log(`${platformName(p)}: injecting the plugin (${Math.round(blob.length / 1024)} kB) into Node ${p.nodeVersion}`);
    await inject(tmp, SEA_RESOURCE, blob, {
      sentinelFuse: SEA_FUSE,
      ...(p.os === "darwin" ? { machoSegmentName: "NODE_SEA" } : {}),
    });
    checkExecutable(p, tmp, blob);
    fs.rmSync(platformDir, { recursive: true, force: true });
    fs.mkdirSync(path.dirname(exe), { recursive: true });
    fs.renameSync(tmp, exe);
    fs.chmodSync(exe, 0o755);
    const mb = Math.round(fs.statSync(exe).size / 1048576);
    log(`${platformName(p)}: executable ${key} (${mb} MB; checked: format, fuse, blob)`);
    return exe;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
