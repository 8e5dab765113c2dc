/**
 * The release rehearsal: a whole release built for a test home and published to real registry servers on loopback
 * with `npm run release:publish -- --yes --rehearsal` and nothing else, then installed as users install it.
 *
 * Set-up (once): verdaccio (npm) and pypiserver (PyPI) from scripts/toolchain/ensure-registries, a Maven repository and
 * the download address (tests/kit/registries.ts: HTTP PUT/GET), a git remote with a Go module proxy serving its tags,
 * and a throwaway GPG key. A copy of this working tree (tests/kit/rehearsal.ts) gets the home
 * `127.0.0.1/rehearsal/pulumi-pims` and the loopback download address for one run (`PIMS_RELEASE_HOME`,
 * `PIMS_RELEASE_PLUGIN_DOWNLOAD_URL`), `npm run schema && npm run gen-sdk` and a commit, then `npm run release`'s
 * build for this platform; then the publish, twice.
 *
 * Then, as a user (tests/kit/rehearsal.ts's userEnv): a fresh HOME holding only each client's own settings file
 * pointing it at its registry (~/.npmrc's registry, pip.conf's index-url, Go's env file with GOPROXY and GONOSUMDB,
 * Maven's settings.xml mirror), an empty PULUMI_HOME, no plugin on PATH, a `node` that fails if called (but for
 * TypeScript), nothing inherited from this process's environment: each language page's published path verbatim
 * (TypeScript's installation guide, Python, Go, YAML, Java), `pulumi up` with the engine downloading the plugin from
 * the address the SDK names (no `--file`, no `PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES`), a rotation (in each mode where
 * the program has both), destroy: tokens `[secret]`, 0 plaintext tokens, 0 live accounts. The npm package, the Go
 * module and the Java jar are also fetched from their registries as those clients do and compared with the release.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { ensureEngine, NODE_BIN, randomSecret, REPO_ROOT, tempDir } from "../../../scripts/engine";
import type { PimsSimulator } from "../../../simulator";
import { makeGpgKey, startFileServer, startGoProxy, stopGpgAgent, type Served } from "../../kit/registries";
import {
  archiveName,
  destroyLeavesNothing,
  firstUpDownloadsPlugin,
  initStack,
  inlineStack,
  installedPlugins,
  lastChanges,
  noPlaintextTokens,
  refreshChangesNothing,
  rotationInEachMode,
  stubNode,
  VERSION,
  type DistServer,
  type DistStack,
} from "../../kit/dist";
import { E2E_TIMEOUT_MS, ENGINE_SETUP_TIMEOUT_MS } from "../../kit/engine";
import {
  copyCheckout,
  ensureRegistries,
  freshHome,
  gitIn,
  mavenMirrorSettings,
  startPypiServer,
  startVerdaccio,
  userEnv,
  writeJavaPublishedProject,
  yamlPublishedProgram,
  type Registry,
} from "../../kit/rehearsal";
import { ensureJavaHost, ensureMaven, JAVA_LOCAL_REPO } from "../../kit/java";
import {
  expectNoTokenLeft,
  GuideShell,
  readGuide,
  readPublished,
  run,
  sandboxed,
  seedPageObjects,
  userVenv,
  type Ran,
} from "../../kit/sdk";
import { expectNoPlaintextSecrets, expectNoSecretsInFiles } from "../../kit/secrets";
import { startSimulator } from "../../kit/simulator";
import { tearDown } from "../../kit/teardown";

jest.setTimeout(E2E_TIMEOUT_MS);

const HOME = "127.0.0.1/rehearsal/pulumi-pims";
const MODULE = `${HOME}/sdk/go`;
const GROUP = "test.rehearsal";
const CHECKSUMS = `pulumi-pims-v${VERSION}-checksums.txt`;
const PROGRAM = path.join(__dirname, "..", "programs", "python", "rotation_program.py");
const DRIVER = path.join(__dirname, "..", "programs", "python", "inline.py");
const NAMES = { ci: "ciAccountId", app: "appAccountId", appPrevious: "appPreviousAccountId", token: "appToken" };

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

/** bash -c `command` in `cwd`; resolves with both streams, rejects naming the command and its output's end. */
async function sh(command: string, cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  const ran = await run("bash", ["-c", command], { cwd, env }).catch((e: Error & Partial<Ran>) => {
    throw new Error(`\`${command}\` failed: ${e.message}\n${(e.output ?? "").slice(-4000)}`);
  });
  return ran.output;
}

