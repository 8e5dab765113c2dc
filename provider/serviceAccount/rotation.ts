/**
 * ServiceAccount's rotation and the state it leaves: when a token is due (the window), which inputs need a new account,
 * and, with `keepPreviousToken` (overlap), how the current account becomes the previous one and the previous one is
 * retired (deleted, or kept in `retiredServiceAccountIds` until a delete succeeds). No call: the lifecycle
 * (./index) creates and deletes the accounts this module plans. The outputs themselves: ./outputs.
 */
import { readExpiry } from "../client";
import { progressLine } from "../client/retry";
import { isUnknown } from "../checks";
import { normalized, undeclared, type ServiceAccountInputs } from "./inputs";
import { currentGone } from "./refresh";
import { changedKeys, clean } from "../diff";
import type { Account, Previous, ServiceAccountOutputs } from "./outputs";
import { fingerprint } from "../client/token";
import { deliveryMode, sameDelivery } from "./deliveryRules";

/** `NEVER`: the expiry stored for expiresIn 0; the reason of a rotation whose window was reached. */
export const [NEVER, ROTATION_REASON] = ["never", "rotateBeforeExpiry"] as const;
/**
 * The reasons of a rotation a refresh's mark asks for (./refresh), named for what the refresh found: the current
 * token expired (`tokenExpiresAt`), or the current account was deleted outside the stack (`serviceAccountId`).
 */
export const [EXPIRED_REASON, GONE_REASON] = ["tokenExpiresAt", "serviceAccountId"] as const;

/** Inputs the service receives: a change of any of them needs a new account. */
const SERVICE_INPUTS = ["projectId", "name", "description", "grants", "expiresIn", "rotationTrigger"] as const;

export const accountOf = (o: ServiceAccountOutputs): Account => ({
  serviceAccountId: o.serviceAccountId,
  createdAt: o.createdAt,
  createdByUserId: o.createdByUserId,
  tokenId: o.tokenId,
  tokenExpiresAt: o.tokenExpiresAt,
  token: o.token,
  tokenHeld: o.tokenHeld,
  tokenFingerprint: o.tokenFingerprint,
  tokenDeliveredTo: o.tokenDeliveredTo,
  sealedToken: o.sealedToken,
  clockSkewMs: o.clockSkewMs,
});
const previousOf = (o: Partial<ServiceAccountOutputs>): Previous =>
  o.previousServiceAccountId
    ? {
        previousServiceAccountId: o.previousServiceAccountId,
        previousTokenId: o.previousTokenId,
        previousTokenExpiresAt: o.previousTokenExpiresAt,
        previousToken: o.previousToken,
        previousTokenFingerprint: o.previousTokenFingerprint,
        previousSealedToken: o.previousSealedToken,
      }
    : {};
/** The current account as the previous one, after a rotation. */
const asPrevious = (a: Account): Previous => ({
  previousServiceAccountId: a.serviceAccountId,
  previousTokenId: a.tokenId,
  previousTokenExpiresAt: a.tokenExpiresAt,
  previousToken: a.token,
  previousTokenFingerprint: a.tokenFingerprint,
  previousSealedToken: a.sealedToken,
});

/**
 * Exactly the output members (never `__provider` or anything else the state may carry), normalized. A state written
 * before fingerprints existed gets them from the tokens it holds.
 */
export function outputs(o: ServiceAccountOutputs): ServiceAccountOutputs {
  const retired = o.retiredServiceAccountIds?.length ? o.retiredServiceAccountIds : undefined;
  const unreadInputs = o.unreadInputs?.length ? o.unreadInputs : undefined;
  const previous = previousOf(o);
  if (previous.previousServiceAccountId && previous.previousTokenFingerprint === undefined)
    previous.previousTokenFingerprint = fingerprint(previous.previousToken);
  const { adoptToken: _given, ...declared } = normalized(o); // the given token is held as `token`, never twice
  return clean({
    ...declared,
    ...accountOf(o),
    tokenFingerprint: o.tokenFingerprint ?? fingerprint(o.token),
    ...previous,
    retiredServiceAccountIds: retired,
    unreadInputs,
  });
}

