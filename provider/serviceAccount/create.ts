/**
 * Creating a service account without leaving one live that nobody holds (POST
 * /v2/projects/{project_id}/service-accounts). The token is returned only in the creation answer, so an account whose
 * answer was lost is an orphan: nobody can use it, and only its id can be found again (through the project's API-key
 * listing, ./listing). What a failed attempt proves decides what happens next (provider/client/retry.ts):
 *
 * - answered (a 5xx, or a 2xx whose body cannot be read): the service has finished with the request, so one look at
 *   GET /v2/projects/{project_id}/api-keys tells whether it created the account. An account with this name created
 *   since the create started (service clock) that this process does not hold is named in the error and nothing is
 *   sent again; none: the create is sent again (bounded, with backoff).
 * - lost (a timeout, a connection dropped after sending): the request may still be running on the service, so a look
 *   taken now proves nothing, and sending the create again could make a second account. It is never sent again in the
 *   same operation: the listing is watched for a while (the `lostCreateWatchMs` setting) so that an account the service
 *   creates late is named, then the error says what was seen and how to check later.
 * - a 2xx without a readable token: the account exists and its token is lost: it is deleted at once.
 */
import {
  type ApiKey,
  type CreateServiceAccountRequest,
  type PimsClient,
  PimsError,
  type ServiceAccount,
  type ServiceAccountToken,
  UnreadableTokenError,
  errorText,
} from "../client";
import { backoffMs, createFailureKind, progressLine, RETRY_DEFAULTS, TIMEOUT_CODES } from "../client/retry";
import { formatDuration } from "../client/values";
import { orphanCandidates, type OrphanCandidate } from "./listing";
import { deleteAccount } from "./delete";

/** Repeats of a create after an answered failure that the listing shows created nothing (client/retry.ts). */
export const CREATE_RETRIES = RETRY_DEFAULTS.createRetries;
/** Most candidates named in an {@link UncertainCreateError} message (all are in `candidates`). */
const MAX_CANDIDATES_SHOWN = 10;
/**
 * Allowance for clock skew. A `Date` header has whole seconds, so the skew measured is at most 1 s early: the window
 * already starts no later than the request; the margin covers a service whose machines' clocks differ a little.
 * Without a `Date` header the two clocks cannot be compared: a wide margin.
 */
const SKEW_MARGIN_MS = 1_000;
const NO_DATE_MARGIN_MS = 60_000;

/**
 * What one provider instance remembers across its creates (one instance serves every ServiceAccount of a provider
 * process): the accounts it created and received with their token (never orphans), and its creates in flight by
 * project and name (a decision waits for them, so their ids are known).
 */
export class CreateLedger {
  private readonly createdHere = new Set<string>();
  private readonly inFlight = new Map<string, Set<Promise<unknown>>>();

  /** Runs a create; its id is recorded before the promise settles, so a decision waiting on it sees it. */
  async track<T extends { id: string }>(key: string, p: Promise<T>): Promise<T> {
    const recorded = p.then((a) => {
      this.createdHere.add(a.id);
      return a;
    });
    const set = this.inFlight.get(key) ?? new Set<Promise<unknown>>();
    this.inFlight.set(key, set);
    set.add(recorded);
    try {
      return await recorded;
    } finally {
      set.delete(recorded);
      if (set.size === 0) this.inFlight.delete(key);
    }
  }

  /** Waits for this process's creates of `key` still in flight, then gives the ids it holds. */
  async settled(key: string): Promise<ReadonlySet<string>> {
    await Promise.allSettled([...(this.inFlight.get(key) ?? [])]);
    return this.createdHere;
  }
}

/** How the service was looked at after a failed create. */
export type Look =
  | { kind: "found"; candidates: OrphanCandidate[] }
  | { kind: "none"; looks: number }
  | { kind: "unchecked"; looks: number; error: string };

/**
 * Thrown by create when an attempt failed in a way that does not prove nothing was created. Says what the look at the
 * service showed: the accounts that may be the attempt's (`candidates`, newest first), or that none appeared, or that
 * the service could not be asked; and in each case how to check and delete one. Never a token.
 */
export class UncertainCreateError extends Error {
  /** The failure of the create request itself. */
  readonly original: PimsError;
  /** The project the account was being created in. */
  readonly projectId: string;
  /** Newest first. Another stack creating the same name at the same time could own one. */
  readonly candidates: readonly OrphanCandidate[];
  /** `found`: candidates appeared; `none`: none appeared while looking; `unchecked`: the service could not be asked. */
  readonly look: Look["kind"];

