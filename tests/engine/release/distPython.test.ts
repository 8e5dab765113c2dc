/**
 * Installs like every Pulumi provider, Python: the release's wheel installed with pip (`--no-index`, nothing else) into
 * a fresh virtual environment, a project whose Pulumi.yaml names no plugin, an empty plugin cache, no plugin on PATH
 * and a `node` first on PATH that fails if anything calls it (tests/kit/languages/dist.ts). The program
 * (tests/engine/programs/python/rotation_program.py) runs as an Automation API inline program
 * (tests/engine/programs/python/inline.py: no Python language host can be obtained here, so `pulumi up` is the one step
 * replaced); the engine downloads the plugin from the loopback server on the first run, as it does for any registry
 * provider. An `inline` row of the dist table (tests/kit/languages/distTable.ts), one stack: up, a rotation by
 * replacement, one with overlap, refresh, destroy (the steps of tests/kit/languages/dist.ts every dist suite takes);
 * checked against the simulator; the state, the backend's files and the engine's output are scanned for tokens.
 */
import * as path from "node:path";
import { describeDist, ROTATION_OUTPUTS } from "../../kit/languages/distTable";
import { E2E_TIMEOUT_MS } from "../../kit/engine/engine";
import { run, writeProject } from "../../kit/languages/index";
import { installWheel, pythonInline } from "../../kit/languages/python";

jest.setTimeout(E2E_TIMEOUT_MS);

const suite = describeDist({
  language: "python",
  sdk: "dist",
  program: "python/rotation_program.py",
  name: "dist-python",
  creates: "every resource",
  resources: 7,
  names: ROTATION_OUTPUTS,
  withApp: true,
  install: async ({ dist, scratch, dir, makeEnv }) => {
    const python = await installWheel(path.join(scratch, "venv"), dist.wheel);
    writeProject(dir, "pims-dist-python", "python");
    const env = makeEnv([path.dirname(python)]);
    return { env, runProgram: pythonInline(python, dir, env) };
  },
});

test("pulumi install is refused here: it asks the Python host, which cannot be obtained on this machine", async () => {
  const { dir, env } = suite();
  const failed = await run("pulumi", ["install"], { cwd: dir, env }).then(
    () => undefined,
    (e: { stderr: string; stdout: string }) => e.stderr + e.stdout,
  );
  expect(failed).toContain("no language plugin 'pulumi-language-python' found");
});
