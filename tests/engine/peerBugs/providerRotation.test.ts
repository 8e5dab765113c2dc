/**
 * Issue 55, row 5: a stack's explicit provider runs on a token the same stack makes (an account's token feeding a
 * `pims.Provider` / `pulumi:providers:pims`), and rotating that token breaks the provider's resources. Elsewhere the
 * provider's credential is stored in the state and read from there by refresh and destroy, so a credential rotated
 * away leaves them failing with 401 (pulumi/pulumi-azure-native#2895, pulumi/pulumi#4981).
 *
 * What the user needs: with `keepPreviousToken` on the account, its provider's resources keep working through three
 * rotations (each rotation updates the provider to the new token, the provider's resources are changed through it as
 * the new account, a `pulumi refresh` that reads the provider from the state works, and the previous token, which a
 * provider elsewhere may still hold, keeps working until the next rotation); without it, the preview of a rotation
 * warns that the old token dies at the end of the update and says to set `keepPreviousToken: true`. Through the
 * dynamic provider (a TypeScript program) and through the plugin (a YAML program); the same steps for both.
 */
import * as path from "node:path";
import * as pims from "pulumi-pims";
import { writeYamlProject } from "../../../scripts/engine/yaml";
import { type EngineSuite, useEngineStack } from "../../kit/engine/engineSuite";
import { liveIds } from "../../kit/sim/simulator";

type Host = "typescript" | "yaml";

/** What the program reads (the TypeScript program from these variables, the YAML one from its stack config). */
interface Knobs {
  rotation: string;
  keep: boolean;
}

const DAY = 86_400;

/** The TypeScript program: the deployer, a provider on its token, an account and an app's secrets through it. */
const typescriptProgram = (home: string, knobs: Knobs) => async () => {
  const deployer = new pims.ServiceAccount("deployer", {
    projectId: home,
    name: "deployer",
    grants: [home],
    expiresIn: 90 * DAY,
    keepPreviousToken: knobs.keep,
    rotationTrigger: knobs.rotation,
  });
  const scoped = new pims.Provider("scoped", { token: deployer.token });
  const ci = new pims.ServiceAccount(
    "ci",
    { projectId: home, name: "ci", grants: [home], expiresIn: 30 * DAY },
    { provider: scoped },
  );
  new pims.AppSecrets(
    "app",
    { projectId: home, appId: `${home}-web`, secrets: { CI_TOKEN: ci.token, ROUND: knobs.rotation } },
    { provider: scoped },
  );
  return { deployerId: deployer.serviceAccountId, ciId: ci.serviceAccountId };
};

/** The same program in YAML, its knobs in the stack config. */
const yamlProgram = (home: string): string => `
config:
  rotation:
    type: string
    default: r0
  keep:
    type: boolean
    default: true
resources:
  deployer:
    type: pims:index:ServiceAccount
    properties:
      projectId: ${home}
      name: deployer
      grants:
        - ${home}
      expiresIn: ${90 * DAY}
      keepPreviousToken: \${keep}
      rotationTrigger: \${rotation}
  scoped:
    type: pulumi:providers:pims
    properties:
      token: \${deployer.token}
  ci:
    type: pims:index:ServiceAccount
    properties:
      projectId: ${home}
      name: ci
      grants:
        - ${home}
      expiresIn: ${30 * DAY}
    options:
      provider: \${scoped}
  app:
    type: pims:index:AppSecrets
    properties:
      projectId: ${home}
      appId: ${home}-web
      secrets:
        CI_TOKEN: \${ci.token}
        ROUND: \${rotation}
    options:
      provider: \${scoped}
outputs:
  deployerId: \${deployer.serviceAccountId}
  ciId: \${ci.serviceAccountId}
`;

/** The warning a rotation by replacement gives (provider/serviceAccount/rotation.ts replacedTokenLine). */
const DYING = /warning: pulumi-pims: service account "deployer" \(sa-\w+\) is replaced \(rotationTrigger\)[^\n]*/;

function describeHost(host: Host): void {
  describe(`row 5 through ${host === "yaml" ? "the plugin (YAML)" : "the dynamic provider (TypeScript)"}`, () => {
    stepsOf(host);
  });
}

