/**
 * The language pages' published paths, as the release rehearsal (tests/engine/release/rehearsal.test.ts) follows them
 * once its release is in the loopback registries. Each runs as a user would, in a fresh HOME whose only settings are
 * its client's own, with the engine downloading the plugin from the address the SDK names; each rotates, destroys, and
 * leaves no live account and no plaintext token. A table over the runners ({@link describePublished}; its rows in the
 * suite: Go from the module proxy, Python from the PyPI server, YAML with the address a home not on GitHub writes),
 * each row taking the dist steps (../languages/dist) on one stack; and the two that follow their page's own steps:
 * TypeScript (the installation guide verbatim, `npm install` from the registry) and Java (the dependency, on a version
 * range, through a Maven mirror).
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { ensureEngine, NODE_BIN, randomSecret } from "../../../scripts/engine";
import type { PimsSimulator } from "../../../simulator";
import { ENGINE_SETUP_TIMEOUT_MS } from "../engine/engine";
import { expectNoPlaintextSecrets, expectNoSecretsInFiles } from "../secrets/secrets";
import { archiveName, installedPlugins, stubNode, VERSION, type DistServer } from "../languages/dist";
import { describeStackRow, type StackRow } from "../languages/distTable";
import { expectNoTokenLeft, GuideShell, readGuide, sandboxed, seedPageObjects } from "../languages/guide";
import { run, type Ran, type Toolchain } from "../languages/index";
import { java, JAVA_LOCAL_REPO, mavenMirrorSettings, writeJavaPublishedProject } from "../languages/java";
import type { Served } from "./registries";
import { freshHome, userEnv, type Registry, type UserSettings } from "./rehearsal";

/** The rehearsal's test home, the Go module path and the Maven group that follow from it. */
export const REHEARSAL_HOME = "127.0.0.1/rehearsal/pulumi-pims";
export const REHEARSAL_MODULE = `${REHEARSAL_HOME}/sdk/go`;
export const REHEARSAL_GROUP = "test.rehearsal";
/** The version range the rehearsal's Java user depends on (`[0.5,1)` at 0.5.x): Maven reads maven-metadata.xml. */
export const JAVA_RANGE = ((): string => {
  const [major, minor] = VERSION.split(".").map(Number);
  return `[${major}.${minor},${major + 1})`;
})();

/** What the rehearsal's setup started and built, filled in by its `beforeAll` (read by the tests, at run time). */
export interface RehearsalRun {
  scratch: string;
  checkout: string;
  sim: PimsSimulator;
  download: Served;
  maven: Served;
  goProxy: Served;
  npm: Registry;
  pypi: Registry;
  /** The release's download address, with `${VERSION}` in it as a home not on GitHub has. */
  address: string;
}

/** bash -c `command` in `cwd`; resolves with both streams, rejects naming the command and its output's end. */
export async function sh(command: string, cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  const ran = await run("bash", ["-c", command], { cwd, env }).catch((e: Error & Partial<Ran>) => {
    throw new Error(`\`${command}\` failed: ${e.message}\n${(e.output ?? "").slice(-4000)}`);
  });
  return ran.output;
}

/** The download address as the dist steps see it: the requests from now on (the engine's downloads), by file name. */
export function downloadsFromNow(download: Served): DistServer {
  const from = download.gets.length;
  return {
    url: download.url,
    get requests() {
      return download.gets.slice(from).map((g) => ({ path: `GET /${path.basename(g.path)}`, status: g.status }));
    },
    stop: async () => undefined,
  };
}

/** What a published path's `install` is given: the rehearsal, the user's directory, its environment. */
export interface PublishedContext {
  r: RehearsalRun;
  user: string;
  /** The user's environment (./rehearsal's userEnv with the runner's toolchain): `settings` in a fresh HOME. */
  userEnv(settings: UserSettings, extraPath?: string[]): NodeJS.ProcessEnv;
}

/** One published path of the table: a language, its SDK from a registry, a program, and the describe block's title. */
export type PublishedRow = StackRow<PublishedContext> & { title: string };

/**
 * Registers one row in a describe block: its user (`<r.scratch>/<row.name>`) downloading from the rehearsal's address,
 * then the dist steps on its stack (../languages/distTable's describeStackRow).
 */
