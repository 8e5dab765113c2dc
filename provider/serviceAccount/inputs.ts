/**
 * ServiceAccount's inputs and their rules: the limits of the create body (POST
 * /v2/projects/{project_id}/service-accounts) and this package's own lifetime rules for rotation. `check` runs them
 * without a call; `create` runs them again before it spends a request. The lifecycle is in ./index.
 */
import type * as pulumi from "@pulumi/pulumi";
import { quote } from "../client/values";
import { charLength, Failures, isUnknown } from "../checks";
import { clean } from "../diff";
import { checkDelivery, normalizedDelivery, type TokenDelivery } from "./deliveryRules";

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
   * Automatic rotation window in whole seconds (≥ 0, less than `expiresIn`; with `keepPreviousToken`, at least half
   * of `expiresIn`): once the token's expiry minus this window has passed, the next `pulumi up` rotates the token
   * (0 = once the token has expired). No effect on a token that never expires. Changing it alone updates the resource
   * in place (no call, same token), unless the new window is already reached. Rotation happens only when you run
   * `pulumi up`: schedule one within the window.
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
  /**
   * Adopt an existing account instead of creating one: its id (in `projectId`, as `pims service-accounts list`
   * shows it). The create checks that the project's API-key listing shows it and sends no POST; the resource then
   * holds it without its token (`tokenHeld` false), with `name` and `description` as the service shows them and the
   * other inputs as declared. Its first rotation (`rotationTrigger`, the expiry window) creates the successor, whose
   * token is held; with `keepPreviousToken` the adopted account stays valid as the previous one until the next
   * rotation. Read only by the create: changing or removing it later changes nothing. For TypeScript programs, where
   * `pulumi import` cannot reach a dynamic provider; other languages can also use `pulumi import`.
   */
  adoptServiceAccountId?: string;
  /**
   * With `adoptServiceAccountId`: the adopted account's token, which you have (a secret, e.g.
   * `config.requireSecret("ciToken")`). Proven before it is held: the project's API-key listing must show that
   * account's key matching it (as the listing masks it, e.g. `pims_...1a2b`) and no other key that does, and the
   * service must accept it; otherwise the create fails, saying which check failed, and nothing is adopted. Then
   * `token` holds it (`tokenHeld` true). Read only by the create, like `adoptServiceAccountId`; never an output.
   */
  adoptToken?: string;
  /**
   * Where each new token goes instead of the state (docs/keeping-tokens-out-of-state.md): sealed to age recipients
   * (`ageRecipients`: the state keeps only the ciphertext, `sealedToken`), handed to a command on its standard input
   * (`command`), or written to a file (`file`); exactly one. Then `token` and `previousToken` are "" and
   * `tokenFingerprint` and `tokenDeliveredTo` say which token went where. The token is delivered before the create or
   * rotation returns; a delivery that fails deletes the new account and fails the update (the previous account and
   * the state stay as they were). Setting it on an account whose token the state holds delivers that token and drops
   * it from the state (no new account); changing it afterwards takes effect at the next rotation. Absent (default): the
   * token is held in the state as a secret output.
   */
  tokenDelivery?: TokenDelivery;
}

/** Service limits of the create body. */
export const [MAX_EXPIRES_IN, NAME_MAX, DESCRIPTION_MAX, GRANTS_MAX] = [31_536_000, 100, 500, 50] as const;

type Values = Partial<Record<keyof ServiceAccountInputs, unknown>>;

/**
 * Not declared: absent, or the empty list `pulumi import` generates for grants it was not told (a required input). An
 * imported account's grants may stay so until a rotation needs them.
 */
export const undeclared = (x: unknown): boolean =>
  x === undefined || x === null || (Array.isArray(x) && x.length === 0);

/** Present, and not unknown at preview. */
const known = (x: unknown): boolean => x !== undefined && x !== null && !isUnknown(x);

/** A whole number of seconds the service accepts as `expiresIn`. */
const validExpiresIn = (x: unknown): x is number =>
  typeof x === "number" && Number.isInteger(x) && x >= 0 && x <= MAX_EXPIRES_IN;

/**
 * Every rule of the create body, plus this package's own (rotation). Values unknown at preview are skipped. With
 * `olds` (an existing resource's inputs): `grants` and `expiresIn` may stay {@link undeclared} when they were before,
 * as for an account `pulumi import` read (the service cannot tell them); the next rotation needs them (./index diff).
 */
export function validate(
  news: ServiceAccountInputs,
  olds?: Partial<ServiceAccountInputs>,
): pulumi.dynamic.CheckFailure[] {
  const f = new Failures();
  const v: Values = news ?? {};
  const imported = (k: "grants" | "expiresIn"): boolean =>
    typeof olds?.projectId === "string" && undeclared(olds[k]) && undeclared(v[k]);
  f.requiredId("projectId", v.projectId);
  checkName(f, v.name);
  checkDescription(f, v.description);
  if (!imported("grants")) checkGrants(f, v.grants);
  if (!imported("expiresIn")) checkExpiresIn(f, v.expiresIn);
  checkRotation(f, v);
  const adopt = v.adoptServiceAccountId;
  if (known(adopt) && (typeof adopt !== "string" || adopt.trim() === ""))
    f.add("adoptServiceAccountId", `adoptServiceAccountId must be an account id string (got ${quote(adopt)})`);
  if (known(v.adoptToken) && (typeof v.adoptToken !== "string" || !known(adopt)))
    f.add("adoptToken", "adoptToken must be a string (the token, never shown here), given with adoptServiceAccountId");
  checkDelivery(f, v.tokenDelivery);
  return f.list;
}