/** The state holds a token (current or previous) that a delivery mode now set must take out of it. */
export function heldTokenToDeliver(olds: ServiceAccountOutputs, ins: ServiceAccountInputs): boolean {
  return deliveryMode(ins.tokenDelivery) !== undefined && (!!olds.token || !!olds.previousToken);
}

/** Ms since the epoch of a stored expiry (the one expiry parser), or undefined for `never`, missing or unreadable. */
const expiryMs = (expiresAt: unknown): number | undefined => readExpiry(expiresAt).epochMs ?? undefined;

/**
 * The expiry stored: the service's timestamp; `never` for expiresIn 0; else creation + expiresIn (rotation needs a
 * date).
 */
export function tokenExpiry(reported: string, expiresIn: number, createdAt: string, nowMs: number): string {
  if (expiryMs(reported) !== undefined) return reported;
  if (expiresIn === 0) return NEVER;
  const base = Date.parse(createdAt);
  return new Date((Number.isNaN(base) ? nowMs : base) + expiresIn * 1000).toISOString();
}

/** Skews under this are not stored (`clockSkewMs`): a `Date` header has whole seconds, and windows are days long. */
const SKEW_STORED_FROM_MS = 60_000;

/** The skew to store with a new account: the client's last measure, when it is a minute or more. */
export function storedSkew(skewMs: number | undefined): number | undefined {
  return skewMs !== undefined && Math.abs(skewMs) >= SKEW_STORED_FROM_MS ? Math.round(skewMs) : undefined;
}

/**
 * Now on the service's clock, for decisions against its times (`tokenExpiresAt`): our clock plus the skew stored
 * when the account was created (diff makes no call, so it cannot measure one). Row 16 of issue 55: a local clock an
 * hour off changes no rotation.
 */
export function serviceNow(nowMs: number, o: { clockSkewMs?: unknown } | undefined): number {
  const skew = o?.clockSkewMs;
  return typeof skew === "number" && Number.isFinite(skew) ? nowMs + skew : nowMs;
}

/** True when the token expires and expiry minus the window has passed; an unknown window may be due. */
export function rotationDue(nowMs: number, tokenExpiresAt: unknown, rotateBeforeExpiry: unknown): boolean {
  const expiry = expiryMs(tokenExpiresAt);
  if (expiry === undefined) return false;
  if (isUnknown(rotateBeforeExpiry)) return true;
  if (typeof rotateBeforeExpiry !== "number" || !Number.isFinite(rotateBeforeExpiry) || rotateBeforeExpiry < 0)
    return false;
  return nowMs >= expiry - rotateBeforeExpiry * 1000;
}

/**
 * What a refresh found when it marked the current account (./refresh `currentGone`), as far as the state tells (diff
 * makes no call): `expired`, the listing showed its key expired on the service's clock; `gone`, it no longer showed it
 * while the resource held another live account. A refresh takes a gone current account that holds nothing else out of
 * the state, so one kept and marked with nothing else held expired; otherwise its stored expiry decides, on the
 * service's clock ({@link serviceNow}). Undefined when the current account is not marked.
 */
export function markedAs(olds: ServiceAccountOutputs, nowMs: number): "expired" | "gone" | undefined {
  if (!currentGone(olds)) return undefined;
  const others = (olds.retiredServiceAccountIds ?? []).filter((r) => r !== olds.serviceAccountId);
  if (others.length === 0 && !olds.previousServiceAccountId) return "expired";
  const expiry = expiryMs(olds.tokenExpiresAt);
  return expiry !== undefined && expiry <= serviceNow(nowMs, olds) ? "expired" : "gone";
}

/**
 * Why a new account is needed: the changed inputs the service receives, then the window when it is reached (on the
 * service's clock: {@link serviceNow}), then what a refresh found when it marked the current account
 * ({@link markedAs}): `tokenExpiresAt` (its token expired) or `serviceAccountId` (deleted outside the stack).
 */
export function rotationReasons(olds: ServiceAccountOutputs, ins: ServiceAccountInputs, nowMs: number): string[] {
  // An input the service could not tell (an imported account's grants) is compared only once it was declared.
  const unread = (k: string): boolean =>
    (olds.unreadInputs ?? []).includes(k) && undeclared((olds as unknown as Record<string, unknown>)[k]);
  const reasons: string[] = changedKeys(normalized(olds), ins, SERVICE_INPUTS).filter((k) => !unread(k));
  if (rotationDue(serviceNow(nowMs, olds), olds.tokenExpiresAt, ins.rotateBeforeExpiry)) reasons.push(ROTATION_REASON);
  const marked = markedAs(olds, nowMs);
  if (marked !== undefined) reasons.push(marked === "expired" ? EXPIRED_REASON : GONE_REASON);
  return reasons;
}

