/**
 * ServiceAccount: a service account (POST /v2/projects/{project_id}/service-accounts, DELETE
 * /v2/projects/{project_id}/service-accounts/{service_account_id}) and the one-time token returned when it is created.
 *
 * The service cannot update or read an account and returns the token's secret only once, so:
 * - a change of an input the service receives (or a reached rotation window) needs a new account. By default that is
 *   a replacement: the new account first, then the old one is deleted at the end of the same `pulumi up`.
 * - with `keepPreviousToken`, it is an in-place update instead (overlapping rotation): the new account becomes the
 *   current one, the current one is kept as the previous one, and only the account two rotations old is deleted. So
 *   two tokens are valid at every moment, and consumers outside the stack have a whole rotation period to move on.
 * - `rotateBeforeExpiry` is a local policy the service never sees: changing it alone is an update with no call;
 * - the tokens are carried unchanged through `update` and `read`; import is refused.
 * Failed creates: ./serviceAccountCreate. Deletes and their 404s: ./serviceAccountDelete. Refresh (accounts deleted
 * outside the stack): ./serviceAccountRefresh. Accounts no state holds (interrupted runs): ./serviceAccountAudit.
 */
import type * as pulumi from "@pulumi/pulumi";
import { progressLine } from "./client/retry";
import { quote } from "./client/values";
import { charLength, Failures, isUnknown } from "./checks";
import { progress, PimsProviderBase } from "./providerBase";
import { CreateLedger, createAccount, lostCreateWatchMs, serviceClock } from "./serviceAccountCreate";
import { deleteAccount, parseGoneProjects } from "./serviceAccountDelete";
import { auditLine } from "./serviceAccountAudit";
import { currentGone, DEFAULT_LISTING_LAG_MS, probeToken, refreshAccounts } from "./serviceAccountRefresh";
import { heldIds, type ListingResult, runMemory } from "./serviceAccountRun";
import { clientFor, readSetting, resolveCredentials, tuningFromEnv } from "./settings";
import { changedKeys, clean } from "./state";

// ---- types ----------------------------------------------------------------------------------------------

/** What the program declares (after `check`: also what diff, create and update receive). */
export interface ServiceAccountInputs {
  /** Id of the project that owns the account, e.g. `p-1a2b3c4d`. */
  projectId: string;
  /** Name of the account: 1 to 100 characters. */
  name: string;
  /** Description: at most 500 characters. Default "". */
  description?: string;
  /** Ids of the projects the account may access: 1 to 50, no duplicates. Order does not matter. */
  grants: string[];
  /** Lifetime of the token in seconds: an integer from 0 to 31536000 (one year). 0 = the token never expires. */
  expiresIn: number;
  /**
   * Any string; changing it rotates the token: a new account with a new token (a manual rotation), e.g. a date
   * (`"2025-06"`) or a counter. Omit it when you do not rotate manually.
   */
  rotationTrigger?: string;
  /**
   * Automatic rotation window in whole seconds (≥ 0, less than `expiresIn`; with `keepPreviousToken`, at least half of
   * `expiresIn`): once the token's expiry minus this window has passed, the next `pulumi up` rotates the token (0 = once
   * the token has expired). No effect on a token that never expires. Changing it alone updates the resource in place
   * (no call, same token), unless the new window is already reached. Rotation happens only when you run `pulumi up`:
   * schedule one within the window.
   */
  rotateBeforeExpiry?: number;
  /**
   * Overlapping rotation. When true, a rotation keeps the account it replaces (and its token) live until the next
   * rotation: the newest token is `token`, the one before it `previousToken`, and each rotation creates one account and
   * deletes only the one two rotations old. Consumers that read the token before a rotation (apps, other stacks, CI)
   * keep working until the next one. Turning it on replaces nothing and mints no token; turning it off deletes the
   * previous account. Default false: a rotation replaces the account and deletes the old one in the same update.
   */
  keepPreviousToken?: boolean;
}

