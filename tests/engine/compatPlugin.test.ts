/**
 * State compatibility of the `pims` provider plugin: the current code must refresh and destroy every state an earlier
 * plugin wrote (tests/fixtures/v<version>-plugin/, made by tests/fixtures/make-plugin-fixture.ts from a YAML program),
 * as tests/engine/compat.test.ts does for the dynamic resources' states.
 *
 * Each fixture is imported into a fresh stack of an empty YAML project whose `plugins.providers` names this
 * repository's plugin (scripts/engineYaml.ts), so refresh and destroy run the current plugin on the old state. The
 * default provider's stored inputs (`baseUrl`, `token` encrypted) say where those calls go: the simulator is started
 * at that address with that token (decrypted, never written in plaintext), or on a free port with the stored address
 * rewritten. It holds the same objects as when the fixture was written (same ids, token ids and tokens). Then:
 *   - refresh: one call, the API-key listing of each project holding ServiceAccounts (the only read the service
 *     has), nothing changes, the stored tokens and app secrets survive;
 *   - destroy: one DELETE per stored service account (current and previous), each 200, plus the run's one listing per
 *     project, none left live; one warning
 *     each for the Project, the VolumeSize and the AppSecrets; an empty state; no secret in the engine's output.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { Deployment, Stack } from "@pulumi/pulumi/automation";
import { RESOURCE_KINDS } from "../../provider/kinds";
import { tempDir } from "../../scripts/engine";
import { createYamlStack, writeYamlProject } from "../../scripts/engineYaml";
import { expectNoPlaintextSecrets } from "../helpers";
import { PimsSimulator } from "../../simulator";
import { FIXTURE_PASSPHRASE, FIXTURE_PROJECT, FIXTURE_STACK, listFixtures, TOKEN_PATTERN } from "../fixtures/fixtures";
import { ENGINE_SETUP_TIMEOUT_MS, revealed as revealedValue } from "./harness";

jest.setTimeout(180_000);

const TYPE = (kind: string): string => `pims:index:${kind}`;
const NOT_YET_KNOWN = "replaced-by-the-fixture-token-after-import";

interface StateResource {
  urn: string;
  type: string;
  id?: string;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
}
const resourcesOf = (d: { deployment: unknown }): StateResource[] =>
  (d.deployment as { resources?: StateResource[] }).resources ?? [];
const all = (d: { deployment: unknown }, type: string): StateResource[] =>
  resourcesOf(d).filter((r) => r.type === type);
const one = (d: { deployment: unknown }, type: string): StateResource => {
  const found = all(d, type);
  if (found.length !== 1) throw new Error(`expected one ${type} in the state, found ${found.length}`);
  return found[0];
};
/** A state object with its secrets (as `--show-secrets` renders them) in plaintext. */
const reveal = (o: Record<string, unknown> | undefined): Record<string, unknown> =>
  Object.fromEntries(Object.entries(o ?? {}).map(([k, v]) => [k, revealedValue(v)]));

/** The live accounts a ServiceAccount holds: retired, previous, current. */
function accountsOf(r: StateResource): Array<{ id: string; tokenId?: string; token?: string }> {
  const o = reveal(r.outputs) as {
    serviceAccountId: string;
    tokenId: string;
    token: string;
    previousServiceAccountId?: string;
    previousTokenId?: string;
    previousToken?: string;
    retiredServiceAccountIds?: string[];
  };
  return [
    ...(o.retiredServiceAccountIds ?? []).map((id) => ({ id })),
    ...(o.previousServiceAccountId
      ? [{ id: o.previousServiceAccountId, tokenId: o.previousTokenId, token: o.previousToken }]
      : []),
    { id: o.serviceAccountId, tokenId: o.tokenId, token: o.token },
  ];
}

const fixtures = listFixtures("plugin");

test("there is a fixture of the plugin's state", () => {
  expect(fixtures.length).toBeGreaterThan(0);
});

