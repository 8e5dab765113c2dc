/**
 * examples/quickstart in every language (TypeScript, YAML, Python, Go, Java), each through Pulumi's ProgramTest
 * sequence (tests/kit/languages/examples.ts): `up`, a second `up` that must change nothing, `preview` and `refresh`
 * that must find no changes, the example's edit step (a new `rotationTrigger`: the token rotated by replacement),
 * `destroy`. After each step: what the simulator holds (the project, the one live account with the example's name and
 * grants, the app's secrets holding the current token), the same outputs in every language, 0 live accounts after
 * destroy, no token in plaintext in the state or the engine's output.
 *
 * Needs the pulumi CLI, the YAML host, Python (scripts/toolchain/ensure-python), Go, the Java host v1.16.0 and Maven
 * 3.9.9 (all built or fetched once and cached). The languages run one after the other against one simulator.
 */
import { EXAMPLE_LANGUAGES } from "../../../scripts/engine";
import { useEngineScratch } from "../../kit/engine/engineSuite";
import { programTest } from "../../kit/languages/examples";

/** The quickstart's outputs, in every language. */
const OUTPUTS = ["appSecretNames", "projectId", "serviceAccountId", "token", "tokenExpiresAt"];

/** Each language's test starts a simulator of its own (`suite.simulator()`), stopped after it. */
const suite = useEngineScratch({ scratchPrefix: "pims-e2e-quickstart-", simulators: 0, testTimeoutMs: 15 * 60_000 });

test.each(EXAMPLE_LANGUAGES)(
  "quickstart in %s: up, no-change up, preview and refresh, rotation, destroy",
  async (language) => {
    const { sim, projectId: appsId, appId } = await suite.simulatorWithApp("apps");
    const run = await suite.prepareExample(sim, {
      scenario: "quickstart",
      language,
      stackName: "dev",
      config: { appProjectId: appsId },
    });
    let projectId = "";
    await programTest(run, [sim], {
      afterUp: (o) => {
        expect(Object.keys(o).sort()).toEqual(OUTPUTS);
        projectId = o.projectId as string;
        expect(sim.project(projectId)?.name).toBe("quickstart-dev");
        expect(sim.serviceAccounts(projectId)).toEqual([
          expect.objectContaining({
            id: o.serviceAccountId,
            name: "quickstart-deployer",
            grants: [projectId, appsId],
          }),
        ]);
        expect(sim.appSecrets(appsId, appId)).toEqual({ PIMS_TOKEN: o.token, PIMS_PROJECT_ID: projectId });
        expect(o.appSecretNames).toEqual(["PIMS_PROJECT_ID", "PIMS_TOKEN"]);
      },
      edit: {
        config: { rotationTrigger: "2" },
        check: (before, after) => {
          // Replacement: a new account and token, the app updated, the old account deleted in the same up.
          expect(after.serviceAccountId).not.toBe(before.serviceAccountId);
          expect(sim.serviceAccounts(projectId).map((a) => a.id)).toEqual([after.serviceAccountId]);
          expect(sim.deletedServiceAccounts()).toContain(before.serviceAccountId);
          expect(sim.appSecrets(appsId, appId).PIMS_TOKEN).toBe(after.token);
        },
      },
      afterDestroy: () => expect(sim.serviceAccounts(projectId)).toEqual([]),
    });
  },
);
