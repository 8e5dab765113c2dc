/**
 * What one run knows about service accounts: a provider process lives for one engine operation (one `pulumi up`,
 * `refresh` or `destroy`, `up --refresh` included) and serves every ServiceAccount of one provider configuration, so
 * this process-wide memory is the run's. It holds:
 *
 * - the project's API-key listing (GET /v2/projects/{project_id}/api-keys), taken at most once per project, base
 *   address and credential, and shared: resources that need it at the same time await the same request, and a listing
 *   that failed stays failed for the run (each resource then keeps its state and says why);
 * - the accounts held by the states this run has seen (the outputs diff, read, update and delete receive: current,
 *   previous and retired accounts) and the accounts this process created: none of them is ever named an orphan.
 *
 * A listing is a snapshot: it cannot show what was created after it (held here anyway, see above), and it cannot
 * confirm a delete sent after it (./delete confirms each 404 with a listing of its own).
 */
import * as crypto from "node:crypto";
import type { ApiKey, PimsClient } from "../client";
import { accountsFromKeys, type AccountSeen } from "./listing";

/** A listing as the run took it: the keys, and when (the service's clock, from its `Date` header when it sent one). */
export interface Listing {
  keys: ApiKey[];
  /** Ms since the epoch on the service's clock when the answer came (our clock plus the skew measured). */
  serviceNowMs: number;
}

/** A listing's accounts (./listing `accountsFromKeys`): each by its id, and those of each name, oldest first. */
export interface ListedAccounts {
  byId: ReadonlyMap<string, AccountSeen>;
  byName: ReadonlyMap<string, readonly AccountSeen[]>;
}

const listedOnce = new WeakMap<Listing, ListedAccounts>();

/**
 * The accounts a listing shows, worked out once per listing: a refresh of N accounts of one project reads the same
 * listing N times (each account, then its orphan notice), and working it out each time made a refresh quadratic in N.
 */
export function listed(listing: Listing): ListedAccounts {
  let found = listedOnce.get(listing);
  if (!found) {
    const byId = new Map<string, AccountSeen>();
    const byName = new Map<string, AccountSeen[]>();
    for (const a of accountsFromKeys(listing.keys)) {
      byId.set(a.id, a);
      const named = byName.get(a.name) ?? [];
      named.push(a);
      byName.set(a.name, named);
    }
    found = { byId, byName };
    listedOnce.set(listing, found);
  }
  return found;
}

/** The run's one listing of a project: taken, or failed with the error it failed with. */
export type ListingResult = { ok: true; listing: Listing } | { ok: false; error: unknown };

/** Outputs of a ServiceAccount as far as the accounts it holds are concerned. */
export interface HeldIds {
  projectId?: unknown;
  serviceAccountId?: unknown;
  previousServiceAccountId?: unknown;
  retiredServiceAccountIds?: unknown;
}

/** Every account id a ServiceAccount's outputs hold: retired ones, the previous one, the current one (or `id`). */
export function heldIds(o: HeldIds | undefined, id?: string): string[] {
  const out: string[] = [];
  const add = (v: unknown): void => {
    if (typeof v === "string" && v !== "" && !out.includes(v)) out.push(v);
  };
  if (Array.isArray(o?.retiredServiceAccountIds)) o.retiredServiceAccountIds.forEach(add);
  add(o?.previousServiceAccountId);
  add(o?.serviceAccountId ?? id);
  return out;
}

export class RunMemory {
  private readonly listings = new Map<string, Promise<ListingResult>>();
  private readonly held = new Map<string, Set<string>>();
  /** Projects where a token of an account the listing did not show still worked: the listing cannot see them. */
  private readonly blind = new Set<string>();
  /** Accounts this process created (a listing taken before may not show them). */
  private readonly created = new Set<string>();
  /** Accounts whose token is the provider's own credential: seeing them proves nothing about what a listing shows. */
  private readonly own = new Set<string>();

  /** Records the accounts a state holds (or this process created) in `projectId`. */
  hold(projectId: unknown, ids: readonly string[]): void {
    if (typeof projectId !== "string" || projectId === "") return;
    const set = this.held.get(projectId) ?? new Set<string>();
    this.held.set(projectId, set);
    for (const id of ids) set.add(id);
  }

  /** The accounts of `projectId` held by a state this run has seen, or created by this process. */
  heldIn(projectId: string): ReadonlySet<string> {
    return this.held.get(projectId) ?? new Set<string>();
  }

  /** Records an account this process created in `projectId` (it is held too). */
  recordCreated(projectId: string, id: string): void {
    this.created.add(id);
    this.hold(projectId, [id]);
  }

  createdHere(id: string): boolean {
    return this.created.has(id);
  }

  markOwn(id: string): void {
    this.own.add(id);
  }

  isOwn(id: string): boolean {
    return this.own.has(id);
  }

  markBlind(projectId: string): void {
    this.blind.add(projectId);
  }

  isBlind(projectId: string): boolean {
    return this.blind.has(projectId);
  }

  /**
   * The run's listing of `projectId` for this client's base address and credential: the first caller sends
   * GET /v2/projects/{project_id}/api-keys, every other caller (at the same time or later) gets the same answer.
   * The service's "now" is read from the client's clock when the answer comes (its `Date` header).
   */
  listing(client: PimsClient, credential: string, projectId: string): Promise<ListingResult> {
    const digest = crypto.createHash("sha256").update(credential).digest("hex"); // never the credential itself
    const key = `${client.baseUrl}\n${digest}\n${projectId}`;
    let p = this.listings.get(key);
    if (!p) {
      p = client.listApiKeys(projectId).then(
        (keys): ListingResult => ({
          ok: true,
          listing: { keys, serviceNowMs: Date.now() + (client.serviceSkewMs() ?? 0) },
        }),
        (error: unknown): ListingResult => ({ ok: false, error }),
      );
      this.listings.set(key, p);
    }
    return p;
  }
}

let current: RunMemory | undefined;

/** The process's run memory (one engine operation per provider process; see the top of this file). */
export function runMemory(): RunMemory {
  current ??= new RunMemory();
  return current;
}

/**
 * Starts a new run in this process: tests and the benchmark, which play several engine operations in one process.
 * @internal
 */
export function newRun(): RunMemory {
  current = new RunMemory();
  return current;
}
