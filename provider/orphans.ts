/**
 * Service accounts as the API-key list shows them, and the three moments at which a live account could escape the
 * stack that created it: a create that failed ambiguously, a create answer without a readable token, and a 404 on
 * delete.
 *
 * The service has no operation that lists or reads service accounts. Every live account has an API key whose
 * `principalId` is the account's id (GET /v2/projects/{project_id}/api-keys): that list is the only way to see which
 * accounts exist. Used by the ServiceAccount provider and by `pims service-accounts list`.
 */
import axios, { type AxiosAdapter } from "axios";
import {
  type ApiKey,
  type CreateServiceAccountRequest,
  NetworkError,
  NOT_SENT_CODES,
  NotFoundError,
  PimsError,
  type PimsClient,
  ServerError,
  type ServiceAccount,
  type ServiceAccountToken,
  TimeoutError,
  UnreadableTokenError,
} from "./client";
import { backoffMs } from "./client/retry";

// ---- accounts seen through the API keys ---------------------------------------------------------------------

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
export type KeyView = Pick<ApiKey, "name" | "status" | "createdAt" | "expiresAt"> & { principalId?: string };

/** Ms since the epoch of a timestamp, or NaN when it cannot be read. */
const ms = (t: string): number => (t === "" ? NaN : Date.parse(t));

/** One entry per account (keys with a `principalId`), sorted by name, then oldest first. */
export function accountsFromKeys(keys: readonly KeyView[]): AccountSeen[] {
  const byId = new Map<string, AccountSeen>();
  for (const k of keys) {
    if (!k.principalId) continue;
    const seen = byId.get(k.principalId);
    // One account could have several keys: keep its oldest key's time (closest to the account's creation).
    if (!seen || (!Number.isNaN(ms(k.createdAt)) && !(ms(seen.createdAt) <= ms(k.createdAt)))) {
      byId.set(k.principalId, { id: k.principalId, name: k.name, status: k.status, createdAt: k.createdAt, expiresAt: k.expiresAt });
    }
  }
  const time = (a: AccountSeen): number => (Number.isNaN(ms(a.createdAt)) ? -Infinity : ms(a.createdAt));
  return [...byId.values()].sort((a, b) => a.name.localeCompare(b.name) || time(a) - time(b) || a.id.localeCompare(b.id));
}

// ---- possible orphans after an ambiguous create ---------------------------------------------------------------

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
export function orphanCandidates(keys: readonly KeyView[], name: string, opts: { since?: number; exclude?: ReadonlySet<string> } = {}): OrphanCandidate[] {
  const { since, exclude } = opts;
  return accountsFromKeys(keys)
    .filter((a) => a.name === name && !exclude?.has(a.id) && (since === undefined || !(ms(a.createdAt) < since)))
    .map((a) => ({ id: a.id, createdAt: a.createdAt }))
    .reverse();
}

/** Most candidates named in an {@link UncertainCreateError} message (all are in `candidates`). */
const MAX_CANDIDATES_SHOWN = 10;

/**
 * Thrown by create when the POST failed in a way that does not prove nothing was created, and the project has
 * accounts with the requested name created since the create started that this process does not hold: one of them
 * may have been created by this attempt, with a token Pulumi never received. Names them and how to delete one.
 */
export class UncertainCreateError extends Error {
  readonly original: PimsError;
  readonly projectId: string;
  /** Newest first. Another stack creating the same name at the same time could own one. */
  readonly candidates: readonly OrphanCandidate[];

  constructor(original: PimsError, projectId: string, name: string, candidates: readonly OrphanCandidate[]) {
    const n = candidates.length;
    const shown = candidates.slice(0, MAX_CANDIDATES_SHOWN).map((c) => `  ${c.id} (created ${c.createdAt || "at an unknown time"})`);
    if (n > MAX_CANDIDATES_SHOWN) shown.push(`  …and ${n - MAX_CANDIDATES_SHOWN} more: pims service-accounts list ${projectId}`);
    const message = [
      original.message,
      `The service may have created the account anyway. Project ${projectId} has ${n} live service account${n === 1 ? "" : "s"} named ${JSON.stringify(name)} ` +
        `created since this create started that this stack does not hold (seen through its API keys), newest first:`,
      ...shown,
      `Their tokens are unknown to Pulumi: the service returns a token only in the creation response, which this attempt did not receive, so an account it created is an orphan nobody can use. ` +
        `An account listed may also belong to another stack creating the same name at the same time: pulumi-pims never deletes one by itself. ` +
        `If no stack uses one, delete it with: pims service-accounts delete ${projectId} <id>`,
    ].join("\n");
    super(message, { cause: original });
    this.name = "UncertainCreateError";
    this.original = original;
    this.projectId = projectId;
    this.candidates = candidates;
  }
}

/**
 * True when a failed create may nevertheless have created the account: a timeout; a network failure other than one
 * proving the request never left (connection refused, host not found, unreachable); a 5xx; or a 2xx whose body could
 * not be read. False for every other error (4xx, 429, ...).
 */