/** What the state holds (and what `diff` receives as `olds`): the inputs plus what the creates returned. */
export interface ServiceAccountOutputs extends ServiceAccountInputs {
  /** The current account's id. (With `keepPreviousToken` the resource's own id stays that of the first account.) */
  serviceAccountId: string;
  /** When the current account was created, RFC 3339. */
  createdAt: string;
  /** Id of the user who created the current account. */
  createdByUserId: string;
  /** Id of the current token. */
  tokenId: string;
  /** When the current token expires, RFC 3339, or `never`. */
  tokenExpiresAt: string;
  /** The current token's secret, sent as `Authorization: Bearer <token>`. Issued once; a secret output. */
  token: string;
  /** With `keepPreviousToken`, after a rotation: the previous account's id. */
  previousServiceAccountId?: string;
  /** With `keepPreviousToken`, after a rotation: the previous token's id. */
  previousTokenId?: string;
  /** With `keepPreviousToken`, after a rotation: when the previous token expires, RFC 3339, or `never`. */
  previousTokenExpiresAt?: string;
  /** With `keepPreviousToken`, after a rotation: the previous token's secret, valid until the next rotation. A secret output. */
  previousToken?: string;
  /**
   * Accounts of this resource that a rotation retired but could not delete yet (their ids, in `projectId`). The next
   * `pulumi up` (or `destroy`) deletes them. Normally absent.
   */
  retiredServiceAccountIds?: string[];
}

/** Service limits of the create body; `NEVER`: the expiry stored for expiresIn 0; the reason of a rotation. */
export const [MAX_EXPIRES_IN, NAME_MAX, DESCRIPTION_MAX, GRANTS_MAX] = [31_536_000, 100, 500, 50] as const;
export const [NEVER, ROTATION_REASON] = ["never", "rotateBeforeExpiry"] as const;

/** Every output key, once (the compiler rejects a missing or unknown one): the SDK class seeds each. */
const INPUT_KEYS = {
  projectId: 1,
  name: 1,
  description: 1,
  grants: 1,
  expiresIn: 1,
  rotationTrigger: 1,
  rotateBeforeExpiry: 1,
  keepPreviousToken: 1,
} as const;
const CURRENT = {
  serviceAccountId: 1,
  createdAt: 1,
  createdByUserId: 1,
  tokenId: 1,
  tokenExpiresAt: 1,
  token: 1,
} as const;
const PREVIOUS = {
  previousServiceAccountId: 1,
  previousTokenId: 1,
  previousTokenExpiresAt: 1,
  previousToken: 1,
} as const;
export const SERVICE_ACCOUNT_OUTPUT_KEYS = Object.keys({
  ...INPUT_KEYS,
  ...CURRENT,
  ...PREVIOUS,
  retiredServiceAccountIds: 1,
} satisfies Record<keyof ServiceAccountOutputs, 1>);
/** The outputs that hold a token's secret (`additionalSecretOutputs` of the SDK class). */
export const SERVICE_ACCOUNT_SECRET_OUTPUTS = ["token", "previousToken"] satisfies Array<keyof ServiceAccountOutputs>;

/** Inputs the service receives: a change of any of them needs a new account. */
const SERVICE_INPUTS = ["projectId", "name", "description", "grants", "expiresIn", "rotationTrigger"] as const;

type Account = Pick<ServiceAccountOutputs, keyof typeof CURRENT>;
type Previous = Pick<ServiceAccountOutputs, keyof typeof PREVIOUS>;