function checkName(f: Failures, name: unknown): void {
  if (name === undefined || name === null) f.add("name", `name is required: 1 to ${NAME_MAX} characters`);
  else if (known(name) && typeof name !== "string")
    f.add("name", `name must be a string of 1 to ${NAME_MAX} characters (got ${quote(name)})`);
  else if (typeof name === "string" && known(name) && (name === "" || charLength(name) > NAME_MAX)) {
    f.add("name", `name must be 1 to ${NAME_MAX} characters (got ${charLength(name)})`);
  }
}

function checkDescription(f: Failures, d: unknown): void {
  if (known(d) && typeof d !== "string")
    f.add("description", `description must be a string of at most ${DESCRIPTION_MAX} characters (got ${quote(d)})`);
  else if (typeof d === "string" && charLength(d) > DESCRIPTION_MAX)
    f.add("description", `description must be at most ${DESCRIPTION_MAX} characters (got ${charLength(d)})`);
}

/** Some entries may be unknown at preview: the length and the known entries are still checked. */
function checkGrants(f: Failures, grants: unknown): void {
  if (grants === undefined || grants === null) {
    f.add("grants", `grants is required: 1 to ${GRANTS_MAX} project ids the account may access`);
    return;
  }
  if (!Array.isArray(grants)) {
    if (!isUnknown(grants))
      f.add("grants", `grants must be an array of 1 to ${GRANTS_MAX} project ids (got ${quote(grants)})`);
    return;
  }
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

function checkExpiresIn(f: Failures, expiresIn: unknown): void {
  const range = `0 to ${MAX_EXPIRES_IN} (0 = never expires)`;
  if (expiresIn === undefined || expiresIn === null)
    f.add("expiresIn", `expiresIn is required: the token lifetime in seconds, ${range}`);
  else if (!isUnknown(expiresIn) && !validExpiresIn(expiresIn))
    f.add("expiresIn", `expiresIn must be an integer number of seconds from ${range} (got ${quote(expiresIn)})`);
}

/** rotationTrigger's type, and the lifetime rules of the window (rotateBeforeExpiry) and of keepPreviousToken. */
function checkRotation(f: Failures, v: Values): void {
  const { rotationTrigger: trigger, rotateBeforeExpiry: w, keepPreviousToken: keep, expiresIn } = v;
  if (known(trigger) && typeof trigger !== "string")
    f.add(
      "rotationTrigger",
      `rotationTrigger must be a string (got ${quote(trigger)}); convert it, e.g. String(value)`,
    );
  // The lifetime rules apply only to a token that expires with a valid lifetime (else expiresIn's own failure says so).
  const lifetime = validExpiresIn(expiresIn) && expiresIn > 0 ? expiresIn : undefined;
  if (known(w) && (typeof w !== "number" || !Number.isInteger(w) || w < 0)) {
    f.add(
      "rotateBeforeExpiry",
      `rotateBeforeExpiry must be a non-negative integer number of seconds (got ${quote(w)})`,
    );
  } else if (typeof w === "number" && lifetime !== undefined && w >= lifetime) {
    const why =
      "the new token would already be inside its rotation window, so every `pulumi up` would replace the account";
    f.add("rotateBeforeExpiry", `rotateBeforeExpiry must be less than expiresIn (got ${w} >= ${lifetime}): ${why}`);
  }
  if (known(keep) && typeof keep !== "boolean")
    f.add("keepPreviousToken", `keepPreviousToken must be true or false (got ${quote(keep)})`);
  else if (keep === true && typeof w === "number" && lifetime !== undefined && w < lifetime && 2 * w < lifetime) {
    f.add("rotateBeforeExpiry", overlapProblem(lifetime, w));
  }
}

/**
 * With `keepPreviousToken`, a token rotated at (its expiry − window) is kept as the previous token until its successor
 * is rotated, one period (expiresIn − window) later. It is still valid then only when the window is at least half the
 * lifetime; otherwise consumers still holding it would get 401 before the next rotation: no overlap at all.
 */
function overlapProblem(expiresIn: number, window: number): string {
  return (
    "rotateBeforeExpiry must be at least half of expiresIn with keepPreviousToken " +
    `(got ${window} < ${expiresIn} / 2): a token is rotated when ${window} s are left and kept as the previous ` +
    `token until its successor is rotated ${expiresIn - window} s later, so it would expire before that and give ` +
    `no overlap. Choose rotateBeforeExpiry >= expiresIn / 2 (e.g. expiresIn ${expiresIn}, rotateBeforeExpiry ` +
    `${Math.ceil(expiresIn / 2)} or more), plus the time between two scheduled \`pulumi up\` runs.`
  );
}

/** The error of a create whose inputs break a rule (check normally reports them first, at preview). */
export function invalidInputs(failures: pulumi.dynamic.CheckFailure[]): Error {
  return new Error(`pulumi-pims: invalid ServiceAccount inputs: ${failures.map((x) => x.reason).join("; ")}`);
}

/** The inputs as every later step relies on them: description "" when absent; absent (null, false) options omitted. */
export function normalized(i: ServiceAccountInputs): ServiceAccountInputs {
  const { projectId, name, description, grants, expiresIn, adoptServiceAccountId, adoptToken, tokenDelivery } = i;
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
    adoptServiceAccountId: adoptServiceAccountId ?? undefined,
    adoptToken: adoptToken ?? undefined,
    tokenDelivery: normalizedDelivery(tokenDelivery),
  });
}
