/**
 * State compatibility: the current code must refresh and destroy every state written by an earlier version.
 *
 * Each fixture in tests/fixtures/v<version>/ is a stack exported right after a real `pulumi up` of that version
 * (all four resource types, secrets encrypted with the fixtures' passphrase). For each one the test imports it
 * (`stack.importStack`) into a fresh backend, serves a simulator holding the same objects (same ids), then:
 *   - refresh: one call, the API-key listing of each project holding ServiceAccounts (the only read the service has;
 *     the other resources have none), nothing changes, the stored ServiceAccount token and the AppSecrets survive;
 *   - destroy: one DELETE per stored service account (each ServiceAccount's current account, and since 0.2.0 its
 *     previous and retired ones), each answered 200 (the simulator is seeded with every stored account: same id,
 *     token id and token), plus the run's one listing per project (accounts no state holds), after which the
 *     simulator holds no live account; one warning line each for the Project,
 *     the VolumeSize and the AppSecrets (the service cannot delete them), and an empty state.
 * The stored provider shim `require()`s the installed package, so this runs the current code on old state.
 *
 * Refresh and destroy use the provider configuration stored in the state (`pims:baseUrl` in plaintext,
 * `pims:token` encrypted), not the stack's config: the simulator is started at the fixture's address with the
 * fixture's token (decrypted from the state, never written in plaintext). If that port is taken, it runs on a
 * free port and the stored `pims:baseUrl` is rewritten to it before the import (said in the test output).
 *
 * Rule: every later version must refresh and destroy every fixture in tests/fixtures/; add one per release
 * (tests/fixtures/make-fixture.ts).
 */
import * as fs from "node:fs";
import { RESOURCE_KINDS, typeToken } from "../../provider/kinds";
import type { Deployment, Stack } from "@pulumi/pulumi/automation";
import { createPimsStack, tempDir } from "../../scripts/engine";
import { expectNoPlaintextSecrets } from "../helpers";
import { PimsSimulator } from "../../simulator";
import {
  FIXTURE_PASSPHRASE,
  FIXTURE_PROJECT,
  FIXTURE_STACK,
  listFixtures,
  TOKEN_PATTERN,
  type Fixture,
} from "../fixtures/fixtures";

jest.setTimeout(180_000);

const SECRET_SIG = "4dabf18193072939515e22adb298388d";
/**
 * The stack's `pims:token` until the fixture's own token is known: that one is encrypted in the state, which needs
 * the stack (and its passphrase) to be decrypted. Refresh and destroy do not use the stack's config anyway.
 */
const NOT_YET_KNOWN = "replaced-by-the-fixture-token-after-import";
const TYPE = typeToken;

interface StateResource {
  urn: string;
  type: string;
  id?: string;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
}
const resourcesOf = (d: Deployment | Fixture["state"]): StateResource[] =>
  (d.deployment as { resources?: StateResource[] }).resources ?? [];
const all = (d: Deployment | Fixture["state"], type: string): StateResource[] =>
  resourcesOf(d).filter((r) => r.type === type);
const one = (d: Deployment | Fixture["state"], type: string): StateResource => {
  const found = resourcesOf(d).filter((r) => r.type === type);
  if (found.length !== 1) throw new Error(`expected one ${type} in the state, found ${found.length}`);
  return found[0];
};

/** The first resource of each type (a state may hold several ServiceAccounts). */
const oneOfEachType = (d: Deployment | Fixture["state"]): StateResource[] => [
  ...new Map(resourcesOf(d).map((r) => [r.type, r])).values(),
];

/** A value as `stack.exportStack()` (--show-secrets) renders it: secrets decrypted. */
function reveal(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(reveal);
  if (typeof v === "object" && v !== null) {
    const o = v as Record<string, unknown>;
    if (SECRET_SIG in o && typeof o.plaintext === "string") return reveal(JSON.parse(o.plaintext));
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, reveal(x)]));
  }
  return v;
}

/**
 * A ServiceAccount's outputs, secrets revealed, as any version wrote them (the previous and retired ones since 0.2.0).
 */
