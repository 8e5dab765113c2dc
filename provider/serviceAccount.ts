/**
 * ServiceAccount: a service account (POST /v2/projects/{project_id}/service-accounts, DELETE
 * /v2/projects/{project_id}/service-accounts/{service_account_id}) and the one-time token returned when it is created.
 *
 * The service cannot update or read an account and returns the token's secret only once, so:
 * - a change of any input the service receives replaces the account (the new one first, then the old one is deleted);
 * - `rotateBeforeExpiry` is a local policy the service never sees: changing it is an in-place update with no call,
 *   unless the new window is already reached (then the account is replaced: that is the rotation);
 * - the token is carried unchanged through `update` and `read`; import is refused.
 * Ambiguous create failures, create answers without a readable token and 404s on delete: see ./orphans.
 */
import type * as pulumi from "@pulumi/pulumi";
import { NotFoundError } from "./client";
import { quote } from "./client/values";
import { charLength, clean, Failures, isUnknown, PimsProviderBase, sameStringSet } from "./common";
import { tuningFromEnv } from "./credentials";
import { confirmAccountGone, createAccount, parseGoneProjects, serviceClock } from "./orphans";

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
   * Any string; changing it replaces the account, which issues a new token (a manual rotation), e.g. a date
   * (`"2025-06"`) or a counter. Omit it when you do not rotate manually.
   */
  rotationTrigger?: string;
  /**
   * Automatic rotation window in whole seconds (≥ 0, less than `expiresIn`): once the token's expiry minus this window
   * has passed, the next `pulumi up` replaces the account and so issues a new token (0 = once the token has expired).
   * No effect on a token that never expires. Changing it alone updates the resource in place (no call, same token),
   * unless the new window is already reached. Rotation happens only when you run `pulumi up`: schedule one within it.
   */
  rotateBeforeExpiry?: number;
}

/** What the state holds (and what `diff` receives as `olds`): the inputs plus what the create returned. */
export interface ServiceAccountOutputs extends ServiceAccountInputs {
  /** The account's id (also the resource id). */
  serviceAccountId: string;
  /** When the account was created, RFC 3339. */
  createdAt: string;
  /** Id of the user who created the account. */
  createdByUserId: string;
  /** Id of the account's token. */
  tokenId: string;
  /** When the token expires, RFC 3339, or `never`. */
  tokenExpiresAt: string;
  /** The token's secret, sent as `Authorization: Bearer <token>`. Issued once; a secret output. */
  token: string;
}

/** Service limits of the create body; `NEVER`: the expiry stored for expiresIn 0; the reason of a rotation. */
export const [MAX_EXPIRES_IN, NAME_MAX, DESCRIPTION_MAX, GRANTS_MAX] = [31_536_000, 100, 500, 50] as const;
export const [NEVER, ROTATION_REASON] = ["never", "rotateBeforeExpiry"] as const;

/** Every output key, once (the compiler rejects a missing or unknown one): the SDK class seeds each. */
const KEYS = { projectId: 1, name: 1, description: 1, grants: 1, expiresIn: 1, rotationTrigger: 1, rotateBeforeExpiry: 1, serviceAccountId: 1 } as const;
const CREATED = { createdAt: 1, createdByUserId: 1, tokenId: 1, tokenExpiresAt: 1, token: 1 } as const;
export const SERVICE_ACCOUNT_OUTPUT_KEYS = Object.keys({ ...KEYS, ...CREATED } satisfies Record<keyof ServiceAccountOutputs, 1>);

/** Inputs the service receives: a change of any of them replaces the account. */
const REPLACE_ON = ["projectId", "name", "description", "grants", "expiresIn", "rotationTrigger"] as const;