/** The download address as the dist steps see it: the requests from now on (the engine's downloads), by file name. */
function downloadsFromNow(): DistServer {
  const from = download.gets.length;
  return {
    url: download.url,
    get requests() {
      return download.gets.slice(from).map((g) => ({ path: `GET /${path.basename(g.path)}`, status: g.status }));
    },
    stop: async () => undefined,
  };
}

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
  goProxy = await startGoProxy(remote, MODULE, "sdk/go");

  // The release, built for the test home in the copy: the coordinates regenerated and committed, then the build.
  address = `${download.url}/releases/v\${VERSION}`;
  const releaseEnv: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${path.join(REPO_ROOT, "node_modules", ".bin")}:${NODE_BIN}:${process.env.PATH ?? ""}`,
    PIMS_RELEASE_HOME: HOME,
    PIMS_RELEASE_PLUGIN_DOWNLOAD_URL: address,
    PIMS_RELEASE_MAVEN_GROUP: GROUP,
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
  for (let i = 0; i < 2; i++)
    published.push(await sh("npm run release:publish -- --yes --rehearsal", checkout, publishEnv));
  sim = await startSimulator({ profile: "default" });
}, ENGINE_SETUP_TIMEOUT_MS);

afterAll(async () => {
  if (gpgHome !== undefined) stopGpgAgent(gpgHome);
  await tearDown([npm, pypi, sim, download, maven, goProxy], scratch);
});

test("the first publish puts every file in every registry; the second changes nothing and says so", () => {
  const [first, second] = published;
  for (const what of [
    `download address: ${archiveName()}`,
    `download address: ${CHECKSUMS}.asc`,
    `npm: pulumi-pims-${VERSION}.tgz`,
    `PyPI: pulumi_pims-${VERSION}-py3-none-any.whl`,
    `Maven: pims-${VERSION}.jar.asc`,
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
  const mod = JSON.parse(await sh(`go mod download -json ${MODULE}@v${VERSION}`, user, env)) as { GoMod: string };
  expect(fs.readFileSync(mod.GoMod, "utf8")).toBe(fs.readFileSync(path.join(checkout, "sdk", "go", "go.mod"), "utf8"));
  const jar = await fetch(`${maven.url}/maven2/test/rehearsal/pims/${VERSION}/pims-${VERSION}.jar`);
  expect(Buffer.from(await jar.arrayBuffer()).equals(fs.readFileSync(path.join(dist, `pims-${VERSION}.jar`)))).toBe(
    true,
  );
});

describe("Python, docs/python.md's published path: the engine downloads the plugin from the SDK's address", () => {
  let stack: DistStack;

  beforeAll(async () => {
    const projectId = sim.addProject({ name: "rehearsal-python" }).id;
    const appId = sim.addApp(projectId, "web").id;
    const user = path.join(scratch, "python-user");
    const node = stubNode(path.join(user, "stub"));
    const dir = path.join(user, "my-infra");
    fs.mkdirSync(dir, { recursive: true });
    // The page's commands, verbatim; `python3 -m venv venv` is tests/kit/sdk.ts's userVenv (the cached pulumi and
    // grpcio seen).
    const commands = readPublished("python.md");
    expect(commands).toEqual(["python3 -m venv venv", `venv/bin/pip install pulumi_pims==${VERSION}`]);
    const python = await userVenv(path.join(dir, "venv"));
    const env = userEnv(
      path.join(user, "home"),
      { pipIndexUrl: `${pypi.url}/simple/` },
      {
        home: path.join(user, "pulumi-home"),
        backend: path.join(user, "backend"),
        stubDir: node.dir,
        extraPath: [path.dirname(python)],
      },
    );
    await sh(commands[1], dir, env);
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: my-infra\nruntime: python\n");
    await initStack(dir, env, "dev", sim, { projectId, appId, triggerReplace: "1", triggerOverlap: "1" });
    const server = downloadsFromNow();
    const runProgram = (operation: string): Promise<Ran> =>
      run(python, [DRIVER, dir, "dev", operation, PROGRAM], { cwd: dir, env });
    stack = inlineStack({ sim, projectId, server, node, dir, env, runProgram });
  }, ENGINE_SETUP_TIMEOUT_MS);

  test("up downloads the plugin from the rehearsal's download address and creates every resource", async () => {
    await firstUpDownloadsPlugin(stack, 7, NAMES);
  });

  test("a rotation in each mode, refresh, destroy: 0 live accounts, 0 plaintext tokens", async () => {
    await rotationInEachMode(stack, NAMES, { replace: ["triggerReplace", "2"], overlap: ["triggerOverlap", "2"] });
    await refreshChangesNothing(stack);
    await destroyLeavesNothing(stack, 7);
    await noPlaintextTokens(stack);
  });
});

describe("YAML, docs/yaml.md's published path: version and pluginDownloadURL, and pulumi install downloads", () => {
  let stack: DistStack;
  let printed = "";

  beforeAll(async () => {
    const projectId = sim.addProject({ name: "rehearsal-yaml" }).id;
    const user = path.join(scratch, "yaml-user");
    const node = stubNode(path.join(user, "stub"));
    const dir = path.join(user, "my-infra");
    fs.mkdirSync(dir, { recursive: true });
    const program = yamlPublishedProgram(address.replace("${VERSION}", VERSION));
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), program);
    const env = userEnv(
      path.join(user, "home"),
      {},
      {
        home: path.join(user, "pulumi-home"),
        backend: path.join(user, "backend"),
        stubDir: node.dir,
      },
    );
    await initStack(dir, env, "dev", sim, { projectId });
    const server = downloadsFromNow();
    const pulumi = async (args: string[]): Promise<string> => {
      const ran = await run("pulumi", args, { cwd: dir, env });
      printed += ran.stdout + ran.stderr;
      return ran.stdout;
    };
    stack = {
      sim,
      projectId,
      server,
      node,
      backend: path.join(user, "backend"),
      home: env.PULUMI_HOME ?? "",
      pulumi,
      op: async (operation) => {
        await pulumi([operation, "--yes", "--non-interactive"]);
        return lastChanges(stack);
      },
      printed: () => printed,
    };
    await pulumi(["install"]);
  }, ENGINE_SETUP_TIMEOUT_MS);

  test("pulumi install downloaded the plugin from the address the program names; up creates everything", async () => {
    expect(stack.server.requests).toEqual([{ path: `GET /${archiveName()}`, status: 200 }]);
    expect(installedPlugins(stack.home)).toEqual([`resource-pims-v${VERSION}`]);
    expect(await stack.op("up")).toEqual({ create: 4 });
    expect((await stack.pulumi(["stack", "output", "ciToken"])).trim()).toBe("[secret]");
    expect(sim.projects().some((p) => p.name === "team-a")).toBe(true);
  });

  test("a rotation in each mode, refresh, destroy: 0 live accounts, 0 plaintext tokens", async () => {
    const names = { ci: "ciId", app: "appId", appPrevious: "appPreviousId", token: "ciToken" };
    await rotationInEachMode(stack, names, { replace: ["triggerReplace", "r1"], overlap: ["triggerOverlap", "o1"] });
    await refreshChangesNothing(stack);
    await destroyLeavesNothing(stack, 4);
    await noPlaintextTokens(stack);
  });
});

describe("Go, docs/go.md's published path: go get from the module proxy, the plugin from the SDK's address", () => {
  const GO_NAMES = { ci: "ciAccountId", app: "appAccountId", appPrevious: "appPreviousAccountId", token: "appToken" };
  let stack: DistStack;

  beforeAll(async () => {
    const projectId = sim.addProject({ name: "rehearsal-go" }).id;
    const user = path.join(scratch, "go-user");
    const node = stubNode(path.join(user, "stub"));
    const dir = path.join(user, "my-infra");
    fs.mkdirSync(dir, { recursive: true });
    const goBin = path.dirname(execFileSync("bash", ["-c", "command -v go"], { encoding: "utf8" }).trim());
    const goEnv = (name: string): string => execFileSync("go", ["env", name], { encoding: "utf8" }).trim();
    const sharedCache = goEnv("GOMODCACHE");
    // A user's settings for a module served by a proxy of their own (`go env -w`, in the fresh HOME): GOPROXY lists
    // it first, GONOSUMDB keeps its path out of the public checksum database. The machine's module and build caches
    // serve the other modules (and keep the Pulumi SDK's build); the rehearsal's module is removed from them first.
    const go = {
      GOPROXY: `${goProxy.url},https://proxy.golang.org`,
      GONOSUMDB: "127.0.0.1",
      GOMODCACHE: sharedCache,
      GOCACHE: goEnv("GOCACHE"),
      GOTOOLCHAIN: "local",
    };
    const env: NodeJS.ProcessEnv = {
      ...userEnv(
        path.join(user, "home"),
        { go },
        {
          home: path.join(user, "pulumi-home"),
          backend: path.join(user, "backend"),
          stubDir: node.dir,
          extraPath: [goBin],
        },
      ),
      CGO_ENABLED: "0",
    };
    for (const stale of [path.join(sharedCache, "127.0.0.1"), path.join(sharedCache, "cache", "download", "127.0.0.1")])
      if (fs.existsSync(stale)) execFileSync("bash", ["-c", 'chmod -R u+w "$0" && rm -rf "$0"', stale]);
    // The page's commands, verbatim but for the home's placeholder.
    const commands = readPublished("go.md").map((c) => c.replace("github.com/OWNER/pulumi-pims", HOME));
    expect(commands).toEqual(["go mod init my-infra", `go get ${MODULE}/pims@v${VERSION}`]);
    for (const c of commands) await sh(c, dir, env);
    // The program imports the SDK by its published path, as the page says.
    const program = fs.readFileSync(path.join(__dirname, "..", "programs", "go", "rotation", "main.go"), "utf8");
    expect(program).toContain('"pulumi-pims/sdk/go/pims"');
    fs.writeFileSync(path.join(dir, "main.go"), program.replace('"pulumi-pims/sdk/go/pims"', `"${MODULE}/pims"`));
    fs.copyFileSync(path.join(__dirname, "..", "programs", "go", "inline.go"), path.join(dir, "inline.go"));
    await sh("go mod tidy && go build -o program .", dir, env);
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: my-infra\nruntime: go\n");
    await initStack(dir, env, "dev", sim, { projectId, triggerReplace: "1", triggerOverlap: "1" });
    const server = downloadsFromNow();
    const runProgram = (operation: string): Promise<Ran> =>
      run(path.join(dir, "program"), [], {
        cwd: dir,
        env: { ...env, PIMS_INLINE_OP: operation, PIMS_INLINE_STACK: "dev", PIMS_INLINE_WORKDIR: dir },
      });
    stack = inlineStack({ sim, projectId, server, node, dir, env, runProgram });
  }, ENGINE_SETUP_TIMEOUT_MS);

  test("up downloads the plugin from the rehearsal's download address; rotations, refresh, destroy", async () => {
    await firstUpDownloadsPlugin(stack, 3, GO_NAMES);
    await rotationInEachMode(stack, GO_NAMES, { replace: ["triggerReplace", "2"], overlap: ["triggerOverlap", "2"] });
    await refreshChangesNothing(stack);
    await destroyLeavesNothing(stack, 3);
    await noPlaintextTokens(stack);
  });
});