/** Every rule of the create body, plus this package's own (rotation). Values unknown at preview are skipped. */
export function validate(news: ServiceAccountInputs): pulumi.dynamic.CheckFailure[] {
  const f = new Failures();
  const v: Partial<Record<keyof ServiceAccountInputs, unknown>> = news ?? {};
  const known = (x: unknown): boolean => x !== undefined && x !== null && !isUnknown(x);
  f.requiredId("projectId", v.projectId);
  if (v.name === undefined || v.name === null) f.add("name", `name is required: 1 to ${NAME_MAX} characters`);
  else if (known(v.name) && typeof v.name !== "string")
    f.add("name", `name must be a string of 1 to ${NAME_MAX} characters (got ${quote(v.name)})`);
  else if (typeof v.name === "string" && known(v.name) && (v.name === "" || charLength(v.name) > NAME_MAX)) {
    f.add("name", `name must be 1 to ${NAME_MAX} characters (got ${charLength(v.name)})`);
  }
  const d = v.description;
  if (known(d) && typeof d !== "string")
    f.add("description", `description must be a string of at most ${DESCRIPTION_MAX} characters (got ${quote(d)})`);
  else if (typeof d === "string" && charLength(d) > DESCRIPTION_MAX)
    f.add("description", `description must be at most ${DESCRIPTION_MAX} characters (got ${charLength(d)})`);
  const grants = v.grants; // some entries unknown at preview: the length and the known entries are still checked
  if (grants === undefined || grants === null)
    f.add("grants", `grants is required: 1 to ${GRANTS_MAX} project ids the account may access`);
  else if (!Array.isArray(grants)) {
    if (!isUnknown(grants))
      f.add("grants", `grants must be an array of 1 to ${GRANTS_MAX} project ids (got ${quote(grants)})`);
  } else {
    if (grants.length < 1 || grants.length > GRANTS_MAX)
      f.add("grants", `grants must have 1 to ${GRANTS_MAX} entries (got ${grants.length})`);
    const [seen, reported] = [new Set<string>(), new Set<string>()];
    grants.forEach((g: unknown, i) => {
      if (isUnknown(g)) return;
      if (typeof g !== "string" || g.trim() === "")
        f.add("grants", `grants[${i}] must be a non-empty project id string (got ${quote(g)})`);
      else if (seen.has(g) && !reported.has(g)) {
        f.add("grants", `grants must not contain duplicates (${JSON.stringify(g)} appears more than once)`);
        reported.add(g);
      } else seen.add(g);
    });
  }
  const expiresIn = v.expiresIn;
  const expiresOk =
    typeof expiresIn === "number" && Number.isInteger(expiresIn) && expiresIn >= 0 && expiresIn <= MAX_EXPIRES_IN;
  const lifetime = `the token lifetime in seconds, 0 to ${MAX_EXPIRES_IN} (0 = never expires)`;
  if (expiresIn === undefined || expiresIn === null) f.add("expiresIn", `expiresIn is required: ${lifetime}`);
  else if (!isUnknown(expiresIn) && !expiresOk) {
    f.add(
      "expiresIn",
      `expiresIn must be an integer number of seconds from 0 to ${MAX_EXPIRES_IN} (0 = never expires) (got ${quote(expiresIn)})`,
    );
  }
  const trigger = v.rotationTrigger;
  const asString = "convert it, e.g. String(value)";
  if (known(trigger) && typeof trigger !== "string")
    f.add("rotationTrigger", `rotationTrigger must be a string (got ${quote(trigger)}); ${asString}`);
  const w = v.rotateBeforeExpiry;
  if (known(w) && (typeof w !== "number" || !Number.isInteger(w) || w < 0)) {
    f.add(
      "rotateBeforeExpiry",
      `rotateBeforeExpiry must be a non-negative integer number of seconds (got ${quote(w)})`,
    );
  } else if (typeof w === "number" && expiresOk && expiresIn > 0 && w >= expiresIn) {
    const why =
      "the new token would already be inside its rotation window, so every `pulumi up` would replace the account";
    f.add("rotateBeforeExpiry", `rotateBeforeExpiry must be less than expiresIn (got ${w} >= ${expiresIn}): ${why}`);
  }
  const keep = v.keepPreviousToken;
  if (known(keep) && typeof keep !== "boolean")
    f.add("keepPreviousToken", `keepPreviousToken must be true or false (got ${quote(keep)})`);
  else if (keep === true && typeof w === "number" && expiresOk && expiresIn > 0 && w < expiresIn && 2 * w < expiresIn) {
    // The previous token must outlive its successor's rotation: see overlapProblem.
    f.add("rotateBeforeExpiry", overlapProblem(expiresIn, w));
  }
  return f.list;
}

/**
 * With `keepPreviousToken`, a token rotated at (its expiry − window) is kept as the previous token until its successor
 * is rotated, one period (expiresIn − window) later. It is still valid then only when the window is at least half the
 * lifetime; otherwise consumers still holding it would get 401 before the next rotation: no overlap at all.
 */
function overlapProblem(expiresIn: number, window: number): string {
  return (
    `rotateBeforeExpiry must be at least half of expiresIn with keepPreviousToken (got ${window} < ${expiresIn} / 2): a token is rotated when ${window} s are left ` +
    `and kept as the previous token until its successor is rotated ${expiresIn - window} s later, so it would expire before that and give no overlap. ` +
    `Choose rotateBeforeExpiry >= expiresIn / 2 (e.g. expiresIn ${expiresIn}, rotateBeforeExpiry ${Math.ceil(expiresIn / 2)} or more), plus the time between two scheduled \`pulumi up\` runs.`
  );
}

