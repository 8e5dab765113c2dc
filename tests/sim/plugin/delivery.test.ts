/**
 * `tokenDelivery` (issue 47) through the plugin's gRPC service in this process, as the engine calls it, against the
 * simulator: check refuses a bad recipient, an empty argv and a relative path with no call; a preview leaves the new
 * outputs unknown; create, a rotation with `keepPreviousToken`, read and the switch of a held token deliver each token
 * and answer with `token` and `previousToken` "" (still secret). No answer of the plugin holds an issued token in any
 * encoding (the engine logs and stores whatever the plugin answers). The sealed tokens are opened with the `age` CLI.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { tempDir } from "../../../scripts/engine";
import { UNKNOWN } from "../../../provider/checks";
import { ageDecrypt, ageIdentity } from "../../kit/tools/ageCli";
import { fingerprintOf } from "../../kit/secrets/leakScan";
import { secretForms } from "../../kit/secrets/secrets";
import { jsonOf, revealed, secretKeysOf, usePluginSuite, type Json } from "../../kit/provider/plugin";

const suite = usePluginSuite();
let dir: string;
let age: { identity: string; recipient: string };
/** Every answer of the plugin, for the closing scan. */
const answers: string[] = [];

beforeAll(async () => {
  dir = tempDir("pims-plugin-delivery-");
  age = ageIdentity(dir);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const saInputs = (projectId: string, name: string, extra: Json = {}): Json => ({
  projectId,
  name,
  grants: [projectId],
  expiresIn: 3600,
  rotateBeforeExpiry: 1800,
  keepPreviousToken: true,
  ...extra,
});

/** A struct the plugin answered, kept for the scan; as JSON. */
const kept = (s: Parameters<typeof jsonOf>[0]): Json => {
  const o = jsonOf(s);
  answers.push(JSON.stringify(o));
  return o;
};

describe("tokenDelivery through the plugin", () => {
  test("check: a bad recipient, an empty argv, a relative path, two forms: refused, naming the field", async () => {
    const project = suite.sim.addProject();
    suite.sim.clearRequests();
    for (const [delivery, rule] of [
      [{ ageRecipients: ["age1nope"] }, /tokenDelivery\.ageRecipients\[0\]/],
      [{ command: [] }, /tokenDelivery\.command must be a non-empty argv/],
      [{ file: "relative/token" }, /tokenDelivery\.file must be an absolute path/],
      [{ file: "/tmp/t", command: ["true"] }, /exactly one of ageRecipients, command or file/],
    ] as const) {
      const r = await suite.plugin.check("ServiceAccount", saInputs(project.id, "ci", { tokenDelivery: delivery }));
      expect(r.getFailuresList().map((f) => [f.getProperty(), f.getReason()])).toEqual([
        ["tokenDelivery", expect.stringMatching(rule)],
      ]);
    }
    // a YAML config value for the time limit is read as the schema's integer
    const ok = await suite.plugin.check(
      "ServiceAccount",
      saInputs(project.id, "ci", { tokenDelivery: { command: ["true"], commandTimeoutSeconds: "5" } }),
    );
    expect(ok.getFailuresList()).toEqual([]);
    expect(jsonOf(ok.getInputs()).tokenDelivery).toEqual({ command: ["true"], commandTimeoutSeconds: 5 });
    expect(suite.sim.requests).toEqual([]);
  });

  test("sealed: preview unknown; create, rotation and read answer no token; each sealed token opens", async () => {
    const project = suite.sim.addProject();
    const ins = saInputs(project.id, "sealed", { tokenDelivery: { ageRecipients: [age.recipient] } });
    const preview = kept((await suite.plugin.create("ServiceAccount", ins, true)).getProperties());
    expect(revealed(preview)).toMatchObject({ sealedToken: UNKNOWN, tokenFingerprint: UNKNOWN, token: UNKNOWN });

    const created = await suite.plugin.create("ServiceAccount", ins);
    const outs = kept(created.getProperties());
    expect(secretKeysOf(outs)).toEqual(["token"]);
    const first = await ageDecrypt(revealed(outs).sealedToken as string, age.identity);
    expect(suite.sim.issuedSecrets()).toContain(first);
    expect(revealed(outs)).toMatchObject({ token: "", tokenHeld: false, tokenFingerprint: fingerprintOf(first) });

    const rotated = kept(
      (
        await suite.plugin.update("ServiceAccount", created.getId(), outs, { ...ins, rotationTrigger: "1" })
      ).getProperties(),
    );
    const r = revealed(rotated);
    const second = await ageDecrypt(r.sealedToken as string, age.identity);
    expect(second).not.toBe(first);
    expect(r).toMatchObject({
      token: "",
      previousToken: "",
      previousSealedToken: revealed(outs).sealedToken,
      previousTokenFingerprint: fingerprintOf(first),
      tokenFingerprint: fingerprintOf(second),
    });
    expect(secretKeysOf(rotated)).toEqual(["previousToken", "token"]);
    const read = await suite.plugin.read("ServiceAccount", created.getId(), rotated, ins);
    expect(revealed(kept(read.getProperties()))).toEqual(r);
    await suite.plugin.delete("ServiceAccount", created.getId(), r);
    expect(suite.sim.serviceAccounts(project.id)).toEqual([]);
  });

  test("switch: a held token written to a file by an update with no new account; the answer holds none", async () => {
    const project = suite.sim.addProject();
    const ins = saInputs(project.id, "switched");
    const created = await suite.plugin.create("ServiceAccount", ins);
    const outs = jsonOf(created.getProperties());
    const token = revealed(outs).token as string;
    const file = path.join(dir, "token");
    suite.sim.clearRequests();
    const news = { ...ins, tokenDelivery: { file } };
    const switched = kept((await suite.plugin.update("ServiceAccount", created.getId(), outs, news)).getProperties());
    expect(suite.sim.requests.filter((q) => q.method !== "GET")).toEqual([]);
    expect(fs.readFileSync(file, "utf8")).toBe(token);
    expect(revealed(switched)).toMatchObject({
      serviceAccountId: created.getId(),
      token: "",
      tokenHeld: false,
      tokenFingerprint: fingerprintOf(token),
      tokenDeliveredTo: `file:${file}`,
    });
    await suite.plugin.delete("ServiceAccount", created.getId(), revealed(switched));
  });

  test("no answer of the plugin held an issued token, in any encoding", () => {
    const forms = suite.sim.issuedSecrets().flatMap(secretForms);
    expect(forms.length).toBeGreaterThan(10);
    for (const [i, a] of answers.entries()) expect([i, forms.filter((f) => a.includes(f)).length]).toEqual([i, 0]);
    suite.expectNoSecretsSeen(suite.sim.issuedSecrets()); // the warnings too
  });
});
