/**
 * sdk/java/pom.xml is hand-written beside the generated Java SDK: what it names must agree with the schema and the
 * package, or the jar Maven builds says one thing and the code another. Its groupId is the home's Maven group, its
 * url and scm the home's repository (provider/identity.ts; scripts/generate/gen-sdk/run writes them with
 * scripts/release/pom.ts); the package path of the version.txt / plugin.json resources follows JAVA_BASE_PACKAGE; its
 * version is package.json's; it builds against the Pulumi Java SDK the schema names; it attaches the sources and
 * javadoc jars and carries what Maven Central requires of a pom (name, description, url, licence, developers, scm).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { packageVersion, releaseCoordinates } from "../../provider/identity";
import { JAVA_BASE_PACKAGE, JAVA_PULUMI_SDK_VERSION } from "../../provider/plugin/schema";
import { patchPom } from "../../scripts/release/pom";

const ROOT = path.resolve(__dirname, "..", "..");
const pom = fs.readFileSync(path.join(ROOT, "sdk", "java", "pom.xml"), "utf8");
const pkg = { version: packageVersion() };
/** The committed schema (tests/unit/plugin/schema.test.ts checks it against the code). */
const schema = JSON.parse(fs.readFileSync(path.join(ROOT, "provider", "schema.json"), "utf8")) as {
  pluginDownloadURL?: string;
  language: Record<string, { dependencies?: Record<string, string> }>;
};

/** The text of the first `<tag>` at two spaces of indentation: the project's own element, not a dependency's. */
function own(tag: string): string | undefined {
  return new RegExp(`^  <${tag}>([^<]*)</${tag}>$`, "m").exec(pom)?.[1];
}

test("groupId, artifactId and version: the home's Maven group, the package name and package.json's version", () => {
  const coords = releaseCoordinates({});
  expect(own("groupId")).toBe(coords.mavenGroup);
  expect(own("url")).toBe(coords.repository ?? "https://www.npmjs.com/package/pulumi-pims");
  expect(own("artifactId")).toBe("pims");
  expect(own("version")).toBe(pkg.version);
  expect(JAVA_BASE_PACKAGE.startsWith("com.pulumi")).toBe(false);
  // plugin.json under com/: the only place Pulumi's Java host looks (com/<namespace>/<name>/plugin.json).
  const base = JAVA_BASE_PACKAGE.replace(/\./g, "/");
  const pluginDir = base.startsWith("com/") ? `${base}/pims` : `com/${base}/pims`;
  expect(pom).toContain(`<pulumi.plugin.resources>${pluginDir}</pulumi.plugin.resources>`);
});

test("the generated version.txt carries the same version, under the same package path", () => {
  const res = path.join(ROOT, "sdk", "java", "src", "main", "resources", ...JAVA_BASE_PACKAGE.split("."), "pims");
  expect(fs.readFileSync(path.join(res, "version.txt"), "utf8").trim()).toBe(pkg.version);
});

test("it builds against the Pulumi Java SDK the schema names, and attaches sources and javadoc jars", () => {
  expect(schema.language.java.dependencies).toEqual({ "com.pulumi:pulumi": JAVA_PULUMI_SDK_VERSION });
  expect(pom).toMatch(
    new RegExp(`<artifactId>pulumi</artifactId>\\s*<version>${JAVA_PULUMI_SDK_VERSION.replace(/\./g, "\\.")}<`),
  );
  expect(pom).toContain("<artifactId>maven-source-plugin</artifactId>");
  expect(pom).toContain("<artifactId>maven-javadoc-plugin</artifactId>");
  for (const tag of ["name", "description", "url"]) expect(own(tag)).toBeTruthy();
  for (const tag of ["licenses", "developers", "scm"]) expect(pom).toContain(`  <${tag}>`);
});

test("plugin.json names the pims plugin at the pom's version, and where to download it when the schema says", () => {
  const json = /<echo file="[^"]*\/plugin\.json"[^>]*>([\s\S]*?)<\/echo>/.exec(pom)?.[1] ?? "";
  // scripts/generate/gen-sdk/run writes `server` from the schema, XML-escaped in the pom.
  const text = json.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
  const written = JSON.parse(text.replace("${project.version}", pkg.version)) as Record<string, unknown>;
  const server = schema.pluginDownloadURL;
  expect(written).toEqual({ resource: true, name: "pims", version: pkg.version, ...(server ? { server } : {}) });
});

test("gen-sdk's pom writer: a home gives the group, url, scm and server; unset, the npm page and no server", () => {
  const facts = {
    groupId: "io.github.o",
    version: "9.8.7",
    repository: "https://github.com/o/r",
    server: "github://api.github.com/o/r",
  };
  const set = patchPom(pom, facts);
  expect(/^ {2}<groupId>(.*)<\/groupId>$/m.exec(set)?.[1]).toBe("io.github.o");
  expect(/^ {2}<version>(.*)<\/version>$/m.exec(set)?.[1]).toBe("9.8.7");
  expect(set).toMatch(
    /<scm>\s*<connection>scm:git:https:\/\/github\.com\/o\/r\.git<\/connection>\s*<url>https:\/\/github\.com\/o\/r<\/url>/,
  );
  expect(set).toContain('"server": "github://api.github.com/o/r"');
  const unset = patchPom(set, { groupId: "pulumipims", version: "9.8.7", repository: undefined, server: undefined });
  expect(unset).not.toContain("github");
  expect(unset).toContain("<url>https://www.npmjs.com/package/pulumi-pims</url>");
  // a `$` in an address is written as it is (no replacement pattern)
  expect(patchPom(pom, { ...facts, server: "https://h.example/r/v${VERSION}" })).toContain("/r/v${VERSION}");
  expect(() => patchPom("<project/>", facts)).toThrow(/sdk\/java\/pom\.xml has no groupId/);
});
