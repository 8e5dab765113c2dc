/**
 * Peer-bug suite (issue 55), rows 1, 2 and 11, each through both hosts: a TypeScript program (the dynamic provider)
 * and a YAML program (the pims plugin), against the simulator.
 *
 * - Row 1, pulumi/pulumi-pulumiservice #176 and #359, DataDog/terraform-provider-datadog #2048 (PRs #2451, #2544,
 *   #2765): elsewhere a refresh that cannot read a token (the API never returns it, or the read fails) clears it or
 *   reports it deleted, and the next `up` makes a second one. Here the listing (GET /v2/projects/{project_id}/api-keys,
 *   the only read the service has) answers 401, 403, 503 or shows none of the run's accounts: every account is kept
 *   with its outputs unchanged, the engine's output says why, and the next `up` changes nothing.
 * - Row 2, pulumi/pulumi-pulumiservice #159: `preview --refresh` and `up --refresh` wanted to re-create every team
 *   token. Here both change nothing on a healthy stack: no write, the tokens and the app's secret unchanged.
 * - Row 11, Pulumi's `aliases` resource option: a renamed resource must not replace its token. Here renaming the
 *   account's resource with `aliases` (TypeScript: `{ name }`; YAML: the old URN) changes nothing: the same account
 *   and token, no write.
 *
 * What the user needs: no outage (the tokens consumers hold keep working), no lost or duplicated account, no false
 * drift. The suite's table is tests/engine/peerBugs/table.ts.
 */
import * as path from "node:path";
import type * as pulumi from "@pulumi/pulumi";
import * as pims from "pulumi-pims";
import { writeYamlProject } from "../../../scripts/engine/yaml";
import { resources } from "../../kit/engine/engine";
import { useEngineStack, type EngineSuite, type SuiteStack } from "../../kit/engine/engineSuite";
import { liveIds } from "../../kit/sim/simulator";

/** The seeded project and its app, per host (each host has its own suite and simulator). */
interface Home {
  projectId: string;
  appId: string;
}

/** What differs between the hosts: the program, and how it is renamed. */
interface HostCase {
  host: "typescript" | "yaml";
  stack(suite: EngineSuite, home: Home): SuiteStack;
  /** The program now names the account resource `renamed`, with its old name `deployer` as an alias. */
  rename(suite: EngineSuite, home: Home): void;
}

/** The provider's retries of the failing listing (row 1) wait 20 ms-based backoffs, not the default's. */
const RETRY_FAST = { PIMS_RETRY_MIN_DELAY_MS: "20" };

// The TypeScript program's resource name and aliases, read each time the program runs.
let tsName = "deployer";
let tsAliases: Array<pulumi.Input<string | pulumi.Alias>> = [];

const typescript: HostCase = {
  host: "typescript",
  stack: ({ scratch }, home) => ({
    stackName: "dev",
    projectName: "peer-ts",
    workDir: path.join(scratch, "ts"),
    env: RETRY_FAST,
    program: async () => {
      const deployer = new pims.ServiceAccount(
        tsName,
        { projectId: home.projectId, name: "peer-deployer", grants: [home.projectId], expiresIn: 2_592_000 },
        { aliases: tsAliases },
      );
      new pims.ServiceAccount("kept", {
        projectId: home.projectId,
        name: "peer-kept",
        grants: [home.projectId],
        expiresIn: 2_592_000,
        rotateBeforeExpiry: 1_296_000,
        keepPreviousToken: true,
      });
      new pims.AppSecrets("web", {
        projectId: home.projectId,
        appId: home.appId,
        secrets: { PIMS_TOKEN: deployer.token },
      });
      return { deployerId: deployer.serviceAccountId };
    },
  }),
  rename: () => {
    tsName = "renamed";
    tsAliases = [{ name: "deployer" }];
  },
};