/** The inputs as every later step relies on them: description "" when absent; absent (or null, or false) options omitted. */
function normalized(i: ServiceAccountInputs): ServiceAccountInputs {
  const { projectId, name, description, grants, expiresIn } = i;
  const [rotationTrigger, rotateBeforeExpiry] = [i.rotationTrigger ?? undefined, i.rotateBeforeExpiry ?? undefined];
  const keep = i.keepPreviousToken === true || isUnknown(i.keepPreviousToken) ? i.keepPreviousToken : undefined;
  return clean({
    projectId,
    name,
    description: description ?? "",
    grants,
    expiresIn,
    rotationTrigger,
    rotateBeforeExpiry,
    keepPreviousToken: keep,
  });
}

const accountOf = (o: ServiceAccountOutputs): Account => ({
  serviceAccountId: o.serviceAccountId,
  createdAt: o.createdAt,
  createdByUserId: o.createdByUserId,
  tokenId: o.tokenId,
  tokenExpiresAt: o.tokenExpiresAt,
  token: o.token,
});
const previousOf = (o: Partial<ServiceAccountOutputs>): Previous =>
  o.previousServiceAccountId
    ? {
        previousServiceAccountId: o.previousServiceAccountId,
        previousTokenId: o.previousTokenId,
        previousTokenExpiresAt: o.previousTokenExpiresAt,
        previousToken: o.previousToken,
      }
    : {};
/** The current account as the previous one, after a rotation. */
const asPrevious = (a: Account): Previous => ({
  previousServiceAccountId: a.serviceAccountId,
  previousTokenId: a.tokenId,
  previousTokenExpiresAt: a.tokenExpiresAt,
  previousToken: a.token,
});

/** Exactly the output members (never `__provider` or anything else the state may carry), normalized. */
function outputs(o: ServiceAccountOutputs): ServiceAccountOutputs {
  const retired = o.retiredServiceAccountIds?.length ? o.retiredServiceAccountIds : undefined;
  return clean({ ...normalized(o), ...accountOf(o), ...previousOf(o), retiredServiceAccountIds: retired });
}

/** Ms since the epoch of a stored expiry, or undefined for `never`, missing or unreadable values. */
function expiryMs(expiresAt: unknown): number | undefined {
  const t = typeof expiresAt === "string" && expiresAt !== NEVER ? Date.parse(expiresAt) : NaN;
  return Number.isNaN(t) ? undefined : t;
}

/** The expiry stored: the service's timestamp; `never` for expiresIn 0; else creation + expiresIn (rotation needs a date). */
function tokenExpiry(reported: string, expiresIn: number, createdAt: string, nowMs: number): string {
  if (expiryMs(reported) !== undefined) return reported;
  if (expiresIn === 0) return NEVER;
  const base = Date.parse(createdAt);
  return new Date((Number.isNaN(base) ? nowMs : base) + expiresIn * 1000).toISOString();
}

/**
 * An update that created an account (whose token must not be lost) but could not finish: the engine stores
 * `properties` as the resource's new state (tokens still secret) and fails the update with this message; the next
 * `pulumi up` updates the resource again, which finishes the job.
 */
class PartialUpdateError extends Error {
  constructor(
    message: string,
    readonly id: string,
    readonly properties: Record<string, unknown>,
    readonly reasons: string[] = [message],
  ) {
    super(message);
  }
}

// ---- provider -------------------------------------------------------------------------------------------

