/**
 * One public home (package.json release.home, provider/identity.ts) and every coordinate that follows from it: the
 * Go module path, the default download address, the Maven group, the repository; what each is while the home is
 * unset; the environment overrides the release rehearsal uses; and homes that are refused, naming the setting.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { coordinates, homeProblem, type ReleaseSetting } from "../../../provider/identity";

const ROOT = path.resolve(__dirname, "..", "..", "..");

test("a GitHub home gives the module, the GitHub releases, io.github.<owner> and the repository", () => {
  expect(coordinates({ home: "github.com/acme-labs/pulumi-pims" })).toEqual({
    home: "github.com/acme-labs/pulumi-pims",
    goModule: "github.com/acme-labs/pulumi-pims/sdk/go",
    pluginDownloadURL: "github://api.github.com/acme-labs/pulumi-pims",
    mavenGroup: "io.github.acme-labs",
    repository: "https://github.com/acme-labs/pulumi-pims",
  });
  expect(coordinates({ home: "gitlab.com/acme/pims" }).mavenGroup).toBe("io.gitlab.acme");
});

test("another host: its /releases/download/v${VERSION} address and its reversed domain as the group", () => {
  expect(coordinates({ home: "code.example.org/infra/pulumi-pims" })).toMatchObject({
    goModule: "code.example.org/infra/pulumi-pims/sdk/go",
    pluginDownloadURL: "https://code.example.org/infra/pulumi-pims/releases/download/v${VERSION}",
    mavenGroup: "org.example.code",
  });
});

test("the download address and the group can be set instead of derived", () => {
  const setting: ReleaseSetting = {
    home: "github.com/o/r",
    pluginDownloadURL: "https://downloads.example.com/pims",
    mavenGroup: "com.example.pims",
  };
  expect(coordinates(setting)).toMatchObject({
    goModule: "github.com/o/r/sdk/go",
    pluginDownloadURL: "https://downloads.example.com/pims",
    mavenGroup: "com.example.pims",
  });
});

test("unset: a module path Go never looks up, no download address, the unpublishable group, no repository", () => {
  expect(coordinates({ home: "" })).toEqual({
    home: undefined,
    goModule: "pulumi-pims/sdk/go",
    pluginDownloadURL: undefined,
    mavenGroup: "pulumipims",
    repository: undefined,
  });
});

test("PIMS_RELEASE_HOME and its companions override package.json for one run (the rehearsal's loopback home)", () => {
  const env = {
    PIMS_RELEASE_HOME: "127.0.0.1/rehearsal/pulumi-pims",
    PIMS_RELEASE_PLUGIN_DOWNLOAD_URL: "http://127.0.0.1:4000/v${VERSION}",
    PIMS_RELEASE_MAVEN_GROUP: "test.rehearsal",
  };
  expect(coordinates({ home: "github.com/o/r" }, env)).toMatchObject({
    home: "127.0.0.1/rehearsal/pulumi-pims",
    goModule: "127.0.0.1/rehearsal/pulumi-pims/sdk/go",
    pluginDownloadURL: "http://127.0.0.1:4000/v${VERSION}",
    mavenGroup: "test.rehearsal",
  });
});

test.each([
  ["https://github.com/o/r", /names no scheme/],
  ["github.com", /a host with a dot and a path/],
  ["GitHub.com/o/r", /lower-case/],
  ["github.com/o/r/", /a host with a dot and a path/],
  ["localhost/o/r", /a host with a dot/],
])("the home %s is refused, naming the setting and the rule", (home, rule) => {
  expect(homeProblem(home)).toMatch(rule);
  expect(() => coordinates({ home })).toThrow(
    /^package\.json release\.home is ".*", which is not a repository address/,
  );
});

test("package.json carries the three settings, and the committed Go module is the one they give", () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { release: ReleaseSetting };
  expect(Object.keys(pkg.release).sort()).toEqual(["home", "mavenGroup", "pluginDownloadURL"]);
  const goMod = fs.readFileSync(path.join(ROOT, "sdk", "go", "go.mod"), "utf8");
  expect(/^module (\S+)$/m.exec(goMod)?.[1]).toBe(coordinates(pkg.release).goModule);
});