/** The suite of one host: its stack, then the steps in order. */
function stepsOf(host: Host): void {
  const knobs: Knobs = { rotation: "r0", keep: true };
  let home = "";
  const suite: EngineSuite = useEngineStack({
    scratchPrefix: `pims-e2e-peer5-${host}-`,
    stack: ({ sim, scratch }) => {
      home = sim.addProject({ name: "peer-rotation" }).id;
      sim.addApp(home, "web");
      const workDir = path.join(scratch, host);
      if (host === "yaml") {
        writeYamlProject(workDir, { name: "pims-peer-rotation", program: yamlProgram(home) });
        return { stackName: "dev", yaml: true, workDir };
      }
      return { stackName: "dev", projectName: "pims-peer-rotation", workDir, program: typescriptProgram(home, knobs) };
    },
  });
  const { engine } = suite;

  /** Sets the knobs for the next run: the variables the TypeScript program reads, or the YAML stack's config. */
  const set = async (next: Partial<Knobs>): Promise<void> => {
    Object.assign(knobs, next);
    if (host !== "yaml") return;
    await suite.stack.setAllConfig({ rotation: { value: knobs.rotation }, keep: { value: String(knobs.keep) } });
  };

  let deployerId = "";
  let ciId = "";
  const tokens: string[] = []; // the deployer's tokens, oldest first
  const accounts: string[] = []; // the deployer's accounts, oldest first

  test(`row 5, ${host}: up: the deployer, a provider on its token, an account and app secrets through it`, async () => {
    const o = await suite.up({ create: 5 });
    ({ deployerId, ciId } = { deployerId: o.deployerId.value as string, ciId: o.ciId.value as string });
    tokens.push(await suite.tokenOf("deployer"));
    accounts.push(deployerId);
    expect(liveIds(suite.sim, home)).toEqual([deployerId, ciId].sort());
    // the provider's resources are made as the deployer's account
    expect(suite.writes().sort()).toEqual(
      [
        `POST /v2/projects/${home}/service-accounts as admin`,
        `POST /v2/projects/${home}/service-accounts as ${deployerId}`,
        `PATCH /v2/projects/${home}/apps/${home}-web/secrets as ${deployerId}`,
      ].sort(),
    );
  });

  test(`row 5, ${host}: with keepPreviousToken the provider's resources keep working through 3 rotations`, async () => {
    for (const round of ["r1", "r2", "r3"]) {
      await set({ rotation: round });
      const before = engine.text().length;
      // updated: the deployer (a new account), the provider (its token) and the app's secrets (ROUND) through it
      const o = await suite.up({ update: 3, same: 2 });
      const current = o.deployerId.value as string;
      const token = await suite.tokenOf("deployer");
      expect(current).not.toBe(accounts[accounts.length - 1]);
      expect(o.ciId.value).toBe(ciId); // nothing the provider manages is replaced
      expect(engine.text().slice(before)).not.toMatch(DYING);
      const twoBack = accounts.length >= 2 ? [accounts[accounts.length - 2]] : [];
      // one new account; the app's secrets written as it, through the updated provider; the account two rotations
      // old deleted (by the stack's own credential, which manages the deployer)
      expect(suite.writes().sort()).toEqual(
        [
          `POST /v2/projects/${home}/service-accounts as admin`,
          `PATCH /v2/projects/${home}/apps/${home}-web/secrets as ${current}`,
          ...twoBack.map((id) => `DELETE /v2/projects/${home}/service-accounts/${id} as admin`),
        ].sort(),
      );
      expect(suite.sim.appSecrets(home, `${home}-web`).ROUND).toBe(round);
      // the previous token, which a provider elsewhere may still hold, works until the next rotation
      expect(await suite.tokenWorks(tokens[tokens.length - 1], home)).toBe(true);
      expect(await suite.tokenWorks(token, home)).toBe(true);
      for (const old of tokens.slice(0, -1)) expect(await suite.tokenWorks(old, home)).toBe(false);
      expect(liveIds(suite.sim, home)).toEqual([accounts[accounts.length - 1], current, ciId].sort());
      tokens.push(token);
      accounts.push(current);

      // refresh reads the provider from the state: it works, as the newest account, and changes nothing
      suite.clearRequests();
      const refresh = await suite.stack.refresh(engine.opts);
      expect(refresh.summary.result).toBe("succeeded");
      expect(refresh.summary.resourceChanges).toEqual({ same: 5 });
      expect(suite.calls()).toContain(`GET /v2/projects/${home}/api-keys as ${current}`);
      expect(suite.calls().filter((c) => !c.endsWith(`as ${current}`) && !c.endsWith("as admin"))).toEqual([]);
    }
  });

  test(`row 5, ${host}: without keepPreviousToken the preview of a rotation warns, saying what to set`, async () => {
    await set({ rotation: "r4", keep: false });
    suite.clearRequests();
    const before = engine.text().length;
    const preview = await suite.stack.preview(engine.opts);
    expect(preview.changeSummary).toMatchObject({ replace: 1 });
    const shown = engine.text().slice(before);
    const line = DYING.exec(shown)?.[0] ?? "";
    expect(line).toContain(`account ${accounts[accounts.length - 1]} and its token are deleted at the end`);
    expect(line).toContain("pims.Provider (pulumi:providers:pims) built from it");
    expect(line).toContain("set `keepPreviousToken: true` on this ServiceAccount");
    expect(suite.writes()).toEqual([]); // a preview changes nothing
    await set({ rotation: "r3", keep: true });
    await suite.stack.preview({ ...engine.opts, expectNoChanges: true });
  });

  test(`row 5, ${host}: destroy with the provider's newest token leaves nothing live; no plaintext token`, async () => {
    suite.clearRequests();
    const down = await suite.stack.destroy(engine.opts);
    expect(down.summary.result).toBe("succeeded");
    expect(suite.writes()).toContain(
      `DELETE /v2/projects/${home}/service-accounts/${ciId} as ${accounts[accounts.length - 1]}`,
    );
    expect(liveIds(suite.sim, home)).toEqual([]);
    suite.expectNoSecrets();
  });
}

describeHost("typescript");
describeHost("yaml");