export function describePublished(r: RehearsalRun, row: PublishedRow): void {
  describe(row.title, () => {
    describeStackRow(row, () => {
      const user = path.join(r.scratch, row.name);
      const context = (node: ReturnType<typeof stubNode>, toolchain: Toolchain): PublishedContext => ({
        r,
        user,
        userEnv: (settings, extraPath = []) => ({
          ...userEnv(path.join(user, "home"), settings, {
            home: path.join(user, "pulumi-home"),
            backend: path.join(user, "backend"),
            stubDir: node.dir,
            extraPath: [...extraPath, ...toolchain.path],
          }),
          ...toolchain.env,
        }),
      });
      return Promise.resolve({ sim: r.sim, server: downloadsFromNow(r.download), root: user, context });
    });
  });
}

export function typescriptPublished(r: RehearsalRun): void {
  test("TypeScript, the installation guide verbatim: npm install from the registry, up, rotate, destroy", async () => {
    const guide = readGuide("installation-configuration.md");
    expect(guide.commands[0]).toMatch(/^npm install pulumi-pims @pulumi\/pulumi /);
    const user = path.join(r.scratch, "ts-user");
    const dir = path.join(user, "my-infra");
    const backend = path.join(user, "backend");
    fs.mkdirSync(dir, { recursive: true });
    fs.mkdirSync(backend);
    for (const f of guide.files) fs.writeFileSync(path.join(dir, f.file), f.text);
    // A user's machine: the CLI and Node 22 on PATH, a fresh HOME whose ~/.npmrc names the rehearsal's
    // registry (and the machine's npm cache, so the other packages' tarballs are not downloaded again); nothing else
    // inherited.
    const npmCache = execFileSync("npm", ["config", "get", "cache"], { encoding: "utf8" }).trim();
    const env: NodeJS.ProcessEnv = {
      PATH: [ensureEngine(), NODE_BIN, "/usr/local/bin", "/usr/bin", "/bin"].join(path.delimiter),
      HOME: freshHome(path.join(user, "home"), { npm: { registry: r.npm.url, cache: npmCache } }),
      TMPDIR: process.env.TMPDIR,
      PULUMI_HOME: path.join(user, "pulumi-home"),
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_CONFIG_PASSPHRASE: randomSecret("passphrase-"),
      PIMS_TOKEN: r.sim.token,
    };
    if (env.TMPDIR === undefined) delete env.TMPDIR;
    const shell = new GuideShell();
    const config = { "pims:baseUrl": r.sim.baseUrl };
    for (const command of guide.commands) await shell.run(sandboxed(command, backend, config), dir, env);
    // The package came from the rehearsal's registry: the lockfile's integrity is the release's tarball's (the only
    // registry that has pulumi-pims at all).
    const lock = JSON.parse(fs.readFileSync(path.join(dir, "package-lock.json"), "utf8")) as {
      packages: Record<string, { version?: string; resolved?: string; integrity?: string }>;
    };
    const installed = lock.packages["node_modules/pulumi-pims"];
    const tgz = fs.readFileSync(path.join(r.checkout, "dist", `pulumi-pims-${VERSION}.tgz`));
    expect(installed).toMatchObject({
      version: VERSION,
      integrity: `sha512-${createHash("sha512").update(tgz).digest("base64")}`,
    });
    expect(installed.resolved).toMatch(new RegExp(`^${r.npm.url}/`));
    const outputs = (): Promise<Record<string, unknown>> => shell.outputs(dir, env);
    const before = await outputs();
    expect(before.deployerToken).toBe("[secret]");
    const projectId = before.projectId as string;
    const [first] = r.sim.serviceAccounts(projectId);
    expect(r.sim.serviceAccounts(projectId)).toHaveLength(1);
    // A rotation now: the guide's program has no rotation trigger, so the user replaces the account (`--replace`).
    const urn = (await shell.run("pulumi stack --show-urns", dir, env, false))
      .split(/\s+/)
      .find((w) => w.startsWith("urn:pulumi:") && w.endsWith("::deployer"));
    expect(urn).toBeDefined();
    await shell.run(`pulumi up --yes --non-interactive --replace '${urn ?? ""}'`, dir, env);
    const rotated = r.sim.serviceAccounts(projectId);
    expect(rotated).toHaveLength(1);
    expect(rotated[0].id).not.toBe(first.id);
    expect((await outputs()).deployerToken).toBe("[secret]");
    await shell.run("pulumi destroy --yes --non-interactive", dir, env);
    expect(r.sim.serviceAccounts(projectId)).toEqual([]);
    const secrets = [r.sim.token, ...r.sim.issuedSecrets()];
    expectNoPlaintextSecrets(shell.printed, secrets, "what the guide's commands printed");
    expect(expectNoSecretsInFiles(backend, secrets)).toBeGreaterThan(0);
  });
}

