/**
 * The Java runner, built once and cached under ~/.cache/pulumi-pims/ by the project's own scripts. Environment:
 * Pulumi's official Java language host beside the CLI (scripts/toolchain/ensure-language-java, built from the Go
 * module proxy), Maven 3.9.9 from Maven Central first on PATH (scripts/toolchain/ensure-maven) and a Maven local
 * repository of the suites' own (`java-m2`, {@link javaToolchain}), which keeps what Maven downloads (the Pulumi Java
 * SDK, Maven's plugins) between runs. SDK: from the repository (docs/java.md's `mvn install` of sdk/java into that
 * repository, {@link installJavaSdk}, skipped when it already holds a build of the same sources) or from a registry
 * (the page's published dependency through a user's Maven `<mirror>`, {@link mavenMirrorSettings},
 * {@link writeJavaPublishedProject}). Program: under its host, `pulumi up`.
 */
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { ensureEngine, NODE_BIN, REPO_ROOT } from "../../../scripts/engine";
import { readBlock, readSteps } from "./guide";
import { filesUnder, run, type Runner, type Toolchain } from "./index";

export const JAVA_SDK_DIR = path.join(REPO_ROOT, "sdk", "java");

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

/** Maven first on PATH; every `mvn` (the suite's and the host's) on the suites' local repository. */
export function javaToolchain(mavenDir: string = ensureMaven()): Toolchain {
  return { path: [mavenDir], env: { MAVEN_OPTS: `-Dmaven.repo.local=${JAVA_LOCAL_REPO}` } };
}

export const java: Runner = {
  language: "java",
  runs: "host",
  toolchain: () => {
    ensureJavaHost(ensureEngine());
    return javaToolchain();
  },
};

/**
 * Maven settings of a user whose organisation publishes to a repository of its own: Maven Central stays the default
 * repository, a profile names the pims repository, and a `<mirror>` sends it to `mirrorUrl` (the rehearsal's loopback
 * one). `localRepository` is the suite's cached one (the Pulumi Java SDK and Maven's plugins already there).
 */
export function mavenMirrorSettings(localRepository: string, mirrorUrl: string): string {
  return [
    "<settings>",
    `  <localRepository>${localRepository}</localRepository>`,
    "  <mirrors><mirror>",
    `    <id>pims-releases</id><mirrorOf>pims-releases</mirrorOf><url>${mirrorUrl}</url>`,
    "  </mirror></mirrors>",
    "  <profiles><profile><id>pims</id><repositories><repository>",
    "    <id>pims-releases</id><url>https://pims-releases.invalid/maven2</url>",
    "  </repository></repositories></profile></profiles>",
    "  <activeProfiles><activeProfile>pims</activeProfile></activeProfiles>",
    "</settings>",
    "",
  ].join("\n");
}

/**
 * docs/java.md's project written into `dir`, its pom's dependency the page's published block (`group` for the
 * placeholder `io.github.OWNER`, `version` for the page's, e.g. a version range as the page allows). Returns the page's
 * stack commands (not the clone's `mvn install` nor the `--file` install: those are the unreleased path) and its
 * "Rotating now" commands.
 */
export function writeJavaPublishedProject(
  dir: string,
  group: string,
  version: string,
): { commands: string[]; rotate: string[] } {
  const dependency = readBlock("java.md", "published:dependency")
    .replace("io.github.OWNER", group)
    .replace(/<version>[^<]*<\/version>/, () => `<version>${version}</version>`)
    .trim();
  if (!dependency.includes(`<groupId>${group}</groupId>`)) throw new Error(`docs/java.md's dependency: ${dependency}`);
  const steps = readSteps("java.md");
  for (const step of steps)
    if ("file" in step) {
      const text =
        step.file === "pom.xml"
          ? step.text.replace(/<dependency>\s*<groupId>pulumipims<\/groupId>[\s\S]*?<\/dependency>/, () =>
              dependency.replace(/\n/g, "\n    "),
            )
          : step.text;
      if (text.includes("pulumipims</groupId>"))
        throw new Error(`docs/java.md's ${step.file} kept the unreleased group`);
      fs.mkdirSync(path.dirname(path.join(dir, step.file)), { recursive: true });
      fs.writeFileSync(path.join(dir, step.file), text);
    }
  const commands = steps
    .flatMap((s) => ("commands" in s ? s.commands : []))
    .filter((c) => !c.startsWith("mvn ") && !c.includes("--file"));
  const rotate = readBlock("java.md", "guide:rotate")
    .split("\n")
    .filter((l) => l.trim() !== "");
  return { commands, rotate };
}
