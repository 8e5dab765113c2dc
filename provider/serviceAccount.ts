/**
 * ServiceAccount: a PIMS service account (operations 2 and 3) and the one-time token the service returns
 * when it is created.
 *
 * The service has no update and no read for service accounts, and the token's secret is returned only once:
 * so every input change replaces the account (create the new one, then delete the old one), the token is
 * carried unchanged through `update` and `read`, and `read` cannot see the live account (see `read`).
 *
 * Lifecycle, in order: types, check, diff, create, read, update, delete.
 */
import type * as pulumi from "@pulumi/pulumi";
import { NetworkError, NOT_SENT_CODES, NotFoundError, PimsError, ServerError, TimeoutError, type ApiKey, type PimsClient } from "./client";
import { charLength, clean, type CheckFailure, isUnknown, PimsProviderBase, sameStringSet } from "./common";
import { clientFor, tuningFromEnv } from "./credentials";

// ---- types --------------------------------------------------------------------------------------------------

/** Largest token lifetime the service accepts, in seconds (one year). */
export const MAX_EXPIRES_IN = 31_536_000;
export const NAME_MIN = 1;
export const NAME_MAX = 100;
export const DESCRIPTION_MAX = 500;
export const GRANTS_MIN = 1;
export const GRANTS_MAX = 50;
/** The expiry the service reports for a token created with expiresIn 0. */
export const NEVER = "never";

/** Inputs after `check` (plain JSON: what the dynamic-provider host passes to diff/create/update). */
export interface ServiceAccountInputs {
  /** Project that owns the account. */
  projectId: string;
  /** 1 to 100 characters. */
  name: string;
  /** At most 500 characters; "" when not given. */
  description: string;
  /** 1 to 50 distinct project ids the account may access; order does not matter. */
  grants: string[];
  /** Token lifetime in seconds, 0 to 31536000; 0 = the token never expires. */
  expiresIn: number;
  /** Free-form value; any change replaces the account (a manual rotation). Absent when not given. */
  rotationTrigger?: string;
  /**
   * Seconds before the token's expiry from which the next `pulumi up` replaces the account (an automatic
   * rotation). Never applies to a token that does not expire. Absent when not given.
   */
  rotateBeforeExpiry?: number;
}

/** Everything stored in state: the inputs plus what the service returned at creation. */
export interface ServiceAccountOutputs extends ServiceAccountInputs {
  /** The account's id; also the resource id. */
  serviceAccountId: string;
  /** Creation timestamp, RFC 3339. */
  createdAt: string;
  /** Id of the user who created the account. */
  createdByUserId: string;
  /** Id of the initial token. */
  tokenId: string;
  /** Token expiry, RFC 3339, or `never`. */
  tokenExpiresAt: string;
  /** The token's secret value. Returned by the service only once; marked secret by the SDK class. */
  token: string;
}

/** Every input; each one replaces the account when it changes (the service cannot update an account). */
export const INPUT_KEYS = ["projectId", "name", "description", "grants", "expiresIn", "rotationTrigger", "rotateBeforeExpiry"] as const;
type InputKey = (typeof INPUT_KEYS)[number];

/**
 * Inputs that `update` could apply in place (no call: they are not sent to the service). Empty: every input
 * change replaces, as the issue asks. `rotateBeforeExpiry` is the one candidate (it is a local policy).
 */
const IN_PLACE_KEYS: readonly InputKey[] = [];

/** Outputs the service produced at creation: `update` and `read` must carry them unchanged. */
const CREATED_KEYS = ["serviceAccountId", "createdAt", "createdByUserId", "tokenId", "tokenExpiresAt", "token"] as const;

/** Name of the replacement reason when the token's rotation window has been reached. */
export const ROTATION_REASON = "rotateBeforeExpiry";

export interface ServiceAccountProviderOptions {
  /** Current time in ms since the epoch, for the rotation window. Default `Date.now`. */
  now?: () => number;
}

/** Most candidate accounts named in an {@link UncertainCreateError} message (all are in `candidates`). */
const MAX_CANDIDATES_SHOWN = 10;

/** A live service account that a failed create may have left behind, as seen through the project's API keys. */
export interface OrphanCandidate {
  /** The account's id (the API key's `principalId`). */
  id: string;
  /** Creation time of the account's key (RFC 3339), as the service reports it; "" when it sent none. */
  createdAt: string;
}

/**
 * Thrown by `create` when the POST failed in a way that does not prove nothing was created (a timeout, a dropped
 * connection, a 5xx, an unreadable success response) and the project has live accounts with the requested name:
 * one of them may have been created by this attempt, with a token Pulumi never received. The message keeps the
 * original error's text, names the candidates and says how to delete one; it never contains a token.
 */
