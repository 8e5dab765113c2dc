/**
 * Issue 55, row 6: an imported token is `null` elsewhere, so the import is useless: the provider's read cannot get a
 * token back from the service and nothing lets the user give the one they have
 * (grafana/terraform-provider-grafana#2103, confluentinc/terraform-provider-confluent#344). Pulumi 3.254.0
 * (pulumi/pulumi#23984) lets an import file carry `outputs`; the engine then stores them as given and skips the
 * provider's read, so nothing checks them there.
 *
 * What the user needs: the token they have held in the state, proven against the service (the project's API-key
 * listing shows the account's key matching it and no other, and the service accepts it), and a wrong token refused
 * with an error saying which check failed, before anything uses it. Through the plugin (a YAML program): `pulumi
 * import --file` with `outputs`, then the first `pulumi up` proves the token (an update with no write) or fails.
 * Through
 * the dynamic provider (a TypeScript program, which `pulumi import` cannot reach): `adoptServiceAccountId` with
 * `adoptToken`, proven by the create. The token is never in plaintext in the state, the output or any file.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { writeYamlProject } from "../../../scripts/engine/yaml";
import {
  exportEncrypted,
  isEncryptedSecret,
  resource,
  resources,
  SECRET_SIG,
  SECRET_VALUE,
} from "../../kit/engine/engine";
import { type EngineSuite, useEngineStack } from "../../kit/engine/engineSuite";
import { accountYaml, useOneAccountStack } from "../../kit/engine/oneAccount";
import { consoleAccount, liveIds } from "../../kit/sim/simulator";

const DECLARED = { description: "made in the console", expiresIn: 7_776_000 };

/** A token of the same shape whose visible ends match `token` but which the service never issued. */
const lookalike = (token: string): string => token.slice(0, 12) + (token[12] === "0" ? "1" : "0") + token.slice(13);

/** The key id the listing shows for `accountId` (the token's id). */
const tokenIdOf = (suite: EngineSuite, home: string, accountId: string): string =>
  suite.sim.serviceAccounts(home).find((a) => a.id === accountId)?.tokenId ?? "";

describe("row 6 through the dynamic provider (TypeScript): adoptServiceAccountId with adoptToken", () => {
  let home = "";
  let mine = { id: "", token: "" };
  let other = { id: "", token: "" };
  const given: { token?: string } = {};
  const { suite } = useOneAccountStack({
    host: "typescript",
    project: "pims-peer-import",
    account: async ({ sim }, projectId) => {
      home = projectId;
      mine = await consoleAccount(sim, home, "console-ts");
      other = await consoleAccount(sim, home, "console-other");
      return {
        resource: "adopted",
        inputs: () => ({
          projectId: home,
          name: "console-ts",
          ...DECLARED,
          adoptServiceAccountId: mine.id,
          adoptToken: given.token,
        }),
        outputs: { held: "tokenHeld", token: "token" },
      };
    },
  });
  const { engine } = suite;

  test("row 6, typescript: a wrong token is refused, naming the check that failed; nothing is adopted", async () => {
    const cases: Array<[string, RegExp]> = [
      [other.token, /is refused: it is not this account's: GET \S+\/api-keys shows this account's key otherwise/],
      [lookalike(mine.token), /is refused: the service does not accept it \(401: deleted, expired or mistyped\)/],
    ];
    for (const [token, why] of cases) {
      given.token = token;
      suite.clearRequests();
      const before = engine.text().length;
      await expect(suite.stack.up(engine.opts)).rejects.toThrow();
      const said = engine.text().slice(before);
      expect(said).toContain(`the token given for service account ${mine.id} in project ${home} is refused`);
      expect(said).toMatch(why);
      expect(said).toContain("Nothing was adopted: give the account's own token in `adoptToken`");
      expect(suite.writes()).toEqual([]);
      expect(resources(exportEncrypted(suite.stack)).filter((r) => r.type.endsWith("ServiceAccount"))).toEqual([]);
    }
  });

  test("row 6, typescript: the user's token is held, proven against the listing; no write, no change", async () => {
    given.token = mine.token;
    const o = await suite.up({ create: 1, same: 1 }); // the stack itself was created by the refused runs
    expect(suite.writes()).toEqual([]);
    expect(o.held.value).toBe(true);
    expect(o.token.secret).toBe(true);
    expect(await suite.shown("adopted")).toMatchObject({
      serviceAccountId: mine.id,
      token: mine.token,
      tokenHeld: true,
      tokenId: tokenIdOf(suite, home, mine.id),
    });
    const stored = resource(exportEncrypted(suite.stack), ":ServiceAccount", "adopted");
    expect(isEncryptedSecret(stored.outputs?.token)).toBe(true);
    expect(isEncryptedSecret(stored.inputs?.adoptToken)).toBe(true);
    expect(stored.outputs?.adoptToken).toBeUndefined();
    await suite.stack.preview({ ...engine.opts, expectNoChanges: true });
  });

  test("row 6, typescript: destroy deletes the adopted account; no token in plaintext anywhere", async () => {
    await suite.stack.destroy(engine.opts);
    expect(liveIds(suite.sim, home)).toEqual([other.id]);
    suite.expectNoSecrets();
  });
});

