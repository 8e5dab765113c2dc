/**
 * What the two state-compatibility suites share: compat/dynamic.test.ts (the dynamic resources' fixtures) and
 * compat/plugin.test.ts (the `pims` plugin's). Both import an old state into a fresh stack, serve a simulator that
 * holds what that stack held (same ids, token ids and tokens), then check refresh and destroy the same way. Only the
 * stack (a TypeScript or a YAML project), the type tokens and where the provider's settings are stored differ.
 * The scripts that write the fixtures share tests/kit/engine/fixtureMaker.ts.
 */
import * as path from "node:path";
import type { Deployment, Stack } from "@pulumi/pulumi/automation";
import { RESOURCE_KINDS, type ResourceKind } from "../../../provider/kinds";
import { tempDir } from "../../../scripts/engine";
import { PimsSimulator } from "../../../simulator";
import { TOKEN_PATTERN, type Fixture } from "../../fixtures/fixtures";
import {
  ENGINE_SETUP_TIMEOUT_MS,
  onlyResourceOfType,
  resources,
  resourcesOfType,
  revealed,
  type StateResource,
} from "./engine";
import { expectNoPlaintextSecrets } from "../secrets/secrets";
import { tearDown } from "../teardown";

/**
 * A ServiceAccount's outputs, secrets revealed, as any version wrote them (the previous and retired ones since 0.2.0;
 * no serviceAccountId before 0.2.0, where the resource id was the account's).
 */
export interface StoredAccount {
  projectId: string;
  name: string;
  description?: string;
  grants: string[];
  expiresIn: number;
  serviceAccountId?: string;
  tokenId: string;
  token: string;
  previousServiceAccountId?: string;
  previousTokenId?: string;
  previousToken?: string;
  retiredServiceAccountIds?: string[];
}

/** The live accounts a ServiceAccount resource holds: retired, previous, current. */
export function accountsOf(r: StateResource): Array<{ id: string; tokenId?: string; token?: string }> {
  const o = revealed(r.outputs) as StoredAccount;
  return [
    ...(o.retiredServiceAccountIds ?? []).map((id) => ({ id })),
    ...(o.previousServiceAccountId
      ? [{ id: o.previousServiceAccountId, tokenId: o.previousTokenId, token: o.previousToken }]
      : []),
    { id: o.serviceAccountId ?? String(r.id), tokenId: o.tokenId, token: o.token },
  ];
}

/** The imported state and the simulator serving it, as the suites' tests check them. */
export interface Served {
  stack: Stack;
  sim: PimsSimulator;
  /** The imported state with its secrets decrypted (Automation API exportStack passes --show-secrets). */
  revealed: Deployment;
  /** The type token of a kind: `pulumi-nodejs:dynamic/pims:Project` or `pims:index:Project`. */
  type: (kind: ResourceKind) => string;
  /** Every secret the fixture holds (decrypted): never to be printed or stored in plaintext. */
  secrets: string[];
  /** Everything the engine printed during refresh and destroy. */
  output: string[];
}

/** What differs between the two hosts' state suites. */
export interface Host {
  /** Who wrote the states, for the titles: `pulumi-pims` or `the pims plugin of pulumi-pims`. */
  title: string;
  /** The type token of a kind: `pulumi-nodejs:dynamic/pims:Project` or `pims:index:Project`. */
  type: (kind: ResourceKind) => string;
  /** The default provider's type, and the keys of its stored inputs that hold the address and the token. */
  provider: { type: string; baseUrl: string; token: string };
  /** A stack in the fresh backend `backendDir` to import the fixture into, with this address and token. */
  open(backendDir: string, baseUrl: string, token: string): Promise<Stack>;
  /** The fewest secrets a fixture holds: the provider's token, the accounts' tokens, the app's secret values. */
  minSecrets: number;
  /** The host's own checks of a fixture (the accounts its fixture maker wrote). */
  checkFixture(s: Served, fixture: Fixture): void;
}

/**
 * The stack's `pims:token` until the fixture's own token is known: that one is encrypted in the state, which needs
 * the stack (and its passphrase) to be decrypted. Refresh and destroy do not use the stack's config anyway.
 */
const NOT_YET_KNOWN = "replaced-by-the-fixture-token-after-import";

/**
 * The tests of every fixture of one host: its contents, then refresh and destroy with the current code. Each runs
 * in a fresh backend with a simulator that holds what the fixture's stack held.
 */