/**
 * A change that needs no new account but an update: a new window or option, a previous account to drop (overlap turned
 * off), or retired accounts still to delete.
 */
export function needsUpdate(olds: ServiceAccountOutputs, ins: ServiceAccountInputs): boolean {
  return (
    changedKeys(normalized(olds), ins, ["rotateBeforeExpiry", "keepPreviousToken"]).length > 0 ||
    !sameDelivery(olds.tokenDelivery, ins.tokenDelivery) ||
    (olds.retiredServiceAccountIds?.length ?? 0) > 0 ||
    (ins.keepPreviousToken !== true && typeof olds.previousServiceAccountId === "string")
  );
}

/**
 * The state an update leaves and the accounts it retires (to delete, oldest first). With a new account (`created`, a
 * rotation with overlap): it becomes current, the current one previous, the previous one retired. Without: what the
 * service holds stays as stored, only the local options come from the program, and the previous account is retired
 * when overlap is off. Accounts retired earlier are retried either way. When a refresh found the current account gone
 * (it is among the retired ones), the new account replaces it and the previous one stays previous.
 */
export function afterUpdate(
  olds: ServiceAccountOutputs,
  ins: ServiceAccountInputs,
  created: Account | undefined,
): { next: ServiceAccountOutputs; retire: string[] } {
  const overlap = ins.keepPreviousToken === true;
  const retire = [...(olds.retiredServiceAccountIds ?? [])];
  if (created && currentGone(olds)) return { next: { ...ins, ...created, ...previousOf(olds) }, retire }; // it stays
  if (created) {
    if (olds.previousServiceAccountId) retire.push(olds.previousServiceAccountId);
    return { next: { ...ins, ...created, ...asPrevious(accountOf(olds)) }, retire };
  }
  const local = {
    rotateBeforeExpiry: ins.rotateBeforeExpiry,
    keepPreviousToken: ins.keepPreviousToken,
    tokenDelivery: ins.tokenDelivery,
  };
  const unread = { unreadInputs: olds.unreadInputs };
  const next = { ...normalized(olds), ...local, ...accountOf(olds), ...unread, ...(overlap ? previousOf(olds) : {}) };
  if (!overlap && olds.previousServiceAccountId) retire.push(olds.previousServiceAccountId);
  return { next, retire };
}

/**
 * The warning of a rotation by replacement (no `keepPreviousToken`), planned by diff: the old account and its token are
 * deleted at the end of the update, so whatever outside the update still holds that token gets 401 from then on; most
 * often an explicit provider built from it (another stack's, or a `pulumi refresh`/`destroy` that reads the provider
 * from a state written before this update), which is how providers of other services break (issue 55, row 5). No
 * warning when the old account is already gone (a refresh found it deleted outside the stack).
 */
export function replacedTokenLine(
  olds: ServiceAccountOutputs,
  ins: ServiceAccountInputs,
  replaces: readonly string[],
  id: string,
): string | undefined {
  if (replaces.length === 0 || ins.keepPreviousToken === true || currentGone(olds)) return undefined;
  const account = olds.serviceAccountId ?? id;
  return (
    `pulumi-pims: service account ${JSON.stringify(ins.name)} (${account}) is replaced (${replaces.join(", ")}): ` +
    `account ${account} and its token are deleted at the end of this update, so anything still using that token ` +
    "gets 401 from then on: a pims.Provider (pulumi:providers:pims) built from it in another stack, or read from a " +
    "state written before this update by `pulumi refresh`/`destroy`, an app, a CI job. To keep the old token valid " +
    "until the next rotation, set `keepPreviousToken: true` on this ServiceAccount before rotating (the rotation is " +
    "then an update in place, and each token is deleted one rotation later)."
  );
}

