/**
 * Service accounts as the API-key listing shows them. The service has no operation that lists or reads service
 * accounts; every live account has an API key whose `principalId` is the account's id
 * (GET /v2/projects/{project_id}/api-keys), so that listing is the only way to see which accounts exist. Used by the
 * ServiceAccount provider (orphans after a failed create, a 404 on delete) and by `pims service-accounts list`.
 */
import type { ApiKey } from "../client";

/** A live service account as its API key shows it (never the key value). */
export interface AccountSeen {
  id: string;
  name: string;
  status: string;
  /** The account's oldest key's creation time, as the service reports it; "" when it sent none. */
  createdAt: string;
  expiresAt: string;
}

/** The members of an API key this module reads. */
export type KeyView = Pick<ApiKey, "name" | "status" | "createdAt" | "expiresAt"> & { principalId?: string | null };

/** Ms since the epoch of a timestamp, or NaN when it cannot be read. */
const timeMs = (t: string): number => (t === "" ? NaN : Date.parse(t));

/** One entry per account (keys with a `principalId`), sorted by name, then oldest first. */
export function accountsFromKeys(keys: readonly KeyView[]): AccountSeen[] {
  const byId = new Map<string, AccountSeen>();
  for (const k of keys) {
    if (!k.principalId) continue;
    const seen = byId.get(k.principalId);
    // One account could have several keys: keep its oldest key's time (closest to the account's creation).
    if (!seen || (!Number.isNaN(timeMs(k.createdAt)) && !(timeMs(seen.createdAt) <= timeMs(k.createdAt)))) {
      byId.set(k.principalId, {
        id: k.principalId,
        name: k.name,
        status: k.status,
        createdAt: k.createdAt,
        expiresAt: k.expiresAt,
      });
    }
  }
  const time = (a: AccountSeen): number => (Number.isNaN(timeMs(a.createdAt)) ? -Infinity : timeMs(a.createdAt));
  return [...byId.values()].sort(
    (a, b) => a.name.localeCompare(b.name) || time(a) - time(b) || a.id.localeCompare(b.id),
  );
}

/** A live service account that a failed create may have left behind. */
export interface OrphanCandidate {
  /** The account's id (the API key's `principalId`). */
  id: string;
  /** Creation time of the account's key, as the service reports it; "" when it sent none. */
  createdAt: string;
}

/**
 * Live accounts named `name`, newest first. With `since` (ms, service clock), only those created at or after it, and
 * those whose creation time cannot be read (they cannot be shown to be older); `exclude` drops known ids.
 */
export function orphanCandidates(
  keys: readonly KeyView[],
  name: string,
  opts: { since?: number; exclude?: ReadonlySet<string> } = {},
): OrphanCandidate[] {
  const { since, exclude } = opts;
  return accountsFromKeys(keys)
    .filter((a) => a.name === name && !exclude?.has(a.id) && (since === undefined || !(timeMs(a.createdAt) < since)))
    .map((a) => ({ id: a.id, createdAt: a.createdAt }))
    .reverse();
}