test("TypeScript, the installation guide verbatim: npm install from the registry, up, rotation, destroy", async () => {
  const guide = readGuide("installation-configuration.md");
  expect(guide.commands[0]).toMatch(/^npm install pulumi-pims @pulumi\/pulumi /);
  const user = path.join(scratch, "ts-user");
  const dir = path.join(user, "my-infra");
  const backend = path.join(user, "backend");
  fs.mkdirSync(dir, { recursive: true });
  fs.mkdirSync(backend);
  for (const f of guide.files) fs.writeFileSync(path.join(dir, f.file), f.text);
  // A user's machine: the CLI and Node 22 on PATH, a fresh HOME whose ~/.npmrc names the rehearsal's registry (and
  // the machine's npm cache, so the other packages' tarballs are not downloaded again); nothing else inherited.
  const npmCache = execFileSync("npm", ["config", "get", "cache"], { encoding: "utf8" }).trim();
  const env: NodeJS.ProcessEnv = {
    PATH: [ensureEngine(), NODE_BIN, "/usr/local/bin", "/usr/bin", "/bin"].join(path.delimiter),
    HOME: freshHome(path.join(user, "home"), { npm: { registry: npm.url, cache: npmCache } }),
    TMPDIR: process.env.TMPDIR,
    PULUMI_HOME: path.join(user, "pulumi-home"),
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_CONFIG_PASSPHRASE: randomSecret("passphrase-"),
    PIMS_TOKEN: sim.token,
  };
  if (env.TMPDIR === undefined) delete env.TMPDIR;
  const shell = new GuideShell();
  const config = { "pims:baseUrl": sim.baseUrl };
  for (const command of guide.commands) await shell.run(sandboxed(command, backend, config), dir, env);
  // The package came from the rehearsal's registry: the lockfile's integrity is the release's tarball's (the only
  // registry that has pulumi-pims at all).
  const lock = JSON.parse(fs.readFileSync(path.join(dir, "package-lock.json"), "utf8")) as {
    packages: Record<string, { version?: string; resolved?: string; integrity?: string }>;
  };
  const installed = lock.packages["node_modules/pulumi-pims"];
  const tgz = fs.readFileSync(path.join(checkout, "dist", `pulumi-pims-${VERSION}.tgz`));
  expect(installed).toMatchObject({
    version: VERSION,
    integrity: `sha512-${createHash("sha512").update(tgz).digest("base64")}`,
  });
  expect(installed.resolved).toMatch(new RegExp(`^${npm.url}/`));
  const outputs = async (): Promise<Record<string, unknown>> =>
    JSON.parse(await shell.run("pulumi stack output --json", dir, env)) as Record<string, unknown>;
  const before = await outputs();
  expect(before.deployerToken).toBe("[secret]");
  const projectId = before.projectId as string;
  const [first] = sim.serviceAccounts(projectId);
  expect(sim.serviceAccounts(projectId)).toHaveLength(1);
  // A rotation now: the guide's program has no rotation trigger, so the user replaces the account (`--replace`).
  const urn = (await shell.run("pulumi stack --show-urns", dir, env, false))
    .split(/\s+/)
    .find((w) => w.startsWith("urn:pulumi:") && w.endsWith("::deployer"));
  expect(urn).toBeDefined();
  await shell.run(`pulumi up --yes --non-interactive --replace '${urn ?? ""}'`, dir, env);
  const rotated = sim.serviceAccounts(projectId);
  expect(rotated).toHaveLength(1);
  expect(rotated[0].id).not.toBe(first.id);
  expect((await outputs()).deployerToken).toBe("[secret]");
  await shell.run("pulumi destroy --yes --non-interactive", dir, env);
  expect(sim.serviceAccounts(projectId)).toEqual([]);
  const secrets = [sim.token, ...sim.issuedSecrets()];
  expectNoPlaintextSecrets(shell.printed, secrets, "what the guide's commands printed");
  expect(expectNoSecretsInFiles(backend, secrets)).toBeGreaterThan(0);
});

