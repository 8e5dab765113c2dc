/**
 * Issue 64 through the plugin: a YAML stack under the official YAML host whose every command runs on a fresh
 * short-lived token from the ESC adapter's open route, `PIMS_TOKEN` in the environment and no pims:* key in the stack
 * config, as examples/esc-leases/ sets it up: up (create), up (rotate), refresh and destroy, each lease expired before
 * the next run (tests/kit/esc/stackLeases.ts). The plugin's default provider stores no credential from the environment
 * in the state (GUIDE §3 item 20): refresh and destroy succeed without `--run-program`.
 *
 * Needs the pulumi CLI and the YAML host: without them this suite fails, it never skips.
 */
import * as path from "node:path";
import { writeYamlProject } from "../../../scripts/engine/yaml";
import { useEngineStack } from "../../kit/engine/engineSuite";
import { addExampleProject, describeLeaseRuns } from "../../kit/esc/stackLeases";

const PROGRAM = `
config:
  projectId:
    type: string
  rotation:
    type: string
    default: r0
resources:
  app:
    type: pims:index:ServiceAccount
    properties:
      projectId: \${projectId}
      name: app
      grants:
        - \${projectId}
      expiresIn: 0
      rotationTrigger: \${rotation}
outputs:
  id: \${app.serviceAccountId}
`;

describe("short-lived tokens from ESC through the plugin", () => {
  const suite = useEngineStack({
    scratchPrefix: "pims-e2e-esc-leases-yaml-",
    yamlHost: true,
    stack: ({ sim, scratch }) => {
      const projectId = addExampleProject(sim);
      const workDir = writeYamlProject(path.join(scratch, "yaml"), { name: "pims-esc-leases", program: PROGRAM });
      return { stackName: "ci", yaml: true, workDir, config: { projectId } };
    },
  });
  describeLeaseRuns(suite, "yaml");
});