interface StoredAccount {
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

/** The live accounts a ServiceAccount resource holds: retired, previous, current (the resource id before 0.2.0). */
function accountsOf(r: StateResource): Array<{ id: string; tokenId?: string; token?: string }> {
  const o = reveal(r.outputs) as StoredAccount;
  return [
    ...(o.retiredServiceAccountIds ?? []).map((id) => ({ id })),
    ...(o.previousServiceAccountId
      ? [{ id: o.previousServiceAccountId, tokenId: o.previousTokenId, token: o.previousToken }]
      : []),
    { id: o.serviceAccountId ?? String(r.id), tokenId: o.tokenId, token: o.token },
  ];
}

/** Every string inside a value. */
const strings = (v: unknown): string[] =>
  typeof v === "string"
    ? [v]
    : Array.isArray(v)
      ? v.flatMap(strings)
      : typeof v === "object" && v !== null
        ? Object.values(v).flatMap(strings)
        : [];

const fixtures = listFixtures();

test("there is a fixture for every released version, the current one included", () => {
  const version = (require("../../package.json") as { version: string }).version;
  expect(fixtures.map((f) => f.manifest.version)).toContain(version);
});

describe.each(fixtures.map((f) => [f.manifest.version, f] as const))(
  "state written by pulumi-pims %s",
  (_version, fixture) => {
    let sim: PimsSimulator;
    let stack: Stack;
    let backendDir: string;
    /** The imported state with its secrets decrypted (Automation API exportStack passes --show-secrets). */
    let revealed: Deployment;
    /** Every secret the fixture holds (decrypted): never to be printed or stored in plaintext. */
    let secrets: string[] = [];
    const output: string[] = [];
    /** One GET /v2/projects/{project_id}/api-keys per project that holds ServiceAccounts: the run's shared listing. */
    const listings = (): string[] =>
      [...new Set(all(revealed, TYPE("ServiceAccount")).map((r) => (r.outputs as { projectId: string }).projectId))]
        .sort()
        .map((projectId) => `GET /v2/projects/${projectId}/api-keys 200`);
    const collect = { onOutput: (s: string) => void output.push(s), onError: (s: string) => void output.push(s) };

    beforeAll(async () => {
      backendDir = tempDir("pims-compat-");
      stack = await createPimsStack({
        stackName: FIXTURE_STACK,
        projectName: FIXTURE_PROJECT,
        program: async () => undefined,
        backendDir,
        baseUrl: fixture.manifest.baseUrl,
        token: NOT_YET_KNOWN,
        passphrase: FIXTURE_PASSPHRASE,
      });
      await stack.importStack(fixture.state);
      revealed = await stack.exportStack();

      // The provider configuration stored in the state: where refresh and destroy will send their calls.
      const provider = one(revealed, "pulumi:providers:pulumi-nodejs");
      const stored = reveal(provider.inputs) as Record<string, unknown>;
      const baseUrl = String(stored["pims:baseUrl"]);
      const token = String(stored["pims:token"]);
      const port = Number(new URL(baseUrl).port);
      try {
        sim = await PimsSimulator.start({ port, token });
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EADDRINUSE") throw e;
        sim = await PimsSimulator.start({ token });
        process.stdout.write(
          `compat ${fixture.manifest.version}: port ${port} is taken; serving the simulator at ${sim.baseUrl} and ` +
            `rewriting the stored pims:baseUrl\n`,
        );
        const moved = JSON.parse(fixture.stateText.split(baseUrl).join(sim.baseUrl)) as Deployment;
        await stack.importStack(moved);
        revealed = await stack.exportStack();
      }
      await stack.setAllConfig({
        "pims:baseUrl": { value: sim.baseUrl },
        "pims:token": { value: sim.token, secret: true },
      });

      // The service holds the same objects as when the fixture was written (same ids).
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

      // every stored service account (current, previous, retired), with its id, token id and token:
      // destroy deletes each (200)
      const tokens: string[] = [];
      for (const r of all(revealed, TYPE("ServiceAccount"))) {
        const sa = reveal(r.outputs) as StoredAccount;
        for (const a of accountsOf(r)) {
          const { projectId, name, description, grants, expiresIn } = sa;
          sim.addServiceAccount({
            id: a.id,
            projectId,
            name,
            description,
            grants,
            expiresIn,
            tokenId: a.tokenId,
            tokenSecret: a.token,
          });
          if (a.token) tokens.push(a.token);
        }
      }
      secrets = [token, ...tokens, ...Object.values(app.secrets)].filter((s) => typeof s === "string" && s.length >= 8);
      sim.clearRequests();
    });
    afterAll(async () => {
      await sim?.stop();
      if (backendDir) fs.rmSync(backendDir, { recursive: true, force: true });
    });

    test("the fixture has every resource type and no token or secret in plaintext", () => {
      expect(
        oneOfEachType(fixture.state)
          .map((r) => r.type)
          .filter((t) => t.startsWith("pulumi-nodejs:dynamic/pims:"))
          .sort(),
      ).toEqual([...RESOURCE_KINDS].sort().map(TYPE));
      expect(fixture.manifest.types).toEqual([...RESOURCE_KINDS].sort().map(TYPE));
      expect(secrets.length).toBeGreaterThanOrEqual(3); // the provider's token, the account's token, the app's secrets
      expectNoPlaintextSecrets(fixture.stateText, secrets, `${fixture.dir}/state.json`);
      expect(fixture.stateText).not.toMatch(TOKEN_PATTERN);
      if (fixture.manifest.version.localeCompare("0.2.0", undefined, { numeric: true }) >= 0) {
        // Since 0.2.0: an account without keepPreviousToken and one mid-overlap (a current and a previous account).
        const accounts = all(revealed, TYPE("ServiceAccount")).map(
          (r) => r.outputs as { keepPreviousToken?: boolean; previousServiceAccountId?: string },
        );
        expect(accounts.filter((o) => o.keepPreviousToken !== true)).not.toHaveLength(0);
        expect(
          accounts.filter((o) => o.keepPreviousToken === true && typeof o.previousServiceAccountId === "string"),
        ).not.toHaveLength(0);
      }
      // the secrets are there, encrypted: the fixture's passphrase decrypts them
      expect(FIXTURE_PASSPHRASE).toBeTruthy();
      for (const r of all(revealed, TYPE("ServiceAccount"))) {
        expect(strings(reveal(r.outputs))).toEqual(expect.arrayContaining([expect.stringMatching(/^pims_sa_/)]));
      }
    });

    test("refresh: one listing per project, nothing changes, the stored token and secrets survive", async () => {
      const before = resourcesOf(revealed).map((r) => [r.urn, r.id, r.outputs]);
      const result = await stack.refresh(collect);
      expect(
        Object.entries(result.summary.resourceChanges ?? {}).filter(([k, n]) => k !== "same" && (n ?? 0) > 0),
      ).toEqual([]);
      expect(sim.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual(listings());
      const after = await stack.exportStack();
      expect(resourcesOf(after).map((r) => [r.urn, r.id, r.outputs])).toEqual(before);
    });

    test("destroy: a DELETE (200) per current and previous account; none left; others warned; no state", async () => {
      const stored = all(revealed, TYPE("ServiceAccount")).flatMap((r) =>
        accountsOf(r).map((a) => ({
          id: a.id,
          path: `/v2/projects/${(r.outputs as { projectId: string }).projectId}/service-accounts/${a.id}`,
        })),
      );
      const ids = stored.map((a) => a.id).sort();
      expect(
        sim
          .serviceAccounts()
          .map((a) => a.id)
          .sort(),
      ).toEqual(ids);
      sim.clearRequests();
      const result = await stack.destroy(collect);
      // the provider is not counted
      expect(result.summary.resourceChanges).toEqual({ delete: resourcesOf(revealed).length - 1 });
      // ServiceAccounts are deleted in parallel: the order across resources is the engine's.
      expect(sim.requests.map((r) => `${r.method} ${r.path} ${r.status}`).sort()).toEqual(
        [...stored.map((a) => `DELETE ${a.path} 200`), ...listings()].sort(),
      );
      expect(sim.serviceAccounts()).toEqual([]);
      expect(sim.deletedServiceAccounts().sort()).toEqual(ids);
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