describe("Java, docs/java.md's published path: the dependency through a Maven mirror, the plugin downloaded", () => {
  const shell = new GuideShell();
  const seeded = { appProjectId: "", appId: "", volumeId: "" };
  const GROUP_DIR = path.join(JAVA_LOCAL_REPO, ...GROUP.split("."));
  let dir: string;
  let env: NodeJS.ProcessEnv;
  let backend: string;
  let pulumiHome: string;
  let server: DistServer;
  let node: ReturnType<typeof stubNode>;
  let mavenGetsBefore = 0;
  let rotate: string[] = [];
  const sh = (command: string, record = true): Promise<string> => shell.run(command, dir, env, record);
  const follow = (command: string): Promise<string> =>
    sh(sandboxed(command, backend, { "pims:baseUrl": sim.baseUrl, ...seeded }));
  const outputs = async (reveal = false): Promise<Record<string, unknown>> =>
    JSON.parse(await sh(`pulumi stack output --json${reveal ? " --show-secrets" : ""}`, !reveal)) as Record<
      string,
      unknown
    >;

  beforeAll(async () => {
    ensureJavaHost(ensureEngine());
    const mavenDir = ensureMaven();
    Object.assign(seeded, seedPageObjects(sim));
    const user = path.join(scratch, "java-user");
    dir = path.join(user, "my-infra");
    backend = path.join(user, "backend");
    pulumiHome = path.join(user, "pulumi-home");
    node = stubNode(path.join(user, "stub"));
    fs.mkdirSync(dir, { recursive: true });
    // The user's Maven settings (a <mirror> to the rehearsal's loopback repository) in a fresh HOME. The suite's
    // local repository keeps the Pulumi SDK and Maven's plugins cached; the rehearsal's group is removed from it
    // first, so the jar must come from the loopback repository.
    fs.rmSync(GROUP_DIR, { recursive: true, force: true });
    env = {
      ...userEnv(
        path.join(user, "home"),
        { mavenSettings: mavenMirrorSettings(JAVA_LOCAL_REPO, `${maven.url}/maven2`) },
        {
          home: pulumiHome,
          backend,
          stubDir: node.dir,
          extraPath: [mavenDir],
        },
      ),
      PIMS_TOKEN: sim.token,
    };
    const page = writeJavaPublishedProject(dir, GROUP);
    // The page's stack commands (the clone's `mvn install` and the `--file` install are the unreleased path).
    server = downloadsFromNow();
    mavenGetsBefore = maven.gets.length; // the publishes' own checks aside
    for (const command of page.commands) await follow(command);
    rotate = page.rotate;
  }, ENGINE_SETUP_TIMEOUT_MS);

  test("Maven fetched the jar from the loopback repository, the engine the plugin; up created all", async () => {
    const jar = `/maven2/test/rehearsal/pims/${VERSION}/pims-${VERSION}.jar`;
    expect(maven.gets.slice(mavenGetsBefore).filter((g) => g.path === jar)).toEqual([
      expect.objectContaining({ status: 200 }),
    ]);
    expect(
      fs
        .readFileSync(path.join(GROUP_DIR, "pims", VERSION, `pims-${VERSION}.jar`))
        .equals(fs.readFileSync(path.join(checkout, "dist", `pims-${VERSION}.jar`))),
    ).toBe(true);
    expect(server.requests).toEqual([{ path: `GET /${archiveName()}`, status: 200 }]);
    expect(installedPlugins(pulumiHome)).toEqual([`resource-pims-v${VERSION}`]);
    const out = await outputs();
    expect(out.deployerToken).toBe("[secret]");
    expect(sim.serviceAccounts(out.projectId as string)).toHaveLength(2);
    expect(node.calls()).toEqual([]);
  });

  test("a rotation, destroy: 0 live accounts, 0 plaintext tokens", async () => {
    const before = await outputs();
    expect(rotate).toEqual(["pulumi config set rotation 2", "pulumi up"]);
    for (const command of rotate) await follow(command);
    const after = await outputs();
    expect(after.deployerAccountId).not.toBe(before.deployerAccountId);
    expect(after.workerPreviousAccountId).toBe(before.workerAccountId);
    await follow("pulumi destroy --yes --non-interactive");
    expect(sim.serviceAccounts(before.projectId as string)).toEqual([]);
    expectNoTokenLeft({ printed: shell.printed, secrets: [sim.token, ...sim.issuedSecrets()], backend, project: dir });
  });
});
