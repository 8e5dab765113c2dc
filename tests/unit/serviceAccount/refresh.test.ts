/**
 * The refresh rule and the orphan notice as plain functions (provider/serviceAccount/refresh.ts,
 * provider/serviceAccount/audit.ts), on listings built here: which accounts count as gone, when a token is asked,
 * what a blind listing keeps, and what the notice names. No network: the probe is a function that records its calls.
 */
import { auditLine, orphanNotice } from "../../../provider/serviceAccount/audit";
import { refreshAccounts, type ProbeResult, type RefreshContext } from "../../../provider/serviceAccount/refresh";
import { RunMemory } from "../../../provider/serviceAccount/run";
import type { ApiKey } from "../../../provider/client";

const NOW = Date.parse("2026-01-01T12:00:00Z");
const P = "p-1";
const key = (principalId: string, name = "ci", createdAt = "2026-01-01T10:00:00Z"): ApiKey =>
  ({ id: `k-${principalId}`, name, principalId, createdAt, expiresAt: "never", status: "active" }) as ApiKey;

const stored = {
  projectId: P,
  name: "ci",
  serviceAccountId: "sa-cur",
  createdAt: "2026-01-01T11:00:00Z",
  token: "tok-cur-secret",
  tokenExpiresAt: "2026-02-01T00:00:00Z",
  previousServiceAccountId: "sa-prev",
  previousToken: "tok-prev-secret",
  previousTokenId: "t-prev",
  previousTokenExpiresAt: "2026-02-01T00:00:00Z",
  retiredServiceAccountIds: ["sa-old"],
};

function context(keys: ApiKey[], answers: Record<string, ProbeResult> = {}, run = new RunMemory()) {
  const asked: string[] = [];
  run.hold(P, ["sa-old", "sa-prev", "sa-cur"]);
  const c: RefreshContext = {
    listing: { ok: true, listing: { keys, serviceNowMs: NOW } },
    run,
    listUrl: "GET https://pims.test/v2/projects/p-1/api-keys",
    lagMs: 120_000,
    probe: async (token) => {
      asked.push(token);
      return answers[token] ?? "unknown";
    },
  };
  return { c, asked, run };
}

test("all listed: the props object unchanged, no line, no probe", async () => {
  const { c, asked } = context([key("sa-cur"), key("sa-prev"), key("sa-old")]);
  const props = { ...stored };
  const out = await refreshAccounts("sa-first", props, c);
  expect(out).toEqual({ id: "sa-first", props, lines: [] });
  expect(out.props).toBe(props);
  expect(asked).toEqual([]);
});

test("a listing that can see: gone retired and previous accounts dropped, no token asked", async () => {
  const { c, asked } = context([key("sa-cur")]);
  const out = await refreshAccounts("sa-first", { ...stored }, c);
  expect(out.id).toBe("sa-first");
  expect(out.props).not.toHaveProperty("retiredServiceAccountIds");
  expect(out.props).not.toHaveProperty("previousToken");
  expect(out.props).toMatchObject({ serviceAccountId: "sa-cur", token: "tok-cur-secret" });
  expect(asked).toEqual([]);
});

test("current gone, previous live: kept, marked retired; all gone: the resource leaves", async () => {
  const { c } = context([key("sa-prev"), key("sa-old")]);
  const kept = await refreshAccounts("sa-first", { ...stored }, c);
  expect(kept.props?.retiredServiceAccountIds).toEqual(["sa-old", "sa-cur"]);
  expect(kept.props?.previousToken).toBe("tok-prev-secret");
  const { c: c2 } = context([key("sa-someone-else", "other")]);
  c2.run.hold(P, ["sa-witness"]);
  const witness = {
    ...c2,
    listing: { ok: true as const, listing: { keys: [key("sa-witness", "w")], serviceNowMs: NOW } },
  };
  expect((await refreshAccounts("sa-first", { ...stored }, witness)).id).toBe("");
});

test("created moments ago, or by this process: kept with a line, never asked", async () => {
  const { c, asked } = context([key("sa-prev")]);
  const fresh = await refreshAccounts("sa-first", { ...stored, createdAt: "2026-01-01T11:59:00Z" }, c);
  const { retiredServiceAccountIds: _dropped, ...rest } = stored; // the retired one is gone (the listing can see)
  expect(fresh.props).toEqual({ ...rest, createdAt: "2026-01-01T11:59:00Z" });
  // Expected, and checked again next time: progress, not a warning.
  expect(fresh.lines).toEqual([
    { severity: "progress", text: expect.stringContaining("a listing may lag behind a create") },
    { severity: "progress", text: expect.stringContaining("retired account(s) sa-old gone: dropped") }, // as planned
  ]);
  const run = new RunMemory();
  run.recordCreated(P, "sa-cur");
  const { c: c2 } = context([key("sa-prev")], {}, run);
  expect(
    (await refreshAccounts("sa-first", { ...stored, retiredServiceAccountIds: [] }, c2)).props?.serviceAccountId,
  ).toBe("sa-cur");
  expect(asked).toEqual([]);
});

test("a listing with none of the run's accounts: tokens asked; 401: gone; a working one proves it blind", async () => {
  const { c, asked, run } = context([], { "tok-cur-secret": "live" });
  const out = await refreshAccounts("sa-first", { ...stored }, c);
  expect(out.props).toEqual(stored); // everything kept
  expect(asked).toEqual(["tok-prev-secret", "tok-cur-secret"]); // the retired one has no token to ask
  expect(run.isBlind(P)).toBe(true);
  expect(out.lines).toEqual([
    { severity: "progress", text: expect.stringContaining("shows none of the 3 account(s) this run holds") },
    // kept without proof either way: the user should look
    {
      severity: "warning",
      text: expect.stringContaining("kept unchanged: a token the listing does not show still works"),
    },
  ]);

  const gone = context([], { "tok-cur-secret": "gone", "tok-prev-secret": "gone" });
  const single = {
    projectId: P,
    name: "ci",
    serviceAccountId: "sa-cur",
    createdAt: stored.createdAt,
    token: "tok-cur-secret",
  };
  gone.run.hold(P, ["sa-cur"]);
  expect((await refreshAccounts("sa-cur", single, gone.c)).id).toBe("");
});

