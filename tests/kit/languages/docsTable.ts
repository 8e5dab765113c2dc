/**
 * The suites that follow a docs page literally (tests/engine/docs/{java,python,yaml}.test.ts and
 * tests/engine/sdks/go.test.ts) written once, in the spirit of the dist table (./distTable):
 * `describeDocsPage(row, tests)` starts a simulator seeded with what the page's program expects, makes an empty
 * project directory holding the files the page says to take from the release (./dist), a `node` first on
 * PATH that fails if called, the user's environment (an empty plugin cache, no plugin on PATH, no download server, the
 * token as `PIMS_TOKEN`, no backend: the page logs in itself), then follows the page's `guide:` blocks in the page's
 * order: its files written unchanged, its commands run by bash with the sandbox's substitutions (./guide's
 * `sandboxed`) or, for the few lines the row names, the row's own way. It registers the shared steps around the row's
 * tests: first, the plugin the page installs came from its archive into the empty cache and Node was never called;
 * last, the scan for tokens in everything the commands printed, the backend and the stack's config.
 *
 * A row says only what differs per language: the language (its runner's toolchain goes on PATH), the page, the project
 * directory's name, the release files, what the service holds, the machine beyond the toolchain, and the page lines it
 * runs its own way (see each suite's header).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { tempDir } from "../../../scripts/engine";
import type { PimsSimulator, SimulatorOptions } from "../../../simulator";
import { distEnv, ensureDist, installedPlugins, stubNode, VERSION, type Dist } from "./dist";
import { ENGINE_SETUP_TIMEOUT_MS } from "../engine/engine";
import { expectNoTokenLeft, GuideShell, readSteps, sandboxed } from "./guide";
import { inlineResult, run, type Language } from "./index";
import { RUNNERS } from "./runners";
import { startSimulator } from "../sim/simulator";
import { tearDown } from "../teardown";

/** What an inline program printed on its RESULT line: the changes and the outputs (whether each is secret). */
export type InlineResult = ReturnType<typeof inlineResult>;

/** A docs page being followed: what the row's own steps and tests use. */
export interface DocsPage {
  sim: PimsSimulator;
  scratch: string;
  /** The project directory, the page's commands' working directory. */
  dir: string;
  /** The `file://` backend `pulumi login --local` is sent to. */
  backend: string;
  env: NodeJS.ProcessEnv;
  node: ReturnType<typeof stubNode>;
  /** The seeded ids, by the names of the page's config keys. */
  seeded: Record<string, string>;
  /** Runs one command in the project with bash; its output is kept for the token scan unless `record` is false. */
  sh(command: string, record?: boolean): Promise<string>;
  /** One line of the page as this suite runs it: the row's own way, or with the sandbox's substitutions. */
  follow(line: string): Promise<void>;
  /** The stack's outputs: secrets as `[secret]`, or revealed (the test's own look, not recorded). */
  outputs(reveal?: boolean): Promise<Record<string, unknown>>;
  /** Runs an Automation API inline program (the replaced `pulumi up`, or destroy after the page); its RESULT line. */
  inline(cmd: string, args: string[], extraEnv?: NodeJS.ProcessEnv): Promise<InlineResult>;
}

/** One docs page of the table: a language's page, its SDK from the repository or `dist/` (the page says which). */
export interface DocsPageRow {
  language: Language;
  /** The page under docs/ (`java.md`); its name, without `.md`, names the scratch directory. */
  page: string;
  /** The project directory's name, as the page has it (`my-infra`). */
  project: string;
  /** The simulator's options (its profile). */
  simulator?: SimulatorOptions;
  /** What the page's program expects in the service; the ids by the names of the page's config keys. */
  seed(sim: PimsSimulator): Record<string, string>;
  /** The files the page says to take from the release (default: this platform's plugin archive). */
  releaseFiles?(dist: Dist): string[];
  /** The machine beyond the shared sandbox and the runner's toolchain (the clone beside the project). */
  prepare?(scratch: string): void;
  /** Page lines this suite runs its own way, each with what runs instead. */
  replaced?: Record<string, (page: DocsPage) => Promise<void>>;
  /** How many tokens the service issued at least by the end (each one is scanned for). */
  issued?: number;
}

