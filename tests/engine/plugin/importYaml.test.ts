/**
 * `pulumi import` through the plugin (issue 39), with the real engine, the official YAML host and the simulator, and
 * accounts made directly through the client as the web console would (no state holds them): refusals (an account or
 * a project that does not exist) leave the state unchanged; one account imported, then `up` with the program as
 * `pulumi import` generated it plus the grants (no change, no call), `preview --expect-no-changes`; the rotation that
 * takes it over (successor created, the imported account kept as previous, deleted at the next rotation); a preview of
 * a changed AppSecrets naming the secrets, never a value; `pims service-accounts import-file` for a project of 20
 * accounts and one `pulumi import --file`; destroy, with no live account left that the stack made or took over; no
 * token in plaintext in any state, output, file or log. One YAML stack. The same outcome in TypeScript, where the
 * engine's import cannot reach a dynamic resource, is tests/engine/typescript/adopt.test.ts.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { randomSecret } from "../../../scripts/engine";
import { writeYamlProject } from "../../../scripts/engine/yaml";
import { exportEncrypted, isEncryptedSecret, pimsCli, resource, resources } from "../../kit/engine/engine";
import { useEngineStack } from "../../kit/engine/engineSuite";
import { consoleAccount, liveIds, writesOf } from "../../kit/sim/simulator";
import { testClient } from "../../kit/sim/client";

let workDir: string;
let home: string; // the project the console account and the app live in
let bulk: string; // a project of 20 console accounts
let imported: { id: string; token: string };
let successor: string;
let generated: string; // the program `pulumi import` wrote
let changedProgram: string; // the program with the AppSecrets change a preview showed

const CONFIG = `
config:
  rotation:
    type: string
    default: r0
  dbPassword:
    type: string
    secret: true
`;

/** The CLI as the user runs it in the project directory, on the stack `dev`. */
const pulumi = (args: string[]) => suite.pulumi([...args, "--stack", "dev", "--non-interactive"], { cwd: workDir });

/** The imported account once the program takes it over: grants declared, overlapping rotation by `rotation`. */
const ciTakenOver = (): string => `  ci:
    type: pims:index:ServiceAccount
    properties:
      projectId: ${home}
      name: console-ci
      description: made in the console
      expiresIn: 7776000
      grants:
        - ${home}
      keepPreviousToken: true
      rotateBeforeExpiry: 3888000
      rotationTrigger: \${rotation}
`;

/** Writes the program: the config block, then `resources`. */
const writeProgram = (resourcesYaml: string): void =>
  void writeYamlProject(workDir, { name: "pims-import", program: `${CONFIG}\n${resourcesYaml}` });

const stateResources = (): string[] =>
  resources(exportEncrypted(suite.stack))
    .map((r) => `${r.type}::${r.urn.split("::").pop()}`)
    .sort();

const suite = useEngineStack({
  scratchPrefix: "pims-e2e-import-",
  stack: async ({ sim, scratch }) => {
    home = sim.addProject({ name: "console-home" }).id;
    sim.addApp(home, "web");
    bulk = sim.addProject({ name: "console-bulk" }).id;
    imported = await consoleAccount(sim, home, "console-ci");
    for (let i = 0; i < 20; i++) await consoleAccount(sim, bulk, `worker ${String(i).padStart(2, "0")}`, 0);
    workDir = path.join(scratch, "pims-import");
    writeProgram("");
    return {
      stackName: "dev",
      yaml: true,
      workDir,
      config: { dbPassword: { value: randomSecret("db-password-"), secret: true } },
    };
  },
});
const { engine } = suite;

