/**
 * One rotation of a series: the accounts one ESC value has had, found by the marker the adapter writes in each
 * account's name (`<name>-esc-<12 hex>`, the hex a hash of the environment, project and name), never by guessing.
 * The service has no read of an account, so the project's API-key listing (GET /v2/projects/{project_id}/api-keys,
 * ./serviceAccount/listing) is how the series is seen.
 *
 * A rotation creates a new account (POST /v2/projects/{project_id}/service-accounts, through ../serviceAccount/create:
 * a create whose answer is lost or fails after committing is looked for, never left unnamed), keeps the one `state`
 * names (the token ESC's `current` holds, which consumers still use until they refresh), and deletes (DELETE
 * /v2/projects/{project_id}/service-accounts/{id}) every other account of the series and the one `state` names as
 * previous. So after a rotation the series has two live accounts, and a rotation whose response was lost (ESC retries
 * with the same `state`) leaves no orphan: the account it made carries the marker, so the retry deletes it.
 *
 * Only a complete rotation succeeds. When the retirement fails the new account is deleted again (its token would be
 * lost with a failed response); the answer names exactly what the listing still shows of what it made or retired,
 * each with the command that deletes it, and the next rotation deletes it anyway (it carries the marker). Deletes go
 * through ../serviceAccount/delete, the resource's own: a 404 counts only once the listing confirms the account gone.
 */
import * as crypto from "node:crypto";
import { errorText, fingerprint, type PimsClient } from "../client";
import { createAccount, CreateLedger, UncertainCreateError, type CreatedAccount } from "../serviceAccount/create";
import { deleteAll as deleteAccounts } from "../serviceAccount/delete";
import { accountsFromKeys, type AccountSeen } from "../serviceAccount/listing";
import { tokenExpiry } from "../serviceAccount/rotation";
import type { RotationRequest, RotationState } from "./request";

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

/** What a rotation did, for the log line. */
export interface RotationReport {
  created?: string;
  kept?: string;
  deleted: string[];
  /** Accounts left live that the series should not have, as the listing shows them after the clean-up. */
  leftover: string[];
}

/** A rotation that did not complete: 503 with `message` (names what is left and how to delete it). */
export class RotationFailed extends Error {
  constructor(
    message: string,
    readonly report: RotationReport,
  ) {
    super(message);
    this.name = "RotationFailed";
  }
}

/** The account name that marks the series of `environment` (`org/project/env`), `projectId` and `name`. */
export function seriesName(environment: string, req: Pick<RotationRequest, "projectId" | "name">): string {
  const h = crypto.createHash("sha256").update(`${environment}\n${req.projectId}\n${req.name}`).digest("hex");
  return `${req.name}-esc-${h.slice(0, 12)}`;
}

/** What a rotation needs besides the request. */
export interface SeriesContext {
  client: PimsClient;
  ledger: CreateLedger;
  /** How long a create whose answer was lost is watched for (the `lostCreateWatchMs` setting). */
  watchMs: number;
  now: () => number;
  /** The adapter's log (a delete's warning goes there). */
  log: (line: string) => void;
}

const deleteCommand = (projectId: string, id: string): string => `pims service-accounts delete ${projectId} ${id}`;

/** Deletes `ids` (../serviceAccount/delete, the resource's loop); returns those deleted and the failures. */
async function deleteAll(ctx: SeriesContext, projectId: string, ids: readonly string[]) {
  const none = new Set<string>(); // the adapter names no project as deleted outside Pulumi
  const failed = await deleteAccounts(projectId, ids, {
    goneProjects: () => none,
    client: () => ctx.client,
    warn: ctx.log,
  });
  const bad = new Set(failed.map((f) => f.id));
  return { deleted: ids.filter((id) => !bad.has(id)), failed };
}

/**
 * The failure after a clean-up, in the adapter's words: what was deleted, and exactly the accounts `left` selects that
 * the listing still shows, each with the command that deletes it (or that the listing could not be read).
 */
async function failedLeaving(
  ctx: SeriesContext,
  projectId: string,
  why: string,
  report: RotationReport,
  left: (a: AccountSeen) => boolean,
): Promise<RotationFailed> {
  const done = report.deleted.length > 0 ? ` Deleted: ${report.deleted.join(", ")}.` : "";
  let live: string[];
  try {
    live = accountsFromKeys(await ctx.client.listApiKeys(projectId))
      .filter(left)
      .map((a) => a.id);
  } catch (e) {
    return new RotationFailed(
      `${why}.${done} Which accounts are left live could not be checked (GET /v2/projects/${projectId}/api-keys: ` +
        `${errorText(e)}): see \`pims service-accounts list ${projectId}\`; the next rotation deletes what is left.`,
      report,
    );
  }
  report.leftover.push(...live.map((id) => `${id} (${deleteCommand(projectId, id)})`));
  const rest =
    live.length === 0
      ? " No account of this rotation is left live."
      : ` Left live, checked against the listing: ${report.leftover.join("; ")}; the next rotation deletes what is ` +
        "left.";
  return new RotationFailed(`${why}.${done}${rest}`, report);
}