/** The YAML program; `aliasOf` is the URN the account resource had before it was renamed (YAML takes URNs). */
const yamlProgram = (name: string, aliasOf?: string): string => `
config:
  projectId:
    type: string
  appId:
    type: string
resources:
  ${name}:
    type: pims:index:ServiceAccount
    properties:
      projectId: \${projectId}
      name: peer-deployer
      grants:
        - \${projectId}
      expiresIn: 2592000
${aliasOf === undefined ? "" : `    options:\n      aliases:\n        - ${aliasOf}\n`}  kept:
    type: pims:index:ServiceAccount
    properties:
      projectId: \${projectId}
      name: peer-kept
      grants:
        - \${projectId}
      expiresIn: 2592000
      rotateBeforeExpiry: 1296000
      keepPreviousToken: true
  web:
    type: pims:index:AppSecrets
    properties:
      projectId: \${projectId}
      appId: \${appId}
      secrets:
        PIMS_TOKEN: \${${name}.token}
outputs:
  deployerId: \${${name}.serviceAccountId}
`;

const yamlDir = (suite: EngineSuite): string => path.join(suite.scratch, "peer-yaml");
const yaml: HostCase = {
  host: "yaml",
  stack: (suite, home) => ({
    stackName: "dev",
    yaml: true,
    workDir: writeYamlProject(yamlDir(suite), { name: "peer-yaml", program: yamlProgram("deployer") }),
    config: { projectId: home.projectId, appId: home.appId },
    env: RETRY_FAST,
  }),
  rename: (suite) => {
    const old = "urn:pulumi:dev::peer-yaml::pims:index:ServiceAccount::deployer";
    writeYamlProject(yamlDir(suite), { name: "peer-yaml", program: yamlProgram("renamed", old) });
  },
};