export function isAmbiguousCreateFailure(e: unknown): e is PimsError {
  if (e instanceof TimeoutError) return true;
  if (e instanceof NetworkError) return e.code === undefined || !NOT_SENT_CODES.has(e.code);
  if (e instanceof ServerError) return true;
  return e instanceof PimsError && e.status !== undefined && e.status >= 200 && e.status < 300;
}

/**
 * The service's clock as seen in `Date` response headers: an axios adapter (for the client) that records the last
 * difference between the service's clock and ours. Key creation times are the service's clock.
 */
export function serviceClock(): { adapter: AxiosAdapter; skewMs: () => number | undefined } {
  const base = axios.getAdapter(axios.defaults.adapter);
  let skew: number | undefined;
  const record = (headers: unknown): void => {
    const raw = typeof headers === "object" && headers !== null ? (headers as Record<string, unknown>).date : undefined;
    const t = typeof raw === "string" ? Date.parse(raw) : NaN;
    if (!Number.isNaN(t)) skew = t - Date.now();
  };
  const adapter: AxiosAdapter = async (config) => {
    try {
      const res = await base(config);
      record(res.headers);
      return res;
    } catch (e) {
      if (axios.isAxiosError(e)) record(e.response?.headers);
      throw e;
    }
  };
  return { adapter, skewMs: () => skew };
}

/** Retries of a create after an ambiguous failure that the listing shows created nothing. */
export const CREATE_RETRIES = 7;
/**
 * Allowance for clock skew. A `Date` header has whole seconds, so the skew measured is at most 1 s early: the window
 * already starts no later than the request; the margin covers a service whose machines' clocks differ a little.
 * Without a `Date` header the two clocks cannot be compared: a wide margin.
 */
const SKEW_MARGIN_MS = 1_000;
const NO_DATE_MARGIN_MS = 60_000;

/** Ids of the accounts this process created and received with their token: never orphans. */
const createdHere = new Set<string>();
/** Creates in flight in this process, by project and name: a decision waits for them, so their ids are known. */
const inFlight = new Map<string, Set<Promise<unknown>>>();

async function tracked<T>(key: string, p: Promise<T>): Promise<T> {
  const set = inFlight.get(key) ?? new Set<Promise<unknown>>();
  inFlight.set(key, set);
  set.add(p);
  try {
    return await p;
  } finally {
    set.delete(p);
    if (set.size === 0) inFlight.delete(key);
  }
}

export type CreatedAccount = ServiceAccount & { token: ServiceAccountToken };

export interface CreateOptions {
  /** From {@link serviceClock}, installed on `client`. */
  skewMs: () => number | undefined;
  /** Default {@link CREATE_RETRIES}. */
  retries?: number;
  /** First backoff delay in ms (doubles each retry). Default 250. */
  minDelayMs?: number;
  /** A progress line per retry (names the method, path and reason; never a credential). */
  onRetry?: (line: string) => void;
}

/**
 * POST /v2/projects/{project_id}/service-accounts until it succeeds, without ever leaving an account nobody holds.
 * - A 2xx without a readable token: the account is deleted at once and the error says so ({@link discardUnreadable}).
 * - An ambiguous failure: one listing of the project's API keys decides. Accounts with this name created since the
 *   first attempt started (service clock), other than those this process created, may be its orphans: they are
 *   reported ({@link UncertainCreateError}). None: nothing was created, so the create is sent again (bounded, with
 *   backoff). The stack's older accounts (the one being replaced, those in state) fall outside the time window.
 * - Any other failure is thrown unchanged, as is the original failure when the listing itself fails.
 */
export async function createAccount(client: PimsClient, projectId: string, req: CreateServiceAccountRequest, opts: CreateOptions): Promise<CreatedAccount> {
  const key = `${projectId}\n${req.name}`;
  const started = Date.now();
  const retries = opts.retries ?? CREATE_RETRIES;
  for (let attempt = 1; ; attempt++) {
    let failure: PimsError;
    try {
      // The id is recorded before the tracked promise settles, so a decision waiting on it sees it.
      return await tracked(
        key,
        client.createServiceAccount(projectId, req).then((a) => {
          createdHere.add(a.id);
          return a;
        }),
      );
    } catch (e) {
      if (e instanceof UnreadableTokenError) throw await discardUnreadable(client, projectId, e);
      if (!isAmbiguousCreateFailure(e)) throw e;
      failure = e;
    }
    let keys: ApiKey[];
    try {
      keys = await client.listApiKeys(projectId);
    } catch {
      throw failure;
    }
    // A same-named create of this process still in flight may be behind a key in the listing: wait for its id.
    await Promise.allSettled([...(inFlight.get(key) ?? [])]);
    const skew = opts.skewMs();
    const since = started + (skew ?? 0) - (skew === undefined ? NO_DATE_MARGIN_MS : SKEW_MARGIN_MS);
    const candidates = orphanCandidates(keys, req.name, { since, exclude: createdHere });
    if (candidates.length > 0) throw new UncertainCreateError(failure, projectId, req.name, candidates);
    if (attempt > retries) throw failure;
    const delay = backoffMs(attempt, { minDelayMs: opts.minDelayMs ?? 250, maxDelayMs: 8_000 });
    opts.onRetry?.(
      `pulumi-pims: POST ${failure.path} failed (${failure.status ?? failure.code ?? "no response"}) and GET /v2/projects/${projectId}/api-keys ` +
        `shows no new account named ${JSON.stringify(req.name)}; create retry ${attempt} of ${retries} in ${delay} ms`,
    );
    await new Promise((r) => setTimeout(r, delay));
  }
}

