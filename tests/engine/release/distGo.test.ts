/**
 * Installs like every Pulumi provider, Go: a module that adds the SDK with `go get` from a clone beside it, as
 * docs/go.md's "Before a release is published, or from a clone" says (a build without a release home names the module
 * `pulumi-pims/sdk/go`, which Go never looks up; the page's published path, `go get <home>/sdk/go/pims@v<version>` from
 * a module proxy, is the rehearsal's: tests/engine/release/rehearsal.test.ts), and a Pulumi.yaml naming no plugin, run
 * with an empty plugin cache, no plugin on PATH and a `node` first on PATH that fails if anything calls it
 * (tests/kit/languages/dist.ts). The program (tests/engine/programs/go/rotation/main.go) runs as an Automation API
 * inline program (tests/engine/programs/go/inline.go beside it: no Go language host can be obtained here, so `pulumi
 * up` is the one step replaced). Unlike that section of the page, the plugin is not installed from the archive with
 * `--file`: the engine downloads it from the loopback server serving the release on the first run. An `inline` row of
 * the dist table (tests/kit/languages/distTable.ts), one stack: up, a rotation by replacement, one with overlap,
 * refresh, destroy; checked against the simulator; state, backend files and output scanned. Needs Go and the Go module
 * proxy (the first build compiles the Pulumi Go SDK: minutes).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describeDist, ROTATION_OUTPUTS } from "../../kit/languages/distTable";
import { buildInline } from "../../kit/languages/go";
import { sandboxClone } from "../../kit/languages/guide";
import { PROGRAMS_DIR, run, writeProject } from "../../kit/languages/index";

jest.setTimeout(20 * 60_000);

describeDist({
  language: "go",
  sdk: "repository",
  program: "go/rotation/main.go",
  name: "dist-go",
  creates: "both accounts",
  resources: 3,
  names: ROTATION_OUTPUTS,
  install: async ({ scratch, dir, makeEnv }) => {
    // The clone lands beside the project: `../pulumi-pims/sdk/go` below is the path docs/go.md gives.
    sandboxClone(scratch);
    const env = makeEnv();
    const sh = (line: string): Promise<unknown> => run("bash", ["-c", line], { cwd: dir, env });
    await sh("go mod init my-infra && go mod edit -replace pulumi-pims/sdk/go=../pulumi-pims/sdk/go");
    await sh("go get pulumi-pims/sdk/go/pims");
    fs.copyFileSync(path.join(PROGRAMS_DIR, "go", "rotation", "main.go"), path.join(dir, "main.go"));
    writeProject(dir, "my-infra", "go");
    return { env, runProgram: await buildInline(dir, env) };
  },
});
