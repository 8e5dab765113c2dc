/**
 * `npm run release`: builds everything a release publishes into dist/ (emptied first), after `npm run build`:
 *
 * - `pulumi-resource-pims-v<version>-<os>-<arch>.tar.gz` for each platform of ./platforms (`PIMS_RELEASE_PLATFORMS`
 *   picks some, e.g. `linux-amd64`): the self-contained plugin executable at the archive's root, LICENSE and
 *   THIRD-PARTY-LICENSES;
 * - `schema.json` (provider/schema.json, checked to be what the code says), the npm tarball, the Python wheel and
 *   sdist, the Java jars once sdk/java exists (`PIMS_RELEASE_PLUGIN_ONLY=1` leaves these four out);
 * - `pulumi-pims-v<version>-checksums.txt`: the SHA-256 of every other file (`sha256sum -c` reads it).
 *
 * The executable of this machine's platform is started once with an empty environment and must print its port.
 * `PIMS_RELEASE_DIST` writes elsewhere than dist/; `PIMS_RELEASE_CACHE_DIR` moves the cache (./bundle).
 * Progress goes to stderr; stdout gets the list of files written. CONTRIBUTING.md says how each file is published.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { errorText } from "../../provider/client/errors";
import { packageVersion, pluginDownloadURL } from "../../provider/identity";
import { thirdPartyLicenses, writeArchive, writeChecksums } from "./archive";
import { bundlePlugin } from "./bundle";
import { log } from "./common";
import { buildExecutable, nodeBinary } from "./executable";
import { javaPackages, npmPack, pythonPackages } from "./packages";
import { archiveName, executableName, hostPlatform, platformName, selectedPlatforms } from "./platforms";

const ROOT = path.resolve(__dirname, "..", "..");
/** Where `npm run release` writes: dist/ (gitignored), or `PIMS_RELEASE_DIST` (the reproducibility test). */
export const DIST = path.resolve(process.env.PIMS_RELEASE_DIST ?? path.join(ROOT, "dist"));
export const checksumsName = (version: string): string => `pulumi-pims-v${version}-checksums.txt`;

/**
 * The committed schema must carry package.json's version and release setting (`npm run schema` writes it; the SDKs
 * are generated from it, and tests/unit/plugin/schema.test.ts checks the rest).
 */
function checkSchema(): void {
  const file = path.join(ROOT, "provider", "schema.json");
  const committed = JSON.parse(fs.readFileSync(file, "utf8")) as { version?: string; pluginDownloadURL?: string };
  const wanted = { version: packageVersion(), pluginDownloadURL: pluginDownloadURL(process.env) };
  const got = { version: committed.version, pluginDownloadURL: committed.pluginDownloadURL };
  if (JSON.stringify(got) !== JSON.stringify(wanted))
    throw new Error(
      `provider/schema.json has ${JSON.stringify(got)}, package.json says ${JSON.stringify(wanted)}: ` +
        "run `npm run schema && npm run gen-sdk` and commit the result",
    );
}

/** Starts an executable with an empty environment; resolves when its first stdout line is a port number. */
export function smokeTest(exe: string, timeoutMs = 30_000): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(exe, [], { env: {}, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    const finish = (e?: Error, port?: number): void => {
      clearTimeout(timer);
      child.kill("SIGKILL");
      if (e) reject(e);
      else resolve(port ?? 0);
    };
    const timer = setTimeout(
      () => finish(new Error(`${exe} printed no port within ${timeoutMs} ms: ${err}`)),
      timeoutMs,
    );
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf("\n");
      if (nl < 0) return;
      const line = out.slice(0, nl).trim();
      if (/^\d+$/.test(line)) finish(undefined, Number(line));
      else finish(new Error(`${exe} printed ${JSON.stringify(line)} where a port was expected; stderr: ${err}`));
    });
    child.on("error", (e) => finish(e));
    child.on("exit", (code) => finish(new Error(`${exe} exited (${code}) before printing a port; stderr: ${err}`)));
  });
}

async function main(): Promise<void> {
  const started = Date.now();
  const version = packageVersion();
  checkSchema();
  const platforms = selectedPlatforms();
  log(`pulumi-pims ${version}: ${platforms.map(platformName).join(", ")} into ${path.relative(process.cwd(), DIST)}/`);
  fs.rmSync(DIST, { recursive: true, force: true });
  fs.mkdirSync(DIST, { recursive: true });

  const bundle = await bundlePlugin(ROOT);
  const bundled = thirdPartyLicenses(ROOT, bundle.packages);
  const host = hostPlatform();
  for (const p of platforms) {
    const exe = await buildExecutable(p, bundle.file);
    if (p === host)
      log(`${platformName(p)}: started with an empty environment, listening on port ${await smokeTest(exe)}`);
    const notices = path.join(DIST, `.notices-${platformName(p)}`);
    const node = fs.readFileSync(nodeBinary(p).license, "utf8").trim();
    fs.writeFileSync(notices, `Node.js ${p.nodeVersion}\n\n${node}\n\n${"=".repeat(80)}\n\n${bundled}`);
    try {
      writeArchive(path.join(DIST, archiveName(p, version)), {
        [executableName(p)]: { from: exe, executable: true },
        LICENSE: { from: path.join(ROOT, "LICENSE") },
        "THIRD-PARTY-LICENSES": { from: notices },
      });
    } finally {
      fs.rmSync(notices);
    }
    log(`${platformName(p)}: ${archiveName(p, version)}`);
  }

  fs.copyFileSync(path.join(ROOT, "provider", "schema.json"), path.join(DIST, "schema.json"));
  if (process.env.PIMS_RELEASE_PLUGIN_ONLY !== "1") {
    await npmPack(ROOT, DIST);
    await pythonPackages(ROOT, DIST);
    // PIMS_RELEASE_JAVA=0 leaves the jars out (the reproducibility test: Maven stamps build times into them).
    if (process.env.PIMS_RELEASE_JAVA !== "0") await javaPackages(ROOT, DIST);
  }
  const lines = writeChecksums(DIST, checksumsName(version));
  for (const line of lines) {
    const name = line.slice(66);
    process.stdout.write(`${name} (${(fs.statSync(path.join(DIST, name)).size / 1048576).toFixed(1)} MB)\n`);
  }
  log(`done in ${Math.round((Date.now() - started) / 1000)} s: ${lines.length} files and ${checksumsName(version)}`);
}

if (require.main === module)
  main().catch((e: unknown) => {
    log(`error: ${errorText(e)}`);
    process.exit(1);
  });
