/**
 * Token delivery (`tokenDelivery`): where a new token goes instead of the state. The token is sealed to age recipients
 * (./seal: the state keeps only the ciphertext), handed to a command on its standard input, or written to a file
 * (./sink); in every mode `token` and `previousToken` are "" and the state keeps what can be checked: the token's
 * fingerprint, where it went, its id and expiry. The engine logs every property it marshals (at -v=9 and above), so a
 * token that is never an output is the only one it never logs.
 *
 * When: right after POST /v2/projects/{project_id}/service-accounts answers, inside create or update, before the method
 * returns (so before anything depending on the account changes). A delivery that fails deletes the new account
 * (DELETE /v2/projects/{project_id}/service-accounts/{service_account_id}) and fails the method with what failed,
 * never a token byte; the old account and the state stay as they were. This file: where each mode goes, the
 * descriptions, the fingerprint, and that sequence ({@link deliverNew}); the input's type and rules: ./deliveryRules.
 */
import * as path from "node:path";
import { isUnknown } from "../checks";
import { fingerprint } from "../client/token";
import { sealToken } from "./seal";
import { DEFAULT_TIMEOUT_S, deliveryMode, sameDelivery, type TokenDelivery } from "./deliveryRules";
import { runCommand, writeTokenFile, type TokenContext } from "./sink";
import type { ServiceAccountInputs } from "./inputs";
import type { ServiceAccountOutputs } from "./outputs";

/** Where a token delivered so went (`tokenDeliveredTo`): never a secret, never an argument beyond the first. */
export function deliveredTo(d: TokenDelivery): string {
  const mode = deliveryMode(d);
  if (mode === "sealed") {
    const r = d.ageRecipients ?? [];
    return `age:${r.length} recipient${r.length === 1 ? "" : "s"} ${String(r[0]).slice(0, 12)}…`;
  }
  if (mode === "command") {
    const [argv0, arg1, ...rest] = d.command ?? [];
    const shown = [path.basename(String(argv0)), arg1, rest.length > 0 ? "…" : undefined];
    return `command:${shown.filter((x) => x !== undefined).join(" ")}`;
  }
  return `file:${path.resolve(String(d.file))}`;
}

/** What a delivered token leaves in the state (its mode's outputs; `token` ""). */
export interface Delivered {
  token: string;
  tokenHeld: boolean;
  tokenFingerprint: string;
  tokenDeliveredTo?: string;
  sealedToken?: string;
}

/**
 * Delivers one token by `d` (the token held when `d` names no mode): sealed, run through the command, or written to the
 * file. Throws an error naming the mode and what failed, without token bytes.
 */
export async function deliverToken(d: TokenDelivery | undefined, token: string, ctx: TokenContext): Promise<Delivered> {
  const tokenFingerprint = fingerprint(token);
  const mode = deliveryMode(d);
  if (mode === undefined || d === undefined) return { token, tokenHeld: token !== "", tokenFingerprint };
  const to = { token: "", tokenHeld: false, tokenFingerprint, tokenDeliveredTo: deliveredTo(d) };
  if (mode === "sealed") return { ...to, sealedToken: await sealToken(token, d.ageRecipients ?? []) };
  if (mode === "command")
    await runCommand(d.command ?? [], token, ctx, (d.commandTimeoutSeconds ?? DEFAULT_TIMEOUT_S) * 1000);
  else await writeTokenFile(String(d.file), token);
  return to;
}

/**
 * A new account's token delivered (create, rotation, adoption of a proven token). When the delivery fails, `discard`
 * deletes the account just created (a rotation's or a create's; nothing for an adoption) and the error says whether
 * it is gone: confirmed, or named with the command that deletes it.
 */
export async function deliverNew(
  d: TokenDelivery | undefined,
  token: string,
  ctx: TokenContext,
  discard?: () => Promise<void>,
): Promise<Delivered> {
  try {
    return await deliverToken(d, token, ctx);
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    const head = `pulumi-pims: service account ${JSON.stringify(ctx.name)} in project ${ctx.projectId}: ${why}`;
    if (discard === undefined) throw new Error(`${head}. Nothing was changed.`, { cause: e });
    let outcome: string;
    try {
      await discard();
      outcome = `The new account ${ctx.serviceAccountId} was deleted; state and previous account unchanged.`;
    } catch (d2) {
      const why2 = d2 instanceof Error ? d2.message : String(d2);
      outcome =
        `Deleting the new account ${ctx.serviceAccountId} could not be confirmed (${why2}): ` +
        `delete it with \`pims service-accounts delete ${ctx.projectId} ${ctx.serviceAccountId}\`. The state and any ` +
        "previous account are unchanged.";
    }
    throw new Error(`${head}. ${outcome}`, { cause: e });
  }
}

/**
 * An update's state once a delivery mode is set: a token it still holds (switched from the default, or the previous
 * token a rotation moved) is delivered and dropped: the current one by the mode, the previous one sealed too in the
 * sealed mode (else only its fingerprint stays: it went to its consumers before). No new account; a failure changes
 * nothing.
 */
export async function settleHeld(next: ServiceAccountOutputs): Promise<ServiceAccountOutputs> {
  const d = next.tokenDelivery;
  const mode = deliveryMode(d);
  if (mode === undefined || (!next.token && !next.previousToken)) return next;
  const out = { ...next };
  if (next.token) Object.assign(out, await deliverNew(d, next.token, next));
  if (next.previousToken) {
    out.previousTokenFingerprint = fingerprint(next.previousToken);
    if (mode === "sealed") out.previousSealedToken = await sealToken(next.previousToken, d?.ageRecipients ?? []);
    out.previousToken = "";
  }
  return out;
}

/** What the preview says an update will do with `tokenDelivery` (no call), or undefined when nothing. */
export function deliveryPlanLine(
  olds: ServiceAccountOutputs,
  after: ServiceAccountInputs,
  rotating: boolean,
): string | undefined {
  const d = after.tokenDelivery;
  if (isUnknown(d) || olds === undefined) return undefined;
  const mode = deliveryMode(d);
  const who = `pulumi-pims: service account ${JSON.stringify(after.name)} (${olds.serviceAccountId})`;
  if (rotating)
    return mode && d ? `${who}: the new token goes to ${deliveredTo(d)} before the update returns` : undefined;
  if (sameDelivery(olds.tokenDelivery, d)) return undefined;
  if (mode && d && (olds.token || olds.previousToken))
    return (
      `${who}: tokenDelivery set: this update delivers the token the state holds to ${deliveredTo(d)} and drops it ` +
      "from the state (no new account)"
    );
  const where = olds.tokenDeliveredTo ? `it went to ${olds.tokenDeliveredTo}` : "the state does not hold it";
  return mode
    ? `${who}: tokenDelivery changed: takes effect at the next rotation (the current token is not held: ${where})`
    : `${who}: tokenDelivery removed: the state holds the token from the next rotation on (not this one: ${where})`;
}
