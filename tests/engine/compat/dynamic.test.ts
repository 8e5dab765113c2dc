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
 * The stored provider shim `require()`s the installed package, so this runs the current code on old state. The
 * steps and checks shared with the plugin's states (compatPlugin.test.ts) are in tests/kit/engine/fixtures.ts.
 *
 * Refresh and destroy use the provider configuration stored in the state (`pims:baseUrl` in plaintext,
 * `pims:token` encrypted), not the stack's config: the simulator is started at the fixture's address with the
 * fixture's token (decrypted from the state, never written in plaintext). If that port is taken, it runs on a
 * free port and the stored `pims:baseUrl` is rewritten to it before the import (said in the test output).
 *
 * Rule: every later version must refresh and destroy every fixture in tests/fixtures/; add one per release
 * (tests/fixtures/make-fixture.ts).
 */
import { typeToken } from "../../../provider/kinds";
import { createPimsStack } from "../../../scripts/engine";
import { FIXTURE_PASSPHRASE, FIXTURE_PROJECT, FIXTURE_STACK, listFixtures } from "../../fixtures/fixtures";
import { describeFixtures } from "../../kit/engine/fixtures";
import { resourcesOfType, revealed } from "../../kit/engine/engine";
import { packageVersion } from "../../../provider/plugin/tokens";

jest.setTimeout(180_000);

const TYPE = typeToken;

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
  const version = packageVersion();
  expect(fixtures.map((f) => f.manifest.version)).toContain(version);
});

describeFixtures(
  {
    title: "pulumi-pims",
    type: TYPE,
    // The dynamic host's default provider keeps the stack's pims:* config as its inputs.
    provider: { type: "pulumi:providers:pulumi-nodejs", baseUrl: "pims:baseUrl", token: "pims:token" },
    open: (backendDir, baseUrl, token) =>
      createPimsStack({
        ...{ stackName: FIXTURE_STACK, projectName: FIXTURE_PROJECT, program: async () => undefined },
        ...{ backendDir, baseUrl, token, passphrase: FIXTURE_PASSPHRASE },
      }),
    minSecrets: 3, // the provider's token, the account's token, the app's secrets
    checkFixture: (s, fixture) => {
      if (fixture.manifest.version.localeCompare("0.2.0", undefined, { numeric: true }) >= 0) {
        // Since 0.2.0: an account without keepPreviousToken and one mid-overlap (a current and a previous account).
        const accounts = resourcesOfType(s.revealed, TYPE("ServiceAccount")).map(
          (r) => r.outputs as { keepPreviousToken?: boolean; previousServiceAccountId?: string },
        );
        expect(accounts.filter((o) => o.keepPreviousToken !== true)).not.toHaveLength(0);
        expect(
          accounts.filter((o) => o.keepPreviousToken === true && typeof o.previousServiceAccountId === "string"),
        ).not.toHaveLength(0);
      }
      // the secrets are there, encrypted: the fixture's passphrase decrypts them
      expect(FIXTURE_PASSPHRASE).toBeTruthy();
      for (const r of resourcesOfType(s.revealed, TYPE("ServiceAccount"))) {
        const o = revealed(r.outputs) as { tokenHeld?: boolean; sealedToken?: string; previousSealedToken?: string };
        if (o.tokenHeld !== false) {
          expect(strings(o)).toEqual(expect.arrayContaining([expect.stringMatching(/^pims_sa_/)]));
          continue;
        }
        // A delivered account (tokenDelivery, since 0.6.0): no token at all, only the ciphertext of the sealed ones.
        expect(strings(o).filter((v) => v.startsWith("pims_sa_"))).toEqual([]);
        expect(o.sealedToken).toMatch(/^-----BEGIN AGE ENCRYPTED FILE-----\n/);
      }
    },
  },
  fixtures,
);
