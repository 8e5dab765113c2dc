/**
 * ServiceAccount token delivery (`tokenDelivery`, issue 47) against the simulator: sealed, command and file, through
 * creates and overlapping rotations, the switch from the default (the held token delivered, no new account), a failed
 * delivery (the new account deleted, the previous one untouched) and a bad recipient refused at check with no call.
 * No output ever holds an issued token, in any encoding; every error and log line is scanned too.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { newRun } from "../../../provider/serviceAccount/run";
import type { ServiceAccountOutputs } from "../../../provider/serviceAccount";
import { fingerprint } from "../../../provider/client/token";
import { ageDecryptSync, ageIdentity, ageRecipientOnly } from "../../kit/tools/ageCli";
import { expectNoPlaintextSecrets } from "../../kit/secrets/secrets";
import { inputsFor, type Props } from "../../kit/provider/serviceAccount";
import { LIFETIME, useRotationSuite } from "../../kit/provider/rotation";

const rotation = useRotationSuite();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pims-delivery-sim-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const { identity, recipient } = ageIdentity(tmp);
/** The real age CLI (an independent implementation) opens a sealed token. */
const open = (sealed: string | undefined): string => ageDecryptSync(sealed ?? "", identity);

/** No output holds an issued token (any encoding); `token` and `previousToken` are "". */
function expectNoTokens(outs: ServiceAccountOutputs): void {
  expectNoPlaintextSecrets(JSON.stringify(outs), rotation.suite.sim.issuedSecrets(), "the outputs");
  expect(outs.token).toBe("");
  expect(outs.tokenHeld).toBe(false);
  if (outs.previousServiceAccountId) expect(outs.previousToken).toBe("");
}

/** One rotation in place with a new trigger (its own run, the request log cleared first). */
const rotateTo = (id: string, outs: ServiceAccountOutputs, news: Props, trigger: string) =>
  rotation.updateInPlace(id, rotation.asState(outs), { ...news, rotationTrigger: trigger });