export class UncertainCreateError extends Error {
  /** The error of the create call itself. */
  readonly original: PimsError;
  /** Project the account was to be created in. */
  readonly projectId: string;
  /** Live accounts with the requested name, newest first. Some may belong to other stacks. */
  readonly candidates: readonly OrphanCandidate[];

  constructor(original: PimsError, projectId: string, name: string, candidates: readonly OrphanCandidate[]) {
    super(uncertainCreateMessage(original, projectId, name, candidates), { cause: original });
    this.name = "UncertainCreateError";
    this.original = original;
    this.projectId = projectId;
    this.candidates = candidates;
  }
}

function uncertainCreateMessage(original: PimsError, projectId: string, name: string, candidates: readonly OrphanCandidate[]): string {
  const n = candidates.length;
  const shown = candidates.slice(0, MAX_CANDIDATES_SHOWN).map((c) => `  ${c.id} (created ${c.createdAt || "at an unknown time"})`);
  if (n > MAX_CANDIDATES_SHOWN) shown.push(`  …and ${n - MAX_CANDIDATES_SHOWN} more: pims service-accounts list ${projectId}`);
  return [
    original.message,
    `The service may have created the account anyway. Project ${projectId} now has ${n} live service account${n === 1 ? "" : "s"} named ${JSON.stringify(name)} (seen through its API keys), newest first:`,
    ...shown,
    `Their tokens are unknown to Pulumi: the service returns a token only in the creation response, which this attempt did not receive, so an account it created is an orphan nobody can use. ` +
      `An account listed may also belong to another stack, or to a replacement in progress: pulumi-pims never deletes one by itself. ` +
      `If no stack uses one, delete it with: pims service-accounts delete ${projectId} <id>`,
  ].join("\n");
}

/**
 * True when a failed create may nevertheless have created the account: a timeout; a network failure other than
 * one proving the request never left (connection refused, host not found, unreachable); a 5xx; or a 2xx whose
 * body could not be read (the account exists, its token was lost). False for every other error (4xx, 429, ...).
 */
export function isAmbiguousCreateFailure(e: unknown): e is PimsError {
  if (e instanceof TimeoutError) return true;
  if (e instanceof NetworkError) return e.code === undefined || !NOT_SENT_CODES.has(e.code);
  if (e instanceof ServerError) return true;
  return e instanceof PimsError && e.status !== undefined && e.status >= 200 && e.status < 300;
}

/**
 * Live accounts named `name` among the API keys of the project (keys with a `principalId`), one per account,
 * newest first. Never includes a key value.
 */
export function orphanCandidates(keys: readonly ApiKey[], name: string): OrphanCandidate[] {
  const byId = new Map<string, OrphanCandidate>();
  for (const k of keys) {
    if (!k.principalId || k.name !== name) continue;
    const seen = byId.get(k.principalId);
    // One account could have several keys: keep its oldest key's time (closest to the account's creation).
    if (!seen || (k.createdAt !== "" && (seen.createdAt === "" || k.createdAt < seen.createdAt))) {
      byId.set(k.principalId, { id: k.principalId, createdAt: k.createdAt });
    }
  }
  const ms = (c: OrphanCandidate): number => {
    const t = Date.parse(c.createdAt);
    return Number.isNaN(t) ? -Infinity : t;
  };
  return [...byId.values()].sort((a, b) => ms(b) - ms(a) || a.id.localeCompare(b.id));
}

type Props = Record<string, unknown>;

const isObject = (v: unknown): v is Props => typeof v === "object" && v !== null && !Array.isArray(v);
/** The host passes plain JSON objects; anything else (a missing bag) reads as empty. */
const asProps = (v: unknown): Props => (isObject(v) ? v : {});
/** A short description of a bad value for an error text; never throws, whatever the value. */
const show = (v: unknown): string => {
  if (typeof v === "string") return JSON.stringify(v);
  if (Array.isArray(v)) return "an array";
  if (v === null) return "null";
  if (typeof v === "object") return "an object";
  return String(v);
};

