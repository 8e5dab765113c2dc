/**
 * Import and adoption (issue 39) through the plugin's gRPC service against the simulator, with accounts made directly
 * through the client as the web console would (no state holds them): Read of `<projectId>/<serviceAccountId>` (what
 * the API-key listing tells, `tokenHeld`, a token taken from the listing only when a call proves it), refusals naming
 * what was looked up, the diff rules after an import (undeclared grants never replace; once declared they do), the
 * rotation that takes an imported account over (never deleted before its successor exists), Project import by id,
 * `adoptServiceAccountId` (the dynamic host's way), and AppSecrets' detailed diff (names, never values).
 */
import type * as grpc from "@grpc/grpc-js";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import { ServiceAccountProvider } from "../../../provider/serviceAccount";
import { newRun } from "../../../provider/serviceAccount/run";
import type { PimsSimulator } from "../../../simulator";
import {
  jsonOf,
  PluginUnderTest,
  startPluginWithSimulator,
  revealed,
  secretKeysOf,
  secretOf,
  type Json,
} from "../../kit/provider/plugin";
import { configureRequest, recordWarnings, simConfig } from "../../kit/provider/provider";
import { expectNoPlaintextSecrets } from "../../kit/secrets/secrets";
import { rejectionOf } from "../../kit/rejection";
import { testClient } from "../../kit/sim/client";

let sim: PimsSimulator;
let plugin: PluginUnderTest;
let projectId: string;
const seen: string[] = []; // every answer, error and line: scanned for plaintext tokens at the end
const warnings = recordWarnings(seen);
const lines = (): string =>
  warnings()
    .mock.calls.map((c: unknown[]) => c.map(String).join(" "))
    .join("\n");

let stop: () => Promise<void>;
beforeAll(async () => {
  ({ sim, plugin, stop } = await startPluginWithSimulator());
});
afterAll(() => stop());
beforeEach(() => {
  newRun(); // each test is one engine operation
  projectId = sim.addProject({ name: "console-made" }).id; // each test's own
  sim.clearRequests();
  sim.setApiKeyValues("masked");
});

/** An account made as the web console does: POST through the client, its token seen by nobody but the test. */
async function consoleAccount(name: string, expiresIn = 7_776_000, description = "made in the console") {
  const a = await testClient(sim).createServiceAccount(projectId, {
    name,
    description,
    grants: [projectId],
    expiresIn,
  });
  sim.clearRequests();
  return { id: a.id, token: a.token.secret };
}
const liveIds = (): string[] =>
  sim
    .serviceAccounts(projectId)
    .map((a) => a.id)
    .sort();
const writes = (): string[] => sim.requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);

/** An answer as the engine shows it: secret members masked (their plaintext inside the envelope is expected). */
const shown = (o: Json): string =>
  JSON.stringify(
    Object.fromEntries(Object.entries(o).map(([k, v]) => [k, secretKeysOf({ v }).length ? "[secret]" : v])),
  );

/** The engine's Read of an import: only the id. Answers the outputs (secrets revealed, keys listed) and inputs. */
async function importAccount(id: string): Promise<{ id: string; outs: Json; secret: string[]; inputs: Json }> {
  const r = await plugin.read("ServiceAccount", id, {});
  const outs = jsonOf(r.getProperties());
  seen.push(shown(outs), shown(jsonOf(r.getInputs())));
  return { id: r.getId(), outs: revealed(outs), secret: secretKeysOf(outs), inputs: jsonOf(r.getInputs()) };
}

async function refusal(p: Promise<unknown>): Promise<string> {
  const err = (await rejectionOf(p, Error)) as grpc.ServiceError;
  seen.push(err.details);
  return err.details;
}