export class ServiceAccountProvider
  extends PimsProviderBase
  implements pulumi.dynamic.ResourceProvider<ServiceAccountInputs, ServiceAccountOutputs>
{
  private readonly now: () => number;
  private goneProjectsConfig: string | undefined;
  /** This instance's own creates (one instance serves every ServiceAccount of a provider process). */
  private readonly ledger = new CreateLedger();

  /** @param options.now Current time in ms since the epoch, for the rotation window. Default `Date.now`. */
  constructor(options: { now?: () => number } = {}) {
    super();
    this.now = options.now ?? Date.now;
  }

  /** Also reads `pims:goneProjects` (else PIMS_GONE_PROJECTS): projects the user confirms were deleted outside Pulumi. */
  override async configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
    await super.configure(req);
    this.goneProjectsConfig = req.config.get("pims:goneProjects");
  }

  // ---- check ----
  /** Validates every rule without a call; returns the normalized inputs. */
  async check(
    _olds: ServiceAccountInputs,
    news: ServiceAccountInputs,
  ): Promise<pulumi.dynamic.CheckResult<ServiceAccountInputs>> {
    return { inputs: normalized(news ?? ({} as ServiceAccountInputs)), failures: validate(news) };
  }

  // ---- diff ----
  /**
   * A changed (or unknown) input the service receives, or a reached rotation window, needs a new account: a
   * replacement (create-before-delete), or with `keepPreviousToken` an in-place rotation (but a new project still
   * replaces). A new window or option alone, a previous account to drop, or retired accounts to delete: an update. No call.
   */
  async diff(_id: string, olds: ServiceAccountOutputs, news: ServiceAccountInputs): Promise<pulumi.dynamic.DiffResult> {
    const [before, after] = [normalized(olds), normalized(news)];
    const overlap = after.keepPreviousToken === true;
    const rotate: string[] = changedKeys(before, after, SERVICE_INPUTS);
    if (this.rotationDue(olds.tokenExpiresAt, after.rotateBeforeExpiry)) rotate.push(ROTATION_REASON);
    if (currentGone(olds)) rotate.push("serviceAccountId"); // a refresh found it deleted outside the stack
    runMemory().hold(olds?.projectId, heldIds(olds, _id));
    const replaces = overlap ? rotate.filter((k) => k === "projectId") : rotate;
    const inPlace =
      changedKeys(before, after, ["rotateBeforeExpiry", "keepPreviousToken"]).length > 0 ||
      (olds.retiredServiceAccountIds?.length ?? 0) > 0 ||
      (!overlap && typeof olds.previousServiceAccountId === "string");
    return { changes: rotate.length > 0 || inPlace, replaces, deleteBeforeReplace: false };
  }

  /** True when the token expires and expiry minus the window has passed; an unknown window may be due. */
  rotationDue(tokenExpiresAt: unknown, rotateBeforeExpiry: unknown): boolean {
    const expiry = expiryMs(tokenExpiresAt);
    if (expiry === undefined) return false;
    if (isUnknown(rotateBeforeExpiry)) return true;
    if (typeof rotateBeforeExpiry !== "number" || !Number.isFinite(rotateBeforeExpiry) || rotateBeforeExpiry < 0)
      return false;
    return this.now() >= expiry - rotateBeforeExpiry * 1000;
  }

  // ---- create ----
  /** Creates the account (./serviceAccountCreate: nothing left live that nobody holds); the resource id is the account id. */
  async create(inputs: ServiceAccountInputs): Promise<pulumi.dynamic.CreateResult<ServiceAccountOutputs>> {
    const failures = validate(inputs);
    if (failures.length > 0)
      throw new Error(`pulumi-pims: invalid ServiceAccount inputs: ${failures.map((f) => f.reason).join("; ")}`);
    const ins = normalized(inputs);
    const account = await this.newAccount(ins);
    return { id: account.serviceAccountId, outs: outputs({ ...ins, ...account }) };
  }

  // ---- read ----
  /**
   * Refresh: the run's listing of the project decides (./serviceAccountRefresh): accounts it still shows keep their
   * stored outputs exactly, tokens included; accounts it positively no longer shows are dropped (a gone current account
   * takes the resource out of the state); anything uncertain is kept, with why. Also names accounts no state holds
   * (./serviceAccountAudit). Import is refused: the service returns a token only when it creates the account.
   */
  async read(id: string, props?: ServiceAccountOutputs): Promise<pulumi.dynamic.ReadResult<ServiceAccountOutputs>> {
    if (props && typeof props.projectId === "string" && typeof props.token === "string") {
      const { projectId } = props;
      runMemory().hold(projectId, heldIds(props, id));
      const listing = await this.look(projectId);
      const out = await refreshAccounts(
        id,
        { ...props },
        {
          listing,
          run: runMemory(),
          listUrl: `GET ${resolveCredentials(this.configured).baseUrl}/v2/projects/${projectId}/api-keys`,
          lagMs: readSetting("listingLagMs", undefined) ?? DEFAULT_LISTING_LAG_MS,
          nowMs: this.now(),
          probe: (token) => probeToken(clientFor({ ...this.configured, token }, { retries: 1 }), projectId),
          ownToken: resolveCredentials(this.configured).token,
        },
      );
      out.lines.forEach((line) => progress(line));
      if (listing.ok) this.audit(projectId, [props.name], listing);
      return out.id === "" ? { id: "" } : { id, props: out.props as unknown as ServiceAccountOutputs };
    }
    throw new Error(
      `pulumi-pims: cannot read service account ${id}: the service has no read operation and returns a token's secret only when the account is created, so an existing account cannot be imported or adopted. Declare a new ServiceAccount instead (it creates a new account and token), and delete the old account when nothing uses it.`,
    );
  }

  // ---- update ----
  /**
   * With `keepPreviousToken` and a rotation due (see diff): one new account (POST), the current one kept as the
   * previous one, the one before it deleted. Otherwise no new account: the settings are stored, a previous account is
   * deleted when the option is off, and retired accounts are deleted. Every token is kept. When a delete fails after a
   * new account was created, the new state is stored anyway (the update fails; the next `pulumi up` finishes).
   */
  async update(
    id: string,
    olds: ServiceAccountOutputs,
    news: ServiceAccountInputs,
  ): Promise<pulumi.dynamic.UpdateResult<ServiceAccountOutputs>> {
    const ins = normalized(news);
    const overlap = ins.keepPreviousToken === true;
    const reasons: string[] = changedKeys(normalized(olds), ins, SERVICE_INPUTS);
    if (this.rotationDue(olds.tokenExpiresAt, ins.rotateBeforeExpiry)) reasons.push(ROTATION_REASON);
    const gone = currentGone(olds); // a refresh found the current account deleted: the previous one stays previous
    if (gone) reasons.push("current account deleted outside the stack");
    runMemory().hold(olds.projectId, heldIds(olds, id));
    const retire = [...(olds.retiredServiceAccountIds ?? [])];
    let next: ServiceAccountOutputs;
    let created: Account | undefined;
    if (overlap && reasons.length > 0) {
      created = await this.newAccount(ins);
      if (olds.previousServiceAccountId && !gone) retire.push(olds.previousServiceAccountId);
      next = { ...ins, ...created, ...(gone ? previousOf(olds) : asPrevious(accountOf(olds))) };
    } else {
      // No new account: what the service holds stays as stored; only the local options come from the program.
      const local = { rotateBeforeExpiry: ins.rotateBeforeExpiry, keepPreviousToken: ins.keepPreviousToken };
      next = { ...normalized(olds), ...local, ...accountOf(olds), ...(overlap ? previousOf(olds) : {}) };
      if (!overlap && olds.previousServiceAccountId) retire.push(olds.previousServiceAccountId);
    }
    if (created || retire.length > 0)
      this.audit(olds.projectId, [olds.name, ins.name], await this.look(olds.projectId));
    const failed = await this.deleteAll(olds.projectId, retire);
    const outs = outputs({ ...next, retiredServiceAccountIds: failed.map((f) => f.id) });
    if (created) {
      const kept = gone ? olds.previousServiceAccountId : olds.serviceAccountId;
      const deleted = retire.filter((r) => !failed.some((f) => f.id === r));
      progress(
        progressLine(
          "pulumi-pims",
          `service account ${JSON.stringify(ins.name)} in project ${ins.projectId}`,
          `rotated (${reasons.join(", ")}): new account ${created.serviceAccountId}`,
          `previous account ${kept} kept until the next rotation${deleted.length > 0 ? `, ${deleted.join(", ")} deleted` : ""}`,
        ),
      );
    }
    if (failed.length === 0) return { outs };
    const what = created
      ? `the rotation created account ${created.serviceAccountId} (its token is stored in the state) but `
      : "";
    const detail = failed.map((f) => `${f.id}: ${f.error}`).join("; ");
    const message =
      `pulumi-pims: service account ${JSON.stringify(ins.name)} in project ${olds.projectId}: ${what}deleting the retired account(s) failed (${detail}). ` +
      `They stay in the state (retiredServiceAccountIds) and the next \`pulumi up\` deletes them; or delete one with \`pims service-accounts delete ${olds.projectId} <id>\`.`;
    const provider = (news as unknown as Record<string, unknown>).__provider;
    throw new PartialUpdateError(message, id, { ...outs, __provider: provider });
  }

  // ---- delete ----
  /**
   * DELETE .../service-accounts/{id} of every account the resource holds, oldest first: retired ones, the previous one,
   * the current one. A 404 counts only once the service confirms it (./serviceAccountDelete). When one fails, the
   * resource stays in the state with every account (those deleted are confirmed gone on the next try).
   */
  async delete(id: string, props: ServiceAccountOutputs): Promise<void> {
    const projectId: unknown = props?.projectId;
    if (typeof projectId !== "string" || projectId === "")
      throw new Error(`pulumi-pims: cannot delete service account ${id}: its projectId is missing from the state`);
    const ids = heldIds(props, id);
    runMemory().hold(projectId, ids);
    const goneProjects = parseGoneProjects(this.goneProjectsConfig ?? process.env.PIMS_GONE_PROJECTS);
    if (!goneProjects.has(projectId)) this.audit(projectId, [props.name], await this.look(projectId));
    const failed = await this.deleteAll(projectId, ids);
    if (failed.length === 1) throw failed[0].cause; // as before: the delete's own error, naming the account and the URLs
    if (failed.length > 1) {
      throw new Error(
        `pulumi-pims: deleting service accounts of ${id} in project ${projectId} failed: ${failed.map((f) => `${f.id}: ${f.error}`).join("; ")}`,
      );
    }
  }

  /** Deletes each account (in order, once each); returns those that failed, with why. */
  private async deleteAll(
    projectId: string,
    ids: ReadonlyArray<string | undefined>,
  ): Promise<Array<{ id: string; error: string; cause: unknown }>> {
    const unique = new Set(ids.filter((x): x is string => typeof x === "string" && x !== ""));
    if (unique.size === 0) return []; // no client, no call
    const goneProjects = parseGoneProjects(this.goneProjectsConfig ?? process.env.PIMS_GONE_PROJECTS);
    const client = this.client();
    const failed: Array<{ id: string; error: string; cause: unknown }> = [];
    for (const accountId of unique) {
      try {
        await deleteAccount(client, { projectId, accountId, goneProjects, warn: progress });
      } catch (e) {
        failed.push({ id: accountId, error: e instanceof Error ? e.message : String(e), cause: e });
      }
    }
    return failed;
  }

  /** The run's one listing of the project (./serviceAccountRun), shared by every resource; never throws. */
  private async look(projectId: string): Promise<ListingResult> {
    try {
      const clock = serviceClock();
      const client = this.client({ adapter: clock.adapter });
      return await runMemory().listing(client, resolveCredentials(this.configured).token, projectId, clock.skewMs);
    } catch (error) {
      return { ok: false, error };
    }
  }

  /** Names the accounts with these names (once each) that no state of the run holds (./serviceAccountAudit). */
  private audit(projectId: string, names: unknown[], listing: ListingResult): void {
    for (const name of new Set(names.filter((n): n is string => typeof n === "string"))) {
      const line = auditLine(projectId, name, listing, runMemory().heldIn(projectId));
      if (line) progress(line);
    }
  }

  /** POST /v2/projects/{project_id}/service-accounts for these inputs: the new account's outputs, token included. */
  private async newAccount(ins: ServiceAccountInputs): Promise<Account> {
    const clock = serviceClock();
    const tuning = tuningFromEnv();
    const body = { name: ins.name, description: ins.description ?? "", grants: ins.grants, expiresIn: ins.expiresIn };
    const watchMs = readSetting("lostCreateWatchMs", undefined) ?? lostCreateWatchMs(tuning.timeoutMs ?? 30_000);
    const opts = { skewMs: clock.skewMs, ledger: this.ledger, watchMs, minDelayMs: tuning.minDelayMs, progress };
    const a = await createAccount(this.client({ adapter: clock.adapter }), ins.projectId, body, opts);
    runMemory().recordCreated(ins.projectId, a.id);
    const tokenExpiresAt = tokenExpiry(a.token.expiresAt, ins.expiresIn, a.createdAt, this.now());
    return {
      serviceAccountId: a.id,
      createdAt: a.createdAt,
      createdByUserId: a.createdByUserId,
      tokenId: a.token.id,
      tokenExpiresAt,
      token: a.token.secret,
    };
  }
}
