/**
 * The package's identity and where it is published, shared by both hosts, the TypeScript SDK, the CLI and the scripts:
 * its name in type tokens (`pims`) and the one way a token is built, `pims:index:<Name>`, for resources
 * (`pims:index:Project`), functions (`pims:index:getApiKeys`) and object types (`pims:index:ApiKey`) alike; its
 * version, package.json's ({@link packageVersion}); and its public home with every published coordinate that follows
 * from it.
 *
 * One release setting, package.json's `release.home` (a repository address without scheme, e.g.
 * `github.com/<owner>/pulumi-pims`), names where the project lives; `npm run schema && npm run gen-sdk` then writes the
 * Go module path, the download address and the Maven group into the schema and the SDKs, and `npm run release:publish`
 * refuses to run while it is unset. `PIMS_RELEASE_HOME` (and `PIMS_RELEASE_PLUGIN_DOWNLOAD_URL`,
 * `PIMS_RELEASE_MAVEN_GROUP`) override the settings for one run: the release rehearsal
 * (tests/engine/release/rehearsal.test.ts) builds a release for a loopback home that way.
 */
import * as fs from "node:fs";
import * as path from "node:path";

/** The package name of the plugin's schema and type tokens. */
export const PACKAGE = "pims";

/** The token of a resource, function or object type of the plugin's schema. */
export const nativeToken = (name: string): string => `${PACKAGE}:index:${name}`;

/** The name in a token of the plugin (`pims:index:getApiKeys` → `getApiKeys`), or undefined. */
export function nameOfToken(token: string): string | undefined {
  const prefix = nativeToken("");
  return token.startsWith(prefix) && token.length > prefix.length ? token.slice(prefix.length) : undefined;
}

/** What the schema takes from package.json: the version and the release settings (`release.home`). */
interface PackageFacts {
  version: string;
  release?: ReleaseSetting;
}
/** package.json's facts, put in by the release bundle (scripts/release/bundle.ts): no package.json is beside it. */
declare const PIMS_BUNDLED_PACKAGE: PackageFacts | undefined;

/** package.json of this package, found from this file in the sources and in bin/ alike. */
export function packageFacts(): PackageFacts {
  if (typeof PIMS_BUNDLED_PACKAGE !== "undefined") return PIMS_BUNDLED_PACKAGE;
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const file = path.join(dir, "package.json");
    if (fs.existsSync(file)) {
      const pkg = JSON.parse(fs.readFileSync(file, "utf8")) as { name?: string } & Partial<PackageFacts>;
      if (pkg.name === "pulumi-pims" && typeof pkg.version === "string")
        return { version: pkg.version, release: pkg.release };
    }
    if (path.dirname(dir) === dir) throw new Error(`pulumi-pims: no package.json of pulumi-pims above ${__dirname}`);
  }
}

/** This package's version (package.json): the one reader of it, for the plugin, the CLI, the scripts and tests. */
export function packageVersion(): string {
  return packageFacts().version;
}

/** package.json's `release` object. */
export interface ReleaseSetting {
  /** Where the project lives: a repository address without scheme (`github.com/<owner>/<repo>`); empty = unset. */
  home?: string;
  /** Overrides the download address the home gives (any `https://` address, `github://…`, `${VERSION}` allowed). */
  pluginDownloadURL?: string;
  /** Overrides the Maven group the home gives (a namespace the publisher has verified at Maven Central). */
  mavenGroup?: string;
}

/** Every coordinate a release publishes under. */
export interface Coordinates {
  /** The home, or undefined while unset (nothing can be published then). */
  home: string | undefined;
  /** The Go module (sdk/go/go.mod), released by tags `sdk/go/vX.Y.Z`. */
  goModule: string;
  /** Where the engine downloads `pulumi-resource-pims-v<version>-<os>-<arch>.tar.gz`; undefined while unset. */
  pluginDownloadURL: string | undefined;
  /** The Java SDK's Maven group (sdk/java/pom.xml's groupId). */
  mavenGroup: string;
  /** The repository's web address (the schema's `repository`, the pom's url and scm); undefined while unset. */
  repository: string | undefined;
}

