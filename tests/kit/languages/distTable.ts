/**
 * The dist suites (Go, Python, YAML) written once: `describeDist(row)` starts the release's loopback server and a
 * simulator, makes the stub `node`, the environment (./dist, with the row's runner's toolchain) and the stack, and
 * registers the shared steps (first up, a rotation in each mode, refresh and destroy, the token scan). A row names a
 * language, an SDK source and a program, and says how its SDK and program are installed; its language's runner says
 * how the program runs: `inline`, as an Automation API inline program (Go, Python: no language host for them can be
 * obtained here), or under its host by the pulumi CLI (YAML), where `pulumi install` downloads the plugin before the
 * first up and a no-change preview follows the refresh.
 */
import * as path from "node:path";
import * as fs from "node:fs";
import { tempDir } from "../../../scripts/engine";
import type { PimsSimulator } from "../../../simulator";
import { distEnv, downloadOverride, ensureDist, startDistServer, stubNode, type Dist, type DistServer } from "./dist";
import {
  destroyLeavesNothing,
  distStack,
  firstUpDownloadsPlugin,
  initStack,
  noPlaintextTokens,
  refreshChangesNothing,
  rotationInEachMode,
  type AccountOutputs,
  type DistStack,
} from "./distSteps";
import type { InlineDriver, LanguageRow, Toolchain } from "./index";
import { RUNNERS } from "./runners";
import { ENGINE_SETUP_TIMEOUT_MS } from "../engine/engine";
import { startSimulator } from "../sim/simulator";
import { tearDown } from "../teardown";

/**
 * The outputs naming the accounts in the rotation programs of the inline rows and the published paths
 * (tests/engine/programs/go/rotation/main.go, tests/engine/programs/python/rotation_program.py).
 */
export const ROTATION_OUTPUTS: AccountOutputs = {
  ci: "ciAccountId",
  app: "appAccountId",
  appPrevious: "appPreviousAccountId",
  token: "appToken",
};

/** What a dist row's `install` is given: the release, a scratch directory, the empty project directory. */
export interface DistInstallContext {
  dist: Dist;
  scratch: string;
  /** The environment of every run (`distEnv` with the row's runner's toolchain), `extraPath` first and `extra` set. */
  makeEnv(extraPath?: string[], extra?: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
}

/**
 * One row of a table of stacks (the dist rows here, the published paths of ../release/publishedPaths): a language (its
 * runner says how its program runs: `inline`, or under its host through the pulumi CLI, see the top of this file), an
 * SDK source and a program. `install` installs the SDK and program into `ctx.dir` and writes Pulumi.yaml; it resolves
 * with the env of every run and, for an inline runner, the driver.
 */
export interface StackRow<C> extends LanguageRow {
  /** The simulator project's name and the scratch directory's name or prefix (`dist-go`). */
  name: string;
  /** What the first up creates, as the test's name says it ("both accounts"). */
  creates: string;
  /** How many resources the program creates (and destroy deletes). */
  resources: number;
  /** The program's outputs naming the accounts. */
  names: AccountOutputs;
  /** Whether the stack's config names an app (`appId`) of the project. */
  withApp?: boolean;
  install(ctx: C & { dir: string }): Promise<{ env: NodeJS.ProcessEnv; runProgram?: InlineDriver }>;
  /** The row's own checks after the first up. */
  afterUp?(): void;
}

/** Where a table puts a row's stack: the simulator, the download server, a root directory, the install's context. */
export interface StackPlace<C> {
  sim: PimsSimulator;
  server: DistServer;
  root: string;
  context(node: ReturnType<typeof stubNode>, toolchain: Toolchain): C;
}

/** A row's project directory, environment and stack, for the tests a suite adds after. */
export interface RowStack {
  dir: string;
  env: NodeJS.ProcessEnv;
  stack: DistStack;
}

/**
 * Registers a row's set-up in the place `place` makes (a project with the config `triggerReplace` and `triggerOverlap`,
 * the stub `node`, the project directory `my-infra` under the place's root, the row's install, the stack) and the
 * shared steps; call at the top level of a suite file or a describe block.
 */
export function describeStackRow<C>(row: StackRow<C>, place: () => Promise<StackPlace<C>>): () => RowStack {
  const runner = RUNNERS[row.language];
  let suite: RowStack;

  beforeAll(async () => {
    const { sim, server, root, context } = await place();
    const projectId = sim.addProject({ name: row.name }).id;
    const config: Record<string, string> = { projectId, triggerReplace: "1", triggerOverlap: "1" };
    if (row.withApp) config.appId = sim.addApp(projectId, "web").id;
    const node = stubNode(path.join(root, "stub"));
    const dir = path.join(root, "my-infra");
    fs.mkdirSync(dir, { recursive: true });
    const { env, runProgram } = await row.install({ ...context(node, runner.toolchain()), dir });
    await initStack(dir, env, "dev", sim, config);
    suite = { dir, env, stack: distStack({ sim, projectId, server, node, dir, env, runProgram }) };
  }, ENGINE_SETUP_TIMEOUT_MS);

  const cli = runner.runs === "host";
  const first = cli
    ? `pulumi install downloads the plugin into the empty cache; up creates ${row.creates} with it`
    : `the first up downloads the plugin into the empty cache and creates ${row.creates}`;
  test(first, async () => {
    await firstUpDownloadsPlugin(suite.stack, row.resources, row.names, cli);
    row.afterUp?.();
  });

  test("a rotation in each mode: ci replaced, app rotated with its previous account kept live", async () => {
    await refreshChangesNothing(suite.stack);
    await rotationInEachMode(suite.stack, row.names, {
      replace: ["triggerReplace", "2"],
      overlap: ["triggerOverlap", "2"],
    });
  });

  const preview = cli ? ", nor does a preview" : "";
  test(`refresh changes nothing${preview}; destroy leaves 0 live accounts; node was never called`, async () => {
    await refreshChangesNothing(suite.stack);
    if (cli) await suite.stack.pulumi(["preview", "--expect-no-changes", "--non-interactive"]);
    await destroyLeavesNothing(suite.stack, row.resources);
  });

  test("no token in plaintext in the state, the backend's files or the engine's output", async () => {
    await noPlaintextTokens(suite.stack);
  });

  return () => suite;
}

/** The release and scratch directories of a dist suite, with its row's stack. */
export interface DistSuite extends RowStack {
  dist: Dist;
  scratch: string;
}

/** Registers a dist row: the release's server, a simulator, a scratch directory, then {@link describeStackRow}. */
export function describeDist(row: StackRow<DistInstallContext>): () => DistSuite {
  let dist: Dist;
  let server: DistServer;
  let sim: PimsSimulator;
  let scratch: string;
  const rowStack = describeStackRow(row, async () => {
    dist = ensureDist();
    server = await startDistServer(dist.dir);
    sim = await startSimulator({ profile: "default" });
    scratch = tempDir(`pims-${row.name}-`);
    const context = (node: ReturnType<typeof stubNode>, toolchain: Toolchain): DistInstallContext => ({
      dist,
      scratch,
      makeEnv: (extraPath = [], extra = {}) => ({
        ...distEnv({
          home: path.join(scratch, "home"),
          backend: path.join(scratch, "backend"),
          stubDir: node.dir,
          override: downloadOverride(server.url, dist.downloadUrl),
          extraPath: [...extraPath, ...toolchain.path],
        }),
        ...toolchain.env,
        ...extra,
      }),
    });
    return { sim, server, root: scratch, context };
  });
  afterAll(() => tearDown([sim, server], scratch));
  return () => ({ ...rowStack(), dist, scratch });
}
