/**
 * `scripts/release/build-jars <dir>` (what `npm run release` calls to put the Java SDK into dist/) builds, with Maven
 * 3.9.9 and sdk/java/pom.xml, the files a Maven Central deployment takes: the jar (the classes, version.txt and
 * plugin.json, which the Java language host reads to tell the engine which plugin a program needs), the sources jar,
 * the javadoc jar and the pom. Listed with the JDK's `jar` tool. Uses the Java suite's cached local repository.
 *
 * Set-up: its own, because no engine and no service: it builds the jars with Maven and lists them.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { NODE_BIN, REPO_ROOT, tempDir } from "../../../scripts/engine";
import { JAVA_BASE_PACKAGE } from "../../../provider/plugin/schema";
import { run } from "../../kit/languages/index";
import { ensureMaven, JAVA_LOCAL_REPO } from "../../kit/languages/java";
import { packageVersion } from "../../../provider/plugin/tokens";

jest.setTimeout(15 * 60_000);

const version = packageVersion();
const pkgPath = `${JAVA_BASE_PACKAGE.replace(/\./g, "/")}/pims`;
/** Where Pulumi's Java host looks for plugin.json: com/<namespace>/<name>/ (sdk/java/pom.xml). */
const pluginPath = pkgPath.startsWith("com/") ? pkgPath : `com/${pkgPath}`;
let out: string;

/** The entries of a jar, as the JDK's `jar tf` lists them. */
function entries(jar: string): string[] {
  return execFileSync("jar", ["tf", path.join(out, jar)], { encoding: "utf8" })
    .split("\n")
    .filter(Boolean);
}

beforeAll(async () => {
  ensureMaven();
  out = tempDir("pims-java-jars-");
  fs.mkdirSync(JAVA_LOCAL_REPO, { recursive: true });
  await run("bash", [path.join(REPO_ROOT, "scripts", "release", "build-jars"), out], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      PATH: `${NODE_BIN}${path.delimiter}${process.env.PATH ?? ""}`,
      MAVEN_OPTS: `-Dmaven.repo.local=${JAVA_LOCAL_REPO}`,
    },
  });
}, 15 * 60_000);

afterAll(() => {
  if (out) fs.rmSync(out, { recursive: true, force: true });
});

test("the jar, sources jar, javadoc jar and pom, named <artifact>-<version>", () => {
  expect(fs.readdirSync(out).sort()).toEqual(
    [`pims-${version}-javadoc.jar`, `pims-${version}-sources.jar`, `pims-${version}.jar`, `pims-${version}.pom`].sort(),
  );
  expect(fs.readFileSync(path.join(out, `pims-${version}.pom`), "utf8")).toContain(`<version>${version}</version>`);
});

test("the jar holds the classes, version.txt and plugin.json naming the pims plugin at this version", () => {
  const jar = entries(`pims-${version}.jar`);
  for (const cls of ["ServiceAccount", "Project", "VolumeSize", "AppSecrets", "Provider", "PimsFunctions"]) {
    expect(jar).toContain(`${pkgPath}/${cls}.class`);
  }
  expect(jar).toContain(`${pkgPath}/version.txt`);
  const unpacked = tempDir("pims-java-jar-");
  execFileSync("jar", ["xf", path.join(out, `pims-${version}.jar`), `${pluginPath}/plugin.json`], { cwd: unpacked });
  const pluginJson = fs.readFileSync(path.join(unpacked, pluginPath, "plugin.json"), "utf8");
  fs.rmSync(unpacked, { recursive: true, force: true });
  expect(JSON.parse(pluginJson)).toEqual({ resource: true, name: "pims", version });
});

test("the sources jar holds the sources, the javadoc jar the documentation", () => {
  expect(entries(`pims-${version}-sources.jar`)).toContain(`${pkgPath}/ServiceAccount.java`);
  const javadoc = entries(`pims-${version}-javadoc.jar`);
  expect(javadoc).toContain("index.html");
  expect(javadoc).toContain(`${pkgPath}/ServiceAccountArgs.Builder.html`);
});
