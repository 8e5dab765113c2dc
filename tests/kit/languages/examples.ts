/**
 * What the example suites share (examples/compile, examples/quickstart, examples/scenarios): a copy of an example in
 * any language made runnable here by its runner, the operations of Pulumi's ProgramTest sequence on it, and the checks
 * every run ends with. The example is unchanged from the file users copy; each runner says how it runs:
 * - TypeScript, YAML and Java under their hosts, through the Automation API's local programs (`pulumi up` in the
 *   copy): the Node host of scripts/engine/language-host, the official YAML host, the official Java host (Maven, the
 *   SDK installed from the repository).
 * - Python and Go through the inline driver (no official host for them can be obtained here): `__main__.py` run as
 *   `__main__` by the Python driver, `main.go`'s `program` by the Go driver built beside it.
 * The copies of YAML, Python and Java projects name this repository's plugin; the Go copy's module replaced by sdk/go.
 */
import type { Stack } from "@pulumi/pulumi/automation";
import * as path from "node:path";
import {
  copyExample,
  createPimsStack,
  engineEnv,
  ensureEngine,
  type ExampleLanguage,
  type PimsStackOptions,
} from "../../../scripts/engine";
import type { PimsSimulator } from "../../../simulator";
import { exportEncrypted } from "../engine/engine";
import { expectNoPlaintextSecrets } from "../secrets/secrets";
import { buildInline, replaceGoSdk } from "./go";
import { namePlugin, type InlineDriver, type Ran } from "./index";
import { installJavaSdk } from "./java";
import { installPythonSdk, pythonInline } from "./python";
import { RUNNERS } from "./runners";

/** One operation of ProgramTest's sequence; `same`: the operation must find nothing to change. */
export interface Operations {
  up(same?: boolean): Promise<void>;
  preview(same: boolean): Promise<void>;
  refresh(same: boolean): Promise<void>;
  destroy(): Promise<void>;
}

/** A copied example in one language: its stack (config and outputs for every language) and how it runs. */
export interface ExampleRun {
  language: ExampleLanguage;
  dir: string;
  stack: Stack;
  ops: Operations;
  /** Everything the engine printed (for the token scan). */
  printed(): string;
}

/** Where the Python environment with the SDK installed lives, made once per process. */
let pythonSdk: Promise<string> | undefined;

/** What {@link prepareExample} needs beyond the stack's own options. */
export type PrepareOptions = Omit<PimsStackOptions, "program" | "workDir" | "env"> & {
  scenario: string;
  language: ExampleLanguage;
  /** Where copies, the Python environment and Go builds go. */
  scratch: string;
};

/** Copies an example, makes it runnable here (see the top of this file) and creates its stack. */
export async function prepareExample(o: PrepareOptions): Promise<ExampleRun> {
  const engineDir = o.engineDir ?? ensureEngine();
  const dir = copyExample(o.scenario, o.scratch, o.language);
  let printed = "";
  if (o.language !== "typescript") namePlugin(dir);
  const runner = RUNNERS[o.language];
  const toolchain = runner.toolchain();
  if (o.language === "java") await installJavaSdk();
  const base = engineEnv(o.backendDir, engineDir);
  const env =
    runner.runs === "host" ? { ...toolchain.env, PATH: [...toolchain.path, base.PATH].join(path.delimiter) } : {};
  const stack = await createPimsStack({ ...o, workDir: dir, engineDir, env });
  const driverEnv = { ...process.env, ...base };
  let driver: InlineDriver | undefined;
  if (o.language === "python") {
    pythonSdk ??= installPythonSdk(path.join(o.scratch, "python-sdk")).then((r) => r.python);
    driver = pythonInline(await pythonSdk, dir, driverEnv, path.join(dir, "__main__.py"), o.stackName);
  } else if (o.language === "go") driver = await buildInline(dir, await replaceGoSdk(dir, driverEnv), o.stackName);
  const record = async (ran: Promise<Ran>): Promise<void> => {
    const done = await ran.catch((e: { output?: string }) => {
      printed += e.output ?? "";
      throw e;
    });
    printed += done.output;
  };
  const opts = { onOutput: (s: string) => void (printed += s) };
  const inline = driver;
  const ops: Operations = inline
    ? {
        up: (same = false) => record(inline("up", same)),
        preview: (same) => record(inline("preview", same)),
        refresh: (same) => record(inline("refresh", same)),
        destroy: () => record(inline("destroy")),
      }
    : {
        up: async (same = false) => void (await stack.up({ ...opts, expectNoChanges: same })),
        preview: async (same) => void (await stack.preview({ ...opts, expectNoChanges: same })),
        refresh: async (same) => void (await stack.refresh({ ...opts, expectNoChanges: same })),
        destroy: async () => void (await stack.destroy(opts)),
      };
  return { language: o.language, dir, stack, ops, printed: () => printed };
}

/** What a scenario checks in ProgramTest's sequence. */
export interface ProgramTestChecks {
  /** After the first `up`: what the service holds. */
  afterUp(outputs: Record<string, unknown>): void | Promise<void>;
  /** The example's own edit step (config changes), applied as a further `up`, and what it must have done. */
  edit?: {
    config: Record<string, string>;
    check(before: Record<string, unknown>, after: Record<string, unknown>): void | Promise<void>;
  };
  /** After `destroy`: nothing the stack made is live (e.g. the accounts of its projects). */
  afterDestroy(before: Record<string, unknown>): void | Promise<void>;
}

/** The stack's outputs, secrets revealed (the test's own look; never printed). */
export async function revealedOutputs(stack: Stack): Promise<Record<string, unknown>> {
  return Object.fromEntries(Object.entries(await stack.outputs()).map(([k, v]) => [k, v.value]));
}

/**
 * Pulumi's ProgramTest sequence on one example: `up`, a second `up` that must change nothing, `preview` and
 * `refresh` that must find no changes, the example's edit step as a further `up`, `destroy`; then no token the
 * simulators issued in plaintext in the state (checked before destroy, when it holds the most) or the engine's output.
 */
export async function programTest(r: ExampleRun, sims: PimsSimulator[], checks: ProgramTestChecks): Promise<void> {
  await r.ops.up();
  let outputs = await revealedOutputs(r.stack);
  await checks.afterUp(outputs);
  await r.ops.up(true);
  await r.ops.preview(true);
  await r.ops.refresh(true);
  if (checks.edit) {
    for (const [key, value] of Object.entries(checks.edit.config)) await r.stack.setConfig(key, { value });
    await r.ops.up();
    const after = await revealedOutputs(r.stack);
    await checks.edit.check(outputs, after);
    outputs = after;
  }
  const secrets = sims.flatMap((s) => s.issuedSecrets());
  expectNoPlaintextSecrets(JSON.stringify(exportEncrypted(r.stack)), secrets, `the ${r.language} example's state`);
  await r.ops.destroy();
  await checks.afterDestroy(outputs);
  expect(Object.keys(await r.stack.outputs())).toEqual([]);
  expectNoPlaintextSecrets(r.printed(), secrets, `the engine's output for the ${r.language} example`);
}