test("the provider's own account proves nothing about the listing; an expired token is not asked", async () => {
  const { c, asked } = context([key("sa-prev")]);
  c.ownToken = "tok-prev-secret"; // the provider authenticates as this resource's previous account
  const expired = { ...stored, tokenExpiresAt: "2026-01-01T11:30:00Z" };
  const out = await refreshAccounts("sa-first", expired, c);
  expect(asked).toEqual([]); // the current token expired: nothing to ask; the retired one has none
  expect(out.props).toEqual(expired);
});

test("a failed listing keeps everything and says why", async () => {
  const { c } = context([]);
  const out = await refreshAccounts(
    "sa-first",
    { ...stored },
    { ...c, listing: { ok: false, error: new Error("boom") } },
  );
  expect(out.props).toEqual(stored);
  expect(out.lines).toEqual([
    {
      severity: "warning",
      text: expect.stringContaining(
        "kept in the state unchanged: GET https://pims.test/v2/projects/p-1/api-keys it failed: boom",
      ),
    },
  ]);
});

test("the notice names only same-named accounts no state holds, each with its delete command", () => {
  const keys = [key("sa-cur"), key("sa-orphan", "ci", "2026-01-01T09:00:00Z"), key("sa-x", "other")];
  const line = auditLine(P, "ci", { ok: true, listing: { keys, serviceNowMs: NOW } }, new Set(["sa-cur"]));
  expect(line).toContain("  sa-orphan (created 2026-01-01T09:00:00Z): pims service-accounts delete p-1 sa-orphan");
  expect(line).not.toContain("sa-cur");
  expect(line).not.toContain("sa-x");
  expect(
    auditLine(P, "ci", { ok: true, listing: { keys, serviceNowMs: NOW } }, new Set(["sa-cur", "sa-orphan"])),
  ).toBeUndefined();
  expect(orphanNotice(P, "ci", [])).toBeUndefined();
});

test("issue 55 rows 3 and 16: an expired current account is kept, marked, on the service's clock", async () => {
  const expiring = (expiresAt: string, status = "active"): ApiKey => ({ ...key("sa-cur"), expiresAt, status });
  const props = { ...stored, previousServiceAccountId: undefined, retiredServiceAccountIds: undefined };
  // The service's clock (serviceNowMs) decides, whatever ours says: one second past expiry is expired...
  const past = context([expiring(new Date(NOW - 1000).toISOString())]);
  const out = await refreshAccounts("sa-first", { ...props }, past.c);
  expect(out.id).toBe("sa-first");
  expect(out.props).toMatchObject({ token: "tok-cur-secret", retiredServiceAccountIds: ["sa-cur"] });
  expect(out.lines).toEqual([
    {
      severity: "warning",
      text: expect.stringMatching(/\(sa-cur\) in project p-1: its token has expired: .* not deleted outside .*next/),
    },
  ]);
  // ...a key the service marks expired too; one that has an hour left is left alone (no line, props untouched).
  const marked = await refreshAccounts("sa-first", { ...props }, context([expiring("never", "expired")]).c);
  expect(marked.props?.retiredServiceAccountIds).toEqual(["sa-cur"]);
  const live = { ...props };
  const ahead = await refreshAccounts("sa-first", live, context([expiring(new Date(NOW + 3_600_000).toISOString())]).c);
  expect(ahead).toEqual({ id: "sa-first", props: live, lines: [] });
});

test("issue 55 row 4: a 401 listing with a stale-credential note says so, not 'refresh again later'", async () => {
  const { AuthError } = await import("../../../provider/client");
  const error = new AuthError({ action: "listing", method: "GET", path: "/v2/projects/p-1/api-keys", status: 401 });
  const { c } = context([]);
  const refused = "the state still holds the previous credential: run `pulumi refresh --run-program`.";
  const out = await refreshAccounts("sa-first", { ...stored }, { ...c, listing: { ok: false, error }, refused });
  expect(out.props).toEqual(stored);
  expect(out.lines).toHaveLength(1);
  expect(out.lines[0].text).toContain("answered 401: the state still holds the previous credential");
  expect(out.lines[0].text).not.toContain("Refresh again later");
});

test("issue 64: a 401 listing with no stale-credential note asks for a valid credential", async () => {
  const { AuthError } = await import("../../../provider/client");
  const error = new AuthError({ action: "listing", method: "GET", path: "/v2/projects/p-1/api-keys", status: 401 });
  const { c } = context([]);
  const out = await refreshAccounts("sa-first", { ...stored }, { ...c, listing: { ok: false, error } });
  expect(out.props).toEqual(stored);
  expect(out.lines).toHaveLength(1);
  expect(out.lines[0].text).toContain("Refresh again with a credential the service accepts");
  expect(out.lines[0].text).toContain("open the environment again for a fresh one");
  expect(out.lines[0].text).not.toContain("Refresh again later");
  // Any other failure may pass: waiting is the advice.
  const busy = new AuthError({ action: "listing", method: "GET", path: "/v2/projects/p-1/api-keys", status: 403 });
  const later = await refreshAccounts("sa-first", { ...stored }, { ...c, listing: { ok: false, error: busy } });
  expect(later.lines[0].text).toContain("Refresh again later");
});
