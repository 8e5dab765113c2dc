/**
 * Refresh of a ServiceAccount. The service cannot read one account, but every live account shows in the project's
 * API-key listing (GET /v2/projects/{project_id}/api-keys), taken once per project for the whole run
 * (./run). The rules, each from a real provider's bug (a refresh that took a live token for deleted
 * made a second one; one that cleared the token broke every consumer; a credential that lost its permissions made
 * every resource look gone):
 *
 * - An account the listing shows is live: the stored outputs stay exactly as they are, token included.
 * - The listing failed, answered 401/403/404 or could not be read: nothing can be concluded; all is kept, with why.
 * - An account the listing does not show yet, created by this process or less than the lag window before the listing
 *   (a listing may lag behind a create; the `listingLagMs` setting, docs/settings.md): kept.
 * - Absence counts only when the listing can see: it shows some account this run holds in that project (other than
 *   the provider's own). When it shows none of them, that is said, and each missing account's token is asked instead
 *   (GET /v2/projects/{project_id}/api-keys with that token): 401 means gone; a token that still works proves the
 *   listing blind, and everything in that project is kept; any other answer, or no token to ask, keeps it.
 * - Gone: a retired or previous account is dropped from the outputs. A gone current account takes the resource out
 *   of the state (the next `pulumi up` creates a new account), unless another account it holds is still live: then
 *   the resource stays, holding it, and the current account is marked retired, which makes the next `pulumi up`
 *   create a new current account (./index diff) and delete nothing live.
 * - Expired is not gone: a current account the listing shows whose key's `expiresAt` has passed on the service's
 *   clock (its `Date` header; our clock may be hours off), or whose key the service marks expired, stays in the state
 *   with a warning naming it, marked like a gone one (retired), so that the next `pulumi up` plans a new account and
 *   token and deletes the expired one: no false "deleted outside", no ghost. The preview says why (./rotation
 *   `markedAs`, `markedLine`: reason `tokenExpiresAt`, the expiry on the service's clock).
 * - The listing answered 401 to the provider's credential: when that credential may be the previous one the state
 *   stored (a refresh without `--run-program`), the warning says so and what to run (`refused`).
 */
import { listed, type Listing, type ListingResult, type RunMemory } from "./run";
import { AuthError, NotFoundError, type PimsClient } from "../client";
import type { Severity } from "../client/log";

/** The outputs a refresh reads (as any version stored them). */
export interface StoredAccounts {
  projectId: string;
  name?: string;
  serviceAccountId?: string;
  createdAt?: string;
  token?: string;
  tokenExpiresAt?: string;
  previousServiceAccountId?: string;
  previousToken?: string;
  previousTokenExpiresAt?: string;
  retiredServiceAccountIds?: string[];
}

/** What asking a token told: it works (`live`), the service refuses it (`gone`: 401), or nothing (`unknown`). */
export type ProbeResult = "live" | "gone" | "unknown";

export interface RefreshContext {
  listing: ListingResult;
  run: RunMemory;
  /** The listing's address, for the lines. */
  listUrl: string;
  lagMs: number;
  /** Asks the service with this token (one request); never throws. */
  probe: (token: string) => Promise<ProbeResult>;
  /** The provider's own credential: its account (if this resource holds it) proves nothing about visibility. */
  ownToken?: string;
  /** What a 401 to the provider's credential means here (../providerBase `staleCredentialNote`), if it knows. */
  refused?: string;
}

export interface RefreshOutcome {
  /** "" when the resource leaves the state. */
  id: string;
  props?: Record<string, unknown>;
  /** Lines for the user, each with its severity (provider/client/log.ts: progress, or a warning to act on). */
  lines: RefreshLine[];
}

/** One line of a refresh and its severity. */
export interface RefreshLine {
  severity: Severity;
  text: string;
}
const note = (text: string): RefreshLine => ({ severity: "progress", text });
const warn = (text: string): RefreshLine => ({ severity: "warning", text });

type Role = "current" | "previous" | "retired";
interface Held {
  role: Role;
  id: string;
  token?: string;
  createdAt?: string;
  expiresAt?: string;
}

const time = (t: unknown): number => (typeof t === "string" && t !== "" ? Date.parse(t) : NaN);

/** Why a failed listing proves nothing. */
function listingProblem(error: unknown, refused: string | undefined): string {
  if (error instanceof AuthError && error.status === 401 && refused !== undefined)
    return `answered 401 ${error.serverMessage ?? ""}`.trimEnd() + `: ${refused}`;
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof NotFoundError)
    return `it answered 404 (the project was deleted outside Pulumi, or pims:baseUrl points elsewhere): ${message}`;
  if (error instanceof AuthError)
    return `the credential may not list the project's keys (${error.status ?? "auth"}): ${message}`;
  return `it failed: ${message}`;
}