describe("pulumi import through the pims plugin (YAML), against accounts made in the console", () => {
  test("an account or project that does not exist is refused, naming what was looked up; state unchanged", async () => {
    await suite.stack.up(engine.opts); // the stack itself, nothing else
    const before = stateResources();
    suite.sim.clearRequests();
    const account = await pulumi(["import", "pims:index:ServiceAccount", "ghost", `${home}/sa-000000000000`, "--yes"]);
    expect(account.code).not.toBe(0);
    expect(account.out).toContain(
      `cannot adopt service account sa-000000000000 in project ${home}: ` +
        `GET ${suite.sim.baseUrl}/v2/projects/${home}/api-keys ` +
        "shows no API key with principalId sa-000000000000",
    );
    const project = await pulumi(["import", "pims:index:Project", "ghost", "p-00000000", "--yes"]);
    expect(project.code).not.toBe(0);
    expect(project.out).toMatch(/cannot import project p-00000000: listing API keys of project p-00000000: 404/);
    expect(stateResources()).toEqual(before);
    expect(writesOf(suite.sim)).toEqual([]);
  });

  test("import: what the listing tells, no token held (tokenHeld false, a warning), a program generated", async () => {
    suite.sim.clearRequests();
    const gen = path.join(suite.scratch, "generated.yaml");
    const id = `${home}/${imported.id}`;
    const r = await pulumi(["import", "pims:index:ServiceAccount", "ci", id, "--yes", "--protect=false", "--out", gen]);
    expect(r.code).toBe(0);
    expect(writesOf(suite.sim)).toEqual([]);
    expect(r.out).toMatch(
      /warning: pulumi-pims: service account "console-ci" \(sa-\w+\) in project \S+ imported without its token \(tokenHeld: false/,
    );
    const state = resource(exportEncrypted(suite.stack), "pims:index:ServiceAccount", "ci");
    expect(state.id).toBe(imported.id);
    expect(state.inputs).toEqual({
      projectId: home,
      name: "console-ci",
      description: "made in the console",
      expiresIn: 7776000,
    });
    expect(state.outputs).toMatchObject({ serviceAccountId: imported.id, tokenHeld: false, unreadInputs: ["grants"] });
    expect(isEncryptedSecret(state.outputs?.token)).toBe(true);
    const text = fs.readFileSync(gen, "utf8");
    // the code generator writes required inputs the service did not tell as empty: here `grants: []`
    expect(text).toMatch(/type: pims:(index:)?ServiceAccount\n/);
    expect(text).toContain("name: console-ci");
    expect(text).toMatch(/^ +grants: \[\]$/m);
    generated = text;
  });

  test("up with the generated program plus the grants: no change, no call; preview --expect-no-changes", async () => {
    // exactly what `pulumi import` wrote previews as no change ...
    writeProgram(generated);
    suite.sim.clearRequests();
    await suite.stack.preview({ ...engine.opts, expectNoChanges: true });
    // ... and so does it with the grants the user knows
    const withGrants = generated.replace(
      /^( +)grants: \[\]$/m,
      (_m, indent: string) => `${indent}grants:\n${indent}  - ${home}`,
    );
    expect(withGrants).not.toBe(generated);
    writeProgram(withGrants);
    await suite.up({ same: 2 });
    expect(writesOf(suite.sim)).toEqual([]);
    await suite.stack.preview({ ...engine.opts, expectNoChanges: true });
    expect(liveIds(suite.sim, home)).toEqual([imported.id]);
  });

  test("rotation takes it over: the successor created and held, the imported one kept as previous", async () => {
    writeProgram(`resources:\n${ciTakenOver()}`);
    await suite.up({ update: 1, same: 1 });
    const o = await suite.shown("ci");
    successor = o.serviceAccountId as string;
    expect(successor).not.toBe(imported.id);
    expect(o).toMatchObject({ previousServiceAccountId: imported.id, tokenHeld: true });
    expect(o.unreadInputs).toBeUndefined();
    expect(writesOf(suite.sim)).toEqual([`POST /v2/projects/${home}/service-accounts`]);
    expect(liveIds(suite.sim, home)).toEqual([imported.id, successor].sort());
    // the consumers of the console's token keep working until the next rotation
    expect(await testClient(suite.sim, { token: imported.token }).listApiKeys(home)).toBeDefined();
    const stored = resource(exportEncrypted(suite.stack), "pims:index:ServiceAccount", "ci");
    expect(isEncryptedSecret(stored.outputs?.token)).toBe(true);

    await suite.stack.setConfig("rotation", { value: "r1" });
    suite.sim.clearRequests();
    await suite.stack.up(engine.opts);
    const next = await suite.shown("ci");
    expect(next.previousServiceAccountId).toBe(successor);
    expect(writesOf(suite.sim)).toEqual([
      `POST /v2/projects/${home}/service-accounts`,
      `DELETE /v2/projects/${home}/service-accounts/${imported.id}`,
    ]);
    expect(liveIds(suite.sim, home)).toEqual([successor, next.serviceAccountId as string].sort());
  });

  test("a preview of a changed AppSecrets names the added, changed and removed secrets, never a value", async () => {
    const ci = ciTakenOver();
    const secrets = (map: string): string => `resources:
${ci}  webSecrets:
    type: pims:index:AppSecrets
    properties:
      projectId: ${home}
      appId: ${home}-web
      secrets:
${map}`;
    writeProgram(
      secrets("        KEEP: kept-value-1\n        CHANGED: old-value-2\n        DROPPED: dropped-value-3\n"),
    );
    await suite.stack.up(engine.opts);
    const password = (await suite.stack.getConfig("dbPassword")).value;
    changedProgram = secrets(
      "        KEEP: kept-value-1\n        CHANGED: new-value-4\n        ADDED: ${dbPassword}\n",
    );
    writeProgram(changedProgram);
    const before = engine.text().length;
    const preview = await suite.stack.preview({ ...engine.opts, diff: true });
    expect(preview.changeSummary).toEqual({ update: 1, same: 2 });
    const shown = engine.text().slice(before);
    expect(shown).toMatch(/\+ ADDED\s*: \[secret\]/);
    expect(shown).toMatch(/~ CHANGED\s*: \[secret\] => \[secret\]/);
    expect(shown).toMatch(/- DROPPED\s*: \[secret\]/);
    expect(shown).not.toMatch(/[~+-] KEEP/);
    for (const v of ["kept-value-1", "old-value-2", "dropped-value-3", "new-value-4", password])
      expect(shown).not.toContain(v);
  });

  test("the import option: a declared account adopted by id, no change and no call beyond the program's", async () => {
    const opt = await consoleAccount(suite.sim, home, "console-opt");
    writeProgram(`${changedProgram}  viaOption:
    type: pims:index:ServiceAccount
    properties:
      projectId: ${home}
      name: console-opt
      description: made in the console
      expiresIn: 7776000
      grants:
        - ${home}
    options:
      import: ${home}/${opt.id}
`);
    await suite.up({ import: 1, update: 1, same: 2 });
    // the AppSecrets change only
    expect(writesOf(suite.sim)).toEqual([`PATCH /v2/projects/${home}/apps/${home}-web/secrets`]);
    const o = await suite.shown("viaOption");
    expect(o).toMatchObject({ serviceAccountId: opt.id, tokenHeld: false, token: "" });
    expect(liveIds(suite.sim, home)).toContain(opt.id);
  });

  test("pims service-accounts import-file, then one pulumi import --file: a project and its 20 accounts", async () => {
    const file = path.join(suite.scratch, "bulk.json");
    const cli = await pimsCli(["service-accounts", "import-file", bulk, "--project", "bulk", "-o", file], {
      baseUrl: suite.sim.baseUrl,
      token: suite.sim.token,
    });
    expect(cli.stderr).toContain(`20 service account(s) of project ${bulk} and the project written to ${file}`);
    const doc = JSON.parse(fs.readFileSync(file, "utf8")) as {
      resources: Array<{ type: string; name: string; id: string }>;
    };
    expect(doc.resources).toHaveLength(21);
    suite.sim.clearRequests();
    const r = await pulumi([
      "import",
      "--file",
      file,
      "--yes",
      "--protect=false",
      "--out",
      path.join(suite.scratch, "bulk.yaml"),
    ]);
    expect(r.code).toBe(0);
    expect(writesOf(suite.sim)).toEqual([]);
    const state = exportEncrypted(suite.stack);
    const accounts = resources(state).filter(
      (x) => x.type === "pims:index:ServiceAccount" && x.outputs?.projectId === bulk,
    );
    expect(accounts.map((a) => a.id).sort()).toEqual(liveIds(suite.sim, bulk));
    expect(
      accounts.every(
        (a) => a.outputs?.tokenHeld === false && a.urn.includes("pims:index:Project$pims:index:ServiceAccount"),
      ),
    ).toBe(true);
    expect(resource(state, "pims:index:Project", "bulk").id).toBe(bulk);
  });

  test("destroy: every account the stack made or took over is deleted; nothing of it stays live", async () => {
    suite.sim.clearRequests();
    await suite.stack.destroy(engine.opts);
    expect(liveIds(suite.sim, home)).toEqual([]);
    expect(liveIds(suite.sim, bulk)).toEqual([]);
    expect(resources(exportEncrypted(suite.stack)).filter((r) => r.type !== "pulumi:pulumi:Stack")).toEqual([]);
  });

  test("no token in plaintext in the engine output or in any file of the project and backend", () => {
    expect(suite.expectNoSecrets()).toContain(imported.token);
  });
});
