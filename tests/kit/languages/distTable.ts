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
import {
  destroyLeavesNothing,
  distEnv,
  downloadOverride,
  ensureDist,
  firstUpDownloadsPlugin,
  initStack,
  distStack,
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
import { go } from "./go";
import type { InlineDriver, Language, LanguageRow, Runner } from "./index";
import { python } from "./python";
import { yaml } from "./yaml";
import { ENGINE_SETUP_TIMEOUT_MS } from "../engine";
import { startSimulator } from "../simulator";
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

/** The runners of the dist rows. */
const RUNNERS: Partial<Record<Language, Runner>> = { go, python, yaml };

/** What a row's `install` is given: the release, a scratch directory, the empty project directory. */
export interface DistInstallContext {
  dist: Dist;
  scratch: string;
  /** The project directory (created, empty). */
  dir: string;
  /** The environment of every run (`distEnv` with the row's runner's toolchain), `extraPath` first and `extra` set. */
  makeEnv(extraPath?: string[], extra?: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
}

/**
 * One row of the dist table: a language (its runner says how its program runs: `inline`, or under its host through
 * the pulumi CLI, see the top of this file), an SDK source and a program. `install` installs the SDK and program into
 * `ctx.dir` and writes Pulumi.yaml; it resolves with the env of every run and, for an inline runner, the driver.
 */
export interface DistLanguage extends DistRow, LanguageRow {
  install(ctx: DistInstallContext): Promise<{ env: NodeJS.ProcessEnv; runProgram?: InlineDriver }>;
}

/** What every row of the dist table says. */
interface DistRow {
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
}

/** The release, scratch and project directories and environment of a dist suite, for the tests a row adds after. */
export interface DistSuite {
  dist: Dist;
  scratch: string;
  dir: string;
  env: NodeJS.ProcessEnv;
  stack: DistStack;
}

/** Registers the set-up and the shared steps of `lang`; call at the top level of a suite file. */
export function describeDist(lang: DistLanguage): () => DistSuite {
  const runner = RUNNERS[lang.language];
  if (runner === undefined) throw new Error(`the dist table has no runner for ${lang.language}`);
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
    const toolchain = runner.toolchain();
    const makeEnv = (extraPath: string[] = [], extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
      ...distEnv({
        home: path.join(scratch, "home"),
        backend: path.join(scratch, "backend"),
        stubDir: node.dir,
        override: downloadOverride(server.url, dist.downloadUrl),
        extraPath: [...extraPath, ...toolchain.path],
      }),
      ...toolchain.env,
      ...extra,
    });
    const { env, runProgram } = await lang.install({
      dist,
      scratch,
      dir,
      makeEnv,
    });
    await initStack(dir, env, "dev", sim, config);
    suite = { dist, scratch, dir, env, stack: distStack({ sim, projectId, server, node, dir, env, runProgram }) };
  }, ENGINE_SETUP_TIMEOUT_MS);

  afterAll(() => tearDown([sim, server], scratch));

  const cli = runner.runs === "host";
  const first = cli
    ? `pulumi install downloads the plugin into the empty cache; up creates ${lang.creates} with it`
    : `the first up downloads the plugin into the empty cache and creates ${lang.creates}`;
  test(first, async () => {
    await firstUpDownloadsPlugin(suite.stack, lang.resources, lang.names, cli);
  });

  test("a rotation in each mode: ci replaced, app rotated with its previous account kept live", async () => {
    await refreshChangesNothing(suite.stack);
    await rotationInEachMode(suite.stack, lang.names, {
      replace: ["triggerReplace", "2"],
      overlap: ["triggerOverlap", "2"],
    });
  });

  const preview = cli ? ", nor does a preview" : "";
  test(`refresh changes nothing${preview}; destroy leaves 0 live accounts; node was never called`, async () => {
    await refreshChangesNothing(suite.stack);
    if (cli) await suite.stack.pulumi(["preview", "--expect-no-changes", "--non-interactive"]);
    await destroyLeavesNothing(suite.stack, lang.resources);
  });

  test("no token in plaintext in the state, the backend's files or the engine's output", async () => {
    await noPlaintextTokens(suite.stack);
  });

  return () => suite;
}