/** Every rule the seed gives for operation 2, plus this package's own (rotation). Skips preview unknowns. */
export function validateServiceAccountInputs(news: Props): CheckFailure[] {
  const failures: CheckFailure[] = [];
  const fail = (property: string, reason: string): void => {
    failures.push({ property, reason });
  };
  const known = (v: unknown): boolean => !isUnknown(v);

  const projectId = news.projectId;
  if (projectId === undefined || projectId === null) {
    fail("projectId", "projectId is required: the id of the project that owns the account");
  } else if (known(projectId) && (typeof projectId !== "string" || projectId.trim() === "")) {
    fail("projectId", `projectId must be a non-empty project id string (got ${show(projectId)})`);
  }

  const name = news.name;
  if (name === undefined || name === null) {
    fail("name", `name is required: ${NAME_MIN} to ${NAME_MAX} characters`);
  } else if (known(name)) {
    if (typeof name !== "string") fail("name", `name must be a string of ${NAME_MIN} to ${NAME_MAX} characters (got ${show(name)})`);
    else if (charLength(name) < NAME_MIN || charLength(name) > NAME_MAX) fail("name", `name must be ${NAME_MIN} to ${NAME_MAX} characters (got ${charLength(name)})`);
  }

  const description = news.description;
  if (description !== undefined && description !== null && known(description)) {
    if (typeof description !== "string") fail("description", `description must be a string of at most ${DESCRIPTION_MAX} characters (got ${show(description)})`);
    else if (charLength(description) > DESCRIPTION_MAX) fail("description", `description must be at most ${DESCRIPTION_MAX} characters (got ${charLength(description)})`);
  }

  const grants = news.grants;
  // An array of which some entries are unknown still has a known length and known entries: check those.
  if (grants === undefined || grants === null) {
    fail("grants", `grants is required: ${GRANTS_MIN} to ${GRANTS_MAX} project ids the account may access`);
  } else if (Array.isArray(grants) || known(grants)) {
    if (!Array.isArray(grants)) {
      fail("grants", `grants must be an array of ${GRANTS_MIN} to ${GRANTS_MAX} project ids (got ${show(grants)})`);
    } else {
      if (grants.length < GRANTS_MIN || grants.length > GRANTS_MAX) fail("grants", `grants must have ${GRANTS_MIN} to ${GRANTS_MAX} entries (got ${grants.length})`);
      const seen = new Set<string>();
      const duplicates = new Set<string>();
      grants.forEach((g, i) => {
        if (!known(g)) return;
        if (typeof g !== "string" || g.trim() === "") {
          fail("grants", `grants[${i}] must be a non-empty project id string (got ${show(g)})`);
        } else if (seen.has(g)) {
          if (!duplicates.has(g)) fail("grants", `grants must not contain duplicates (${JSON.stringify(g)} appears more than once)`);
          duplicates.add(g);
        } else {
          seen.add(g);
        }
      });
    }
  }

  const expiresIn = news.expiresIn;
  const expiresInOk = typeof expiresIn === "number" && Number.isInteger(expiresIn) && expiresIn >= 0 && expiresIn <= MAX_EXPIRES_IN;
  if (expiresIn === undefined || expiresIn === null) {
    fail("expiresIn", `expiresIn is required: the token lifetime in seconds, 0 to ${MAX_EXPIRES_IN} (0 = never expires)`);
  } else if (known(expiresIn) && !expiresInOk) {
    fail("expiresIn", `expiresIn must be an integer number of seconds from 0 to ${MAX_EXPIRES_IN} (0 = never expires) (got ${show(expiresIn)})`);
  }

  const trigger = news.rotationTrigger;
  if (trigger !== undefined && trigger !== null && known(trigger) && typeof trigger !== "string") {
    fail("rotationTrigger", `rotationTrigger must be a string (got ${show(trigger)}); convert it, e.g. String(value)`);
  }

  const window = news.rotateBeforeExpiry;
  if (window !== undefined && window !== null && known(window)) {
    if (typeof window !== "number" || !Number.isInteger(window) || window < 0) {
      fail("rotateBeforeExpiry", `rotateBeforeExpiry must be a non-negative integer number of seconds (got ${show(window)})`);
    } else if (expiresInOk && (expiresIn as number) > 0 && window >= (expiresIn as number)) {
      fail(
        "rotateBeforeExpiry",
        `rotateBeforeExpiry must be less than expiresIn (got ${window} >= ${expiresIn as number}): the new token would already be inside its rotation window, so every \`pulumi up\` would replace the account`,
      );
    }
  }
  return failures;
}

/**
 * The inputs in the shape every later step relies on: description defaults to "", optional members that are
 * absent stay absent (never `undefined`), unknowns pass through.
 */