  /** @hidden Built by the provider only. */
  constructor(
    original: PimsError,
    c: { projectId: string; name: string; startedAt: number; look: Look; watchedMs?: number },
  ) {
    const { projectId, name, look } = c;
    const list = `pims service-accounts list ${projectId}`;
    const del = `pims service-accounts delete ${projectId} <id>`;
    const since = new Date(c.startedAt).toISOString();
    const check =
      `Check with \`${list}\`: an account named ${JSON.stringify(name)} created after ${since} that no stack ` +
      "holds (a stack's own ids are its serviceAccountId outputs) was created by this attempt; its token is " +
      `unknown to Pulumi, so delete it with \`${del}\`.`;
    const lines = [original.message];
    if (look.kind === "found") {
      const n = look.candidates.length;
      // Each with the command that deletes it, so nothing the attempt may have left is named without a way out.
      const shown = look.candidates
        .slice(0, MAX_CANDIDATES_SHOWN)
        .map(
          (x) =>
            `  ${x.id} (created ${x.createdAt || "at an unknown time"}): pims service-accounts delete ` +
            `${projectId} ${x.id}`,
        );
      if (n > MAX_CANDIDATES_SHOWN) shown.push(`  …and ${n - MAX_CANDIDATES_SHOWN} more: ${list}`);
      lines.push(
        `The service may have created the account anyway. Project ${projectId} has ${n} live service ` +
          `account${n === 1 ? "" : "s"} named ${JSON.stringify(name)} created since this create started that this ` +
          "stack does not hold (seen through its API keys), newest first:",
        ...shown,
        "Their tokens are unknown to Pulumi: the service returns a token only in the creation response, which " +
          "this attempt did not receive, so an account it created is an orphan nobody can use. An account listed " +
          "may also belong to another stack creating the same name at the same time: pulumi-pims never deletes one " +
          `by itself. If no stack uses one, delete it with: ${del}`,
      );
    } else if (look.kind === "none") {
      lines.push(
        `The service did not answer, so it may still create the account: no account named ${JSON.stringify(name)} ` +
          `appeared in project ${projectId} within ${formatDuration(c.watchedMs ?? 0)} (${look.looks} looks at ` +
          `GET /v2/projects/${projectId}/api-keys). The create was not sent again, so at most one such account can ` +
          `appear. Before you run \`pulumi up\` again: ${check}`,
      );
    } else {
      const tries = look.looks > 1 ? `; ${look.looks} tries` : "";
      lines.push(
        "The service may have created the account anyway, and that could not be checked: GET " +
          `/v2/projects/${projectId}/api-keys failed (${look.error}${tries}). The create was not sent again. ` +
          `Before you run \`pulumi up\` again: ${check}`,
      );
    }
    super(lines.join("\n"), { cause: original });
    this.name = "UncertainCreateError";
    this.original = original;
    this.projectId = projectId;
    this.candidates = look.kind === "found" ? look.candidates : [];
    this.look = look.kind;
  }
}

export type CreatedAccount = ServiceAccount & { token: ServiceAccountToken };