describe.each(fixtures.map((f) => [f.manifest.version, f] as const))(
  "state written by the pims plugin of pulumi-pims %s",
  (_version, fixture) => {
    let sim: PimsSimulator;
    let stack: Stack;
    let backendDir: string;
    let revealed: Deployment;
    let secrets: string[] = [];
    const output: string[] = [];
    /** The one API-key listing per project holding ServiceAccounts that a refresh or destroy run takes. */
    const listings = (): string[] =>
      [...new Set(all(revealed, TYPE("ServiceAccount")).map((r) => (r.outputs as { projectId: string }).projectId))]
        .sort()
        .map((projectId) => `GET /v2/projects/${projectId}/api-keys 200`);
    const collect = { onOutput: (s: string) => void output.push(s), onError: (s: string) => void output.push(s) };

    beforeAll(async () => {
      backendDir = tempDir("pims-compat-plugin-");
      const workDir = writeYamlProject(path.join(backendDir, FIXTURE_PROJECT), { name: FIXTURE_PROJECT, program: "" });
      const open = (baseUrl: string, token: string): Promise<Stack> =>
        createYamlStack({
          ...{ stackName: FIXTURE_STACK, workDir, backendDir, baseUrl, token },
          passphrase: FIXTURE_PASSPHRASE,
        });
      stack = await open(fixture.manifest.baseUrl, NOT_YET_KNOWN);
      await stack.importStack(fixture.state);
      revealed = await stack.exportStack();

      const stored = reveal(one(revealed, "pulumi:providers:pims").inputs);
      const [baseUrl, token] = [String(stored.baseUrl), String(stored.token)];
      try {
        sim = await PimsSimulator.start({ port: Number(new URL(baseUrl).port), token });
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EADDRINUSE") throw e;
        sim = await PimsSimulator.start({ token });
        process.stdout.write(
          `compat plugin ${fixture.manifest.version}: port taken; the simulator is at ${sim.baseUrl}\n`,
        );
        await stack.importStack(JSON.parse(fixture.stateText.split(baseUrl).join(sim.baseUrl)) as Deployment);
        revealed = await stack.exportStack();
      }
      stack = await open(sim.baseUrl, sim.token);

      const { seeded } = fixture.manifest;
      sim.addProject({ id: seeded.projectId });
      const project = one(revealed, TYPE("Project"));
      if (project.id && project.id !== seeded.projectId) sim.addProject({ id: project.id });
      const volume = one(revealed, TYPE("VolumeSize")).outputs as {
        projectId: string;
        volumeId: string;
        sizeGb: number;
      };
      sim.addVolume(volume.projectId, { id: volume.volumeId, sizeGb: volume.sizeGb });
      const app = reveal(one(revealed, TYPE("AppSecrets")).outputs) as {
        projectId: string;
        appId: string;
        secrets: Record<string, string>;
      };
      sim.addApp(app.projectId, app.appId.slice(app.projectId.length + 1));
      const tokens: string[] = [];
      for (const r of all(revealed, TYPE("ServiceAccount"))) {
        const sa = reveal(r.outputs) as { projectId: string; name: string; description?: string; grants: string[] };
        const expiresIn = (r.outputs as { expiresIn: number }).expiresIn;
        for (const a of accountsOf(r)) {
          const { projectId, name, description, grants } = sa;
          sim.addServiceAccount({
            ...{ id: a.id, projectId, name, description, grants, expiresIn },
            tokenId: a.tokenId,
            tokenSecret: a.token,
          });
          if (a.token) tokens.push(a.token);
        }
      }
      secrets = [token, ...tokens, ...Object.values(app.secrets)].filter((s) => typeof s === "string" && s.length >= 8);
      sim.clearRequests();
    }, ENGINE_SETUP_TIMEOUT_MS);
    afterAll(async () => {
      await sim?.stop();
      if (backendDir) fs.rmSync(backendDir, { recursive: true, force: true });
    });

    test("the fixture has every resource type, an account mid-overlap, and no token or secret in plaintext", () => {
      expect(fixture.manifest.types).toEqual([...RESOURCE_KINDS].sort().map(TYPE));
      expect(
        [...new Set(resourcesOf(fixture.state).map((r) => r.type))].filter((t) => t.startsWith("pims:index:")).sort(),
      ).toEqual([...RESOURCE_KINDS].sort().map(TYPE));
      const accounts = all(revealed, TYPE("ServiceAccount")).map((r) => reveal(r.outputs));
      expect(accounts.filter((o) => o.keepPreviousToken === true && typeof o.previousToken === "string")).toHaveLength(
        1,
      );
      expect(secrets.length).toBeGreaterThanOrEqual(5); // the provider's token, three account tokens, the app's secrets
      expectNoPlaintextSecrets(fixture.stateText, secrets, `${fixture.dir}/state.json`);
      expect(fixture.stateText).not.toMatch(TOKEN_PATTERN);
    });

    test("refresh: one listing per project, nothing changes, the stored tokens and secrets survive", async () => {
      const before = resourcesOf(revealed).map((r) => [r.urn, r.id, r.outputs]);
      const result = await stack.refresh(collect);
      expect(
        Object.entries(result.summary.resourceChanges ?? {}).filter(([k, n]) => k !== "same" && (n ?? 0) > 0),
      ).toEqual([]);
      expect(sim.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual(listings());
      expect(resourcesOf(await stack.exportStack()).map((r) => [r.urn, r.id, r.outputs])).toEqual(before);
    });

    test("destroy: one DELETE per stored account (200), none left live, others warned, an empty state", async () => {
      const stored = all(revealed, TYPE("ServiceAccount")).flatMap((r) =>
        accountsOf(r).map(
          (a) => `DELETE /v2/projects/${(r.outputs as { projectId: string }).projectId}/service-accounts/${a.id} 200`,
        ),
      );
      expect(stored).toHaveLength(3);
      sim.clearRequests();
      const result = await stack.destroy(collect);
      // the provider is not counted
      expect(result.summary.resourceChanges).toEqual({ delete: resourcesOf(revealed).length - 1 });
      expect(sim.requests.map((r) => `${r.method} ${r.path} ${r.status}`).sort()).toEqual(
        [...stored, ...listings()].sort(),
      );
      expect(sim.serviceAccounts()).toEqual([]);
      const text = output.join("");
      const project = one(revealed, TYPE("Project"));
      expect(text).toContain(
        `project ${project.id} ("compat-project") was removed from the stack but still exists in the service`,
      );
      expect(text).toMatch(/volume default-us-east-1 in project \S+ was removed from the stack and stays at 100 GB/);
      expect(text).toMatch(/secret\(s\) "API_KEY", "PIMS_TOKEN" remain in the app/);
      expect(resourcesOf(await stack.exportStack())).toEqual([]);
      expectNoPlaintextSecrets(text, secrets, "the engine's output");
    });
  },
);