export function describeFixtures(host: Host, fixtures: Fixture[]): void {
  describe.each(fixtures.map((f) => [path.basename(f.dir), f] as const))(
    `state written by ${host.title} %s`,
    (_v, fixture) => {
      let s: Served;
      let backendDir: string;

      beforeAll(async () => {
        backendDir = tempDir("pims-compat-");
        s = await serveFixture(fixture, await host.open(backendDir, fixture.manifest.baseUrl, NOT_YET_KNOWN), host);
      }, ENGINE_SETUP_TIMEOUT_MS);
      afterAll(() => tearDown([s?.sim], backendDir));

      test("the fixture has every resource type and no token or secret in plaintext", () => {
        const types = [...RESOURCE_KINDS].sort().map(host.type);
        expect(fixture.manifest.types).toEqual(types);
        expect(
          [...new Set(resources(fixture.state).map((r) => r.type))].filter((t) => types.includes(t)).sort(),
        ).toEqual(types);
        expect(s.secrets.length).toBeGreaterThanOrEqual(host.minSecrets);
        expectNoPlaintextSecrets(fixture.stateText, s.secrets, `${fixture.dir}/state.json`);
        expect(fixture.stateText).not.toMatch(TOKEN_PATTERN);
        host.checkFixture(s, fixture);
      });

      test("refresh: one listing per project, nothing changes, the stored tokens and secrets survive", async () => {
        await expectRefreshChangesNothing(s);
      });

      test("destroy: one DELETE (200) per stored account, none left live, others warned, an empty state", async () => {
        await expectDestroyDeletesEveryAccount(s);
      });
    },
  );
}

/**
 * Imports the fixture's state into `stack` (opened with the fixture's address and {@link NOT_YET_KNOWN}), starts the
 * simulator where the stored provider will send refresh and destroy, and seeds it with what the fixture's stack held.
 */
async function serveFixture(fixture: Fixture, stack: Stack, host: Host): Promise<Served> {
  const { provider, type } = host;
  await stack.importStack(fixture.state);
  const imported = await stack.exportStack();
  const stored = revealed(onlyResourceOfType(imported, provider.type).inputs) as Record<string, unknown>;
  const [baseUrl, token] = [String(stored[provider.baseUrl]), String(stored[provider.token])];
  const { sim, revealed: state } = await serveStoredAddress(stack, fixture, { revealed: imported, baseUrl, token });
  await stack.setAllConfig({
    "pims:baseUrl": { value: sim.baseUrl },
    "pims:token": { value: sim.token, secret: true },
  });
  const secrets = seedFromState(sim, fixture, state, type, token);
  return { stack, sim, revealed: state, type, secrets, output: [] };
}

/**
 * Starts the simulator where the state's provider will send refresh and destroy: at the stored `baseUrl` with the
 * stored token. If that port is taken, it starts on a free port and the state is imported again with the stored
 * address rewritten to it (said in the test output). Returns the simulator and the state as imported now.
 */
async function serveStoredAddress(
  stack: Stack,
  fixture: Fixture,
  imported: { revealed: Deployment; baseUrl: string; token: string },
): Promise<{ sim: PimsSimulator; revealed: Deployment }> {
  const { revealed: state, baseUrl, token } = imported;
  try {
    return { sim: await PimsSimulator.start({ port: Number(new URL(baseUrl).port), token }), revealed: state };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EADDRINUSE") throw e;
  }
  const sim = await PimsSimulator.start({ token });
  const { host = "dynamic", version } = fixture.manifest;
  process.stdout.write(
    `compat ${host} ${version}: ${baseUrl} is taken; serving the simulator at ${sim.baseUrl} and rewriting the ` +
      `stored address\n`,
  );
  await stack.importStack(JSON.parse(fixture.stateText.split(baseUrl).join(sim.baseUrl)) as Deployment);
  return { sim, revealed: await stack.exportStack() };
}

/**
 * Seeds `sim` with what the fixture's stack held: the seeded project and the stack's own, the volume, the app, and
 * every stored service account (current, previous, retired) with its id, token id and token (a fresh one where the
 * state holds none: a delivered token), so destroy deletes each (200). Returns every secret of the state: the
 * provider's token, the accounts' tokens, the app's secret values.
 */
