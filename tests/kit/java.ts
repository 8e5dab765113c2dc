/**
 * What the Java suite needs on a machine, built once and cached under ~/.cache/pulumi-pims/ by the project's own
 * scripts: Pulumi's official Java language host beside the CLI (scripts/toolchain/ensure-language-java, built from the
 * Go module proxy), Maven 3.9.9 from Maven Central (scripts/toolchain/ensure-maven), and a Maven local repository of
 * the suite's own (`java-m2`), which keeps what Maven downloads (the Pulumi Java SDK, Maven's plugins) between runs and
 * receives the docs' `mvn install` of sdk/java, skipped when that repository already holds a build of the same sources.
 */
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { NODE_BIN, REPO_ROOT } from "../../scripts/engine";
import { filesUnder, JAVA_SDK_DIR, run } from "./sdk";

const CACHE = process.env.PIMS_CACHE_DIR ?? path.join(os.homedir(), ".cache", "pulumi-pims");

/** The suite's Maven local repository (MAVEN_OPTS=-Dmaven.repo.local=… for every mvn the suite and the host run). */
export const JAVA_LOCAL_REPO = path.join(CACHE, "java-m2");

function script(args: string[]): string {
  return execFileSync("bash", args, {
    cwd: REPO_ROOT,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, PATH: `${NODE_BIN}${path.delimiter}${process.env.PATH ?? ""}` },
  });
}

/** Puts pulumi-language-java beside the CLI in `engineDir` (built once: about 2 minutes on 2 cores). */
export function ensureJavaHost(engineDir: string): void {
  script([path.join(REPO_ROOT, "scripts", "toolchain", "ensure-language-java"), engineDir]);
  if (!fs.existsSync(path.join(engineDir, "pulumi-language-java"))) {
    throw new Error(`scripts/toolchain/ensure-language-java left no pulumi-language-java beside ${engineDir}`);
  }
}

/** The directory of Maven 3.9.9's `mvn` (fetched once from Maven Central). */
export function ensureMaven(): string {
  const dir =
    script([path.join(REPO_ROOT, "scripts", "toolchain", "ensure-maven")])
      .trim()
      .split("\n")
      .pop() ?? "";
  if (!fs.existsSync(path.join(dir, "mvn")))
    throw new Error(`scripts/toolchain/ensure-maven printed no Maven directory`);
  return dir;
}

/** A key of sdk/java's sources (target/ aside): the suite's local repository holds a build of exactly these. */
function sdkKey(): string {
  const hash = createHash("sha256");
  for (const f of filesUnder(JAVA_SDK_DIR).filter((f) => !f.startsWith("target/"))) {
    hash
      .update(f)
      .update("\0")
      .update(fs.readFileSync(path.join(JAVA_SDK_DIR, f)));
  }
  return hash.digest("hex").slice(0, 16);
}

/** The stamp file saying the suite's local repository holds the SDK built from the current sources. */
export function sdkInstalledStamp(): string {
  return path.join(JAVA_LOCAL_REPO, `.pims-sdk-${sdkKey()}`);
}

/**
 * Installs sdk/java into the suite's local repository with Maven 3.9.9 (from a copy: the build writes target/ beside
 * the sources), as docs/java.md's `mvn … install` does; skipped when that repository holds a build of these sources.
 * One install at a time (`flock`): suites running side by side share the repository.
 */
export async function installJavaSdk(mavenDir: string = ensureMaven()): Promise<void> {
  if (fs.existsSync(sdkInstalledStamp())) return;
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), "pims-java-sdk-"));
  try {
    fs.cpSync(JAVA_SDK_DIR, copy, { recursive: true, filter: (src) => path.basename(src) !== "target" });
    fs.mkdirSync(JAVA_LOCAL_REPO, { recursive: true });
    const install = `[ -f "$1" ] || { "$2" -q -f "$3" install && touch "$1"; }`;
    const args = [sdkInstalledStamp(), path.join(mavenDir, "mvn"), path.join(copy, "pom.xml")];
    await run("flock", [`${JAVA_LOCAL_REPO}.install.lock`, "bash", "-c", install, "install", ...args], {
      env: { ...process.env, MAVEN_OPTS: `-Dmaven.repo.local=${JAVA_LOCAL_REPO}` },
    });
  } finally {
    fs.rmSync(copy, { recursive: true, force: true });
  }
}
