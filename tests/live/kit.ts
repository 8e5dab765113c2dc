/**
 * What the live suites share: a client for the account under test (recording on when the gate set
 * PIMS_WIRE_RECORD), the accounts carrying the run's prefix as the key listing shows them, the teardown that deletes
 * them, the register of every secret and id the run saw (the recording is scanned for them), and findings (facts
 * about the service the recording cannot show, e.g. where `never` sorts), printed by the gate at the end.
 */
import * as fs from "node:fs";
import { PimsError, type PimsClient } from "../../provider/client";
import { clientFor } from "../../provider/settings";
import { expectNoPlaintextSecrets } from "../helpers";
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
    failed.set("(listing)", e instanceof Error ? e.message : String(e));
  }
  const ids = new Set([...listed.map((a) => a.id), ...known]);
  for (const id of ids) {
    try {
      // DELETE /v2/projects/{project_id}/service-accounts/{service_account_id}
      await client.deleteServiceAccount(projectId, id);
    } catch (e) {
      if (!(e instanceof PimsError && e.status === 404)) failed.set(id, e instanceof Error ? e.message : String(e));
    }
  }
  const after = await accountsWithPrefix(client, projectId, prefix);
  return after.map((a) => ({ ...a, reason: failed.get(a.id) ?? "still listed after its delete was answered" }));
}

/** The command that deletes a leftover by hand (the token comes from PIMS_TOKEN, never an argument). */
export const deleteCommand = (s: Pick<LiveSettings, "baseUrl" | "projectId">, id: string): string =>
  `PIMS_TOKEN=<your token> npx pims --base-url ${s.baseUrl} service-accounts delete ${s.projectId} ${id}`;

/** Every secret and id the run saw: none may appear in the recording. */
export class Seen {
  private readonly values = new Set<string>();
  /** Remembers values (undefined and empty ones are ignored). */
  add(...values: Array<string | undefined>): void {
    for (const v of values) if (v) this.values.add(v);
  }
  all(): string[] {
    return [...this.values];
  }
  /** Fails when the recording holds any of them (naming none). */
  expectNotIn(recording: string | undefined): void {
    if (!recording || !fs.existsSync(recording)) return;
    expectNoPlaintextSecrets(fs.readFileSync(recording, "utf8"), this.all(), `the wire recording ${recording}`);
  }
}

/** Where findings go: beside the recording (`<recording>.findings.txt`). */
export const findingsFile = (recording: string): string => `${recording}.findings.txt`;

/** Notes a fact about the service for the gate to print (no value, no id: it may be pasted into an issue). */
export function finding(s: LiveSettings, text: string): void {
  if (s.recording) fs.appendFileSync(findingsFile(s.recording), `${text}\n`);
}
