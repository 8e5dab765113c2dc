/**
 * The language pages name the release a user installs (`pulumi plugin install resource pims <version> --file
 * pulumi-resource-pims-v<version>-...`, the wheel `pulumi_pims-<version>-...`, YAML's `version:` option, the pims
 * dependency of a pom.xml): every such version must be the package's own, so a version bump that forgets a page fails
 * here, before the engine tests that follow the pages. The example projects too (examples/<scenario>/<language>: the
 * YAML `version:` option, the pom's and go.mod's SDK, the npm dependency).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { packageVersion } from "../../provider/identity";

const ROOT = path.join(__dirname, "..", "..");
const VERSION = packageVersion();
const PAGES = ["docs/yaml.md", "docs/python.md", "docs/go.md", "docs/java.md", "docs/installation-configuration.md"];
const NAMED = [
  /resource pims (\d+\.\d+\.\d+)/g,
  /pulumi-resource-pims-v(\d+\.\d+\.\d+)-/g,
  /pulumi_pims-(\d+\.\d+\.\d+)-/g,
  /pulumi_pims==(\d+\.\d+\.\d+)/g,
  /^\s*version: (\d+\.\d+\.\d+)/gm,
  /<artifactId>pims<\/artifactId>\s*<version>(\d+\.\d+\.\d+)</g, // the Java SDK in a pom.xml
  /sdk\/go v(\d+\.\d+\.\d+)$/gm, // the Go SDK in a go.mod
  /"pulumi-pims": "\^(\d+\.\d+\.\d+)"/g, // the npm package in a package.json
];
const EXAMPLE_FILES = ["yaml/Pulumi.yaml", "java/pom.xml", "go/go.mod", "typescript/package.json"];
const EXAMPLES = fs
  .readdirSync(path.join(ROOT, "examples"))
  .flatMap((scenario) => EXAMPLE_FILES.map((f) => path.join("examples", scenario, f)))
  // examples/esc-rotation is an ESC environment, no Pulumi program: it names no release.
  .filter((f) => fs.existsSync(path.join(ROOT, f)));

test.each([...PAGES, ...EXAMPLES])("%s names the package's version wherever it names a release", (page) => {
  const text = fs.readFileSync(path.join(ROOT, page), "utf8");
  const found = NAMED.flatMap((re) => [...text.matchAll(re)].map((m) => m[1]));
  expect(found.length).toBeGreaterThan(0);
  expect([...new Set(found)]).toEqual([VERSION]);
});
