/**
 * The dist suites of the inline-program languages (Go, Python) written once: `describeDist(row)` starts the release's
 * loopback server and a simulator, makes the stub `node`, the environment (tests/kit/dist.ts) and the stack, and
 * registers the shared steps (first up, a rotation in each mode, refresh and destroy, the token scan). A row says only
 * what differs per language: how its SDK and program are installed and how the program is driven.
 */
import * as path from "node:path";
import * as fs from "node:fs";
import { tempDir } from "../../scripts/engine";
import type { PimsSimulator } from "../../simulator";
import {
  destroyLeavesNothing,
  distEnv,
  downloadOverride,
  ensureDist,
  firstUpDownloadsPlugin,
  initStack,
  inlineStack,
  noPlaintextTokens,
  refreshChangesNothing,
  rotationInEachMode,
  startDistServer,
  stubNode,
  type AccountOutputs,
  type Dist,
  type DistServer,
  type DistStack,
} from "./dist";
import { ENGINE_SETUP_TIMEOUT_MS } from "./engine";
import type { Ran } from "./sdk";
import { startSimulator } from "./simulator";
import { tearDown } from "./teardown";

/** What a row's `install` is given: the release, a scratch directory, the empty project directory. */
export interface DistInstallContext {
  dist: Dist;
  scratch: string;
  /** The project directory (created, empty). */
  dir: string;
  /** The environment of every run (`distEnv`), with `extraPath` after the stub node and `extra` set. */
  makeEnv(extraPath: string[], extra?: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
}

/** One language of the dist table. */
export interface DistLanguage {
  /** The simulator project's name and the scratch directory's prefix (`dist-go`). */
  name: string;
  /** What the first up creates, as the test's name says it ("both accounts"). */
  creates: string;
  /** How many resources the program creates (and destroy deletes). */
  resources: number;
  /** The program's outputs naming the accounts. */
  names: AccountOutputs;
  /** Whether the stack's config names an app (`appId`) of the project. */
  withApp?: boolean;
  /** Installs the SDK and program into `ctx.dir` and writes Pulumi.yaml; resolves with the env and the driver. */
  install(ctx: DistInstallContext): Promise<{
    env: NodeJS.ProcessEnv;
    runProgram(operation: "up" | "refresh" | "destroy"): Promise<Ran>;
  }>;
}

/** The project directory and environment of a dist suite, for the tests a row adds after the shared ones. */
export interface DistSuite {
  dir: string;
  env: NodeJS.ProcessEnv;
  stack: DistStack;
}

/** Registers the set-up and the shared steps of `lang`; call at the top level of a suite file. */
export function describeDist(lang: DistLanguage): () => DistSuite {
  let server: DistServer;
  let sim: PimsSimulator;
  let scratch: string;
  let suite: DistSuite;

  beforeAll(async () => {
    const dist = ensureDist();
    server = await startDistServer(dist.dir);
    sim = await startSimulator({ profile: "default" });
    const projectId = sim.addProject({ name: lang.name }).id;
    const config: Record<string, string> = { projectId, triggerReplace: "1", triggerOverlap: "1" };
    if (lang.withApp) config.appId = sim.addApp(projectId, "web").id;
    scratch = tempDir(`pims-${lang.name}-`);
    const node = stubNode(path.join(scratch, "stub"));
    const dir = path.join(scratch, "project");
    fs.mkdirSync(dir);
    const makeEnv = (extraPath: string[], extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
      ...distEnv({
        home: path.join(scratch, "home"),
        backend: path.join(scratch, "backend"),
        stubDir: node.dir,
        override: downloadOverride(server.url, dist.downloadUrl),
        extraPath,
      }),
      ...extra,
    });
    const { env, runProgram } = await lang.install({ dist, scratch, dir, makeEnv });
    await initStack(dir, env, "dev", sim, config);
    suite = { dir, env, stack: inlineStack({ sim, projectId, server, node, dir, env, runProgram }) };
  }, ENGINE_SETUP_TIMEOUT_MS);

  afterAll(() => tearDown([sim, server], scratch));

  test(`the first up downloads the plugin into the empty cache and creates ${lang.creates}`, async () => {
    await firstUpDownloadsPlugin(suite.stack, lang.resources, lang.names);
  });

  test("a rotation in each mode: ci replaced, app rotated with its previous account kept live", async () => {
    await refreshChangesNothing(suite.stack);
    await rotationInEachMode(suite.stack, lang.names, {
      replace: ["triggerReplace", "2"],
      overlap: ["triggerOverlap", "2"],
    });
  });

  test("refresh changes nothing; destroy leaves 0 live accounts; node was never called", async () => {
    await refreshChangesNothing(suite.stack);
    await destroyLeavesNothing(suite.stack, lang.resources);
  });

  test("no token in plaintext in the state, the backend's files or the engine's output", async () => {
    await noPlaintextTokens(suite.stack);
  });

  return () => suite;
}