/**
 * Registers the set-up (the page followed), the shared steps and, between them, the row's `tests`, which read the
 * page through the function they are given (at run time); call at the top level of a suite file.
 */
export function describeDocsPage(row: DocsPageRow, tests: (page: () => DocsPage) => void): void {
  const shell = new GuideShell();
  let page: DocsPage;
  let scratch = "";
  let sim: PimsSimulator | undefined;

  beforeAll(async () => {
    const dist = ensureDist();
    const service = await startSimulator(row.simulator);
    sim = service;
    const seeded = row.seed(service);
    scratch = tempDir(`pims-docs-${row.page.replace(/\.md$/, "")}-`);
    const dir = path.join(scratch, row.project);
    fs.mkdirSync(dir);
    for (const f of row.releaseFiles?.(dist) ?? [dist.archive]) fs.copyFileSync(f, path.join(dir, path.basename(f)));
    const node = stubNode(path.join(scratch, "stub"));
    row.prepare?.(scratch);
    const machine = RUNNERS[row.language].toolchain();
    const backend = path.join(scratch, "backend");
    const env: NodeJS.ProcessEnv = {
      ...distEnv({
        home: path.join(scratch, "home"),
        backend,
        stubDir: node.dir,
        override: "",
        extraPath: machine.path,
      }),
      ...machine.env,
      PIMS_TOKEN: service.token,
    };
    delete env.PULUMI_BACKEND_URL; // the page logs in itself
    page = {
      sim: service,
      scratch,
      dir,
      backend,
      env,
      node,
      seeded,
      sh: (command, record = true) => shell.run(command, dir, env, record),
      follow: async (line) => {
        const own = row.replaced?.[line];
        if (own) await own(page);
        else await page.sh(sandboxed(line, backend, { "pims:baseUrl": service.baseUrl, ...seeded }));
      },
      outputs: (reveal = false) => shell.outputs(dir, env, reveal),
      inline: async (cmd, args, extraEnv = {}) => {
        const ran = await run(cmd, args, { cwd: dir, env: { ...env, ...extraEnv } });
        shell.printed += ran.stderr + ran.stdout;
        return inlineResult(ran);
      },
    };
    for (const step of readSteps(row.page)) {
      if ("file" in step) {
        fs.mkdirSync(path.dirname(path.join(dir, step.file)), { recursive: true });
        fs.writeFileSync(path.join(dir, step.file), step.text);
      } else for (const line of step.commands) await page.follow(line);
    }
  }, ENGINE_SETUP_TIMEOUT_MS);

  afterAll(() => tearDown([sim], scratch));

  test(`docs/${row.page} followed in order: the plugin from the release's archive, in the empty cache; no Node`, () => {
    expect(installedPlugins(path.join(page.scratch, "home"))).toEqual([`resource-pims-v${VERSION}`]);
    expect(page.node.calls()).toEqual([]);
  });

  tests(() => page);

  test("no token in plaintext in anything the commands printed, in the backend or in the stack's config", () => {
    const secrets = [page.sim.token, ...page.sim.issuedSecrets()];
    expect(page.sim.issuedSecrets().length).toBeGreaterThanOrEqual(row.issued ?? 1);
    expectNoTokenLeft({ printed: shell.printed, secrets, backend: page.backend, project: page.dir });
  });
}

/**
 * What the programs of docs/python.md and docs/go.md expect in the service: a project (`name`) with a 50 GB volume
 * `default-us-east-1` and an app `web`. Returns their ids by the names of the pages' config keys.
 */
export function seedAppProject(sim: PimsSimulator, name: string): Record<string, string> {
  const projectId = sim.addProject({ name }).id;
  const volumeId = sim.addVolume(projectId, { id: "default-us-east-1", sizeGb: 50 }).id;
  return { projectId, volumeId, appId: sim.addApp(projectId, "web").id };
}