function seedFromState(
  sim: PimsSimulator,
  fixture: Fixture,
  state: Deployment,
  type: (kind: ResourceKind) => string,
  providerToken: string,
): string[] {
  const { seeded } = fixture.manifest;
  sim.addProject({ id: seeded.projectId });
  const project = onlyResourceOfType(state, type("Project"));
  if (project.id && project.id !== seeded.projectId) sim.addProject({ id: project.id });
  const volume = onlyResourceOfType(state, type("VolumeSize")).outputs as {
    projectId: string;
    volumeId: string;
    sizeGb: number;
  };
  sim.addVolume(volume.projectId, { id: volume.volumeId, sizeGb: volume.sizeGb });
  const app = revealed(onlyResourceOfType(state, type("AppSecrets")).outputs) as {
    projectId: string;
    appId: string;
    secrets: Record<string, string>;
  };
  sim.addApp(app.projectId, app.appId.slice(app.projectId.length + 1));
  const tokens: string[] = [];
  for (const r of resourcesOfType(state, type("ServiceAccount"))) {
    const { projectId, name, description, grants, expiresIn } = revealed(r.outputs) as StoredAccount;
    for (const a of accountsOf(r)) {
      // A delivered token (tokenDelivery, since 0.6.0) is not in the state (`token` ""): the simulator makes one.
      sim.addServiceAccount({
        ...{ id: a.id, projectId, name, description, grants, expiresIn },
        ...{ tokenId: a.tokenId, tokenSecret: a.token || undefined },
      });
      if (a.token) tokens.push(a.token);
    }
  }
  sim.clearRequests();
  return [providerToken, ...tokens, ...Object.values(app.secrets)].filter(
    (s) => typeof s === "string" && s.length >= 8,
  );
}

/** The one GET /v2/projects/{project_id}/api-keys per project holding ServiceAccounts that refresh or destroy takes. */
function listings(s: Served): string[] {
  return [
    ...new Set(
      resourcesOfType(s.revealed, s.type("ServiceAccount")).map((r) => (r.outputs as { projectId: string }).projectId),
    ),
  ]
    .sort()
    .map((projectId) => `GET /v2/projects/${projectId}/api-keys 200`);
}

const collect = (s: Served): { onOutput: (t: string) => void; onError: (t: string) => void } => ({
  onOutput: (t) => void s.output.push(t),
  onError: (t) => void s.output.push(t),
});

/** Refresh: one listing per project, nothing changes, the stored tokens and secrets survive. */
async function expectRefreshChangesNothing(s: Served): Promise<void> {
  const before = resources(s.revealed).map((r) => [r.urn, r.id, r.outputs]);
  const result = await s.stack.refresh(collect(s));
  expect(Object.entries(result.summary.resourceChanges ?? {}).filter(([k, n]) => k !== "same" && (n ?? 0) > 0)).toEqual(
    [],
  );
  expect(s.sim.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual(listings(s));
  expect(resources(await s.stack.exportStack()).map((r) => [r.urn, r.id, r.outputs])).toEqual(before);
}

/**
 * Destroy: one DELETE (200) per stored account plus the run's listings, none left live; one warning each for the
 * Project, the VolumeSize and the AppSecrets (the service cannot delete them); an empty state; no secret in the
 * engine's output.
 */
async function expectDestroyDeletesEveryAccount(s: Served): Promise<void> {
  const stored = resourcesOfType(s.revealed, s.type("ServiceAccount")).flatMap((r) =>
    accountsOf(r).map((a) => ({
      id: a.id,
      call: `DELETE /v2/projects/${(r.outputs as { projectId: string }).projectId}/service-accounts/${a.id} 200`,
    })),
  );
  const ids = stored.map((a) => a.id).sort();
  expect(
    s.sim
      .serviceAccounts()
      .map((a) => a.id)
      .sort(),
  ).toEqual(ids);
  s.sim.clearRequests();
  const result = await s.stack.destroy(collect(s));
  // the provider is not counted
  expect(result.summary.resourceChanges).toEqual({ delete: resources(s.revealed).length - 1 });
  // ServiceAccounts are deleted in parallel: the order across resources is the engine's.
  expect(s.sim.requests.map((r) => `${r.method} ${r.path} ${r.status}`).sort()).toEqual(
    [...stored.map((a) => a.call), ...listings(s)].sort(),
  );
  expect(s.sim.serviceAccounts()).toEqual([]);
  expect(s.sim.deletedServiceAccounts().sort()).toEqual(ids);
  const text = s.output.join("");
  const project = onlyResourceOfType(s.revealed, s.type("Project"));
  expect(text).toContain(
    `project ${project.id} ("compat-project") was removed from the stack but still exists in the service`,
  );
  expect(text).toMatch(/volume default-us-east-1 in project \S+ was removed from the stack and stays at 100 GB/);
  expect(text).toMatch(/secret\(s\) "API_KEY", "PIMS_TOKEN" remain in the app/);
  expect(resources(await s.stack.exportStack())).toEqual([]);
  expectNoPlaintextSecrets(text, s.secrets, "the engine's output");
}