describe("row 6 through the plugin (YAML): pulumi import --file with outputs", () => {
  let home = "";
  let workDir = "";
  let mine = { id: "", token: "" };
  let wrong = { id: "", token: "" };
  let third = { id: "", token: "" };
  const suite = useEngineStack({
    scratchPrefix: "pims-e2e-peer6-yaml-",
    stack: async ({ sim, scratch }) => {
      home = sim.addProject({ name: "peer-import" }).id;
      sim.addApp(home, "web");
      mine = await consoleAccount(sim, home, "console-ci");
      wrong = await consoleAccount(sim, home, "console-wrong");
      third = await consoleAccount(sim, home, "console-third");
      workDir = path.join(scratch, "yaml");
      writeYamlProject(workDir, { name: "pims-peer-import", program: "resources: {}\n" });
      return { stackName: "dev", yaml: true, workDir };
    },
  });
  const { engine } = suite;
  const pulumi = (args: string[]) => suite.pulumi([...args, "--stack", "dev", "--non-interactive"], { cwd: workDir });

  /** The account as the program declares it once imported; `consumer` adds an app's secrets that use its token. */
  const declared = (name: string, account: string, consumer = false): string =>
    accountYaml(name, { projectId: home, name: account, ...DECLARED }) +
    (consumer
      ? `  app:
    type: pims:index:AppSecrets
    properties:
      projectId: ${home}
      appId: ${home}-web
      secrets:
        PIMS_TOKEN: \${${name}.token}
`
      : "");

  /**
   * `pulumi import --file` of one account whose entry carries `outputs` with `token` (as a secret), as the user writes
   * it; the file lives outside the project (it holds the token) and is removed once imported.
   */
  async function importWithOutputs(name: string, account: { id: string; name: string }, token: string) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pims-import-file-"));
    const file = path.join(dir, "import.json");
    const entry = {
      type: "pims:index:ServiceAccount",
      name,
      id: `${home}/${account.id}`,
      inputs: { projectId: home, name: account.name, grants: [home], ...DECLARED },
      outputs: {
        projectId: home,
        serviceAccountId: account.id,
        token: { [SECRET_SIG]: SECRET_VALUE, plaintext: JSON.stringify(token) },
      },
    };
    fs.writeFileSync(file, JSON.stringify({ resources: [entry] }));
    try {
      return await pulumi([
        "import",
        "--file",
        file,
        "--yes",
        "--protect=false",
        "--out",
        path.join(workDir, "gen.yaml"),
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  test("row 6, yaml: import with outputs stores them unread; the next up proves, holds the token", async () => {
    await suite.stack.up(engine.opts);
    suite.clearRequests();
    const r = await importWithOutputs("ci", { id: mine.id, name: "console-ci" }, mine.token);
    expect(r.code).toBe(0);
    expect(suite.calls()).toEqual([]); // the engine does not ask the provider: nothing is checked yet
    const imported = resource(exportEncrypted(suite.stack), ":ServiceAccount", "ci");
    expect(imported.id).toBe(`${home}/${mine.id}`);
    expect(isEncryptedSecret(imported.outputs?.token)).toBe(true);

    writeYamlProject(workDir, { name: "pims-peer-import", program: `resources:\n${declared("ci", "console-ci")}` });
    const before = engine.text().length;
    await suite.up({ update: 1, same: 1 });
    expect(suite.writes()).toEqual([]);
    expect(suite.calls()).toContain(`GET /v2/projects/${home}/api-keys as ${mine.id}`); // the token, asked once
    expect(engine.text().slice(before)).toContain(`(${mine.id}): the token the import file gave is this account's`);
    expect(await suite.shown("ci")).toMatchObject({
      serviceAccountId: mine.id,
      token: mine.token,
      tokenHeld: true,
      tokenId: tokenIdOf(suite, home, mine.id),
      name: "console-ci",
      grants: [home],
    });
    expect(isEncryptedSecret(resource(exportEncrypted(suite.stack), ":ServiceAccount", "ci").outputs?.token)).toBe(
      true,
    );
    await suite.stack.preview({ ...engine.opts, expectNoChanges: true });
  });

  test("row 6, yaml: a wrong token is refused by the next up, naming the check, before its consumer", async () => {
    const r = await importWithOutputs("wrong", { id: wrong.id, name: "console-wrong" }, third.token);
    expect(r.code).toBe(0);
    const program = `resources:\n${declared("ci", "console-ci")}${declared("wrong", "console-wrong", true)}`;
    writeYamlProject(workDir, { name: "pims-peer-import", program });
    suite.clearRequests();
    const before = engine.text().length;
    await expect(suite.stack.up(engine.opts)).rejects.toThrow();
    const said = engine.text().slice(before);
    expect(said).toContain(`the token given for service account ${wrong.id} in project ${home} is refused`);
    expect(said).toMatch(/it is not this account's: GET \S+\/api-keys shows this account's key otherwise/);
    expect(said).toContain("remove the imported entry (`pulumi state delete <urn>`) and import the account again");
    expect(suite.writes()).toEqual([]);
    expect(suite.sim.appSecrets(home, `${home}-web`)).toEqual({}); // its consumer never got the wrong token

    // what the error says: the entry removed, then imported again with the account's own token
    const urn = resource(exportEncrypted(suite.stack), ":ServiceAccount", "wrong").urn;
    expect((await pulumi(["state", "delete", urn, "--yes"])).code).toBe(0);
    expect((await importWithOutputs("wrong", { id: wrong.id, name: "console-wrong" }, wrong.token)).code).toBe(0);
    await suite.up({ update: 1, create: 1, same: 2 });
    expect(suite.sim.appSecrets(home, `${home}-web`)).toEqual({ PIMS_TOKEN: wrong.token });
  });

  test("row 6, yaml: destroy deletes what was imported; no token in plaintext anywhere", async () => {
    await suite.stack.destroy(engine.opts);
    expect(liveIds(suite.sim, home)).toEqual([third.id]);
    suite.expectNoSecrets();
  });
});