/** One host's suite (its own simulator and stack) and the steps each row's test runs, in order. */
function hostSuite(c: HostCase): Record<"upRefresh" | "blindRefresh" | "rename" | "destroy", () => Promise<void>> {
  let home: Home;
  const suite = useEngineStack({
    scratchPrefix: `pims-e2e-peer-${c.host}-`,
    yamlHost: c.host === "yaml",
    stack: (s) => {
      const projectId = s.sim.addProject({ name: `peer-${c.host}` }).id;
      home = { projectId, appId: s.sim.addApp(projectId, "web").id };
      return c.stack(s, home);
    },
  });
  const { engine } = suite;
  /** Every ServiceAccount of the state: name, id and outputs (tokens revealed). */
  const accounts = async (): Promise<unknown[]> =>
    resources(await suite.stack.exportStack())
      .filter((r) => r.type.endsWith(":ServiceAccount"))
      .map((r) => [r.urn.split("::").pop(), r.id, r.outputs]);
  /** An operation's change summary has nothing but unchanged resources. */
  const nothingChanged = (changes: Record<string, number> | undefined): void =>
    expect(Object.keys(changes ?? {})).toEqual(["same"]);
  let deployerToken: string;
  let deployerId: string;

  return {
    // row 2
    async upRefresh() {
      const first = await suite.stack.up(engine.opts);
      expect(first.summary.result).toBe("succeeded");
      deployerId = first.outputs.deployerId.value as string;
      deployerToken = await suite.tokenOf("deployer");
      const keptToken = await suite.tokenOf("kept");
      const live = liveIds(suite.sim, home.projectId);
      expect(live).toHaveLength(2);

      suite.clearRequests();
      await suite.stack.preview({ ...engine.opts, refresh: true, expectNoChanges: true });
      const up = await suite.stack.up({ ...engine.opts, refresh: true });
      nothingChanged(up.summary.resourceChanges);
      expect(suite.writes()).toEqual([]);
      expect(liveIds(suite.sim, home.projectId)).toEqual(live);
      expect(await suite.tokenOf("deployer")).toBe(deployerToken);
      expect(await suite.tokenOf("kept")).toBe(keptToken);
      expect(suite.sim.appSecrets(home.projectId, home.appId)).toEqual({ PIMS_TOKEN: deployerToken });
      expect(await suite.tokenWorks(deployerToken, home.projectId)).toBe(true);
    },
    // row 1
    async blindRefresh() {
      const before = await accounts();
      const live = liveIds(suite.sim, home.projectId);
      const listing = `/v2/projects/${home.projectId}/api-keys`;
      const keptWhy = `kept in the state unchanged: GET ${suite.sim.baseUrl}${listing}`;
      // A listing that shows none of the run's accounts: each is kept, either because its token still works (the
      // credential cannot see the keys) or because it was created moments ago (a listing may lag behind a create).
      const blind = /the credential cannot see this project's keys|a listing may lag behind a create\): kept/;
      const faults: Array<[string, { status: number; body?: unknown }, string | RegExp]> = [
        ["401", { status: 401 }, `${suite.sim.baseUrl}${listing}`],
        ["403", { status: 403 }, keptWhy],
        ["503", { status: 503 }, keptWhy],
        ["none of the run's accounts", { status: 200, body: [] }, blind],
      ];
      for (const [what, fault, said] of faults) {
        const from = engine.text().length;
        suite.sim.addFault({ method: "GET", path: listing, kind: "status", ...fault });
        suite.clearRequests();
        const refresh = await suite.stack.refresh(engine.opts).finally(() => suite.sim.clearFaults());
        expect([what, refresh.summary.result]).toEqual([what, "succeeded"]);
        expect([what, await accounts()]).toEqual([what, before]); // never read as absence, no output changed
        expect([what, suite.writes()]).toEqual([what, []]);
        const printed = engine.text().slice(from);
        expect([what, printed]).toEqual([
          what,
          typeof said === "string" ? expect.stringContaining(said) : expect.stringMatching(said),
        ]);
      }
      expect(liveIds(suite.sim, home.projectId)).toEqual(live);
      // and the next up has nothing to re-create
      const up = await suite.stack.up(engine.opts);
      nothingChanged(up.summary.resourceChanges);
      expect(await suite.tokenOf("deployer")).toBe(deployerToken);
    },
    // row 11
    async rename() {
      c.rename(suite, home);
      suite.clearRequests();
      await suite.stack.preview({ ...engine.opts, expectNoChanges: true });
      const up = await suite.stack.up(engine.opts);
      nothingChanged(up.summary.resourceChanges);
      expect(suite.writes()).toEqual([]);
      expect(up.outputs.deployerId.value).toBe(deployerId);
      expect(await suite.tokenOf("renamed")).toBe(deployerToken);
      expect((await accounts()).map((a) => (a as string[])[0]).sort()).toEqual(["kept", "renamed"]);
      expect(suite.sim.appSecrets(home.projectId, home.appId)).toEqual({ PIMS_TOKEN: deployerToken });
    },
    async destroy() {
      await suite.stack.destroy(engine.opts);
      expect(liveIds(suite.sim, home.projectId)).toEqual([]);
      suite.expectNoSecrets();
    },
  };
}

describe("through the dynamic provider (a TypeScript program)", () => {
  const steps = hostSuite(typescript);
  test(
    "row 2, typescript: preview --refresh and up --refresh on a healthy stack: 0 changes, no write",
    steps.upRefresh,
  );
  test(
    "row 1, typescript: refresh while the listing answers 401, 403, 503 or shows none: all kept",
    steps.blindRefresh,
  );
  test("row 11, typescript: renamed with aliases: 0 changes, the same account and token", steps.rename);
  test("destroy: none of the stack's accounts left live; no token in any output or file", steps.destroy);
});

describe("through the plugin (a YAML program)", () => {
  const steps = hostSuite(yaml);
  test("row 2, yaml: preview --refresh and up --refresh on a healthy stack: 0 changes, no write", steps.upRefresh);
  test("row 1, yaml: refresh while the listing answers 401, 403, 503 or shows none: all kept", steps.blindRefresh);
  test("row 11, yaml: renamed with the aliases option: 0 changes, the same account and token", steps.rename);
  test("destroy: none of the stack's accounts left live; no token in any output or file", steps.destroy);
});
