/**
 * One rotation of a series (`fn::rotate::external`): list the series, create a new account, keep the one `state` names
 * (the token ESC's `current` holds, which consumers still use until they refresh), and delete every other account of
 * the series and the one `state` names as previous. So after a rotation the series has two live accounts, and a
 * rotation whose response was lost (ESC retries with the same `state`) leaves no orphan: the account it made carries
 * the marker, so the retry deletes it. A request whose tag an account of the series already carries is a replay
 * (./series): refused before anything is written.
 *
 * Only a complete rotation succeeds. When the retirement fails the new account is deleted again (its token would be
 * lost with a failed response), and the answer names exactly what the listing still shows of it and of the retired
 * ones, with the command that deletes each; the next rotation deletes them anyway (they carry the marker).
 */
import { errorText, fingerprint } from "../client";
import { tokenExpiry } from "../serviceAccount/rotation";
import type { RotationRequest, RotationState } from "./request";
import {
  createMarked,
  deleteAll,
  failedLeaving,
  listSeries,
  madeBy,
  markedName,
  Replayed,
  seriesMarker,
  SeriesFailed,
  type SeriesContext,
  type SeriesReport,
} from "./series";

/**
 * The response ESC stores as the environment's `current` (secret) and sends back as `state`: the token, and what can
 * be checked without it.
 */
export interface RotatedToken {
  /** The new account's token: the only secret. */
  token: string;
  /** The new account's id. */
  serviceAccountId: string;
  /** The token's id. */
  tokenId: string;
  /** The token's expiry, RFC 3339, or `never`. */
  tokenExpiresAt: string;
  /** The project that owns the account. */
  projectId: string;
  /** The account's name, with the series marker. */
  name: string;
  /** When the rotation completed, RFC 3339. */
  rotatedAt: string;
  /** First 16 hex digits of SHA-256 of the token (as `ServiceAccount.tokenFingerprint`). */
  tokenFingerprint: string;
  /** The account kept valid until the next rotation (the one `state` named), or null on the first rotation. */
  previousServiceAccountId: string | null;
}

const LATER = "the next rotation of this series deletes what is left";

/** One rotation of the series `state` belongs to (see the module comment). */
export async function rotate(
  ctx: SeriesContext,
  caller: { environment: string; jti: string },
  req: RotationRequest,
  state: RotationState | null,
): Promise<{ token: RotatedToken; report: SeriesReport }> {
  const marker = seriesMarker("rotate", caller.environment, req);
  const keep = state?.serviceAccountId;
  const report: SeriesReport = { kept: keep, deleted: [], leftLive: [] };
  const fail = (e: SeriesFailed): SeriesFailed => ((report.leftLive = e.leftLive), e);
  let series;
  try {
    series = await listSeries(ctx, req.projectId, marker);
  } catch (e) {
    throw fail(new SeriesFailed(`listing the series failed: ${errorText(e)}; nothing was written`, [], []));
  }
  const replay = madeBy(series, marker, caller.jti);
  if (replay) throw new Replayed(replay.id);
  const name = markedName(marker, caller.jti);
  let created;
  try {
    created = await createMarked(ctx, req, name, req.expiresIn, report.deleted, LATER);
  } catch (e) {
    throw e instanceof SeriesFailed ? fail(e) : e;
  }
  report.created = created.id;
  // Every account of the series but the kept one, and the previous one `state` names (an adopted account carries no
  // marker): a response lost earlier left its account here, marked.
  const retire = [...new Set([...series.map((a) => a.id), state?.previousServiceAccountId ?? ""])].filter(
    (id) => id !== "" && id !== created.id && id !== keep,
  );
  const { deleted, failed } = await deleteAll(ctx, req.projectId, retire);
  report.deleted.push(...deleted);
  if (failed.length > 0) {
    // The new account's token would be lost with a failed response: delete it again.
    const back = await deleteAll(ctx, req.projectId, [created.id]);
    report.deleted.push(...back.deleted);
    const why =
      `deleting the retired account(s) failed (${failed.map((f) => `${f.id}: ${f.error}`).join("; ")}); the new ` +
      `account ${created.id} was ${back.failed.length > 0 ? "not " : ""}deleted again`;
    const suspects = new Set([created.id, ...failed.map((f) => f.id)]);
    throw fail(await failedLeaving(ctx, req.projectId, why, report.deleted, (a) => suspects.has(a.id), LATER));
  }
  const token = created.token.secret;
  return {
    report,
    token: {
      token,
      serviceAccountId: created.id,
      tokenId: created.token.id,
      tokenExpiresAt: tokenExpiry(created.token.expiresAt, req.expiresIn, created.createdAt, ctx.now()),
      projectId: req.projectId,
      name,
      rotatedAt: new Date(ctx.now()).toISOString(),
      tokenFingerprint: fingerprint(token),
      previousServiceAccountId: keep ?? null,
    },
  };
}