/** Every rule of the create body, plus this package's own (rotation). Values unknown at preview are skipped. */
export function validate(news: ServiceAccountInputs): pulumi.dynamic.CheckFailure[] {
  const f = new Failures();
  const v: Partial<Record<keyof ServiceAccountInputs, unknown>> = news ?? {};
  const known = (x: unknown): boolean => x !== undefined && x !== null && !isUnknown(x);
  f.requiredId("projectId", v.projectId);
  if (v.name === undefined || v.name === null) f.add("name", `name is required: 1 to ${NAME_MAX} characters`);
  else if (known(v.name) && typeof v.name !== "string") f.add("name", `name must be a string of 1 to ${NAME_MAX} characters (got ${quote(v.name)})`);
  else if (typeof v.name === "string" && known(v.name) && (v.name === "" || charLength(v.name) > NAME_MAX)) {
    f.add("name", `name must be 1 to ${NAME_MAX} characters (got ${charLength(v.name)})`);
  }
  const d = v.description;
  if (known(d) && typeof d !== "string") f.add("description", `description must be a string of at most ${DESCRIPTION_MAX} characters (got ${quote(d)})`);
  else if (typeof d === "string" && charLength(d) > DESCRIPTION_MAX)
    f.add("description", `description must be at most ${DESCRIPTION_MAX} characters (got ${charLength(d)})`);
  const grants = v.grants; // some entries unknown at preview: the length and the known entries are still checked
  if (grants === undefined || grants === null) f.add("grants", `grants is required: 1 to ${GRANTS_MAX} project ids the account may access`);
  else if (!Array.isArray(grants)) {
    if (!isUnknown(grants)) f.add("grants", `grants must be an array of 1 to ${GRANTS_MAX} project ids (got ${quote(grants)})`);
  } else {
    if (grants.length < 1 || grants.length > GRANTS_MAX) f.add("grants", `grants must have 1 to ${GRANTS_MAX} entries (got ${grants.length})`);
    const [seen, reported] = [new Set<string>(), new Set<string>()];
    grants.forEach((g: unknown, i) => {
      if (isUnknown(g)) return;
      if (typeof g !== "string" || g.trim() === "") f.add("grants", `grants[${i}] must be a non-empty project id string (got ${quote(g)})`);
      else if (seen.has(g) && !reported.has(g)) {
        f.add("grants", `grants must not contain duplicates (${JSON.stringify(g)} appears more than once)`);
        reported.add(g);
      } else seen.add(g);
    });
  }
  const expiresIn = v.expiresIn;
  const expiresOk = typeof expiresIn === "number" && Number.isInteger(expiresIn) && expiresIn >= 0 && expiresIn <= MAX_EXPIRES_IN;
  const lifetime = `the token lifetime in seconds, 0 to ${MAX_EXPIRES_IN} (0 = never expires)`;
  if (expiresIn === undefined || expiresIn === null) f.add("expiresIn", `expiresIn is required: ${lifetime}`);
  else if (!isUnknown(expiresIn) && !expiresOk) {
    f.add("expiresIn", `expiresIn must be an integer number of seconds from 0 to ${MAX_EXPIRES_IN} (0 = never expires) (got ${quote(expiresIn)})`);
  }
  const trigger = v.rotationTrigger;
  const asString = "convert it, e.g. String(value)";
  if (known(trigger) && typeof trigger !== "string") f.add("rotationTrigger", `rotationTrigger must be a string (got ${quote(trigger)}); ${asString}`);
  const w = v.rotateBeforeExpiry;
  if (known(w) && (typeof w !== "number" || !Number.isInteger(w) || w < 0)) {
    f.add("rotateBeforeExpiry", `rotateBeforeExpiry must be a non-negative integer number of seconds (got ${quote(w)})`);
  } else if (typeof w === "number" && expiresOk && expiresIn > 0 && w >= expiresIn) {
    const why = "the new token would already be inside its rotation window, so every `pulumi up` would replace the account";
    f.add("rotateBeforeExpiry", `rotateBeforeExpiry must be less than expiresIn (got ${w} >= ${expiresIn}): ${why}`);
  }
  return f.list;
}

/** The inputs as every later step relies on them: description "" when absent; absent (or null) options omitted. */
function normalized(i: ServiceAccountInputs): ServiceAccountInputs {
  const { projectId, name, description, grants, expiresIn } = i;
  const [rotationTrigger, rotateBeforeExpiry] = [i.rotationTrigger ?? undefined, i.rotateBeforeExpiry ?? undefined];
  return clean({ projectId, name, description: description ?? "", grants, expiresIn, rotationTrigger, rotateBeforeExpiry });
}

/** Exactly the output members (never `__provider` or anything else the state may carry), normalized. */
function outputs(o: ServiceAccountOutputs): ServiceAccountOutputs {
  const { serviceAccountId, createdAt, createdByUserId, tokenId, tokenExpiresAt, token } = o;
  return clean({ ...normalized(o), serviceAccountId, createdAt, createdByUserId, tokenId, tokenExpiresAt, token });
}

/** Ms since the epoch of a stored expiry, or undefined for `never`, missing or unreadable values. */
function expiryMs(expiresAt: unknown): number | undefined {
  const t = typeof expiresAt === "string" && expiresAt !== NEVER ? Date.parse(expiresAt) : NaN;
  return Number.isNaN(t) ? undefined : t;
}

// ---- provider -------------------------------------------------------------------------------------------

export class ServiceAccountProvider extends PimsProviderBase implements pulumi.dynamic.ResourceProvider<ServiceAccountInputs, ServiceAccountOutputs> {
  private readonly now: () => number;
  private goneProjectsConfig: string | undefined;

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
  async check(_olds: ServiceAccountInputs, news: ServiceAccountInputs): Promise<pulumi.dynamic.CheckResult<ServiceAccountInputs>> {
    return { inputs: normalized(news ?? ({} as ServiceAccountInputs)), failures: validate(news) };
  }

