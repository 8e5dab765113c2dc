/**
 * An engine suite's set-up, written once. `useEngineStack`: the engine (and the YAML host for a YAML project), the
 * suite's simulators on loopback, a scratch directory, one stack (backend `<scratch>/backend`, `pims:baseUrl` and the
 * secret `pims:token` of the first simulator) and what the engine printed; after the suite, whatever was started is
 * stopped and the scratch removed. `useEngineScratch`: the same without the stack, for suites that make their own
 * stacks or examples (with simulators of their own per test). Plus the steps the suites' bodies share: an `up` checked
 * against its change summary, a rotation, the requests as `METHOD /path as <principal>`, a resource's outputs as
 * shown, an operation repeated against a faulty service, and the closing secret scan.
 */
import { execFile } from "node:child_process";
import * as path from "node:path";
import { promisify } from "node:util";
import type { OutputMap, Stack } from "@pulumi/pulumi/automation";
import { createPimsStack, ensureEngine, tempDir, type PimsStackOptions } from "../../../scripts/engine";
import { createYamlStack, ensureYamlHost } from "../../../scripts/engine/yaml";
import type { PimsSimulator, SimulatorOptions } from "../../../simulator";
import { E2E_TIMEOUT_MS, ENGINE_SETUP_TIMEOUT_MS, EngineOutput, shownOutputs } from "./engine";
import { testClient } from "../sim/client";
import { prepareExample, type ExampleRun, type PrepareOptions } from "../languages/examples";
import { expectNoSecretsInOutputOrFiles } from "../secrets/secrets";
import { startSimulator } from "../sim/simulator";
import { tearDown } from "../teardown";

/** The stack a suite asks for: what differs from suite to suite (the backend, token and default address do not). */
export type SuiteStack = Omit<PimsStackOptions, "backendDir" | "baseUrl" | "token"> & {
  /** `pims:baseUrl`; default the first simulator's address. */
  baseUrl?: string;
  /** `workDir` holds a YAML project (see writeYamlProject): the stack runs it under the official YAML host. */
  yaml?: boolean;
};

export interface EngineScratchOptions {
  /** Prefix of the scratch directory's name (e.g. `pims-e2e-yaml-`). */
  scratchPrefix: string;
  /** The simulators' profile; default PIMS_SIM_PROFILE, else `default` (see startSimulator). */
  profile?: SimulatorOptions["profile"];
  /**
   * How many simulators (services) the suite talks to, started once for the whole suite; default 1 (0 for a suite
   * whose tests each start their own with {@link EngineSuite.simulator}). A stack's credentials are the first one's.
   */
  simulators?: number;
  /** The YAML host is needed (a YAML program, or `pulumi package get-schema`). */
  yamlHost?: boolean;
  /** Each test's timeout; default E2E_TIMEOUT_MS (a handful of engine operations). */
  testTimeoutMs?: number;
  /** What else to stop after the suite, before its simulators (e.g. consumers calling them). */
  stopAlso?(): Array<{ stop(): Promise<void> }>;
}

export interface EngineSuiteOptions extends EngineScratchOptions {
  /**
   * In beforeAll, once the simulators run and the scratch directory exists: seeds the simulators, writes the project
   * and returns the stack's options.
   */
  stack(suite: EngineSuite): SuiteStack | Promise<SuiteStack>;
}

/** What one `pulumi` command did: its exit code, stdout, stderr, and both together. */
export interface PulumiRun {
  code: number;
  stdout: string;
  stderr: string;
  out: string;
}

/** What the hook hands a suite; its simulators, scratch and stack are set once beforeAll has run. */
export class EngineSuite {
  /** Everything the engine printed across the suite's operations (pass `engine.opts` to each). */
  readonly engine = new EngineOutput();
  /** The suite's simulators, in the order started. */
  readonly sims: PimsSimulator[] = [];
  /** The scratch directory: the backend, the project, anything else the suite writes. */
  scratch = "";
  /** The directory of the `pulumi` CLI (and the language hosts beside it). */
  engineDir = "";
  /** The simulators the current test started ({@link simulator}); stopped after it. */
  readonly testSims: PimsSimulator[] = [];
  private created?: Stack;

  /** The first simulator: the service whose address and token the stack holds. */
  get sim(): PimsSimulator {
    return this.sims[0];
  }

  get stack(): Stack {
    if (!this.created) throw new Error("the suite's stack is not set up (its beforeAll failed or has not run)");
    return this.created;
  }

