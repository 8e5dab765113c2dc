/**
 * The release rehearsal: a whole release built for a test home and published to real registry servers on loopback
 * with `npm run release:publish -- --yes --rehearsal` and nothing else, then installed as users install it.
 *
 * Set-up (once): verdaccio (npm) and pypiserver (PyPI) from scripts/toolchain/ensure-registries, a Maven repository and
 * the download address (tests/kit/release/registries.ts: HTTP PUT/GET), a git remote with a Go module proxy serving its
 * tags, and a throwaway GPG key. A copy of this working tree (tests/kit/release/rehearsal.ts) gets the home
 * `127.0.0.1/rehearsal/pulumi-pims` and the loopback download address for one run (`PIMS_RELEASE_HOME`,
 * `PIMS_RELEASE_PLUGIN_DOWNLOAD_URL`: `http://127.0.0.1:<port>/releases/v${VERSION}`, an address with `${VERSION}` as a
 * home not on GitHub has), `npm run schema && npm run gen-sdk` and a commit, then `npm run release`'s build for this
 * platform; then a dry run under npm's silent flag (`npm run -s`), and the publish, twice (Maven's files by Maven's own
 * deploy, which writes maven-metadata.xml).
 *
 * Then, as a user (tests/kit/release/rehearsal.ts's userEnv): a fresh HOME holding only each client's own settings file
 * pointing it at its registry (~/.npmrc's registry, pip.conf's index-url, Go's env file with GOPROXY and GONOSUMDB,
 * Maven's settings.xml mirror), an empty PULUMI_HOME, no plugin on PATH, a `node` that fails if called (but for
 * TypeScript), nothing inherited from this process's environment: each language page's published path verbatim
 * (TypeScript's installation guide, Python, Go, YAML with the address written `$${VERSION}` as its page says for such a
 * home, Java on the version range `[0.5,1)`), `pulumi up` with the engine downloading the plugin from the address the
 * SDK names (no `--file`, no `PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES`), a rotation (in each mode where
 * the program has both), destroy: tokens `[secret]`, 0 plaintext tokens, 0 live accounts. The npm package, the Go
 * module and the Java jar are also fetched from their registries as those clients do and compared with the release.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { NODE_BIN, REPO_ROOT, tempDir } from "../../../scripts/engine";
import type { PimsSimulator } from "../../../simulator";
import { E2E_TIMEOUT_MS, ENGINE_SETUP_TIMEOUT_MS } from "../../kit/engine/engine";
import { archiveName, VERSION } from "../../kit/languages/dist";
import { ROTATION_OUTPUTS } from "../../kit/languages/distTable";
import { buildInline, goUserSettings } from "../../kit/languages/go";
import { readPublished } from "../../kit/languages/guide";
import { PROGRAMS_DIR, writeProject } from "../../kit/languages/index";
import { pythonInline, userVenv } from "../../kit/languages/python";
import { YAML_ROTATION_OUTPUTS, yamlPublishedProgram } from "../../kit/languages/yaml";
import {
  describeJavaPublished,
  describePublished,
  REHEARSAL_GROUP,
  REHEARSAL_HOME,
  REHEARSAL_MODULE,
  sh,
  typescriptPublished,
  type PublishedRow,
  type RehearsalRun,
} from "../../kit/release/publishedPaths";
import { makeGpgKey, startFileServer, startGoProxy, stopGpgAgent, type Served } from "../../kit/release/registries";
import {
  copyCheckout,
  ensureRegistries,
  gitIn,
  startPypiServer,
  startVerdaccio,
  type Registry,
} from "../../kit/release/rehearsal";
import { expectNoPlaintextSecrets } from "../../kit/secrets/secrets";
import { startSimulator } from "../../kit/sim/simulator";
import { tearDown } from "../../kit/teardown";

jest.setTimeout(E2E_TIMEOUT_MS);

const CHECKSUMS = `pulumi-pims-v${VERSION}-checksums.txt`;

let scratch: string;
let checkout: string;
let download: Served;
let maven: Served;
let goProxy: Served;
let npm: Registry;
let pypi: Registry;
let sim: PimsSimulator;
let gpgHome: string;
let publishEnv: NodeJS.ProcessEnv;
let npmrc: string;
let address: string;
const published: string[] = [];
let dryRun: string;
/** What the setup started, for the published paths of tests/kit/release/publishedPaths.ts (read at run time). */
const rehearsal = {} as RehearsalRun;