  // ---- diff ----
  /**
   * A changed (or unknown) input the service receives replaces, create-before-delete; so does a reached rotation window
   * (the new one). A new window alone, not reached, is an in-place update. No call.
   */
  async diff(_id: string, olds: ServiceAccountOutputs, news: ServiceAccountInputs): Promise<pulumi.dynamic.DiffResult> {
    const before = normalized(olds);
    const after = normalized(news);
    const replaces: string[] = REPLACE_ON.filter((k) => {
      const [a, b] = [before[k], after[k]];
      if (isUnknown(b)) return true;
      return Array.isArray(a) && Array.isArray(b) ? !sameStringSet(a, b) : a !== b;
    });
    if (this.rotationDue(olds.tokenExpiresAt, after.rotateBeforeExpiry)) replaces.push(ROTATION_REASON);
    const windowChanged = isUnknown(after.rotateBeforeExpiry) || after.rotateBeforeExpiry !== before.rotateBeforeExpiry;
    return { changes: replaces.length > 0 || windowChanged, replaces, deleteBeforeReplace: false };
  }

  /** True when the token expires and expiry minus the window has passed; an unknown window may be due. */
  rotationDue(tokenExpiresAt: unknown, rotateBeforeExpiry: unknown): boolean {
    const expiry = expiryMs(tokenExpiresAt);
    if (expiry === undefined) return false;
    if (isUnknown(rotateBeforeExpiry)) return true;
    if (typeof rotateBeforeExpiry !== "number" || !Number.isFinite(rotateBeforeExpiry) || rotateBeforeExpiry < 0) return false;
    return this.now() >= expiry - rotateBeforeExpiry * 1000;
  }

  // ---- create ----
  /** Creates the account (see `createAccount` in ./orphans); the resource id is the account id. */
  async create(inputs: ServiceAccountInputs): Promise<pulumi.dynamic.CreateResult<ServiceAccountOutputs>> {
    const failures = validate(inputs);
    if (failures.length > 0) throw new Error(`pulumi-pims: invalid ServiceAccount inputs: ${failures.map((f) => f.reason).join("; ")}`);
    const ins = normalized(inputs);
    const clock = serviceClock();
    const body = { name: ins.name, description: ins.description, grants: ins.grants, expiresIn: ins.expiresIn };
    const opts = { skewMs: clock.skewMs, minDelayMs: tuningFromEnv().minDelayMs, onRetry: (line: string) => console.warn(line) };
    const account = await createAccount(this.client({ adapter: clock.adapter }), ins.projectId, body, opts);
    const { id, createdAt, createdByUserId, token } = account;
    const tokenExpiresAt = tokenExpiry(token.expiresAt, ins.expiresIn, createdAt, this.now());
    return { id, outs: outputs({ ...ins, serviceAccountId: id, createdAt, createdByUserId, tokenId: token.id, tokenExpiresAt, token: token.secret }) };
  }

  // ---- read ----
  /** The stored properties unchanged, token included (the service cannot read an account); import is refused. */
  async read(id: string, props?: ServiceAccountOutputs): Promise<pulumi.dynamic.ReadResult<ServiceAccountOutputs>> {
    if (props && typeof props.projectId === "string" && typeof props.token === "string") return { id, props };
    throw new Error(
      `pulumi-pims: cannot read service account ${id}: the service has no read operation and returns a token's secret only when the account is created, so an existing account cannot be imported or adopted. Declare a new ServiceAccount instead (it creates a new account and token), and delete the old account when nothing uses it.`,
    );
  }

  // ---- update ----
  /** Reached only for a new `rotateBeforeExpiry` (see diff): no call; every other output, the token first, is kept. */
  async update(_id: string, olds: ServiceAccountOutputs, news: ServiceAccountInputs): Promise<pulumi.dynamic.UpdateResult<ServiceAccountOutputs>> {
    return { outs: outputs({ ...olds, rotateBeforeExpiry: normalized(news).rotateBeforeExpiry }) };
  }

  // ---- delete ----
  /** DELETE .../service-accounts/{id}; a 404 counts only once the service confirms it (`confirmAccountGone`, ./orphans). */
  async delete(id: string, props: ServiceAccountOutputs): Promise<void> {
    const projectId: unknown = props?.projectId;
    if (typeof projectId !== "string" || projectId === "")
      throw new Error(`pulumi-pims: cannot delete service account ${id}: its projectId is missing from the state`);
    const client = this.client();
    try {
      await client.deleteServiceAccount(projectId, id);
    } catch (e) {
      if (!(e instanceof NotFoundError)) throw e;
      const goneProjects = parseGoneProjects(this.goneProjectsConfig ?? process.env.PIMS_GONE_PROJECTS);
      await confirmAccountGone(client, { projectId, accountId: id, notFound: e, goneProjects, warn: (line) => console.warn(line) });
    }
  }
}

/** The expiry stored: the service's timestamp; `never` for expiresIn 0; else creation + expiresIn (rotation needs a date). */
function tokenExpiry(reported: string, expiresIn: number, createdAt: string, nowMs: number): string {
  if (expiryMs(reported) !== undefined) return reported;
  if (expiresIn === 0) return NEVER;
  const base = Date.parse(createdAt);
  return new Date((Number.isNaN(base) ? nowMs : base) + expiresIn * 1000).toISOString();
}