export function describeJavaPublished(r: RehearsalRun): void {
  describe("Java, docs/java.md's path: a dependency on a range through a mirror, the plugin downloaded", () => {
    const shell = new GuideShell();
    const seeded = { appProjectId: "", appId: "", volumeId: "" };
    const GROUP_DIR = path.join(JAVA_LOCAL_REPO, ...REHEARSAL_GROUP.split("."));
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
      sh(sandboxed(command, backend, { "pims:baseUrl": r.sim.baseUrl, ...seeded }));
    const outputs = (): Promise<Record<string, unknown>> => shell.outputs(dir, env);

    beforeAll(async () => {
      const toolchain = java.toolchain(); // the Java host beside the CLI, Maven first on PATH
      Object.assign(seeded, seedPageObjects(r.sim));
      const user = path.join(r.scratch, "java-user");
      dir = path.join(user, "my-infra");
      backend = path.join(user, "backend");
      pulumiHome = path.join(user, "pulumi-home");
      node = stubNode(path.join(user, "stub"));
      fs.mkdirSync(dir, { recursive: true });
      // The user's Maven settings (a <mirror> to the rehearsal's loopback repository) in a fresh HOME. The
      // suite's local repository keeps the Pulumi SDK and Maven's plugins cached; the rehearsal's group is removed from
      // it first, so the jar must come from the loopback repository.
      fs.rmSync(GROUP_DIR, { recursive: true, force: true });
      env = {
        ...userEnv(
          path.join(user, "home"),
          { mavenSettings: mavenMirrorSettings(JAVA_LOCAL_REPO, `${r.maven.url}/maven2`) },
          {
            home: pulumiHome,
            backend,
            stubDir: node.dir,
            extraPath: toolchain.path,
          },
        ),
        PIMS_TOKEN: r.sim.token,
      };
      const page = writeJavaPublishedProject(dir, REHEARSAL_GROUP, JAVA_RANGE);
      // The page's stack commands (the clone's `mvn install` and the `--file` install are the unreleased path).
      server = downloadsFromNow(r.download);
      mavenGetsBefore = r.maven.gets.length; // the publishes' own checks aside
      for (const command of page.commands) await follow(command);
      rotate = page.rotate;
    }, ENGINE_SETUP_TIMEOUT_MS);

    test("Maven resolved the range by the repository's metadata, fetched the jar; the engine the plugin", async () => {
      expect(fs.readFileSync(path.join(dir, "pom.xml"), "utf8")).toContain(`<version>${JAVA_RANGE}</version>`);
      const gets = r.maven.gets.slice(mavenGetsBefore);
      expect(gets).toContainEqual({ path: "/maven2/test/rehearsal/pims/maven-metadata.xml", status: 200 });
      const jar = `/maven2/test/rehearsal/pims/${VERSION}/pims-${VERSION}.jar`;
      expect(gets.filter((g) => g.path === jar)).toEqual([expect.objectContaining({ status: 200 })]);
      expect(
        fs
          .readFileSync(path.join(GROUP_DIR, "pims", VERSION, `pims-${VERSION}.jar`))
          .equals(fs.readFileSync(path.join(r.checkout, "dist", `pims-${VERSION}.jar`))),
      ).toBe(true);
      expect(server.requests).toEqual([{ path: `GET /${archiveName()}`, status: 200 }]);
      expect(installedPlugins(pulumiHome)).toEqual([`resource-pims-v${VERSION}`]);
      const out = await outputs();
      expect(out.deployerToken).toBe("[secret]");
      expect(r.sim.serviceAccounts(out.projectId as string)).toHaveLength(2);
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
      expect(r.sim.serviceAccounts(before.projectId as string)).toEqual([]);
      expectNoTokenLeft({
        printed: shell.printed,
        secrets: [r.sim.token, ...r.sim.issuedSecrets()],
        backend,
        project: dir,
      });
    });
  });
}
