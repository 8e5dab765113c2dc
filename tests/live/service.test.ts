/**
 * Live tier, the service through the client and the functions: a service account's whole life (create, its token
 * authenticates, seen through the key listing, deleted, its token refused, deleted again), the answers to requests
 * that must fail (unknown project, bad token, invalid body), every read function, and — only when their variables
 * allow — app secrets, a volume resize, a run cancellation and a project creation. Everything it creates carries the
 * run's prefix; the teardown deletes it. Run by `npm run test:live` (scripts/live/tier.ts), never by `npm test`.
 */
import { PimsError, type PimsClient } from "../../provider/client";
import {
  cancelRun,
  getApiKeys,
  getAppLogs,
  getBuildLogs,
  getInvoices,
  type PimsCallOptions,
} from "../../sdk/nodejs/functions";
import { randomSecret } from "../../scripts/engine";
import { accountsWithPrefix, deleteAccountsWithPrefix, deleteCommand, liveClient } from "../../scripts/live/accounts";
import { requireLiveSettings } from "../../scripts/live/settings";
import { finding, Seen } from "../kit/live";

const s = requireLiveSettings();
const client: PimsClient = liveClient(s);
const seen = new Seen();
seen.add(s.token, s.projectId, s.appId, s.buildId, s.runId, s.secretsAppId, s.resize?.volumeId);
/** Accounts this suite created (deleted by the teardown even when the listing does not show them). */
const created: string[] = [];
const call: PimsCallOptions = { token: s.token, baseUrl: s.baseUrl, userAgent: "pulumi-pims-live-tier" };
const onlyIf = (cond: unknown): jest.It => (cond ? test : test.skip);

/** The status a failed call was answered with (0: none), failing the test when it did not fail with a PimsError. */
async function statusOfFailure(p: Promise<unknown>): Promise<number> {
  const outcome = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(outcome instanceof PimsError))
    throw new Error(
      `expected the service to refuse, got ` +
        `${outcome === undefined ? "success" : outcome instanceof Error ? outcome.message : "a non-error"}`,
    );
  return outcome.status ?? 0;
}

afterAll(async () => {
  const left = await deleteAccountsWithPrefix(client, s.projectId, s.prefix, created);
  for (const l of left)
    console.error(`not deleted: ${l.name} (${l.reason}); delete it with: ${deleteCommand(s, l.id)}`);
  expect(left).toEqual([]);
  seen.expectNotIn(s.recording);
});

describe("a service account's life", () => {
  let account: { id: string; token: string } | undefined;
  const name = `${s.prefix}client`;
  const mine = (): { id: string; token: string } => {
    if (!account) throw new Error("the create step failed");
    return account;
  };

  test("POST /v2/projects/{project_id}/service-accounts creates it, answering a token the client reads", async () => {
    const sa = await client.createServiceAccount(s.projectId, {
      name,
      description: "pulumi-pims live tier: safe to delete",
      grants: [s.projectId],
      expiresIn: 3600,
    });
    created.push(sa.id);
    seen.add(sa.id, sa.token.secret, sa.token.id);
    expect(sa.id).not.toBe("");
    expect(sa.token.secret.length).toBeGreaterThanOrEqual(8);
    account = { id: sa.id, token: sa.token.secret };
  });

  test("its token authenticates, and the key listing names it by principalId under its name", async () => {
    const { id, token } = mine();
    const keys = await liveClient(s, token).listApiKeys(s.projectId);
    for (const k of keys) seen.add(k.id, k.apiKey, k.principalId ?? undefined);
    expect(await accountsWithPrefix(client, s.projectId, s.prefix)).toContainEqual({ id, name });
  });

  test("the key listing is sorted by expiresAt: where `never` sorts is noted", async () => {
    const keys = await client.listApiKeys(s.projectId);
    for (const k of keys) seen.add(k.id, k.apiKey, k.principalId ?? undefined);
    // The client reads an absent or null expiresAt as "never" too.
    const at = keys.flatMap((k, i) => (k.expiresAt === "never" ? [i] : []));
    const last = at.every((i, j) => i === keys.length - at.length + j);
    const where =
      at.length === 0
        ? "nowhere (no key that never expires)"
        : last
          ? "last"
          : at.every((i, j) => i === j)
            ? "first"
            : "among dated keys";
    finding(s, `api-keys: keys that never expire sort ${where} (${keys.length} keys)`);
    const dated = keys.filter((k) => k.expiresAt !== "never" && k.expiresAt !== "").map((k) => Date.parse(k.expiresAt));
    expect(dated).toEqual([...dated].sort((a, b) => a - b));
  });

  test("DELETE /v2/projects/{project_id}/service-accounts/{service_account_id} deletes it; token refused", async () => {
    const { id, token } = mine();
    await client.deleteServiceAccount(s.projectId, id);
    expect((await accountsWithPrefix(client, s.projectId, s.prefix)).map((a) => a.id)).not.toContain(id);
    const status = await statusOfFailure(liveClient(s, token).listApiKeys(s.projectId));
    finding(s, `a deleted account's token is refused with ${status}`);
  });

  test("deleting it again is refused (what a missing account answers)", async () => {
    const status = await statusOfFailure(client.deleteServiceAccount(s.projectId, mine().id));
    finding(s, `deleting a deleted service account answers ${status}`);
  });
});

