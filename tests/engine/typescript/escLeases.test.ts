/**
 * Issue 64 through the dynamic provider: a TypeScript stack (a project directory, run by the CLI as a user runs it)
 * whose every command runs on a fresh short-lived token from the ESC adapter's open route, `PIMS_TOKEN` in the
 * environment and no pims:* key in the stack config, as examples/esc-leases/ sets it up: up (create), up (rotate),
 * refresh and destroy, each lease expired before the next run (tests/kit/esc/stackLeases.ts). That refresh and destroy
 * succeed without `--run-program` proves the provider read the current `PIMS_TOKEN` at each run, not a credential
 * stored in the state's serialized provider (GUIDE §3 item 20).
 *
 * Needs the pulumi CLI and this repository's Node language host: without them this suite fails, it never skips.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { REPO_ROOT } from "../../../scripts/engine";
import { useEngineStack } from "../../kit/engine/engineSuite";
import { addExampleProject, describeLeaseRuns } from "../../kit/esc/stackLeases";

const PROGRAM = `import * as pulumi from "@pulumi/pulumi";
import * as pims from "pulumi-pims";
const config = new pulumi.Config();
const projectId = config.require("projectId");
const app = new pims.ServiceAccount("app", {
  projectId,
  name: "app",
  grants: [projectId],
  expiresIn: 0,
  rotationTrigger: config.get("rotation"),
});
export const id = app.serviceAccountId;
`;

describe("short-lived tokens from ESC through the dynamic provider", () => {
  const suite = useEngineStack({
    scratchPrefix: "pims-e2e-esc-leases-ts-",
    stack: ({ sim, scratch }) => {
      const projectId = addExampleProject(sim);
      const workDir = path.join(scratch, "program");
      fs.mkdirSync(workDir);
      fs.writeFileSync(path.join(workDir, "Pulumi.yaml"), "name: pims-esc-leases\nruntime: nodejs\n");
      fs.writeFileSync(path.join(workDir, "index.ts"), PROGRAM);
      for (const f of ["package.json", "tsconfig.json"])
        fs.copyFileSync(path.join(REPO_ROOT, "examples", "rotation", "typescript", f), path.join(workDir, f));
      fs.symlinkSync(path.join(REPO_ROOT, "node_modules"), path.join(workDir, "node_modules"), "dir");
      return { stackName: "ci", workDir, config: { projectId, rotation: "r0" } };
    },
  });
  describeLeaseRuns(suite, "typescript");
});
