/**
 * What the example suites share (examples/compile, examples/quickstart, examples/scenarios): a copy of an example in
 * any language made runnable here, the operations of Pulumi's ProgramTest sequence on it, and the checks every run
 * ends with.
 *
 * How each language runs, unchanged from the files users copy:
 * - TypeScript, YAML and Java: as project directories, through the Automation API's local programs (`pulumi up` in
 *   the copy): the Node host of scripts/engine/language-host, the official YAML host, the official Java host v1.16.0
 * (Maven).
 * - Python and Go: no official language host can be obtained here, so the example's own program runs as an Automation
 *   API inline program: `__main__.py` through tests/engine/programs/python/inline.py (run as `__main__`), `main.go`'s
 * `program`
 *   through tests/engine/programs/go/inline.go built beside it (its init runs the operation and exits before `main`).
 * The copies of YAML, Python and Java projects get a `plugins.providers` entry naming this repository's plugin/; the
 * Go copy a `replace` of the SDK's module path (read from sdk/go/go.mod) by sdk/go.
 */
import type { Stack } from "@pulumi/pulumi/automation";
import * as fs from "node:fs";
import * as path from "node:path";
import {
  copyExample,
  createPimsStack,
  engineEnv,
  ensureEngine,
  type ExampleLanguage,
  type PimsStackOptions,
} from "../../scripts/engine";
import { ensureYamlHost, PLUGIN_DIR } from "../../scripts/engine/yaml";
import type { PimsSimulator } from "../../simulator";
import { exportEncrypted } from "./engine";
import { ensureJavaHost, ensureMaven, installJavaSdk, JAVA_LOCAL_REPO } from "./java";
import { GO_SDK_DIR, installPythonSdk, PYTHON_INLINE_DRIVER, run } from "./sdk";
import { expectNoPlaintextSecrets } from "./secrets";

/** The module path sdk/go/go.mod declares (what the Go examples import). */
export function goModulePath(): string {
  const m = /^module\s+(\S+)/m.exec(fs.readFileSync(path.join(GO_SDK_DIR, "go.mod"), "utf8"));
  if (!m) throw new Error("sdk/go/go.mod declares no module");
  return m[1];
}

/** No toolchain downloads, no cgo (the CLI is built the same way). */
export const GO_ENV = { ...process.env, GOTOOLCHAIN: "local", CGO_ENABLED: "0", GOFLAGS: "-mod=mod" };

/** Appends `plugins.providers` (this repository's plugin) to a copied project's Pulumi.yaml. */
export function namePlugin(dir: string): void {
  const file = path.join(dir, "Pulumi.yaml");
  const text = fs.readFileSync(file, "utf8");
  if (/^plugins:/m.test(text)) throw new Error(`${file} already has a plugins section`);
  fs.writeFileSync(file, `${text}plugins:\n  providers:\n    - name: pims\n      path: ${PLUGIN_DIR}\n`);
}

/** Points a copied Go example at sdk/go (a replace directive of the module path sdk/go/go.mod declares). */
export async function replaceGoSdk(dir: string): Promise<void> {
  await run("go", ["mod", "edit", `-replace=${goModulePath()}=${GO_SDK_DIR}`], { cwd: dir, env: GO_ENV });
  await run("go", ["mod", "tidy"], { cwd: dir, env: GO_ENV });
}

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
let python: Promise<string> | undefined;

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
  let env: Record<string, string> = {};
  let printed = "";
  if (o.language === "yaml") ensureYamlHost(engineDir);
  if (o.language !== "typescript") namePlugin(dir);
  if (o.language === "java") {
    ensureJavaHost(engineDir);
    const mavenDir = ensureMaven();
    await installJavaSdk(mavenDir);
    const base = engineEnv(o.backendDir, engineDir);
    env = { PATH: `${mavenDir}${path.delimiter}${base.PATH}`, MAVEN_OPTS: `-Dmaven.repo.local=${JAVA_LOCAL_REPO}` };
  }
  const stack = await createPimsStack({ ...o, workDir: dir, engineDir, env });
  const opts = { onOutput: (s: string) => void (printed += s) };
  let ops: Operations = {
    up: async (same = false) => void (await stack.up({ ...opts, expectNoChanges: same })),
    preview: async (same) => void (await stack.preview({ ...opts, expectNoChanges: same })),
    refresh: async (same) => void (await stack.refresh({ ...opts, expectNoChanges: same })),
    destroy: async () => void (await stack.destroy(opts)),
  };
  if (o.language === "python" || o.language === "go") {
    const driverEnv = { ...process.env, ...engineEnv(o.backendDir, engineDir) };
    let drive: (op: string, same: boolean) => Promise<void>;
    if (o.language === "python") {
      python ??= installPythonSdk(path.join(o.scratch, "python-sdk")).then((r) => r.python);
      const py = await python;
      drive = async (op, same) => {
        const args = [
          PYTHON_INLINE_DRIVER,
          dir,
          o.stackName,
          op,
          path.join(dir, "__main__.py"),
          ...(same ? ["--expect-no-changes"] : []),
        ];
        const ran = await run(py, args, { cwd: dir, env: driverEnv }).catch((e: { output?: string }) => {
          printed += e.output ?? "";
          throw e;
        });
        printed += ran.output;
      };
    } else {
      await replaceGoSdk(dir);
      fs.copyFileSync(path.join(__dirname, "..", "engine", "programs", "go", "inline.go"), path.join(dir, "inline.go"));
      await run("go", ["mod", "tidy"], { cwd: dir, env: GO_ENV });
      await run("go", ["build", "-o", "program", "."], { cwd: dir, env: GO_ENV });
      drive = async (op, same) => {
        const ran = await run(path.join(dir, "program"), [], {
          cwd: dir,
          env: {
            ...driverEnv,
            PIMS_INLINE_OP: op,
            PIMS_INLINE_STACK: o.stackName,
            PIMS_INLINE_WORKDIR: dir,
            PIMS_INLINE_EXPECT_NO_CHANGES: same ? "1" : "",
          },
        }).catch((e: { output?: string }) => {
          printed += e.output ?? "";
          throw e;
        });
        printed += ran.output;
      };
    }
    ops = {
      up: (same = false) => drive("up", same),
      preview: (same) => drive("preview", same),
      refresh: (same) => drive("refresh", same),
      destroy: () => drive("destroy", false),
    };
  }
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