/**
 * Creates the series' next account. A create the service committed but answered with a failure leaves an account
 * nobody holds: it carries the marker, so it is deleted and the create tried once more. A failure names what the
 * listing still shows of what the attempts made.
 */
async function createNext(ctx: SeriesContext, req: RotationRequest, name: string, report: RotationReport) {
  const body = { name, grants: req.grants, expiresIn: req.expiresIn, description: req.description ?? "" };
  const made = new Set<string>();
  for (let attempt = 1; ; attempt++) {
    try {
      return await createAccount(ctx.client, req.projectId, body, { ledger: ctx.ledger, watchMs: ctx.watchMs });
    } catch (e) {
      const uncertain = e instanceof UncertainCreateError;
      // The create's own failure: an uncertain create's message is written for a stack, not for ESC.
      const why = `creating the next account failed: ${uncertain ? e.original.message : errorText(e)}`;
      if (!uncertain) throw new RotationFailed(why, report);
      e.candidates.forEach((c) => made.add(c.id));
      const cleaned = await deleteAll(
        ctx,
        req.projectId,
        e.candidates.map((c) => c.id),
      );
      report.deleted.push(...cleaned.deleted);
      if (e.look === "found" && cleaned.failed.length === 0 && attempt < 2) continue;
      throw await failedLeaving(ctx, req.projectId, why, report, (a) => made.has(a.id));
    }
  }
}

/** One rotation of the series `state` belongs to (see the module comment). */
export async function rotate(
  ctx: SeriesContext,
  environment: string,
  req: RotationRequest,
  state: RotationState | null,
): Promise<{ token: RotatedToken; report: RotationReport }> {
  const name = seriesName(environment, req);
  const keep = state?.serviceAccountId;
  const report: RotationReport = { kept: keep, deleted: [], leftover: [] };
  const created: CreatedAccount = await createNext(ctx, req, name, report);
  report.created = created.id;
  // Every account of the series but the new one and the kept one, and the previous one `state` names (an adopted
  // account carries no marker): a response lost earlier left its account here, marked.
  let retire: string[];
  try {
    const series = accountsFromKeys(await ctx.client.listApiKeys(req.projectId)).filter((a) => a.name === name);
    retire = [...new Set([...series.map((a) => a.id), state?.previousServiceAccountId ?? ""])].filter(
      (id) => id !== "" && id !== created.id && id !== keep,
    );
  } catch (e) {
    throw await rollBack(ctx, req.projectId, created, report, `listing the series failed: ${errorText(e)}`, []);
  }
  const { deleted, failed } = await deleteAll(ctx, req.projectId, retire);
  report.deleted.push(...deleted);
  if (failed.length > 0) {
    const why = failed.map((f) => `${f.id}: ${f.error}`).join("; ");
    throw await rollBack(ctx, req.projectId, created, report, `deleting the retired account(s) failed (${why})`, [
      ...failed.map((f) => f.id),
    ]);
  }
  const token = created.token.secret;
  const nowIso = new Date(ctx.now()).toISOString();
  return {
    report,
    token: {
      token,
      serviceAccountId: created.id,
      tokenId: created.token.id,
      tokenExpiresAt: tokenExpiry(created.token.expiresAt, req.expiresIn, created.createdAt, ctx.now()),
      projectId: req.projectId,
      name,
      rotatedAt: nowIso,
      tokenFingerprint: fingerprint(token),
      previousServiceAccountId: keep ?? null,
    },
  };
}

/** Deletes the new account (its token dies with the failed response) and returns the failure naming what is left. */
async function rollBack(
  ctx: SeriesContext,
  projectId: string,
  created: CreatedAccount,
  report: RotationReport,
  why: string,
  retired: string[],
): Promise<RotationFailed> {
  const { deleted, failed } = await deleteAll(ctx, projectId, [created.id]);
  report.deleted.push(...deleted);
  const suspects = new Set([created.id, ...retired]);
  const what = `${why}; the new account ${created.id} was ${failed.length > 0 ? "not " : ""}deleted again`;
  return failedLeaving(ctx, projectId, what, report, (a) => suspects.has(a.id));
}
