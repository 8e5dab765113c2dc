/**
 * State compatibility of the `pims` provider plugin: the current code must refresh and destroy every state an earlier
 * plugin wrote (tests/fixtures/v<version>-plugin/, made by tests/fixtures/make-plugin-fixture.ts from a YAML program),
 * as tests/engine/compat/dynamic.test.ts does for the dynamic resources' states.
 *
 * Each fixture is imported into a fresh stack of an empty YAML project whose `plugins.providers` names this
 * repository's plugin (scripts/engine/yaml.ts), so refresh and destroy run the current plugin on the old state. The
 * default provider's stored inputs (`baseUrl`, `token` encrypted) say where those calls go: the simulator is started
 * at that address with that token (decrypted, never written in plaintext), or on a free port with the stored address
 * rewritten. It holds the same objects as when the fixture was written (same ids, token ids and tokens). Then:
 *   - refresh: one call, the API-key listing of each project holding ServiceAccounts (the only read the service
 *     has), nothing changes, the stored tokens and app secrets survive;
 *   - destroy: one DELETE per stored service account (current and previous), each 200, plus the run's one listing per
 *     project, none left live; one warning
 *     each for the Project, the VolumeSize and the AppSecrets; an empty state; no secret in the engine's output.
 * Those steps and checks are tests/kit/engine/fixtures.ts, shared with compat.test.ts.
 */
import * as path from "node:path";
import { createYamlStack, writeYamlProject } from "../../../scripts/engine/yaml";
import { FIXTURE_PASSPHRASE, FIXTURE_PROJECT, FIXTURE_STACK, listFixtures } from "../../fixtures/fixtures";
import { accountsOf, describeFixtures } from "../../kit/engine/fixtures";
import { resourcesOfType, revealed } from "../../kit/engine/engine";

jest.setTimeout(180_000);

const TYPE = (kind: string): string => `pims:index:${kind}`;

const fixtures = listFixtures("plugin");

test("there is a fixture of the plugin's state", () => {
  expect(fixtures.length).toBeGreaterThan(0);
});

describeFixtures(
  {
    title: "the pims plugin of pulumi-pims",
    type: TYPE,
    provider: { type: "pulumi:providers:pims", baseUrl: "baseUrl", token: "token" },
    open: (backendDir, baseUrl, token) => {
      // An empty YAML project whose plugins.providers names this repository's plugin (scripts/engine/yaml.ts).
      const workDir = writeYamlProject(path.join(backendDir, FIXTURE_PROJECT), { name: FIXTURE_PROJECT, program: "" });
      return createYamlStack({
        stackName: FIXTURE_STACK,
        workDir,
        backendDir,
        baseUrl,
        token,
        passphrase: FIXTURE_PASSPHRASE,
      });
    },
    minSecrets: 5, // the provider's token, three account tokens, the app's secrets
    checkFixture: (s) => {
      // An account mid-overlap: three accounts stored (two current, one previous), each deleted by destroy.
      const accounts = resourcesOfType(s.revealed, TYPE("ServiceAccount"));
      const outputs = accounts.map((r) => revealed(r.outputs) as Record<string, unknown>);
      expect(outputs.filter((o) => o.keepPreviousToken === true && typeof o.previousToken === "string")).toHaveLength(
        1,
      );
      expect(accounts.flatMap(accountsOf)).toHaveLength(3);
    },
  },
  fixtures,
);