  set stack(stack: Stack) {
    this.created = stack;
  }

  /** A simulator for the current test alone (stopped after it), with the suite's profile. */
  async simulator(profile?: SimulatorOptions["profile"]): Promise<PimsSimulator> {
    const sim = await startSimulator({ profile });
    this.testSims.push(sim);
    return sim;
  }

  /**
   * A simulator for the current test seeded with a project (named `name`; with the `id` an example's config names, if
   * given) and its app `web`, as every example's program expects to find them.
   */
  async simulatorWithApp(name: string, id?: string): Promise<{ sim: PimsSimulator; projectId: string; appId: string }> {
    const sim = await this.simulator();
    return { sim, ...addProjectWithApp(sim, name, id) };
  }

  /**
   * An example copied into the scratch directory in one language, its stack against `sim` (its address and token, a
   * backend of its own): {@link prepareExample} with what every run of a suite shares filled in.
   */
  prepareExample(
    sim: PimsSimulator,
    o: Omit<PrepareOptions, "scratch" | "backendDir" | "baseUrl" | "token" | "engineDir">,
  ): Promise<ExampleRun> {
    const backendDir = path.join(this.scratch, `backend-${o.scenario}-${o.language}`);
    const { scratch, engineDir } = this;
    return prepareExample({ ...o, scratch, engineDir, backendDir, baseUrl: sim.baseUrl, token: sim.token });
  }

  /** `METHOD /path as <principal>` for each request `sim` received since its requests were last cleared. */
  calls(sim: PimsSimulator = this.sim): string[] {
    return sim.requests.map((r) => `${r.method} ${r.path} as ${r.principal ?? "nobody"}`);
  }

  /** The {@link calls} that changed something (all but GET). */
  writes(sim: PimsSimulator = this.sim): string[] {
    return this.calls(sim).filter((c) => !c.startsWith("GET "));
  }

  /** Forgets every simulator's request log, so that what follows is the next step's alone. */
  clearRequests(): void {
    for (const sim of this.sims) sim.clearRequests();
  }

  /**
   * One `pulumi up` as a step: the request logs cleared first, the up's change summary checked against `changes`; the
   * stack outputs.
   */
  async up(changes: Record<string, number>): Promise<OutputMap> {
    this.clearRequests();
    const up = await this.stack.up(this.engine.opts);
    expect(up.summary.result).toBe("succeeded");
    expect(up.summary.resourceChanges).toEqual(changes);
    return up.outputs;
  }

  /**
   * A rotation as a step, after the test changed what triggers it: {@link up}, then the account `name`'s new id (the
   * stack output `idOutput`) and token, each checked to differ from the ones it held (`id`, `token`).
   */
  async upRotating(
    changes: Record<string, number>,
    account: { name: string; idOutput: string; id: string; token: string },
  ): Promise<{ outputs: OutputMap; id: string; token: string }> {
    const outputs = await this.up(changes);
    const id = outputs[account.idOutput].value as string;
    const token = await this.tokenOf(account.name);
    expect(id).not.toBe(account.id);
    expect(token).not.toBe(account.token);
    return { outputs, id, token };
  }

