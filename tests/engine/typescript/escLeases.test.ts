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
import * as path from "node:path";
import { writeTypeScriptProject } from "../../kit/engine/engine";
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
      const workDir = writeTypeScriptProject(path.join(scratch, "program"), {
        name: "pims-esc-leases",
        program: PROGRAM,
      });
      return { stackName: "ci", workDir, config: { projectId, rotation: "r0" } };
    },
  });
  describeLeaseRuns(suite, "typescript");
});