export interface CreateOptions {
  /** The provider instance's memory of its own creates. */
  ledger: CreateLedger;
  /** How long to watch for the account of a create whose answer was lost (the `lostCreateWatchMs` setting). */
  watchMs: number;
  /** Default {@link CREATE_RETRIES}. */
  retries?: number;
  /** First backoff delay in ms (doubles each retry; also the first pause between looks). Default: client/retry.ts. */
  minDelayMs?: number;
  /** Progress lines (method, path, reason, what next; never a credential). */
  progress?: (line: string) => void;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const timedOut = (e: PimsError): boolean => e.kind === "timeout" || (e.code !== undefined && TIMEOUT_CODES.has(e.code));

/**
 * POST /v2/projects/{project_id}/service-accounts until it succeeds, without ever leaving an account nobody holds
 * unnamed (see the module comment). Any failure that proves nothing was created is thrown unchanged.
 */
export async function createAccount(
  client: PimsClient,
  projectId: string,
  req: CreateServiceAccountRequest,
  opts: CreateOptions,
): Promise<CreatedAccount> {
  const key = `${projectId}\n${req.name}`;
  const startedAt = Date.now();
  const retries = opts.retries ?? CREATE_RETRIES;
  const minDelayMs = opts.minDelayMs ?? RETRY_DEFAULTS.minDelayMs;
  const listPath = `GET /v2/projects/${projectId}/api-keys`;
  /** Accounts named `req.name` created since the first attempt started (service clock) that this process lacks. */
  const candidates = async (): Promise<OrphanCandidate[]> => {
    const keys: ApiKey[] = await client.listApiKeys(projectId);
    const held = await opts.ledger.settled(key);
    const skew = client.serviceSkewMs();
    const since = startedAt + (skew ?? 0) - (skew === undefined ? NO_DATE_MARGIN_MS : SKEW_MARGIN_MS);
    return orphanCandidates(keys, req.name, { since, exclude: held });
  };
  const fail = (failure: PimsError, look: Look, watchedMs?: number): UncertainCreateError =>
    new UncertainCreateError(failure, { projectId, name: req.name, startedAt, look, watchedMs });

  for (let attempt = 1; ; attempt++) {
    let failure: PimsError;
    try {
      return await opts.ledger.track(key, client.createServiceAccount(projectId, req));
    } catch (e) {
      if (e instanceof UnreadableTokenError) throw await discardUnreadable(client, projectId, e);
      const kind = createFailureKind(e);
      if (kind === "none") throw e;
      failure = e as PimsError;
      if (kind === "lost")
        throw await watchLostCreate(failure, {
          candidates,
          fail,
          watchMs: opts.watchMs,
          minDelayMs,
          progress: opts.progress,
          listPath,
        });
    }
    // Answered: the service has finished with this attempt, so one look tells whether it created the account.
    let found: OrphanCandidate[];
    try {
      found = await candidates();
    } catch (e) {
      throw fail(failure, { kind: "unchecked", looks: 1, error: errorText(e) });
    }
    if (found.length > 0) throw fail(failure, { kind: "found", candidates: found });
    if (attempt > retries) throw failure;
    const delay = backoffMs(attempt, { minDelayMs, maxDelayMs: RETRY_DEFAULTS.maxDelayMs });
    opts.progress?.(
      progressLine(
        "pulumi-pims",
        `${failure.method} ${failure.path}`,
        `${failure.status ?? failure.code ?? "no response"}, and ${listPath} shows no new account named ` +
          `${JSON.stringify(req.name)}`,
        `create retry ${attempt} of ${retries} in ${formatDuration(delay)}`,
      ),
    );
    await sleep(delay);
  }
}

/**
 * After a create whose answer was lost: looks at the listing at once and again (pauses doubling from `minDelayMs`, at
 * most 5 s) until an account appears or `watchMs` has passed. Returns the error to throw; never sends the create again.
 */
async function watchLostCreate(
  failure: PimsError,
  w: {
    candidates: () => Promise<OrphanCandidate[]>;
    fail: (failure: PimsError, look: Look, watchedMs?: number) => UncertainCreateError;
    watchMs: number;
    minDelayMs: number;
    progress?: (line: string) => void;
    listPath: string;
  },
): Promise<UncertainCreateError> {
  const begun = Date.now();
  w.progress?.(
    progressLine(
      "pulumi-pims",
      `${failure.method} ${failure.path}`,
      `${timedOut(failure) ? "timeout" : (failure.code ?? "no answer")}: the service may still create the account`,
      `not sent again; watching ${w.listPath} for up to ${formatDuration(w.watchMs)} to name it if it appears`,
    ),
  );
  let [looks, answered, lastError] = [0, 0, ""];
  for (let pause = w.minDelayMs; ; pause = Math.min(RETRY_DEFAULTS.lostCreateMaxPauseMs, pause * 2)) {
    looks++;
    try {
      const found = await w.candidates();
      answered++;
      if (found.length > 0) return w.fail(failure, { kind: "found", candidates: found });
    } catch (e) {
      lastError = errorText(e);
    }
    const left = w.watchMs - (Date.now() - begun);
    if (left <= 0) break;
    await sleep(Math.min(pause, left));
  }
  const watchedMs = Date.now() - begun;
  return answered > 0
    ? w.fail(failure, { kind: "none", looks: answered }, watchedMs)
    : w.fail(failure, { kind: "unchecked", looks, error: lastError });
}

/**
 * A create answered 2xx with the new account's id but no identifiable token secret: the account exists and its token
 * is lost. Deletes it (./delete: DELETE /v2/projects/{project_id}/service-accounts/{id}, retried like any delete, a
 * 404 accepted once the listing confirms it) and returns the error to throw: the member names seen (names only),
 * whether the account is gone, and how to report it.
 */
export async function discardUnreadable(
  client: PimsClient,
  projectId: string,
  e: UnreadableTokenError,
): Promise<Error> {
  const members = e.members.length > 0 ? e.members.map((m) => JSON.stringify(m)).join(", ") : "none";
  let outcome: string;
  try {
    await deleteAccount(client, { projectId, accountId: e.accountId, goneProjects: new Set(), warn: () => undefined });
    outcome = `The account (${e.accountId}) was deleted at once, so nothing is left behind.`;
  } catch (d) {
    outcome =
      `Deleting it failed (${d instanceof Error ? d.message : String(d)}): account ${e.accountId} is live in ` +
      `project ${projectId} and nobody holds its token. Delete it with: pims service-accounts delete ${projectId} ` +
      e.accountId;
  }
  return new Error(
    `${e.message}\nThe service created the account but its token object has no member pulumi-pims can identify as ` +
      `the secret (members seen: ${members}). ${outcome}\n` +
      "Please report this: open an issue for pulumi-pims quoting the member names above (names only, never their " +
      "values).",
    { cause: e },
  );
}