describe("token delivery", () => {
  test("sealed: create and two rotations keep only ciphertext that `age -d` opens to working tokens", async () => {
    const projectId = rotation.suite.sim.addProject().id;
    const news = await rotation.checked(
      inputsFor(projectId, "sealed", {
        ...LIFETIME,
        keepPreviousToken: true,
        tokenDelivery: { ageRecipients: [recipient] },
      }),
    );
    const { id, outs: first } = await rotation.provider().create(news);
    expectNoTokens(first);
    expect(first.tokenDeliveredTo).toBe(`age:1 recipient ${recipient.slice(0, 12)}…`);
    const firstToken = open(first.sealedToken);
    expect(fingerprint(firstToken)).toBe(first.tokenFingerprint);
    expect(await rotation.works(projectId, firstToken)).toBe(true);

    const second = await rotateTo(id, first, news, "2");
    expectNoTokens(second);
    expect(second.previousSealedToken).toBe(first.sealedToken);
    expect(second.previousTokenFingerprint).toBe(first.tokenFingerprint);
    const secondToken = open(second.sealedToken);
    expect(await rotation.works(projectId, secondToken)).toBe(true);
    expect(await rotation.works(projectId, open(second.previousSealedToken))).toBe(true);
    // Nothing due after a rotation: the next up changes nothing.
    expect(await rotation.provider().diff(id, rotation.asState(second), { ...news, rotationTrigger: "2" })).toEqual({
      changes: false,
      replaces: [],
      deleteBeforeReplace: false,
    });
    // Refresh: kept exactly (no token needed).
    newRun();
    expect(await rotation.provider().read(id, rotation.asState(second))).toEqual({
      id,
      props: rotation.asState(second),
    });
  });

  test("command: every token once, in order; a failure on the 2nd rotation deletes the new account only", async () => {
    const { sim } = rotation.suite;
    const projectId = sim.addProject().id;
    const sink = path.join(tmp, "command-sink");
    // Appends each token (stdin) as a line; refuses the third one.
    const script =
      `[ -f "${sink}" ] && [ "$(wc -l < "${sink}")" -ge 2 ] && exit 7; ` + `cat >> "${sink}"; echo >> "${sink}"`;
    const news = await rotation.checked(
      inputsFor(projectId, "command", {
        ...LIFETIME,
        keepPreviousToken: true,
        tokenDelivery: { command: ["sh", "-c", script], commandTimeoutSeconds: 20 },
      }),
    );
    const { id, outs: first } = await rotation.provider().create(news);
    expectNoTokens(first);
    expect(first.tokenDeliveredTo).toBe("command:sh -c …");
    const second = await rotateTo(id, first, news, "2");
    expectNoTokens(second);
    const lines = fs.readFileSync(sink, "utf8").split("\n").filter(Boolean);
    expect(lines.map(fingerprint)).toEqual([first.tokenFingerprint, second.tokenFingerprint]);
    for (const t of lines) expect(await rotation.works(projectId, t)).toBe(true);

    const live = rotation.liveIds(projectId);
    sim.clearRequests();
    newRun();
    const err = await rotation.rejection(
      rotation.provider().update(id, rotation.asState(second), { ...news, rotationTrigger: "3" }),
    );
    expect(err.message).toMatch(
      /^pulumi-pims: service account "command" in project \S+: token delivery by command `sh` failed: it exited with status 7\. The new account (\S+) was deleted/,
    );
    expect(err.properties).toBeUndefined(); // the engine keeps the state as it was
    const created = /The new account (\S+) was deleted/.exec(err.message)?.[1];
    expect(sim.deletedServiceAccounts()).toContain(created);
    expect(rotation.liveIds(projectId)).toEqual(live);
    expect(await rotation.works(projectId, lines[1])).toBe(true);
    expect(await rotation.works(projectId, lines[0])).toBe(true);
    expect(fs.readFileSync(sink, "utf8").split("\n").filter(Boolean)).toEqual(lines);
  });

  test("file: holds the newest token, mode 0600", async () => {
    const projectId = rotation.suite.sim.addProject().id;
    const file = path.join(tmp, "token-file");
    const news = await rotation.checked(
      inputsFor(projectId, "file", { ...LIFETIME, keepPreviousToken: true, tokenDelivery: { file } }),
    );
    const { id, outs: first } = await rotation.provider().create(news);
    expectNoTokens(first);
    expect(first.tokenDeliveredTo).toBe(`file:${file}`);
    const second = await rotateTo(id, first, news, "2");
    const token = fs.readFileSync(file, "utf8");
    expect(fingerprint(token)).toBe(second.tokenFingerprint);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(await rotation.works(projectId, token)).toBe(true);
  });

  test("switching from the default delivers the held tokens and drops them, with no new account", async () => {
    const { sim } = rotation.suite;
    const projectId = sim.addProject().id;
    const plain = await rotation.checked(inputsFor(projectId, "switch", { ...LIFETIME, keepPreviousToken: true }));
    const { id, outs } = await rotation.provider().create(plain);
    const held = await rotateTo(id, outs, plain, "2"); // a previous token held too
    expect(held.tokenFingerprint).toBe(fingerprint(held.token));
    const sealed = await rotation.checked({
      ...plain,
      rotationTrigger: "2",
      tokenDelivery: { ageRecipients: [recipient] },
    });
    const switched = await rotation.updateInPlace(id, rotation.asState(held), sealed);
    expect(sim.requests).toEqual([]);
    expectNoTokens(switched);
    expect(switched.serviceAccountId).toBe(held.serviceAccountId);
    expect(open(switched.sealedToken)).toBe(held.token);
    expect(open(switched.previousSealedToken)).toBe(held.previousToken);
    // Changing the recipients while the token is not held: stored, takes effect at the next rotation; no call.
    const other = ageRecipientOnly();
    const moved = await rotation.updateInPlace(id, rotation.asState(switched), {
      ...sealed,
      tokenDelivery: { ageRecipients: [other] },
    });
    expect(sim.requests).toEqual([]);
    expect(moved).toMatchObject({ sealedToken: switched.sealedToken, tokenDelivery: { ageRecipients: [other] } });
  });

  test("a bad age recipient is refused at check, with no call", async () => {
    const { sim } = rotation.suite;
    const projectId = sim.addProject().id;
    sim.clearRequests();
    const r = await rotation
      .provider()
      .check({}, inputsFor(projectId, "bad", { ...LIFETIME, tokenDelivery: { ageRecipients: ["age1bad"] } }));
    expect(r.failures?.[0]?.property).toBe("tokenDelivery");
    expect(sim.requests).toEqual([]);
  });

  afterAll(() => rotation.expectNoSecretsSeen(6));
});