/**
 * A create answered 2xx with the new account's id but no identifiable token secret: the account exists and its token
 * is lost. Deletes it (DELETE /v2/projects/{project_id}/service-accounts/{id}, retried like any delete) and returns the
 * error to throw: the member names seen (names only), whether the account is gone, and how to report it.
 */
export async function discardUnreadable(client: PimsClient, projectId: string, e: UnreadableTokenError): Promise<Error> {
  const members = e.members.length > 0 ? e.members.map((m) => JSON.stringify(m)).join(", ") : "none";
  let outcome: string;
  try {
    await client.deleteServiceAccount(projectId, e.accountId);
    outcome = `The account (${e.accountId}) was deleted at once, so nothing is left behind.`;
  } catch (d) {
    outcome =
      `Deleting it failed (${d instanceof Error ? d.message : String(d)}): account ${e.accountId} is live in project ${projectId} and nobody holds its token. ` +
      `Delete it with: pims service-accounts delete ${projectId} ${e.accountId}`;
  }
  return new Error(
    `${e.message}\nThe service created the account but its token object has no member pulumi-pims can identify as the secret (members seen: ${members}). ${outcome}\n` +
      `Please report this: open an issue for pulumi-pims quoting the member names above (names only, never their values).`,
    { cause: e },
  );
}

// ---- is a 404 on delete really "gone"? -------------------------------------------------------------------------

/** Projects the user confirms were deleted outside Pulumi: a JSON list or comma-separated ids. */
export function parseGoneProjects(raw: string | undefined): Set<string> {
  const text = raw?.trim() ?? "";
  if (text === "") return new Set();
  let items: unknown[] = text.split(",");
  if (text.startsWith("[")) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (Array.isArray(parsed)) items = parsed;
    } catch {
      // not JSON: the comma-separated form
    }
  }
  return new Set(
    items
      .filter((v): v is string => typeof v === "string")
      .map((v) => v.trim().replace(/^"|"$/g, ""))
      .filter((v) => v !== ""),
  );
}

export interface GoneCheck {
  projectId: string;
  accountId: string;
  /** The DELETE's 404. */
  notFound: NotFoundError;
  /** From {@link parseGoneProjects}. */
  goneProjects: ReadonlySet<string>;
  warn: (line: string) => void;
}

/**
 * Returns when the account is confirmed gone after its DELETE answered 404; throws otherwise, so the account stays in
 * the state. GET /v2/projects/{project_id}/api-keys decides: the project answers and no key belongs to the account →
 * gone; a key belongs to it → it is live. The listing 404s too → the project was deleted outside Pulumi or the base
 * address is wrong (every route 404s): only a project the user named in `pims:goneProjects` is accepted as gone.
 */
export async function confirmAccountGone(client: PimsClient, c: GoneCheck): Promise<void> {
  const base = client.baseUrl;
  const deleteUrl = `${c.notFound.method} ${base}${c.notFound.path}`;
  const listUrl = `GET ${base}/v2/projects/${encodeURIComponent(c.projectId)}/api-keys`;
  const head = `pulumi-pims: service account ${c.accountId} in project ${c.projectId} was kept in the state: ${deleteUrl} answered 404`;
  let keys: ApiKey[];
  try {
    keys = await client.listApiKeys(c.projectId);
  } catch (e) {
    if (!(e instanceof NotFoundError)) {
      throw new Error(`${head}, and its absence could not be confirmed (${listUrl}: ${e instanceof Error ? e.message : String(e)}). Run the operation again.`, {
        cause: e,
      });
    }
    if (c.goneProjects.has(c.projectId)) {
      c.warn(
        `pulumi-pims: service account ${c.accountId} was dropped from the state without a delete: project ${c.projectId} answers 404 (${listUrl}) and is named in pims:goneProjects (or PIMS_GONE_PROJECTS) as deleted outside Pulumi.`,
      );
      return;
    }
    throw new Error(
      `${head}, and so did ${listUrl}. Either project ${c.projectId} was deleted outside Pulumi (its accounts with it), ` +
        `or pims:baseUrl (${base}) does not point at the service (every route answers 404 there). ` +
        `If the base address is wrong, fix pims:baseUrl (or PIMS_BASE_URL) and run again. If you have confirmed the project is gone, ` +
        `name it and run again: \`pulumi config set pims:goneProjects ${c.projectId}\` (a JSON list or comma-separated project ids; or the PIMS_GONE_PROJECTS environment variable): ` +
        `its accounts are then dropped from the state with a warning.`,
      { cause: e },
    );
  }
  if (accountsFromKeys(keys).some((a) => a.id === c.accountId)) {
    throw new Error(`${head}, but ${listUrl} still shows an API key of this account: it is live. Check pims:baseUrl and run the operation again.`);
  }
}