describe("pulumi import of a service account (plugin Read with no state)", () => {
  test("reads what the listing tells, holds no token, says what it cannot tell and what to do", async () => {
    const made = await consoleAccount("console-ci");
    const key = (await testClient(sim).listApiKeys(projectId)).find((k) => k.principalId === made.id);
    sim.clearRequests();
    const r = await importAccount(`${projectId}/${made.id}`);
    expect(r.id).toBe(made.id);
    expect(r.outs).toEqual({
      projectId,
      name: "console-ci",
      description: "made in the console",
      expiresIn: 7_776_000,
      serviceAccountId: made.id,
      createdAt: key?.createdAt,
      createdByUserId: "",
      tokenId: key?.id,
      tokenExpiresAt: key?.expiresAt,
      token: "",
      tokenHeld: false,
      tokenFingerprint: "",
      unreadInputs: ["grants"],
    });
    expect(r.secret).toContain("token");
    // the program is generated from what the service told: no grants invented
    expect(r.inputs).toEqual({
      projectId,
      name: "console-ci",
      description: "made in the console",
      expiresIn: 7_776_000,
    });
    expect(sim.requests.map((q) => `${q.method} ${q.path}`)).toEqual([`GET /v2/projects/${projectId}/api-keys`]);
    expect(lines()).toMatch(/"console-ci" \(sa-\w+\) in project \S+ imported without its token \(tokenHeld: false/);
    expect(lines()).toContain("the service cannot tell its grants: declare it in the program");
    expect(lines()).toContain("set or change `rotationTrigger`");
    // a check of the generated program passes: grants may stay undeclared while they were never declared
    const checked = await plugin.check("ServiceAccount", r.inputs, r.inputs);
    expect(checked.getFailuresList()).toEqual([]);
    // ... but a new account still needs them
    const fresh = await plugin.check("ServiceAccount", r.inputs, {});
    expect(fresh.getFailuresList().map((f) => f.getProperty())).toEqual(["grants"]);
  });

  test("a token in the listing is taken only when a call made with it works (full: held; decoy: not)", async () => {
    const made = await consoleAccount("console-full");
    sim.setApiKeyValues("full");
    const full = await importAccount(`${projectId}/${made.id}`);
    expect(full.outs.tokenHeld).toBe(true);
    expect(full.outs.token).toBe(made.token);
    expect(full.secret).toContain("token");
    newRun();
    sim.clearRequests();
    sim.setApiKeyValues("decoy");
    const decoy = await importAccount(`${projectId}/${made.id}`);
    expect(decoy.outs).toMatchObject({ tokenHeld: false, token: "" });
    // the decoy was asked once and refused (401); nothing else was sent with it
    expect(sim.requests.map((q) => q.status)).toEqual([200, 401]);
  });

  test("an account the listing does not show, a missing project and a malformed id are refused by name", async () => {
    const url = `GET ${sim.baseUrl}/v2/projects/${projectId}/api-keys`;
    expect(await refusal(plugin.read("ServiceAccount", `${projectId}/sa-000000000000`, {}))).toBe(
      `pulumi-pims: cannot adopt service account sa-000000000000 in project ${projectId}: ${url} shows no API key ` +
        `with principalId sa-000000000000 (${(await testClient(sim).listApiKeys(projectId)).length} key(s) listed). ` +
        `Check the id with \`pims service-accounts list ${projectId}\`.`,
    );
    expect(await refusal(plugin.read("ServiceAccount", "p-nope/sa-1", {}))).toMatch(
      /^pulumi-pims: cannot adopt service account sa-1 in project p-nope: GET \S+\/v2\/projects\/p-nope\/api-keys failed.*404/,
    );
    expect(await refusal(plugin.read("ServiceAccount", "sa-1", {}))).toMatch(
      /the import id is <projectId>\/<serviceAccountId>/,
    );
    expect(writes()).toEqual([]);
  });
});

describe("after an import: the diff rules and the rotation that takes the account over", () => {
  const diffOf = async (olds: Json, news: Json, oldInputs: Json) => {
    const d = await plugin.diff("ServiceAccount", String(olds.serviceAccountId), olds, news, oldInputs);
    return { changes: d.getChanges(), replaces: d.getReplacesList() };
  };
  const C = provproto.DiffResponse.DiffChanges;

  test("declaring grants changes nothing; once declared, a change of them replaces; a new name replaces", async () => {
    const made = await consoleAccount("console-diff");
    const { outs, inputs } = await importAccount(`${projectId}/${made.id}`);
    const program = { ...inputs, grants: [projectId, "p-other"] };
    expect(await diffOf(outs, program, inputs)).toEqual({ changes: C.DIFF_NONE, replaces: [] });
    // the code generator's `grants: []` counts as undeclared too, in check and in diff
    const generated = { ...inputs, grants: [] };
    expect((await plugin.check("ServiceAccount", generated, inputs)).getFailuresList()).toEqual([]);
    expect(await diffOf(outs, generated, inputs)).toEqual({ changes: C.DIFF_NONE, replaces: [] });
    expect(await diffOf(outs, program, generated)).toEqual({ changes: C.DIFF_NONE, replaces: [] });
    // after that `up`, the state's inputs are the program's (a same step): a grant change now replaces
    expect(await diffOf(outs, { ...program, grants: [projectId] }, program)).toEqual({
      changes: C.DIFF_SOME,
      replaces: ["grants"],
    });
    expect(await diffOf(outs, { ...program, name: "renamed" }, program)).toEqual({
      changes: C.DIFF_SOME,
      replaces: ["name"],
    });
    // a rotation needs the grants the service could not tell
    expect(
      await refusal(plugin.diff("ServiceAccount", made.id, outs, { ...inputs, rotationTrigger: "1" }, inputs)),
    ).toMatch(/needs a new account \(rotationTrigger\) but the program declares no grants/);
    expect(writes()).toEqual([]);
  });

  test("the expiry window reached takes an imported account over too (no other change needed)", async () => {
    const made = await consoleAccount("console-window", 3600);
    const { outs, inputs } = await importAccount(`${projectId}/${made.id}`);
    const expiry = Date.parse(String(outs.tokenExpiresAt));
    const late = new ServiceAccountProvider({ now: () => expiry - 60_000 }); // a minute before the token expires
    await late.configure(configureRequest(simConfig(sim)));
    const news = { ...inputs, grants: [projectId], rotateBeforeExpiry: 600 };
    expect(await late.diff(made.id, outs as never, news as never)).toEqual({
      changes: true,
      replaces: ["rotateBeforeExpiry"],
      deleteBeforeReplace: false,
    });
    const early = new ServiceAccountProvider({ now: () => expiry - 3_000_000 });
    // before the window: only the new local setting, an in-place update with no call
    expect(await early.diff(made.id, outs as never, news as never)).toEqual({
      changes: true,
      replaces: [],
      deleteBeforeReplace: false,
    });
  });

  test("rotation with keepPreviousToken: successor created (token held), imported kept, deleted next", async () => {
    const made = await consoleAccount("console-rot");
    const { outs, inputs } = await importAccount(`${projectId}/${made.id}`);
    const declared = { ...inputs, grants: [projectId], keepPreviousToken: true, rotateBeforeExpiry: 5_000_000 };
    const first = { ...declared, rotationTrigger: "take-over" };
    expect(await diffOf(outs, first, declared)).toEqual({ changes: C.DIFF_SOME, replaces: [] });
    sim.clearRequests();
    const up1 = await plugin.update("ServiceAccount", made.id, outs, first, false, declared);
    const after1 = revealed(jsonOf(up1.getProperties()));
    seen.push(shown(jsonOf(up1.getProperties())));
    const successor = String(after1.serviceAccountId);
    expect(writes()).toEqual([`POST /v2/projects/${projectId}/service-accounts`]);
    expect(after1).toMatchObject({ previousServiceAccountId: made.id, previousToken: "", tokenHeld: true });
    expect(after1.unreadInputs).toBeUndefined();
    expect(after1.grants).toEqual([projectId]);
    expect(secretKeysOf(jsonOf(up1.getProperties()))).toEqual(expect.arrayContaining(["token", "previousToken"]));
    expect(liveIds()).toEqual([made.id, successor].sort()); // the console's token still works for its consumers
    expect(await testClient(sim, { token: made.token }).listApiKeys(projectId)).toBeDefined();

    newRun();
    sim.clearRequests();
    const second = { ...first, rotationTrigger: "next" };
    const up2 = await plugin.update("ServiceAccount", made.id, after1, second, false, first);
    const after2 = revealed(jsonOf(up2.getProperties()));
    expect(writes()).toEqual([
      `POST /v2/projects/${projectId}/service-accounts`,
      `DELETE /v2/projects/${projectId}/service-accounts/${made.id}`,
    ]);
    expect(after2.previousServiceAccountId).toBe(successor);
    expect(liveIds()).toEqual([successor, String(after2.serviceAccountId)].sort());
    for (const o of [after1, after2]) await plugin.delete("ServiceAccount", made.id, o).catch(() => undefined);
  });
});

describe("Project import by id; adoptServiceAccountId; AppSecrets' detailed diff", () => {
  test("a project imports once its listing answers; a missing one is refused; its name never replaces it", async () => {
    const r = await plugin.read("Project", projectId, {});
    expect(jsonOf(r.getProperties())).toEqual({ name: projectId, projectId, unreadInputs: ["name"] });
    expect(jsonOf(r.getInputs())).toEqual({ name: projectId });
    expect(lines()).toContain(`project ${projectId} imported; the service cannot tell its name`);
    const d = await plugin.diff("Project", projectId, jsonOf(r.getProperties()), { name: "real-name" });
    expect(d.getChanges()).toBe(provproto.DiffResponse.DiffChanges.DIFF_NONE);
    expect(await refusal(plugin.read("Project", "p-missing", {}))).toMatch(
      /^pulumi-pims: cannot import project p-missing: listing API keys of project p-missing: 404 .*\/v2\/projects\/p-missing\/api-keys/,
    );
    expect(writes()).toEqual([]);
  });

  test("adoptServiceAccountId: no POST, the declared grants kept, a name that differs refused", async () => {
    const made = await consoleAccount("console-adopt", 0, "");
    const provider = new ServiceAccountProvider();
    await provider.configure(configureRequest(simConfig(sim)));
    const ins = { projectId, name: "console-adopt", grants: [projectId], expiresIn: 0, adoptServiceAccountId: made.id };
    const r = await provider.create(ins);
    expect(r.id).toBe(made.id);
    expect(r.outs).toMatchObject({ serviceAccountId: made.id, grants: [projectId], tokenHeld: false, token: "" });
    expect(r.outs?.unreadInputs).toBeUndefined();
    expect(writes()).toEqual([]);
    const d = await provider.diff(made.id, r.outs as never, { ...ins, adoptServiceAccountId: undefined });
    expect(d.changes).toBe(false); // the adopt input is read only by the create
    const wrong = await rejectionOf(provider.create({ ...ins, name: "other" }), Error);
    expect(wrong.message).toMatch(/the service shows name "console-adopt", the program declares "other"/);
    const gone = await rejectionOf(provider.create({ ...ins, adoptServiceAccountId: "sa-000000000000" }), Error);
    expect(gone.message).toMatch(/shows no API key with principalId sa-000000000000/);
    expect(writes()).toEqual([]);
  });

  test("a changed AppSecrets names each added, changed and removed secret; no value leaves the plugin", async () => {
    const olds = {
      projectId,
      appId: `${projectId}-web`,
      secrets: { KEEP: "v-keep-1", CHANGE: "v-old-2", DROP: "v-3" },
    };
    const news = { ...olds, secrets: secretOf({ KEEP: "v-keep-1", CHANGE: "v-new-4", ADD: "v-5" }) };
    const d = await plugin.diff("AppSecrets", `${projectId}/${projectId}-web`, olds, news, olds);
    const K = provproto.PropertyDiff.Kind;
    const map = d.getDetaileddiffMap();
    const detailed = Object.fromEntries(d.getDiffsList().map((k) => [k, map.get(k)?.getKind()]));
    expect(detailed).toEqual({ "secrets.ADD": K.ADD, "secrets.CHANGE": K.UPDATE, "secrets.DROP": K.DELETE });
    expect(lines()).toContain('secret(s) "ADD" added; "CHANGE" changed; "DROP" removed (values not shown)');
    const said = JSON.stringify(d.toObject()) + lines();
    for (const v of ["v-keep-1", "v-old-2", "v-3", "v-new-4", "v-5"]) expect(said).not.toContain(v);
  });
});

test("no answer, error or line carried a token in plaintext outside a secret", () => {
  expectNoPlaintextSecrets(
    seen.join("\n"),
    sim.issuedSecrets().filter((s) => s !== sim.token),
    "import answers",
  );
});
