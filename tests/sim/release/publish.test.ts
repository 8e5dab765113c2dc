/**
 * `npm run release:publish` (scripts/release/publish/) against real servers on loopback
 * (tests/kit/release/registries.ts): the download address and a Maven repository (HTTP PUT/GET), a git remote with a Go
 * module proxy serving its tags, and a throwaway GPG key. A small dist/ made here stands for `npm run release`'s (the
 * whole release and the npm and PyPI registries are the rehearsal's, tests/engine/release/rehearsal.test.ts). What each
 * server holds is checked after each run: a dry run changes nothing; `--yes` publishes every file with signatures and
 * checksums and the tag; a second run publishes nothing and says so; a server holding different bytes stops the run
 * before anything is published, naming the file; no home or no key is refused, naming the setting.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { writeChecksums } from "../../../scripts/release/archive";
import { packageVersion } from "../../../provider/identity";
import { releaseSteps, parseArgs, type Options } from "../../../scripts/release/publish/main";
import { runPlan } from "../../../scripts/release/publish/plan";
import { npmStep } from "../../../scripts/release/publish/registries";
import {
  makeGpgKey,
  startFileServer,
  startGitHubApi,
  startGoProxy,
  stopGpgAgent,
  type Served,
} from "../../kit/release/registries";

const VERSION = packageVersion();
const HOME = "127.0.0.1/rehearsal/pulumi-pims";
const MODULE = `${HOME}/sdk/go`;
const GROUP = "test.rehearsal";
const ARCHIVE = `pulumi-resource-pims-v${VERSION}-linux-amd64.tar.gz`;
const CHECKSUMS = `pulumi-pims-v${VERSION}-checksums.txt`;
const JAVA = [".pom", ".jar", "-sources.jar", "-javadoc.jar"].map((s) => `pims-${VERSION}${s}`);

let scratch: string;
let dist: string;
let checkout: string;
let remote: string;
let gpgHome: string;
let env: NodeJS.ProcessEnv;
let download: Served;
let maven: Served;
let goProxy: Served;
let lines: string[];

const git = (cwd: string, ...args: string[]): string =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t.invalid", ...args], { cwd, encoding: "utf8" }).trim();
const say = (l: string): number => lines.push(l);
const run = (argv: string[], e: NodeJS.ProcessEnv = env) => {
  lines = [];
  const o: Options = { ...parseArgs(argv), dist };
  return runPlan(releaseSteps(o, e, checkout), o.yes, say);
};
const ONLY = ["--only", "download,maven,go"];

beforeAll(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "pims-publish-"));
  const key = makeGpgKey(scratch);
  gpgHome = key.GNUPGHOME;
  download = await startFileServer(path.join(scratch, "download"));
  maven = await startFileServer(path.join(scratch, "maven"), "deployer:s3cret");
  // The checkout the release is built from, and its remote (a bare repository) that the Go proxy reads tags from.
  checkout = path.join(scratch, "checkout");
  remote = path.join(scratch, "remote.git");
  fs.mkdirSync(path.join(checkout, "sdk", "go", "pims"), { recursive: true });
  fs.writeFileSync(path.join(checkout, "sdk", "go", "go.mod"), `module ${MODULE}\n\ngo 1.21\n`);
  fs.writeFileSync(path.join(checkout, "sdk", "go", "pims", "doc.go"), "// Package pims.\npackage pims\n");
  git(checkout, "init", "-q");
  git(checkout, "add", "-A");
  git(checkout, "commit", "-qm", "release");
  git(scratch, "init", "-q", "--bare", remote);
  goProxy = await startGoProxy(remote, MODULE, "sdk/go");
  // dist/ as `npm run release` writes it, for this home.
  dist = path.join(scratch, "dist");
  fs.mkdirSync(dist);
  const address = `${download.url}/releases/v\${VERSION}`;
  fs.writeFileSync(path.join(dist, ARCHIVE), Buffer.from("an archive's bytes"));
  fs.writeFileSync(path.join(dist, "schema.json"), JSON.stringify({ name: "pims", pluginDownloadURL: address }));
  for (const f of JAVA) fs.writeFileSync(path.join(dist, f), `${f}'s bytes`);
  fs.writeFileSync(
    path.join(dist, JAVA[0]),
    "<project>\n  <modelVersion>4.0.0</modelVersion>\n" +
      `  <groupId>${GROUP}</groupId>\n  <artifactId>pims</artifactId>\n  <version>${VERSION}</version>\n</project>\n`,
  );
  writeChecksums(dist, CHECKSUMS);
  env = {
    ...process.env,
    PIMS_RELEASE_HOME: HOME,
    PIMS_RELEASE_PLUGIN_DOWNLOAD_URL: address,
    PIMS_RELEASE_MAVEN_GROUP: GROUP,
    PIMS_MAVEN_REPOSITORY_URL: `${maven.url}/maven2`,
    PIMS_MAVEN_USERNAME: "deployer",
    PIMS_MAVEN_PASSWORD: "s3cret",
    GNUPGHOME: gpgHome,
    PIMS_GPG_KEY_ID: key.keyId,
    PIMS_GIT_REMOTE: remote,
    PIMS_GO_PROXY_ATTEMPTS: "1",
    GOPROXY: goProxy.url,
    GONOSUMDB: "127.0.0.1",
    GOFLAGS: "",
    // No git identity, as on a new machine or CI runner: the Go tag must still be made (scripts/release/publish/go.ts).
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_CONFIG_NOSYSTEM: "1",
  };
});

afterAll(async () => {
  await Promise.all([download, maven, goProxy].filter(Boolean).map((s) => s.stop()));
  if (gpgHome !== undefined) stopGpgAgent(gpgHome);
  fs.rmSync(scratch, { recursive: true, force: true });
});

const served = (s: Served, rel: string): Buffer =>
  fs.readFileSync(path.join(scratch, s === download ? "download" : "maven", rel));
const mavenDir = `maven2/test/rehearsal/pims/${VERSION}`;

test("nothing is published without a home, or without a key unless it is a rehearsal: each names its setting", () => {
  const noHome = { ...env, PIMS_RELEASE_HOME: "" };
  expect(() => releaseSteps(parseArgs(["--dist", dist]), noHome, checkout)).toThrow(/release\.home is not set/);
  const noKey = { ...env, PIMS_GPG_KEY_ID: "" };
  expect(() => releaseSteps(parseArgs(["--dist", dist]), noKey, checkout)).toThrow(
    /no signing key: set PIMS_GPG_KEY_ID/,
  );
  expect(
    releaseSteps(parseArgs(["--dist", dist, "--rehearsal", ...ONLY]), noKey, checkout).map((s) => s.name),
  ).not.toContain(`${CHECKSUMS}.asc`);
  expect(() => parseArgs(["--only", "pypi,cargo"])).toThrow(
    /--only names cargo; the targets are download, npm, pypi, maven, go/,
  );
});

test("a dry run looks at every registry and changes nothing", async () => {
  const outcome = await run([...ONLY, "--rehearsal"]);
  expect(outcome.published).toEqual([]);
  // The download address's 7 files and the checksums' signature, Maven's one deploy, the Go tag.
  const planned = lines.filter((l) => l.startsWith("to publish"));
  expect(planned).toHaveLength(10);
  expect(planned).toContainEqual(expect.stringMatching(/ Maven: pims-\S+ by mvn deploy \(pom, jar, .*, signed\) -> /));
  expect(lines.at(-1)).toMatch(/^dry run: \d+ of \d+ to publish; run again with --yes/);
  expect([...download.puts, ...maven.puts]).toEqual([]);
  expect(git(scratch, "--git-dir", remote, "tag", "--list")).toBe("");
});

test("Maven refused by the repository (wrong password): its 401 named, no password in it, nothing put", async () => {
  // Unsigned (a rehearsal without a key): Maven's deploy:deploy-file, the path the signed runs below do not take.
  const wrong = { ...env, PIMS_MAVEN_PASSWORD: "not-the-password", PIMS_GPG_KEY_ID: "" };
  const failed = run(["--only", "maven", "--yes", "--rehearsal"], wrong).catch((e: Error) => e.message);
  const said = await failed;
  expect(said).toMatch(/mvn deploy of pims-\S+ to http:\/\/127\.0\.0\.1:\d+\/maven2 failed:[\s\S]*401/);
  expect(said).not.toContain("not-the-password");
  expect(maven.puts).toEqual([]);
});

test("under `npm run -s` (npm's loglevel silent) a version not on the registry is to publish", async () => {
  // npm then writes its E404 to stdout, not stderr; the loopback file server has no pulumi-pims (GET answers 404).
  const registry = { ...env, NPM_CONFIG_REGISTRY: `${download.url}/npm/`, npm_config_loglevel: "silent" };
  await expect(npmStep(dist, VERSION, registry).check()).resolves.toEqual({ state: "missing" });
});

test("--yes publishes every file, signed and with checksums, and the Go tag the proxy then serves", async () => {
  const outcome = await run([...ONLY, "--yes", "--rehearsal"]);
  expect(lines.at(-1)).toMatch(/^published \d+ of \d+ \(0 were already there\)$/);
  const at = `releases/v${VERSION}`;
  for (const f of [ARCHIVE, "schema.json", ...JAVA, CHECKSUMS])
    expect(served(download, `${at}/${f}`).equals(fs.readFileSync(path.join(dist, f)))).toBe(true);
  // The signed checksums verify as the docs tell users to (gpg --verify), and sha256sum -c passes on the download.
  const got = path.join(scratch, "got");
  fs.cpSync(path.join(scratch, "download", at), got, { recursive: true });
  execFileSync("gpg", ["--batch", "--verify", `${CHECKSUMS}.asc`, CHECKSUMS], { cwd: got, env, stdio: "pipe" });
  execFileSync("sha256sum", ["-c", CHECKSUMS], { cwd: got, stdio: "pipe" });
  // One byte changed: sha256sum -c fails, naming the file.
  const archive = fs.readFileSync(path.join(got, ARCHIVE));
  archive[0] ^= 1;
  fs.writeFileSync(path.join(got, ARCHIVE), archive);
  expect(() => execFileSync("sha256sum", ["-c", CHECKSUMS], { cwd: got, stdio: "pipe" })).toThrow();
  // Maven, by Maven's own deploy: each file, its signature, and the md5 and sha1 of both; the credentials were sent
  // (the server asks); maven-metadata.xml lists the version, with its checksums (what a version range reads).
  const metadata = served(maven, "maven2/test/rehearsal/pims/maven-metadata.xml");
  expect(metadata.toString()).toMatch(new RegExp(`<versions>\\s*<version>${VERSION.replace(/\./g, "\\.")}</version>`));
  for (const algo of ["sha1", "md5"])
    expect(served(maven, `maven2/test/rehearsal/pims/maven-metadata.xml.${algo}`).toString()).toBe(
      createHash(algo).update(metadata).digest("hex"),
    );
  for (const f of JAVA) {
    const bytes = served(maven, `${mavenDir}/${f}`);
    expect(bytes.equals(fs.readFileSync(path.join(dist, f)))).toBe(true);
    expect(served(maven, `${mavenDir}/${f}.sha1`).toString()).toBe(createHash("sha1").update(bytes).digest("hex"));
    expect(served(maven, `${mavenDir}/${f}.md5`).toString()).toBe(createHash("md5").update(bytes).digest("hex"));
    const asc = served(maven, `${mavenDir}/${f}.asc`);
    // Maven 3.9 writes no checksums of a signature (its resolver's default; Maven Central asks for none).
    expect(fs.existsSync(path.join(scratch, "maven", mavenDir, `${f}.asc.sha1`))).toBe(false);
    fs.writeFileSync(path.join(got, `${f}.asc`), asc);
    execFileSync("gpg", ["--batch", "--verify", `${f}.asc`, path.join(dist, f)], { cwd: got, env, stdio: "pipe" });
  }
  // Go: an annotated tag on the checkout's commit, on the remote.
  const head = git(checkout, "rev-parse", "HEAD");
  expect(git(scratch, "--git-dir", remote, "rev-parse", `sdk/go/v${VERSION}^{commit}`)).toBe(head);
  expect(git(scratch, "--git-dir", remote, "cat-file", "-t", `sdk/go/v${VERSION}`)).toBe("tag");
  // Without an identity (git refuses to guess one on this machine), the tag names the release as its tagger.
  let identity = true;
  try {
    execFileSync("git", ["var", "GIT_COMMITTER_IDENT"], { cwd: checkout, env, stdio: "ignore" });
  } catch {
    identity = false;
  }
  const tagger = git(
    scratch,
    "--git-dir",
    remote,
    "for-each-ref",
    "--format=%(taggername)",
    `refs/tags/sdk/go/v${VERSION}`,
  );
  if (!identity) expect(tagger).toBe("pulumi-pims release");
  expect(outcome.published).toContain(`Go: tag sdk/go/v${VERSION}`);
});

test("a second run publishes nothing and says so", async () => {
  const before = [...download.puts, ...maven.puts];
  const outcome = await run([...ONLY, "--yes", "--rehearsal"]);
  expect(outcome.published).toEqual([]);
  expect(lines.at(-1)).toMatch(/^nothing to publish: all \d+ files and tags are already there with the same bytes$/);
  expect([...download.puts, ...maven.puts]).toEqual(before);
});

test("a registry holding other bytes stops the run before anything is published, naming the file", async () => {
  const at = path.join(scratch, "download", `releases/v${VERSION}`);
  fs.writeFileSync(path.join(at, ARCHIVE), "other bytes");
  fs.rmSync(path.join(at, "schema.json")); // missing: would be published, but the run stops first
  fs.writeFileSync(path.join(scratch, "maven", mavenDir, `${JAVA[1]}.asc`), "-----BEGIN PGP SIGNATURE-----\nnot one\n");
  const puts = download.puts.length;
  await expect(run([...ONLY, "--yes", "--rehearsal"])).rejects.toThrow(
    new RegExp(
      `download address: ${ARCHIVE.replace(/\./g, "\\.")} at \\S+ differs from dist/: ${ARCHIVE.replace(/\./g, "\\.")} ` +
        "there has SHA-256 [0-9a-f]{64}, dist/ has [0-9a-f]{64}\\n" +
        `Maven: pims-${VERSION.replace(/\./g, "\\.")} by mvn deploy [^\\n]* differs from dist/: ` +
        `${JAVA[1].replace(/\./g, "\\.")}\\.asc there is not a valid signature[\\s\\S]*nothing was published`,
    ),
  );
  expect(download.puts.length).toBe(puts);
  expect(fs.existsSync(path.join(at, "schema.json"))).toBe(false);
});

test("a remote tag on another commit stops the run; a stale dist/ or SDK is refused", async () => {
  fs.writeFileSync(path.join(checkout, "sdk", "go", "pims", "doc.go"), "// Package pims, changed.\npackage pims\n");
  expect(() => releaseSteps(parseArgs(["--dist", dist, "--rehearsal"]), env, checkout)).toThrow(
    /sdk\/go has changes that are not committed/,
  );
  git(checkout, "commit", "-qam", "another");
  const steps = releaseSteps(parseArgs(["--dist", dist, "--only", "go"]), env, checkout);
  await expect(steps[0].check()).resolves.toMatchObject({
    state: "differs",
    why: expect.stringMatching(/tag sdk\/go\/v/),
  });
  const other = { ...env, PIMS_RELEASE_HOME: "127.0.0.1/elsewhere/pulumi-pims" };
  expect(() => releaseSteps(parseArgs(["--dist", dist, "--only", "go"]), other, checkout)).toThrow(
    /declares the module 127\.0\.0\.1\/rehearsal\/pulumi-pims\/sdk\/go, the home gives 127\.0\.0\.1\/elsewhere/,
  );
  const otherAddress = { ...env, PIMS_RELEASE_PLUGIN_DOWNLOAD_URL: "https://example.invalid/x" };
  expect(() => releaseSteps(parseArgs(["--dist", dist]), otherAddress, checkout)).toThrow(
    /dist\/ was built for another home/,
  );
});

describe("the download address as a GitHub release (github://api.github.com/<owner>/<repo>), on a loopback API", () => {
  const TOKEN = "ghs_rehearsal-token";
  let github: Awaited<ReturnType<typeof startGitHubApi>>;
  let ghEnv: NodeJS.ProcessEnv;
  let ghDist: string;
  beforeAll(async () => {
    github = await startGitHubApi("acme/pulumi-pims", TOKEN);
    // The same release, built for the home github.com/acme/pulumi-pims (whose download address is its releases).
    ghDist = path.join(scratch, "dist-github");
    fs.cpSync(dist, ghDist, { recursive: true, filter: (f) => !f.endsWith(".asc") }); // as `npm run release` wrote it
    const address = "github://api.github.com/acme/pulumi-pims";
    fs.writeFileSync(path.join(ghDist, "schema.json"), JSON.stringify({ name: "pims", pluginDownloadURL: address }));
    writeChecksums(ghDist, CHECKSUMS);
    ghEnv = {
      ...env,
      PIMS_RELEASE_HOME: "github.com/acme/pulumi-pims",
      PIMS_RELEASE_PLUGIN_DOWNLOAD_URL: "",
      GITHUB_API_URL: github.url,
      GITHUB_TOKEN: TOKEN,
    };
  });
  afterAll(() => github?.stop());
  const ghRun = (e: NodeJS.ProcessEnv = ghEnv) => {
    lines = [];
    const o: Options = { ...parseArgs(["--yes", "--only", "download"]), dist: ghDist };
    return runPlan(releaseSteps(o, e, checkout), o.yes, say);
  };

  test("creates the release v<version>, uploads every file, the checksums, the signature; again, nothing", async () => {
    await ghRun();
    const release = github.releases.get(`v${VERSION}`);
    const names = fs
      .readFileSync(path.join(ghDist, CHECKSUMS), "utf8")
      .trim()
      .split("\n")
      .map((l) => l.slice(66));
    expect([...(release?.assets.keys() ?? [])]).toEqual([...names, CHECKSUMS, `${CHECKSUMS}.asc`]);
    for (const n of [...names, CHECKSUMS])
      expect(release?.assets.get(n)?.equals(fs.readFileSync(path.join(ghDist, n)))).toBe(true);
    const uploads = github.puts.length;
    await ghRun();
    expect(lines.at(-1)).toMatch(/^nothing to publish/);
    expect(github.puts.length).toBe(uploads);
  });

  test("an asset with other bytes stops the run, naming it; a missing token is the API's 401, named", async () => {
    github.releases.get(`v${VERSION}`)?.assets.set(ARCHIVE, Buffer.from("tampered"));
    await expect(ghRun()).rejects.toThrow(
      new RegExp(
        `download address: ${ARCHIVE.replace(/\./g, "\\.")} at https://github\\.com/acme/pulumi-pims/releases/download/v${VERSION}/\\S+ differs`,
      ),
    );
    await expect(ghRun({ ...ghEnv, GITHUB_TOKEN: "" })).rejects.toThrow(
      /GET http:\/\/127\.0\.0\.1:\d+\/repos\/acme\/pulumi-pims\/releases\/tags\/v[\d.]+ answered 401/,
    );
  });
});
