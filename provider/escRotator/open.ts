/**
 * One open (`fn::open::external`, https://www.pulumi.com/docs/esc/integrations/dynamic-secrets/external): ESC calls
 * at each open of an environment (`esc run`, `esc env open`, a stack's `environment:`), and each open gets a lease of
 * its own: a new account whose token the service itself expires `ttl` seconds later (`expiresIn` of POST
 * /v2/projects/{project_id}/service-accounts), so a token copied from a finished job is worth nothing once it expires.
 *
 * One listing of the series (GET /v2/projects/{project_id}/api-keys) decides everything before any write:
 * - an account carrying this request's tag: a replay (./series), refused with nothing written;
 * - accounts whose token has expired on the service's clock (its `expiresAt` against its `Date` header) are deleted,
 *   and never one whose token is still valid (a job may be using it);
 * - as many live ones as the adapter's bound (`PIMS_ESC_MAX_LEASES`): 429 with `Retry-After` (when the oldest one
 *   expires), no account made, so a loop of opens cannot fill a project.
 */
import { errorText, fingerprint, readExpiry } from "../client";
import { serviceNowMs } from "../client/clock";
import type { AccountSeen } from "../serviceAccount/listing";
import type { OpenRequest } from "./request";
import {
  createMarked,
  deleteAll,
  listSeries,
  madeBy,
  markedName,
  Replayed,
  seriesMarker,
  SeriesFailed,
  type SeriesContext,
  type SeriesReport,
} from "./series";

/** The answer of an open, which ESC shows under `<value>.response` (secret unless `secret: false`). */
export interface Lease {
  /** The lease's token: hand it to the job as `PIMS_TOKEN`. The only secret. */
  token: string;
  /** The lease's account. */
  serviceAccountId: string;
  /** The token's id. */
  tokenId: string;
  /** When the service expires the token, RFC 3339. */
  tokenExpiresAt: string;
  /** The lease's lifetime in seconds, as granted. */
  ttl: number;
  /** The project that owns the account. */
  projectId: string;
  /** The account's name, with the series marker and the request's tag. */
  name: string;
  /** First 16 hex digits of SHA-256 of the token (as `ServiceAccount.tokenFingerprint`). */
  tokenFingerprint: string;
}

/** An open refused because the series holds as many live leases as the adapter allows: 429 with `Retry-After`. */
export class TooManyLeases extends Error {
  constructor(
    message: string,
    /** Seconds until the oldest live lease expires on the service's clock (at least 1). */
    readonly retryAfterS: number,
    /** What the open did before it was refused (expired leases deleted), for the log line. */
    readonly report: SeriesReport,
  ) {
    super(message);
    this.name = "TooManyLeases";
  }
}

/** The adapter's bounds, which no request can raise. */
export interface LeaseBounds {
  /** The most live (unexpired) accounts one series may hold. */
  maxLeases: number;
}

const LATER = "it expires with its ttl, and the series' next open deletes it then";

/** Ms since the epoch of an account's expiry on the service; undefined for `never` or unreadable (never deleted). */
const expiresMs = (a: AccountSeen): number | undefined => readExpiry(a.expiresAt).epochMs ?? undefined;

/** One open of the series of `caller.environment`, `req.projectId` and `req.name` (see the module comment). */
export async function open(
  ctx: SeriesContext,
  caller: { environment: string; jti: string },
  req: OpenRequest,
  bounds: LeaseBounds,
): Promise<{ lease: Lease; report: SeriesReport }> {
  const marker = seriesMarker("open", caller.environment, req);
  const report: SeriesReport = { deleted: [], leftLive: [] };
  let series: AccountSeen[];
  try {
    series = await listSeries(ctx, req.projectId, marker);
  } catch (e) {
    throw new SeriesFailed(`listing the series failed: ${errorText(e)}; nothing was written`, [], []);
  }
  const replay = madeBy(series, marker, caller.jti);
  if (replay) throw new Replayed(replay.id);
  const now = serviceNowMs({ skewMs: () => ctx.client.serviceSkewMs() }, ctx.now());
  const expired = series.filter((a) => (expiresMs(a) ?? Infinity) <= now).map((a) => a.id);
  const live = series.filter((a) => !((expiresMs(a) ?? Infinity) <= now));
  if (live.length >= bounds.maxLeases) {
    await clean(ctx, req.projectId, expired, report);
    const soonest = Math.min(...live.map((a) => expiresMs(a) ?? Infinity));
    const retryAfterS = Number.isFinite(soonest) ? Math.max(1, Math.ceil((soonest - now) / 1000)) : req.ttl;
    throw new TooManyLeases(
      `series ${marker} of project ${req.projectId} holds ${live.length} live leases, the adapter's limit ` +
        `(PIMS_ESC_MAX_LEASES or --max-leases: ${bounds.maxLeases}); no account was made. The oldest expires in ` +
        `${retryAfterS} s`,
      retryAfterS,
      report,
    );
  }
  const name = markedName(marker, caller.jti);
  const created = await createMarked(ctx, req, name, req.ttl, report.deleted, LATER);
  report.created = created.id;
  await clean(ctx, req.projectId, expired, report);
  const token = created.token.secret;
  const reported = readExpiry(created.token.expiresAt).epochMs;
  const createdMs = Date.parse(created.createdAt);
  const expiresAt = reported ?? (Number.isNaN(createdMs) ? now : createdMs) + req.ttl * 1000;
  return {
    report,
    lease: {
      token,
      serviceAccountId: created.id,
      tokenId: created.token.id,
      tokenExpiresAt: new Date(expiresAt).toISOString(),
      ttl: req.ttl,
      projectId: req.projectId,
      name,
      tokenFingerprint: fingerprint(token),
    },
  };
}

/** Deletes the series' expired accounts; one that fails stays for the next open (the log line names it). */
async function clean(ctx: SeriesContext, projectId: string, ids: string[], report: SeriesReport): Promise<void> {
  if (ids.length === 0) return;
  const { deleted, failed } = await deleteAll(ctx, projectId, ids);
  report.deleted.push(...deleted);
  report.leftLive.push(...failed.map((f) => `${f.id} (expired; delete failed: ${f.error})`));
}
