/**
 * `createServiceAccount` against the quirky simulator under every token layout it can answer with: the secret the
 * client reads is the one the service issued, the expiry is normalized, and an unreadable layout is reported with
 * the id of the account it created (still live: the caller must delete it) and no secret in any text.
 */
import { PimsClient, UnreadableTokenError } from "../../../provider/client";
import { PimsSimulator, READABLE_TOKEN_LAYOUT_NAMES, UNREADABLE_TOKEN_LAYOUT_NAMES } from "../../../simulator";
import { errorTexts, testClient } from "../../kit/sim/client";
import { rejectionOf } from "../../kit/rejection";

let sim: PimsSimulator | undefined;

afterEach(async () => {
  await sim?.stop();
  sim = undefined;
});

async function start(
  layout: (typeof READABLE_TOKEN_LAYOUT_NAMES)[number] | (typeof UNREADABLE_TOKEN_LAYOUT_NAMES)[number],
): Promise<{ s: PimsSimulator; c: PimsClient; projectId: string }> {
  const s = await PimsSimulator.start({ profile: "quirky", tokenLayout: layout });
  sim = s;
  return { s, c: testClient(s), projectId: s.addProject().id };
}

describe.each(READABLE_TOKEN_LAYOUT_NAMES)("readable layout %s", (layout) => {
  it("a finite token: the issued secret, its expiry as a date within seconds of the service's", async () => {
    const { s, c, projectId } = await start(layout);
    const before = Date.now();
    const sa = await c.createServiceAccount(projectId, { name: "ci", grants: [projectId], expiresIn: 3600 });
    expect(s.tokenLayoutOf(sa.id)).toBe(layout);
    expect(s.issuedSecrets()).toContain(sa.token.secret);
    expect(s.serviceAccounts(projectId).map((a) => a.id)).toEqual([sa.id]);
    if (layout === "string") {
      expect(sa.token.expiresAt).toBe(""); // a bare secret says nothing of its expiry
      return;
    }
    const expiry = Date.parse(sa.token.expiresAt);
    expect(Math.abs(expiry - (before + 3_600_000))).toBeLessThan(5_000);
  });

  it("a token that never expires: `never`, or unknown when the answer leaves it out", async () => {
    const { s, c, projectId } = await start(layout);
    const sa = await c.createServiceAccount(projectId, { name: "ci", grants: [projectId], expiresIn: 0 });
    expect(s.issuedSecrets()).toContain(sa.token.secret);
    expect(["never", ""]).toContain(sa.token.expiresAt);
  });
});

describe.each(UNREADABLE_TOKEN_LAYOUT_NAMES)("unreadable layout %s", (layout) => {
  it("UnreadableTokenError names the live account and the member names, never a secret", async () => {
    const { s, c, projectId } = await start(layout);
    const err = await rejectionOf(
      c.createServiceAccount(projectId, { name: "ci", grants: [projectId], expiresIn: 0 }),
      UnreadableTokenError,
    );
    expect(s.serviceAccounts(projectId).map((a) => a.id)).toEqual([err.accountId]);
    expect(err.members.length).toBeGreaterThan(0);
    for (const name of err.members) expect(err.message).toContain(JSON.stringify(name));
    const secrets = s.issuedSecrets();
    expect(secrets.length).toBeGreaterThan(0);
    for (const text of Object.values(errorTexts(err))) for (const secret of secrets) expect(text).not.toContain(secret);
  });
});