/**
 * The warning of a new account a refresh's mark asks for (./refresh), planned by diff: the user changed nothing, so
 * the preview says why (issue 63): the account, when its token expired on the service's clock (or that it was deleted
 * outside the stack), and what the update does with it. `reasons` are {@link rotationReasons}, `replaces` the diff's.
 */
export function markedLine(
  olds: ServiceAccountOutputs,
  ins: ServiceAccountInputs,
  reasons: readonly string[],
  replaces: readonly string[],
  id: string,
): string | undefined {
  const expired = reasons.includes(EXPIRED_REASON);
  if (!expired && !reasons.includes(GONE_REASON)) return undefined;
  const account = olds.serviceAccountId ?? id;
  const how = replaces.length > 0 ? "is replaced" : "is rotated in place";
  const who = `pulumi-pims: service account ${JSON.stringify(ins.name)} (${account}) in project ${olds.projectId}`;
  const plan = `${who} ${how} (${reasons.join(", ")}): `;
  if (!expired)
    return (
      plan +
      `account ${account} was deleted outside the stack (\`pulumi refresh\` found it gone): this update creates a ` +
      "new account and token and updates what reads the token."
    );
  const when =
    expiryMs(olds.tokenExpiresAt) === undefined
      ? "the service marks its token expired"
      : `its token expired at ${olds.tokenExpiresAt} on the service's clock`;
  const advice = undeclared(ins.rotateBeforeExpiry)
    ? "To renew a token before it expires, set `rotateBeforeExpiry` on this ServiceAccount (the first `pulumi up` " +
      "inside that window rotates)."
    : "Its `rotateBeforeExpiry` window passed without a `pulumi up`: run one inside every window (e.g. on a schedule).";
  return (
    plan +
    `${when} (\`pulumi refresh\` found it so; the account was not deleted). This update creates a new account and ` +
    `token, updates what reads the token, then deletes account ${account}; whoever still holds the expired token ` +
    `gets 401 until it reads the new one. ${advice}`
  );
}

/**
 * The warning of the new account diff plans, if any: a replacement's ({@link replacedTokenLine}), else a refresh
 * mark's ({@link markedLine}). `reasons` are {@link rotationReasons}, `replaces` the diff's.
 */
export function rotationWarning(plan: {
  olds: ServiceAccountOutputs;
  ins: ServiceAccountInputs;
  reasons: readonly string[];
  replaces: readonly string[];
  id: string;
}): string | undefined {
  const { olds, ins, reasons, replaces, id } = plan;
  return replacedTokenLine(olds, ins, replaces, id) ?? markedLine(olds, ins, reasons, replaces, id);
}

/** An account a delete could not remove, with why (`cause`: the delete's own error). */
export interface FailedDelete {
  id: string;
  error: string;
  cause: unknown;
}

/** The progress line of a rotation with overlap: the new account, the one kept, the ones deleted. */
export function rotatedLine(
  ins: ServiceAccountInputs,
  reasons: readonly string[],
  created: Account,
  kept: string,
  retired: readonly string[],
  failed: readonly FailedDelete[],
): string {
  const gone = retired.filter((r) => !failed.some((f) => f.id === r));
  return progressLine(
    "pulumi-pims",
    `service account ${JSON.stringify(ins.name)} in project ${ins.projectId}`,
    `rotated (${reasons.join(", ")}): new account ${created.serviceAccountId}`,
    `previous account ${kept} kept until the next rotation${gone.length > 0 ? `, ${gone.join(", ")} deleted` : ""}`,
  );
}

/** Why an update failed when retired accounts could not be deleted (they stay in `retiredServiceAccountIds`). */
export function retireFailedMessage(
  name: string,
  projectId: string,
  created: Account | undefined,
  failed: readonly FailedDelete[],
): string {
  const what = created
    ? `the rotation created account ${created.serviceAccountId} (its token is stored in the state) but `
    : "";
  const detail = failed.map((f) => `${f.id}: ${f.error}`).join("; ");
  return (
    `pulumi-pims: service account ${JSON.stringify(name)} in project ${projectId}: ${what}deleting the retired ` +
    `account(s) failed (${detail}). They stay in the state (retiredServiceAccountIds) and the next \`pulumi up\` ` +
    `deletes them; or delete one with \`pims service-accounts delete ${projectId} <id>\`.`
  );
}
