/**
 * Installs like every Pulumi provider, Python: the release's wheel installed with pip (`--no-index`, nothing else)
 * into a fresh virtual environment, a project whose Pulumi.yaml names no plugin, an empty plugin cache, no plugin on
 * PATH and a `node` first on PATH that fails if anything calls it (tests/kit/dist.ts). The program
 * (tests/engine/programs/python/rotation_program.py) runs as an Automation API inline program
 * (tests/engine/programs/python/inline.py: no Python language host can be obtained here, so `pulumi up` is the one step
 * replaced); the engine downloads the plugin from the loopback server on the first run, as it does for any registry
 * provider. An `inline` row of the dist table (tests/kit/distTable.ts), one stack: up, a rotation by replacement, one
 * with overlap, refresh, destroy (the steps of tests/kit/dist.ts every dist suite takes); checked against the
 * simulator; the state, the backend's files and the engine's output are scanned for tokens.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describeDist, ROTATION_OUTPUTS } from "../../kit/distTable";
import { E2E_TIMEOUT_MS } from "../../kit/engine";
import { PYTHON_INLINE_DRIVER, PYTHON_ROTATION_PROGRAM, run, userVenv } from "../../kit/sdk";

jest.setTimeout(E2E_TIMEOUT_MS);

const suite = describeDist({
  name: "dist-python",
  kind: "inline",
  creates: "every resource",
  resources: 7,
  names: ROTATION_OUTPUTS,
  withApp: true,
  install: async ({ dist, scratch, dir, makeEnv }) => {
    const python = await userVenv(path.join(scratch, "venv"));
    await run(python, ["-m", "pip", "install", "-q", "--no-index", "--disable-pip-version-check", dist.wheel]);
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: pims-dist-python\nruntime: python\n");
    const env = makeEnv([path.dirname(python)]);
    const runProgram = (operation: string) =>
      run(python, [PYTHON_INLINE_DRIVER, dir, "dev", operation, PYTHON_ROTATION_PROGRAM], { cwd: dir, env });
    return { env, runProgram };
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
