/**
 * The language pages lead with the published path: each page's Install section starts with what users do once a
 * release is out (a `published:` block: pip from PyPI, go get of the home's module, the Maven dependency of the home's
 * group, YAML's `version` and `pluginDownloadURL`), the coordinates in it are the ones the home gives
 * (provider/identity.ts, with the placeholder home `github.com/OWNER/pulumi-pims`), and the clone and `--file` steps
 * come only after it, in the section for unreleased builds. The release rehearsal
 * (tests/engine/release/rehearsal.test.ts) runs the Python and YAML blocks.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { coordinates, packageVersion } from "../../provider/identity";

const ROOT = path.resolve(__dirname, "..", "..");
const VERSION = packageVersion();
const page = (name: string): string => fs.readFileSync(path.join(ROOT, "docs", name), "utf8");
/** What the placeholder home gives (upper-case OWNER is not a home: derived for `owner`, then written back). */
const placeholder = (() => {
  const c = coordinates({ home: "github.com/owner/pulumi-pims" });
  const back = (s: string | undefined): string => (s ?? "").replace(/owner/g, "OWNER");
  return { goModule: back(c.goModule), mavenGroup: back(c.mavenGroup), download: back(c.pluginDownloadURL) };
})();

/** The Install section's text, from its heading to the next heading of the same level. */
function installSection(text: string): string {
  const start = text.indexOf("\n## Install\n");
  expect(start).toBeGreaterThan(0);
  const end = text.indexOf("\n## ", start + 5);
  return text.slice(start, end < 0 ? undefined : end);
}

test.each([
  ["python.md", "published:shell", `venv/bin/pip install pulumi_pims==${VERSION}`],
  ["go.md", "published:shell", `go get ${placeholder.goModule}/pims@v${VERSION}`],
  ["java.md", "published:dependency", `<groupId>${placeholder.mavenGroup}</groupId>`],
  ["yaml.md", "published:file Pulumi.yaml", `pluginDownloadURL: ${placeholder.download}`],
])("%s: the Install section's first block is the published path", (name, marker, line) => {
  const text = page(name);
  const install = installSection(text);
  const firstBlock = install.indexOf("```");
  expect(install.lastIndexOf("<!--", firstBlock)).toBe(install.indexOf(`<!-- ${marker} -->`));
  expect(install.slice(firstBlock)).toContain(line);
  // The clone and --file steps come after the published path, under the unreleased builds' heading or paragraph.
  const unreleased = text.indexOf("Before a release is published, or from a clone");
  expect(unreleased).toBeGreaterThan(text.indexOf(`<!-- ${marker} -->`));
  for (const step of ["--file pulumi-resource-pims", "../pulumi-pims"])
    if (text.includes(step)) expect(text.indexOf(step)).toBeGreaterThan(unreleased);
});

test("java.md: the published dependency is the group, artifact and version the home and package.json give", () => {
  const block = /<!-- published:dependency -->\s*```xml\n([\s\S]*?)```/.exec(page("java.md"))?.[1] ?? "";
  expect(block).toContain(`<groupId>${placeholder.mavenGroup}</groupId>`);
  expect(block).toContain("<artifactId>pims</artifactId>");
  expect(block).toContain(`<version>${VERSION}</version>`);
});

test("the README's 'Which one do I use' and the installation table name the published path of each language", () => {
  const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
  const which = readme.slice(readme.indexOf("### Which one do I use"), readme.indexOf("## Resources"));
  const table = page("installation-configuration.md");
  for (const text of [which, table]) {
    expect(text).toContain(`pip install pulumi_pims==${VERSION}`);
    expect(text).toContain(`go get ${placeholder.goModule}/pims@v${VERSION}`);
    expect(text).toContain(`${placeholder.mavenGroup}:pims:${VERSION}`);
  }
  expect(which.indexOf("--file")).toBeGreaterThan(which.indexOf("Before a release is published, or from a clone"));
});