export async function refreshAccounts(
  id: string,
  props: StoredAccounts & Record<string, unknown>,
  c: RefreshContext,
): Promise<RefreshOutcome> {
  const out = await refreshHeld(id, props, c);
  return out.id === "" || !c.listing.ok ? out : markExpired(out, c.listing.listing, c.listUrl);
}

/**
 * A kept resource whose current account the listing shows with an expired key (on the service's clock): marked
 * retired (./rotation `currentGone`: the next `pulumi up` rotates), with a warning saying so. Unchanged otherwise.
 */
function markExpired(out: RefreshOutcome, listing: Listing, listUrl: string): RefreshOutcome {
  const props = (out.props ?? {}) as StoredAccounts & Record<string, unknown>;
  const current = props.serviceAccountId ?? out.id;
  const key = listed(listing).byId.get(current);
  if (!key) return out;
  const expiresMs = time(key.expiresAt);
  const expired = /expired/i.test(key.status ?? "") || expiresMs <= listing.serviceNowMs;
  const retired = props.retiredServiceAccountIds ?? [];
  if (!expired || retired.includes(current)) return out;
  const serviceNow = new Date(listing.serviceNowMs).toISOString();
  const named = JSON.stringify(props.name ?? "");
  const who = `pulumi-pims: service account ${named} (${current}) in project ${props.projectId}`;
  const line = warn(
    `${who}: its token has expired: ${listUrl} shows the account with expiresAt ${key.expiresAt || "(none)"}` +
      `${key.status ? ` (status ${key.status})` : ""}, and the service's clock reads ${serviceNow}. The account ` +
      "still exists (it was not deleted outside the stack) but its token is refused (401) to whoever holds it. " +
      "Kept in the state and marked for rotation: the next `pulumi up` creates a new account and token and deletes " +
      "this one (`pulumi preview` shows it).",
  );
  return {
    ...out,
    props: { ...props, retiredServiceAccountIds: [...retired, current] },
    lines: [...out.lines, line],
  };
}

