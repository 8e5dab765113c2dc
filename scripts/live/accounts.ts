/**
 * The live tier's service accounts, as the gate (`scripts/live/tier.ts`) and the suites of tests/live both handle
 * them: a client for the account under test (recording on when the gate set PIMS_WIRE_RECORD), the accounts carrying
 * the run's prefix as the key listing shows them, the teardown that deletes them, and the command that deletes a
 * leftover by hand.
 */
import { errorText, PimsError, type PimsClient } from "../../provider/client";
import { clientFor } from "../../provider/settings";
import type { LiveSettings } from "./settings";

/** A client for the live service: the tier's token unless another is given; env tuning (and the recorder) applies. */
export function liveClient(s: LiveSettings, token: string = s.token): PimsClient {
  return clientFor({ token, baseUrl: s.baseUrl }, { userAgent: "pulumi-pims-live-tier" });
}

/** A service account as the key listing shows it. */
export interface ListedAccount {
  id: string;
  name: string;
}

/**
 * The live accounts whose name starts with `prefix`, seen through `GET /v2/projects/{project_id}/api-keys` (the
 * service cannot list accounts: each account's key names it by `principalId`, under the account's name).
 */
export async function accountsWithPrefix(
  client: PimsClient,
  projectId: string,
  prefix: string,
): Promise<ListedAccount[]> {
  const keys = await client.listApiKeys(projectId);
  const byId = new Map<string, ListedAccount>();
  for (const k of keys)
    if (k.principalId && k.name.startsWith(prefix)) byId.set(k.principalId, { id: k.principalId, name: k.name });
  return [...byId.values()];
}

/** An account the teardown could not delete, and why. */
export interface Leftover extends ListedAccount {
  reason: string;
}

/**
 * Deletes every account of `projectId` whose name starts with `prefix` (from the key listing) and every id in
 * `known` (accounts the run created, listed or not), then lists again: what is still there is returned. A 404 on
 * delete means it is gone already. Never throws for one account: it tries them all.
 */
export async function deleteAccountsWithPrefix(
  client: PimsClient,
  projectId: string,
  prefix: string,
  known: Iterable<string> = [],
): Promise<Leftover[]> {
  const failed = new Map<string, string>();
  let listed: ListedAccount[] = [];
  try {
    listed = await accountsWithPrefix(client, projectId, prefix);
  } catch (e) {
    failed.set("(listing)", errorText(e));
  }
  const ids = new Set([...listed.map((a) => a.id), ...known]);
  for (const id of ids) {
    try {
      // DELETE /v2/projects/{project_id}/service-accounts/{service_account_id}
      await client.deleteServiceAccount(projectId, id);
    } catch (e) {
      if (!(e instanceof PimsError && e.status === 404)) failed.set(id, errorText(e));
    }
  }
  const after = await accountsWithPrefix(client, projectId, prefix);
  return after.map((a) => ({ ...a, reason: failed.get(a.id) ?? "still listed after its delete was answered" }));
}

/** The command that deletes a leftover by hand (the token comes from PIMS_TOKEN, never an argument). */
export const deleteCommand = (s: Pick<LiveSettings, "baseUrl" | "projectId">, id: string): string =>
  `PIMS_TOKEN=<your token> npx pims --base-url ${s.baseUrl} service-accounts delete ${s.projectId} ${id}`;