/** The Go module path while the home is unset: no dot in its first element, so Go never looks it up anywhere. */
export const UNSET_GO_MODULE = "pulumi-pims/sdk/go";
/** The Maven group while the home is unset (no namespace anyone can verify: nothing is published under it). */
export const UNSET_MAVEN_GROUP = "pulumipims";

/** Forges whose users Maven Central verifies by account: `github.com/<owner>` gives the group `io.github.<owner>`. */
const FORGE_GROUPS: Record<string, string> = {
  "github.com": "io.github",
  "gitlab.com": "io.gitlab",
  "bitbucket.org": "io.bitbucket",
  "gitee.com": "com.gitee",
};

/**
 * A home's form: a host with a dot and at least one path element, lower-case letters, digits and `.-_~/` (what a Go
 * module path accepts), no scheme and no trailing slash. Returns the reason it is not one, or undefined.
 */
export function homeProblem(home: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(home)) return "it names no scheme (write github.com/<owner>/<repo>)";
  if (!/^[a-z0-9][a-z0-9.-]*\.[a-z0-9.-]+(\/[a-z0-9._~-]+)+$/.test(home))
    return "it is a host with a dot and a path, in lower-case letters, digits and . - _ ~ (a Go module path)";
  return undefined;
}

/** Derives every coordinate from the setting; `env` overrides it (PIMS_RELEASE_HOME and the two others). */
export function coordinates(setting: ReleaseSetting = {}, env: NodeJS.ProcessEnv = {}): Coordinates {
  const home = (env.PIMS_RELEASE_HOME ?? setting.home ?? "").trim() || undefined;
  const downloadOverride = (env.PIMS_RELEASE_PLUGIN_DOWNLOAD_URL ?? setting.pluginDownloadURL ?? "").trim();
  const groupOverride = (env.PIMS_RELEASE_MAVEN_GROUP ?? setting.mavenGroup ?? "").trim();
  if (home === undefined)
    return {
      home,
      goModule: UNSET_GO_MODULE,
      pluginDownloadURL: downloadOverride || undefined,
      mavenGroup: groupOverride || UNSET_MAVEN_GROUP,
      repository: undefined,
    };
  const problem = homeProblem(home);
  if (problem !== undefined)
    throw new Error(`package.json release.home is "${home}", which is not a repository address: ${problem}`);
  const [host, owner, repo] = home.split("/");
  return {
    home,
    goModule: `${home}/sdk/go`,
    pluginDownloadURL:
      downloadOverride ||
      (host === "github.com" && repo !== undefined
        ? `github://api.github.com/${owner}/${repo}`
        : `https://${home}/releases/download/v\${VERSION}`),
    mavenGroup: groupOverride || mavenGroupOf(host, owner),
    repository: `https://${home}`,
  };
}

/** The Maven group a home gives: `io.github.<owner>` and the like for a forge, else the host's reversed domain. */
function mavenGroupOf(host: string, owner: string): string {
  const forge = FORGE_GROUPS[host];
  const javaName = (s: string): string => s.replace(/[^a-z0-9_.-]/g, "_");
  if (forge !== undefined) return `${forge}.${javaName(owner)}`;
  return host.split(".").reverse().map(javaName).join(".");
}

/**
 * The published coordinates: package.json's `release` settings, which `PIMS_RELEASE_HOME` and its two companions in
 * `env` override for one run (the release rehearsal; the scripts pass their environment, the plugin reads none: it
 * serves the committed schema).
 */
export function releaseCoordinates(env: NodeJS.ProcessEnv = {}): Coordinates {
  return coordinates(packageFacts().release, env);
}

/**
 * Where the engine downloads the plugin's archives from (the schema's `pluginDownloadURL`, carried by the SDKs): the
 * home's releases, or `release.pluginDownloadURL`; undefined while the home is unset (users install an archive with
 * `pulumi plugin install resource pims <version> --file <archive>`).
 */
export function pluginDownloadURL(env: NodeJS.ProcessEnv = {}): string | undefined {
  return releaseCoordinates(env).pluginDownloadURL;
}