  /**
   * The `pulumi` CLI as a user runs it in `cwd` with the stack's environment (plus `env`), asynchronously (the
   * simulators serve in this process); what it printed is added to the engine's output (the closing scan reads it).
   */
  async pulumi(args: string[], o: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<PulumiRun> {
    const ws = this.stack.workspace as unknown as { envVars: Record<string, string> };
    const env = { ...process.env, ...ws.envVars, ...o.env };
    const exe = path.join(this.engineDir || ensureEngine(), "pulumi");
    const r = await promisify(execFile)(exe, args, { cwd: o.cwd, env, maxBuffer: 64 * 1024 * 1024 }).then(
      (ok) => ({ code: 0, stdout: ok.stdout, stderr: ok.stderr }),
      (e: { code?: number; stdout?: string; stderr?: string }) => ({
        code: typeof e.code === "number" ? e.code : -1,
        stdout: e.stdout ?? "",
        stderr: e.stderr ?? "",
      }),
    );
    this.engine.opts.onOutput(r.stdout + r.stderr);
    return { ...r, out: r.stdout + r.stderr };
  }

  /** A resource's outputs as `--show-secrets` shows them; `type` is a suffix of the type token. */
  shown(name: string, type = ":ServiceAccount"): Promise<Record<string, unknown>> {
    return shownOutputs(this.stack, type, name);
  }

  /** The token a ServiceAccount of the stack holds now (from the state, revealed). */
  async tokenOf(name: string): Promise<string> {
    return (await this.shown(name)).token as string;
  }

  /** Does `token` authenticate with `sim` (one read of the project's API keys, no retry)? */
  async tokenWorks(token: string, projectId: string, sim: PimsSimulator = this.sim): Promise<boolean> {
    try {
      await testClient(sim, { token, retries: 0 }).listApiKeys(projectId);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * The closing scan: no secret every simulator issued, nor any of `more`, in what the engine printed or in any file
   * under the scratch directory (backend checkpoints, backups and history; the stack config). Returns the secrets.
   */
  expectNoSecrets(more: readonly string[] = []): string[] {
    const secrets = [...this.sims.flatMap((s) => s.issuedSecrets()), ...more];
    expectNoSecretsInOutputOrFiles(this.engine, this.scratch, secrets);
    return secrets;
  }
}

/**
 * Runs an engine operation against a faulty service until it succeeds, `max` runs at most: how many it took. Each
 * failure goes to `failed`; the last one is thrown inside an error naming the operation.
 */
export async function runUntilOk(
  what: string,
  max: number,
  op: () => Promise<unknown>,
  failed: (e: unknown) => void = () => undefined,
): Promise<number> {
  for (let run = 1; ; run++) {
    try {
      await op();
      return run;
    } catch (e) {
      failed(e);
      if (run >= max)
        throw new Error(`no convergence after ${run} runs of ${what}; last error: ${String(e).slice(0, 2000)}`, {
          cause: e,
        });
    }
  }
}

/** Seeds `sim` with a project (named `name`, with `id` if given) and its app `web`. */
export function addProjectWithApp(sim: PimsSimulator, name: string, id?: string): { projectId: string; appId: string } {
  const projectId = sim.addProject(id === undefined ? { name } : { id, name }).id;
  return { projectId, appId: sim.addApp(projectId, "web").id };
}

/** The stack outputs' values by name (for the string outputs a test carries from step to step). */
export const valuesOf = (outputs: OutputMap): Record<string, string> =>
  Object.fromEntries(Object.entries(outputs).map(([k, o]) => [k, o.value as string]));

/**
 * Registers an engine suite's beforeAll (the engine, the YAML host if asked, the suite's simulators, the scratch
 * directory), afterEach (the test's own simulators stopped) and afterAll (teardown), and the engine suites' test
 * timeout. Call it at the top of the suite or of a `describe`.
 */
export function useEngineScratch(opts: EngineScratchOptions): EngineSuite {
  jest.setTimeout(opts.testTimeoutMs ?? E2E_TIMEOUT_MS);
  const suite = new EngineSuite();
  beforeAll(async () => {
    suite.engineDir = ensureEngine(); // finds or builds the engine; throws (fails the suite) if it cannot
    if (opts.yamlHost) ensureYamlHost(suite.engineDir);
    for (let i = 0; i < (opts.simulators ?? 1); i++) suite.sims.push(await startSimulator({ profile: opts.profile }));
    suite.scratch = tempDir(opts.scratchPrefix);
  }, ENGINE_SETUP_TIMEOUT_MS);
  afterEach(() => tearDown(suite.testSims.splice(0), undefined));
  afterAll(() => tearDown([...(opts.stopAlso?.() ?? []), ...suite.sims], suite.scratch));
  return suite;
}

/**
 * {@link useEngineScratch}, then one stack for the suite: backend `<scratch>/backend`, `pims:baseUrl` (unless the
 * suite names another form) and the secret `pims:token` of the first simulator, the rest as `opts.stack` returns.
 */
export function useEngineStack(opts: EngineSuiteOptions): EngineSuite {
  const suite = useEngineScratch(opts);
  beforeAll(async () => {
    const { yaml, baseUrl, ...rest } = await opts.stack(suite);
    const stack = {
      ...rest,
      engineDir: suite.engineDir,
      backendDir: path.join(suite.scratch, "backend"),
      baseUrl: baseUrl ?? suite.sim.baseUrl,
      token: suite.sim.token,
    };
    if (!yaml) suite.stack = await createPimsStack(stack);
    else if (stack.workDir) suite.stack = await createYamlStack({ ...stack, workDir: stack.workDir });
    else throw new Error("a YAML stack needs the workDir holding its Pulumi.yaml");
  }, ENGINE_SETUP_TIMEOUT_MS);
  return suite;
}