async function refreshHeld(
  id: string,
  props: StoredAccounts & Record<string, unknown>,
  c: RefreshContext,
): Promise<RefreshOutcome> {
  const { projectId } = props;
  const named = JSON.stringify(props.name ?? "");
  const who = `pulumi-pims: service account ${named} (${props.serviceAccountId ?? id}) in project ${projectId}`;
  const held: Held[] = [
    ...(props.retiredServiceAccountIds ?? []).map((r): Held => ({ role: "retired", id: r })),
    ...(props.previousServiceAccountId
      ? [
          {
            role: "previous" as const,
            id: props.previousServiceAccountId,
            token: props.previousToken,
            expiresAt: props.previousTokenExpiresAt,
          },
        ]
      : []),
    {
      role: "current",
      id: props.serviceAccountId ?? id,
      token: props.token,
      createdAt: props.createdAt,
      expiresAt: props.tokenExpiresAt,
    },
  ];
  if (!c.listing.ok) {
    const why = listingProblem(c.listing.error, c.refused);
    const e = c.listing.error;
    // A 401 is a credential the service refuses: waiting does not help, a valid one does.
    const refusedNow = e instanceof AuthError && e.status === 401;
    const end =
      c.refused !== undefined && refusedNow
        ? ""
        : refusedNow
          ? ". Refresh again with a credential the service accepts (an expired short-lived token from Pulumi ESC: " +
            "open the environment again for a fresh one)."
          : ". Refresh again later.";
    return { id, props, lines: [warn(`${who}: kept in the state unchanged: ${c.listUrl} ${why}${end}`)] };
  }
  const { serviceNowMs } = c.listing.listing;
  const shown = listed(c.listing.listing).byId;
  for (const h of held) if (c.ownToken !== undefined && h.token === c.ownToken) c.run.markOwn(h.id);
  const lines: RefreshLine[] = [];
  const missing = held.filter((h) => !shown.has(h.id) && h.role !== "current");
  const current = held[held.length - 1];
  if (!shown.has(current.id)) {
    const created = time(current.createdAt);
    if (c.run.createdHere(current.id) || (!Number.isNaN(created) && created > serviceNowMs - c.lagMs)) {
      lines.push(
        note(
          `${who}: not in ${c.listUrl} yet, but created ${current.createdAt ?? "in this run"} ` +
            "(a listing may lag behind a create): kept; the next refresh checks again.",
        ),
      );
    } else missing.push(current);
  }
  if (missing.length === 0) return { id, props, lines };

  // Absence counts only when the listing can see this project's accounts.
  const mine = [...c.run.heldIn(projectId)].filter((x) => !c.run.isOwn(x));
  const visible = mine.some((x) => shown.has(x));
  const gone = new Set<string>();
  if (visible) missing.forEach((h) => gone.add(h.id));
  else {
    lines.push(
      note(
        `${who}: ${c.listUrl} shows none of the ${mine.length} account(s) this run holds in project ${projectId}; ` +
          "a credential that cannot see the project's keys looks the same, so each missing account's token is asked " +
          "instead.",
      ),
    );
    for (const h of missing) {
      if (c.run.isBlind(projectId)) break;
      const expired = time(h.expiresAt) <= serviceNowMs; // the service's clock, not ours
      const r: ProbeResult = h.token === undefined || h.token === "" || expired ? "unknown" : await c.probe(h.token);
      if (r === "gone") gone.add(h.id);
      else if (r === "live") c.run.markBlind(projectId);
    }
    const kept = missing.filter((h) => !gone.has(h.id));
    if (kept.length > 0) {
      const why = c.run.isBlind(projectId)
        ? "a token the listing does not show still works: the credential cannot see this project's keys"
        : "their absence cannot be confirmed (no token to ask, an expired token, or no clear answer)";
      lines.push(warn(`${who}: ${kept.map((h) => `${h.role} account ${h.id}`).join(", ")} kept unchanged: ${why}.`));
    }
  }
  if (gone.size === 0) return { id, props, lines };

  const out: Record<string, unknown> = { ...props };
  const retired = (props.retiredServiceAccountIds ?? []).filter((r) => !gone.has(r));
  const previousGone = props.previousServiceAccountId !== undefined && gone.has(props.previousServiceAccountId);
  if (previousGone)
    for (const k of ["previousServiceAccountId", "previousTokenId", "previousTokenExpiresAt", "previousToken"])
      delete out[k];
  const droppedRetired = (props.retiredServiceAccountIds ?? []).filter((r) => gone.has(r));
  if (previousGone)
    lines.push(
      warn(
        `${who}: previous account ${props.previousServiceAccountId} is gone (${c.listUrl} no longer shows it): ` +
          "dropped from the outputs.",
      ),
    );
  if (droppedRetired.length > 0)
    lines.push(
      note(`${who}: retired account(s) ${droppedRetired.join(", ")} gone: dropped from retiredServiceAccountIds.`),
    );
  if (gone.has(current.id)) {
    const stillHeld = (props.previousServiceAccountId !== undefined && !previousGone ? 1 : 0) + retired.length;
    if (stillHeld === 0) {
      lines.push(
        warn(
          `${who}: ${c.listUrl} no longer shows it: deleted outside the stack. Removed from the state: ` +
            "the next `pulumi up` creates a new account and token " +
            `(whoever holds the old token gets 401 until it reads the new one).`,
        ),
      );
      return { id: "", lines };
    }
    retired.push(current.id);
    lines.push(
      warn(
        `${who}: the current account is gone (${c.listUrl} no longer shows it) but the resource still holds a ` +
          "live account: kept in the state with " +
          `${current.id} marked retired; the next \`pulumi up\` creates a new current account.`,
      ),
    );
  }
  if (retired.length > 0) out.retiredServiceAccountIds = retired;
  else delete out.retiredServiceAccountIds;
  return { id, props: out, lines };
}

/** True when a refresh marked the current account gone (it is listed among the retired ones): the next up rotates. */
export function currentGone(
  o: Pick<StoredAccounts, "serviceAccountId" | "retiredServiceAccountIds"> | undefined,
): boolean {
  const current = o?.serviceAccountId;
  return typeof current === "string" && Array.isArray(o?.retiredServiceAccountIds)
    ? o.retiredServiceAccountIds.includes(current)
    : false;
}

/**
 * Asks the service with an account's own token (GET /v2/projects/{project_id}/api-keys, `client` built with that
 * token): a 2xx means the token works, a 401 that the service no longer accepts it; anything else tells nothing.
 */
export async function probeToken(client: PimsClient, projectId: string): Promise<ProbeResult> {
  try {
    await client.listApiKeys(projectId);
    return "live";
  } catch (e) {
    return e instanceof AuthError && e.status === 401 ? "gone" : "unknown";
  }
}