describe("requests that must fail (nothing is created)", () => {
  test("an unknown project", async () => {
    finding(
      s,
      `api-keys of an unknown project answers ` +
        `${await statusOfFailure(client.listApiKeys(`${s.prefix}no-such-project`))}`,
    );
  });

  test("a token that is not one", async () => {
    finding(
      s,
      `a bad token is refused with ` +
        `${await statusOfFailure(liveClient(s, randomSecret("pims-live-not-a-token-")).listInvoices(s.projectId))}`,
    );
  });

  test("a service account without grants (an invalid body)", async () => {
    const p = client.createServiceAccount(s.projectId, { name: `${s.prefix}invalid`, grants: [], expiresIn: 60 });
    // Should the service accept it after all, the account carries the prefix: the teardown deletes it.
    const status = await statusOfFailure(
      p.then((sa) => {
        created.push(sa.id);
        seen.add(sa.id, sa.token.secret);
        return sa;
      }),
    );
    finding(s, `a service account with no grants is refused with ${status}`);
  });
});

describe("the read functions", () => {
  test("getApiKeys and getInvoices", async () => {
    const { keys } = await getApiKeys({ projectId: s.projectId }, call);
    for (const k of keys) seen.add(k.id, k.apiKey, k.principalId ?? undefined);
    const { invoices } = await getInvoices({ projectId: s.projectId }, call);
    for (const i of invoices) seen.add(i.id, i.fileUrl);
    expect(Array.isArray(invoices)).toBe(true);
  });

  onlyIf(s.appId)("getAppLogs (PIMS_LIVE_APP)", async () => {
    const { lines } = await getAppLogs({ projectId: s.projectId, appId: s.appId!, limit: 5 }, call);
    for (const l of lines) seen.add(l.logId, l.containerId, l.runId);
    expect(lines.length).toBeLessThanOrEqual(5);
  });

  onlyIf(s.buildId)("getBuildLogs (PIMS_LIVE_BUILD)", async () => {
    const b = await getBuildLogs({ projectId: s.projectId, appId: s.appId!, buildId: s.buildId! }, call);
    finding(s, `build status seen: ${JSON.stringify(b.status)}`);
    expect(typeof b.status).toBe("string");
  });
});

describe("writes the variables allow", () => {
  onlyIf(s.runId)("cancelRun (PIMS_LIVE_RUN): cancelled, or refused because it already finished", async () => {
    let outcome = "cancelled";
    try {
      await cancelRun({ projectId: s.projectId, appId: s.appId!, runId: s.runId! }, call);
    } catch (e) {
      if (!(e instanceof PimsError)) throw e;
      outcome = `refused with ${e.status ?? 0}`;
    }
    finding(s, `cancelling the named run: ${outcome}`);
  });

  onlyIf(s.secretsAppId)(
    "PATCH /v2/projects/{project_id}/apps/{app_id}/secrets writes PIMS_LIVE_CHECK (PIMS_LIVE_SECRETS_APP)",
    async () => {
      const value = randomSecret("pims-live-check-");
      seen.add(value);
      expect(typeof (await client.updateAppSecrets(s.projectId, s.secretsAppId!, { PIMS_LIVE_CHECK: value }))).toBe(
        "string",
      );
    },
  );

  onlyIf(s.resize)(
    "PATCH /v2/projects/{project_id}/volumes/{volume_id}/resize grows the named volume (PIMS_LIVE_ALLOW_RESIZE)",
    async () => {
      const { volumeId, sizeGb } = s.resize!;
      expect(typeof (await client.resizeVolume(s.projectId, volumeId, sizeGb))).toBe("string");
    },
  );

  onlyIf(s.allowCreateProject)(
    "POST /v2/projects creates a project (PIMS_LIVE_ALLOW_CREATE_PROJECT; it cannot be deleted)",
    async () => {
      const id = await client.createProject({ name: `${s.prefix}project` });
      seen.add(id);
      console.log(`created project ${id} (${s.prefix}project): the service cannot delete projects, it stays`);
      expect(id).not.toBe("");
    },
  );
});