/** The files the download address holds (one folder per version). */
const downloadDir = (): string => path.join(scratch, "download", "releases", `v${VERSION}`);

beforeAll(async () => {
  scratch = tempDir("pims-rehearsal-");
  const registries = ensureRegistries();
  download = await startFileServer(path.join(scratch, "download"));
  maven = await startFileServer(path.join(scratch, "maven"), "deployer:rehearsal-password");
  const verdaccio = await startVerdaccio(registries, path.join(scratch, "verdaccio"));
  npm = verdaccio.server;
  npmrc = verdaccio.npmrc;
  pypi = await startPypiServer(registries, path.join(scratch, "pypi"));
  const key = makeGpgKey(scratch);
  gpgHome = key.GNUPGHOME;
  checkout = copyCheckout(path.join(scratch, "pulumi-pims"));
  const remote = path.join(scratch, "remote.git");
  gitIn(scratch, ["init", "-q", "--bare", remote]);
  goProxy = await startGoProxy(remote, REHEARSAL_MODULE, "sdk/go");

  // The release, built for the test home in the copy: the coordinates regenerated and committed, then the build.
  address = `${download.url}/releases/v\${VERSION}`;
  const releaseEnv: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${path.join(REPO_ROOT, "node_modules", ".bin")}:${NODE_BIN}:${process.env.PATH ?? ""}`,
    PIMS_RELEASE_HOME: REHEARSAL_HOME,
    PIMS_RELEASE_PLUGIN_DOWNLOAD_URL: address,
    PIMS_RELEASE_MAVEN_GROUP: REHEARSAL_GROUP,
  };
  await sh(
    "ts-node --transpile-only scripts/generate/write-schema.ts && bash scripts/generate/gen-sdk/run && git add -A && " +
      "git -c user.name=rehearsal -c user.email=rehearsal@pims.invalid commit -qm 'the rehearsal home' && " +
      "tsc -p tsconfig.build.json && ts-node --transpile-only scripts/release/main.ts",
    checkout,
    { ...releaseEnv, PIMS_RELEASE_PLATFORMS: "linux-amd64" },
  );

  // Each client's ordinary setting, pointed at its loopback registry.
  publishEnv = {
    ...releaseEnv,
    NPM_CONFIG_USERCONFIG: verdaccio.npmrc,
    TWINE_REPOSITORY_URL: `${pypi.url}/`,
    TWINE_USERNAME: "rehearsal",
    TWINE_PASSWORD: "rehearsal-password",
    PIMS_PYPI_INDEX_URL: `${pypi.url}/simple/`,
    PIMS_MAVEN_REPOSITORY_URL: `${maven.url}/maven2`,
    PIMS_MAVEN_USERNAME: "deployer",
    PIMS_MAVEN_PASSWORD: "rehearsal-password",
    GNUPGHOME: gpgHome,
    PIMS_GPG_KEY_ID: key.keyId,
    PIMS_GIT_REMOTE: remote,
    GOPROXY: goProxy.url,
    GONOSUMDB: "127.0.0.1",
    GOFLAGS: "",
  };
  // A dry run first, under npm's silent flag (`-s`, common in scripts: npm view then puts its 404 on stdout).
  dryRun = await sh("npm run -s release:publish -- --rehearsal", checkout, publishEnv);
  for (let i = 0; i < 2; i++)
    published.push(await sh("npm run release:publish -- --yes --rehearsal", checkout, publishEnv));
  sim = await startSimulator({ profile: "default" });
  Object.assign(rehearsal, { scratch, checkout, sim, download, maven, goProxy, npm, pypi, address });
}, ENGINE_SETUP_TIMEOUT_MS);

afterAll(async () => {
  if (gpgHome !== undefined) stopGpgAgent(gpgHome);
  await tearDown([npm, pypi, sim, download, maven, goProxy], scratch);
});

test("`npm run -s release:publish`'s dry run (exit 0) plans every registry; then nothing was put anywhere yet", () => {
  expect(dryRun).toMatch(new RegExp(`\\nto publish +npm: pulumi-pims-${VERSION.replace(/\./g, "\\.")}\\.tgz -> `));
  expect(dryRun).toMatch(/dry run: (\d+) of \1 to publish; run again with --yes/);
  expect(dryRun).not.toMatch(/^> pulumi-pims@/m); // npm's own banner: -s reached npm
});

test("the first publish puts every file in every registry; the second changes nothing and says so", () => {
  const [first, second] = published;
  for (const what of [
    `download address: ${archiveName()}`,
    `download address: ${CHECKSUMS}.asc`,
    `npm: pulumi-pims-${VERSION}.tgz`,
    `PyPI: pulumi_pims-${VERSION}-py3-none-any.whl`,
    `Maven: pims-${VERSION} by mvn deploy (pom, jar, sources and javadoc jars, signed)`,
    `Go: tag sdk/go/v${VERSION}`,
  ])
    expect(first).toContain(`publishing ${what} ->`);
  expect(first).toMatch(/published \d+ of \d+ \(0 were already there\)/);
  expect(second).toMatch(/nothing to publish: all \d+ files and tags are already there with the same bytes/);
  expect(second).not.toContain("publishing ");
  // No credential the publish was given (npm's token, twine's and Maven's passwords) is in what it printed.
  const npmToken = /_authToken=(\S+)/.exec(fs.readFileSync(npmrc, "utf8"))?.[1] ?? "";
  expect(npmToken.length).toBeGreaterThan(10);
  expectNoPlaintextSecrets(first + second, [npmToken, "rehearsal-password"], "what release:publish printed");
});

test("an archive changed by one byte fails the check against the signed checksums the docs tell users to run", () => {
  const got = path.join(scratch, "verify");
  fs.cpSync(downloadDir(), got, { recursive: true });
  const env = { ...process.env, GNUPGHOME: gpgHome };
  const check = (cmd: string, args: string[]): void => void execFileSync(cmd, args, { cwd: got, env, stdio: "pipe" });
  check("gpg", ["--batch", "--verify", `${CHECKSUMS}.asc`, CHECKSUMS]);
  check("sha256sum", ["--ignore-missing", "-c", CHECKSUMS]);
  const archive = fs.readFileSync(path.join(got, archiveName()));
  archive[archive.length >> 1] ^= 0x01;
  fs.writeFileSync(path.join(got, archiveName()), archive);
  let said = "";
  try {
    check("sha256sum", ["--ignore-missing", "-c", CHECKSUMS]);
  } catch (e) {
    said = String((e as { stdout?: Buffer }).stdout ?? "");
  }
  expect(said).toContain(`${archiveName()}: FAILED`);
});

test("npm, Go and Maven clients fetch from their registries exactly what the release built", async () => {
  const dist = path.join(checkout, "dist");
  const user = path.join(scratch, "clients");
  fs.mkdirSync(user);
  const env = { ...publishEnv, GOMODCACHE: path.join(user, "gomod"), GOFLAGS: "-mod=mod -modcacherw" };
  await sh(`npm pack pulumi-pims@${VERSION} --pack-destination ${user}`, user, env);
  expect(
    fs
      .readFileSync(path.join(user, `pulumi-pims-${VERSION}.tgz`))
      .equals(fs.readFileSync(path.join(dist, `pulumi-pims-${VERSION}.tgz`))),
  ).toBe(true);
  const mod = JSON.parse(await sh(`go mod download -json ${REHEARSAL_MODULE}@v${VERSION}`, user, env)) as {
    GoMod: string;
  };
  expect(fs.readFileSync(mod.GoMod, "utf8")).toBe(fs.readFileSync(path.join(checkout, "sdk", "go", "go.mod"), "utf8"));
  const jar = await fetch(`${maven.url}/maven2/test/rehearsal/pims/${VERSION}/pims-${VERSION}.jar`);
  expect(Buffer.from(await jar.arrayBuffer()).equals(fs.readFileSync(path.join(dist, `pims-${VERSION}.jar`)))).toBe(
    true,
  );
  // Maven's deploy wrote the artifact's metadata, which a version range reads (the Java user's, below).
  const metadata = await fetch(`${maven.url}/maven2/test/rehearsal/pims/maven-metadata.xml`);
  expect(await metadata.text()).toContain(`<version>${VERSION}</version>`);
});

/** Where the download address's GETs stood before the YAML user's first `pulumi install`. */
let yamlGetsFrom = 0;
/** The published paths of the Python, YAML and Go pages: rows of tests/kit/release/publishedPaths.ts's table. */
const PUBLISHED_PATHS: PublishedRow[] = [
  {
    language: "python",
    sdk: "registry",
    program: "python/rotation_program.py",
    title: "Python, docs/python.md's published path: the engine downloads the plugin from the SDK's address",
    name: "rehearsal-python",
    creates: "every resource",
    resources: 7,
    names: ROTATION_OUTPUTS,
    withApp: true,
    install: async ({ r, dir, userEnv: env }) => {
      // The page's commands, verbatim; `python3 -m venv venv` is ../languages/python's userVenv (the cached pulumi and
      // grpcio seen).
      const commands = readPublished("python.md");
      expect(commands).toEqual(["python3 -m venv venv", `venv/bin/pip install pulumi_pims==${VERSION}`]);
      const venv = await userVenv(path.join(dir, "venv"));
      const userEnv = env({ pipIndexUrl: `${r.pypi.url}/simple/` }, [path.dirname(venv)]);
      await sh(commands[1], dir, userEnv);
      writeProject(dir, "my-infra", "python");
      return { env: userEnv, runProgram: pythonInline(venv, dir, userEnv) };
    },
  },
  {
    language: "yaml",
    sdk: "registry",
    program: "docs/yaml.md's published Pulumi.yaml",
    title: "YAML, docs/yaml.md's path for a home not on GitHub: pluginDownloadURL with $${VERSION}, downloaded",
    name: "rehearsal-yaml",
    creates: "all four resources",
    resources: 4,
    names: YAML_ROTATION_OUTPUTS,
    install: async ({ r, dir, userEnv: env }) => {
      yamlGetsFrom = r.download.gets.length;
      // The release's address has ${VERSION} in it: the program writes it $${VERSION}, as the page says.
      const program = yamlPublishedProgram(r.address);
      expect(program).toContain(`pluginDownloadURL: ${r.download.url}/releases/v$\${VERSION}\n`);
      fs.writeFileSync(path.join(dir, "Pulumi.yaml"), program);
      return Promise.resolve({ env: env({}) });
    },
    // pulumi install downloaded the plugin from the address the engine made of it.
    afterUp: () => {
      const gets = download.gets.slice(yamlGetsFrom);
      expect(gets).toEqual([{ path: `/releases/v${VERSION}/${archiveName()}`, status: 200 }]);
      expect(sim.projects().some((p) => p.name === "team-a")).toBe(true);
    },
  },
  {
    language: "go",
    sdk: "registry",
    program: "go/rotation/main.go",
    title: "Go, docs/go.md's published path: go get from the module proxy, the plugin from the SDK's address",
    name: "rehearsal-go",
    creates: "both accounts",
    resources: 3,
    names: ROTATION_OUTPUTS,
    install: async ({ r, dir, userEnv: env }) => {
      const userEnv = env({ go: goUserSettings(r.goProxy.url, "127.0.0.1") });
      // The page's commands, verbatim but for the home's placeholder.
      const commands = readPublished("go.md").map((c) => c.replace("github.com/OWNER/pulumi-pims", REHEARSAL_HOME));
      expect(commands).toEqual(["go mod init my-infra", `go get ${REHEARSAL_MODULE}/pims@v${VERSION}`]);
      for (const c of commands) await sh(c, dir, userEnv);
      // The program imports the SDK by its published path, as the page says.
      const program = fs.readFileSync(path.join(PROGRAMS_DIR, "go", "rotation", "main.go"), "utf8");
      expect(program).toContain('"pulumi-pims/sdk/go/pims"');
      fs.writeFileSync(
        path.join(dir, "main.go"),
        program.replace('"pulumi-pims/sdk/go/pims"', `"${REHEARSAL_MODULE}/pims"`),
      );
      writeProject(dir, "my-infra", "go");
      return { env: userEnv, runProgram: await buildInline(dir, userEnv) };
    },
  },
];

for (const row of PUBLISHED_PATHS) describePublished(rehearsal, row);
typescriptPublished(rehearsal);
describeJavaPublished(rehearsal);