export function normalizeInputs(news: Props): ServiceAccountInputs {
  const out: Props = {
    projectId: news.projectId,
    name: news.name,
    description: news.description ?? "",
    grants: news.grants,
    expiresIn: news.expiresIn,
  };
  if (news.rotationTrigger !== undefined && news.rotationTrigger !== null) out.rotationTrigger = news.rotationTrigger;
  if (news.rotateBeforeExpiry !== undefined && news.rotateBeforeExpiry !== null) out.rotateBeforeExpiry = news.rotateBeforeExpiry;
  return clean(out) as unknown as ServiceAccountInputs;
}

/** Previous outputs read defensively (state written by any version): missing optional inputs get their defaults. */
function normalizeOlds(olds: Props): Props {
  return { ...olds, description: olds.description ?? "", grants: Array.isArray(olds.grants) ? olds.grants : [] };
}

function sameValue(key: InputKey, a: unknown, b: unknown): boolean {
  if (key === "grants") {
    if (!Array.isArray(a) || !Array.isArray(b)) return a === b;
    return sameStringSet(a as string[], b as string[]);
  }
  return a === b;
}

/** Ms since the epoch of an RFC 3339 expiry, or undefined for `never`, missing or unparseable values. */
function expiryMs(expiresAt: unknown): number | undefined {
  if (typeof expiresAt !== "string" || expiresAt === "" || expiresAt === NEVER) return undefined;
  const ms = Date.parse(expiresAt);
  return Number.isNaN(ms) ? undefined : ms;
}

export class ServiceAccountProvider extends PimsProviderBase implements pulumi.dynamic.ResourceProvider {
  private readonly now: () => number;

  constructor(options: ServiceAccountProviderOptions = {}) {
    super();
    this.now = options.now ?? Date.now;
  }

  // ---- check ------------------------------------------------------------------------------------------------

  /** Validates every rule without calling the service and returns the normalized inputs. */
  async check(_olds: object, news: object): Promise<pulumi.dynamic.CheckResult<ServiceAccountInputs>> {
    const failures = validateServiceAccountInputs(asProps(news));
    return { inputs: normalizeInputs(asProps(news)), failures };
  }

  // ---- diff -------------------------------------------------------------------------------------------------

  /**
   * `olds` are the previous outputs. Every changed input replaces (unknowns count as changed); so does a token
   * whose rotation window (`rotateBeforeExpiry` seconds before `tokenExpiresAt`) has been reached. Always
   * create-before-delete, so consumers are never left holding a deleted account's token. No call.
   */
  async diff(_id: string, olds: object, news: object): Promise<pulumi.dynamic.DiffResult> {
    const before = normalizeOlds(asProps(olds));
    const after = normalizeInputs(asProps(news)) as unknown as Props;
    const replaces: string[] = [];
    const inPlace: string[] = [];
    for (const key of INPUT_KEYS) {
      const a = before[key];
      const b = after[key];
      if (!isUnknown(b) && sameValue(key, a, b)) continue;
      (IN_PLACE_KEYS.includes(key) ? inPlace : replaces).push(key);
    }
    if (this.rotationDue(before.tokenExpiresAt, after.rotateBeforeExpiry) && !replaces.includes(ROTATION_REASON)) {
      replaces.push(ROTATION_REASON);
    }
    return { changes: replaces.length + inPlace.length > 0, replaces, deleteBeforeReplace: false };
  }

  /** True when the window is set and known, the token expires, and expiry minus the window has passed. */
  rotationDue(tokenExpiresAt: unknown, rotateBeforeExpiry: unknown): boolean {
    if (typeof rotateBeforeExpiry !== "number" || !Number.isFinite(rotateBeforeExpiry) || rotateBeforeExpiry < 0) return false;
    const expiry = expiryMs(tokenExpiresAt);
    if (expiry === undefined) return false;
    return this.now() >= expiry - rotateBeforeExpiry * 1000;
  }

  // ---- create -----------------------------------------------------------------------------------------------

  /**
   * Operation 2 (one call). The resource id is the account id; the one-time token goes into the `token` output.
   * When the POST fails in a way that may still have created the account, see `explainFailedCreate`.
   */
  async create(inputs: object): Promise<pulumi.dynamic.CreateResult<ServiceAccountOutputs>> {
    const failures = validateServiceAccountInputs(asProps(inputs));
    if (failures.length > 0) {
      throw new Error(`pulumi-pims: invalid ServiceAccount inputs: ${failures.map((f) => f.reason).join("; ")}`);
    }
    const ins = normalizeInputs(asProps(inputs));
    let account: Awaited<ReturnType<PimsClient["createServiceAccount"]>>;
    try {
      account = await this.client().createServiceAccount(ins.projectId, {
        name: ins.name,
        description: ins.description,
        grants: ins.grants,
        expiresIn: ins.expiresIn,
      });
    } catch (e) {
      throw await this.explainFailedCreate(e, ins.projectId, ins.name);
    }
    const outs: ServiceAccountOutputs = {
      ...ins,
      serviceAccountId: account.id,
      createdAt: account.createdAt,
      createdByUserId: account.createdByUserId,
      tokenId: account.token.id,
      tokenExpiresAt: tokenExpiry(account.token.expiresAt, ins.expiresIn, account.createdAt, this.now()),
      token: account.token.secret,
    };
    return { id: account.id, outs: clean(outs) };
  }

