/**
 * examples/quickstart in every language (TypeScript, YAML, Python, Go, Java), each through Pulumi's ProgramTest
 * sequence (tests/kit/examples.ts): `up`, a second `up` that must change nothing, `preview` and `refresh` that
 * must find no changes, the example's edit step (a new `rotationTrigger`: the token rotated by replacement), `destroy`.
 * After each step: what the simulator holds (the project, the one live account with the example's name and grants,
 * the app's secrets holding the current token), the same outputs in every language, 0 live accounts after destroy,
 * no token in plaintext in the state or the engine's output.
 *
 * Needs the pulumi CLI, the YAML host, Python (scripts/toolchain/ensure-python), Go, the Java host v1.16.0 and Maven
 * 3.9.9 (all built or fetched once and cached). The languages run one after the other against one simulator.
 */
import * as path from "node:path";
import { EXAMPLE_LANGUAGES, ensureEngine, tempDir } from "../../../scripts/engine";
import type { PimsSimulator } from "../../../simulator";
import { ENGINE_SETUP_TIMEOUT_MS } from "../../kit/engine";
import { prepareExample, programTest } from "../../kit/examples";
import { startSimulator } from "../../kit/simulator";
import { tearDown } from "../../kit/teardown";

jest.setTimeout(15 * 60_000);

/** The quickstart's outputs, in every language. */
const OUTPUTS = ["appSecretNames", "projectId", "serviceAccountId", "token", "tokenExpiresAt"];

let sim: PimsSimulator;
let scratch: string;

beforeAll(() => {
  ensureEngine();
  scratch = tempDir("pims-e2e-quickstart-");
}, ENGINE_SETUP_TIMEOUT_MS);

beforeEach(async () => {
  sim = await startSimulator();
});

afterEach(() => sim?.stop());

afterAll(() => tearDown([], scratch));

test.each(EXAMPLE_LANGUAGES)(
  "quickstart in %s: up, no-change up, preview and refresh, rotation, destroy",
  async (language) => {
    const apps = sim.addProject({ name: "apps" });
    const app = sim.addApp(apps.id, "web");
    const run = await prepareExample({
      scenario: "quickstart",
      language,
      scratch,
      stackName: "dev",
      backendDir: path.join(scratch, `backend-${language}`),
      baseUrl: sim.baseUrl,
      token: sim.token,
      config: { appProjectId: apps.id },
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
            grants: [projectId, apps.id],
          }),
        ]);
        expect(sim.appSecrets(apps.id, app.id)).toEqual({ PIMS_TOKEN: o.token, PIMS_PROJECT_ID: projectId });
        expect(o.appSecretNames).toEqual(["PIMS_PROJECT_ID", "PIMS_TOKEN"]);
      },
      edit: {
        config: { rotationTrigger: "2" },
        check: (before, after) => {
          // Replacement: a new account and token, the app updated, the old account deleted in the same up.
          expect(after.serviceAccountId).not.toBe(before.serviceAccountId);
          expect(sim.serviceAccounts(projectId).map((a) => a.id)).toEqual([after.serviceAccountId]);
          expect(sim.deletedServiceAccounts()).toContain(before.serviceAccountId);
          expect(sim.appSecrets(apps.id, app.id).PIMS_TOKEN).toBe(after.token);
        },
      },
      afterDestroy: () => expect(sim.serviceAccounts(projectId)).toEqual([]),
    });
  },
);