  /**
   * The error to throw for a failed create. When the failure is ambiguous (see {@link isAmbiguousCreateFailure}),
   * lists the project's API keys (one call, at most one retry; best effort: a failure of the listing is ignored)
   * and, when live accounts with the requested name exist, returns an {@link UncertainCreateError} naming them.
   * Otherwise returns `e` unchanged. Same-named accounts are never deleted: they may belong to other stacks.
   */
  private async explainFailedCreate(e: unknown, projectId: string, name: string): Promise<unknown> {
    if (!isAmbiguousCreateFailure(e)) return e;
    let keys: ApiKey[];
    try {
      const retries = Math.min(1, tuningFromEnv().retries ?? 1);
      keys = await clientFor(this.configured, { retries }).listApiKeys(projectId);
    } catch {
      return e;
    }
    const candidates = orphanCandidates(keys, name);
    return candidates.length > 0 ? new UncertainCreateError(e, projectId, name, candidates) : e;
  }

  // ---- read -------------------------------------------------------------------------------------------------

  /**
   * Returns the stored properties unchanged, token included. The service has no way to read a service account
   * (and never returns a token again), so a refresh cannot detect drift or deletion; listing the project's API
   * keys (operation 1) is not documented to include service-account tokens, so it is not used for that either.
   * Adoption (`pulumi import`, or a read with no stored state) is impossible: the token cannot be read again.
   */
  async read(id: string, props?: object): Promise<pulumi.dynamic.ReadResult<Props>> {
    if (!isObject(props) || typeof props.projectId !== "string" || typeof props.token !== "string") {
      throw new Error(
        `pulumi-pims: cannot read service account ${id}: the service has no read operation and returns a token's secret only when the account is created, so an existing account cannot be imported or adopted. Declare a new ServiceAccount instead (it creates a new account and token), and delete the old account when nothing uses it.`,
      );
    }
    return { id, props };
  }

  // ---- update -----------------------------------------------------------------------------------------------

  /**
   * Reached only for changes that do not replace (none today: see IN_PLACE_KEYS). Makes no call: every output
   * is carried over from `olds`, the token first of all, and only in-place inputs are taken from `news`.
   */
  async update(_id: string, olds: object, news: object): Promise<pulumi.dynamic.UpdateResult<ServiceAccountOutputs>> {
    const before = normalizeOlds(asProps(olds));
    const after = normalizeInputs(asProps(news)) as unknown as Props;
    const outs: Props = {};
    for (const key of INPUT_KEYS) outs[key] = IN_PLACE_KEYS.includes(key) ? after[key] : before[key];
    for (const key of CREATED_KEYS) outs[key] = before[key];
    return { outs: clean(outs) as unknown as ServiceAccountOutputs };
  }

  // ---- delete -----------------------------------------------------------------------------------------------

  /** Operation 3. An account that is already gone (404) counts as deleted. */
  async delete(id: string, props: object): Promise<void> {
    const projectId = isObject(props) ? props.projectId : undefined;
    if (typeof projectId !== "string" || projectId === "") {
      throw new Error(`pulumi-pims: cannot delete service account ${id}: its projectId is missing from the state`);
    }
    try {
      await this.client().deleteServiceAccount(projectId, id);
    } catch (e) {
      if (e instanceof NotFoundError) return;
      throw e;
    }
  }
}

/**
 * The token's expiry as stored: the service's value when it is a timestamp; `never` for expiresIn 0; and for a
 * positive expiresIn without a usable timestamp, creation time + expiresIn (such a token does expire, and the
 * rotation window needs a date).
 */
function tokenExpiry(reported: string, expiresIn: number, createdAt: string, nowMs: number): string {
  if (expiryMs(reported) !== undefined) return reported;
  if (expiresIn === 0) return NEVER;
  const base = Date.parse(createdAt);
  return new Date((Number.isNaN(base) ? nowMs : base) + expiresIn * 1000).toISOString();
}
