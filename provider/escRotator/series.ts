/**
 * A series: the accounts one ESC value has had, found by the marker the adapter writes in each account's name, never
 * by guessing. A rotation's marker is `<name>-esc-<12 hex>` (0.7.0's, unchanged), an open's `<name>-esl-<12 hex>`, the
 * hex a hash of the environment, project and name; each account made since 0.8.0 also carries a tag of the request
 * that made it, `-<12 hex>` of the SHA-256 of its `jti`, so a request replayed after a restart or to another instance
 * finds its own account in the series and is refused (../verify only remembers the `jti`s one process has seen).
 *
 * The service has no read of an account, so the project's API-key listing (GET /v2/projects/{project_id}/api-keys,
 * ../serviceAccount/listing) is how a series is seen. What both routes share lives here: the listing of a series, the
 * create (POST /v2/projects/{project_id}/service-accounts, through ../serviceAccount/create: a create whose answer is
 * lost or fails after committing is looked for, and what it made is deleted again), and the delete (DELETE
 * /v2/projects/{project_id}/service-accounts/{id}, ../serviceAccount/delete: a 404 counts only once the listing
 * confirms the account is gone, the rule the ServiceAccount resource lives by).
 */
import * as crypto from "node:crypto";
import { errorText, type PimsClient } from "../client";
import { createAccount, CreateLedger, UncertainCreateError, type CreatedAccount } from "../serviceAccount/create";
import { deleteAll as deleteAccounts } from "../serviceAccount/delete";
import { accountsFromKeys, type AccountSeen } from "../serviceAccount/listing";
import type { AccountRequest } from "./request";

/** Which ESC function a request comes from: `fn::rotate::external` or `fn::open::external`. */
export type Route = "rotate" | "open";

const INFIX: Record<Route, string> = { rotate: "esc", open: "esl" };
const HEX = 12;
/** What the adapter adds to a request's name: `-esc-` + 12 hex (the series) + `-` + 12 hex (the request's tag). */
export const MARKED_SUFFIX_LENGTH = 1 + INFIX.rotate.length + 1 + HEX + 1 + HEX;

const sha256Hex = (text: string): string => crypto.createHash("sha256").update(text).digest("hex");

/** The marker of a series: the name, then a hash of the environment (`org/project/env`), project and name. */
export function seriesMarker(route: Route, environment: string, req: Pick<AccountRequest, "projectId" | "name">) {
  return `${req.name}-${INFIX[route]}-${sha256Hex(`${environment}\n${req.projectId}\n${req.name}`).slice(0, HEX)}`;
}

/** A rotation series' marker (0.7.0's name for it). */
export const seriesName = (environment: string, req: Pick<AccountRequest, "projectId" | "name">): string =>
  seriesMarker("rotate", environment, req);

/** The tag of the request whose token carries `jti`. */
export const requestTag = (jti: string): string => sha256Hex(jti).slice(0, HEX);

/** The name of the account a request makes: its series' marker and its tag. */
export const markedName = (marker: string, jti: string): string => `${marker}-${requestTag(jti)}`;

/** Whether an account named `name` belongs to the series `marker` (0.7.0's accounts carry the marker alone). */
export function inSeries(marker: string, name: string): boolean {
  if (name === marker) return true;
  const rest = name.startsWith(`${marker}-`) ? name.slice(marker.length + 1) : "";
  return rest.length === HEX && /^[0-9a-f]+$/.test(rest);
}

/** What both routes need besides the request. */
export interface SeriesContext {
  client: PimsClient;
  ledger: CreateLedger;
  /** How long a create whose answer was lost is watched for (the `lostCreateWatchMs` setting). */
  watchMs: number;
  now: () => number;
  /** The adapter's log (one line per request; a warning of a delete goes there too). */
  log: (line: string) => void;
}

/** The live accounts of a series, as the project's API-key listing shows them. */
export async function listSeries(ctx: SeriesContext, projectId: string, marker: string): Promise<AccountSeen[]> {
  return accountsFromKeys(await ctx.client.listApiKeys(projectId)).filter((a) => inSeries(marker, a.name));
}

/** The account of `series` that a request with this `jti` made, if any: the request is a replay. */
export const madeBy = (series: readonly AccountSeen[], marker: string, jti: string): AccountSeen | undefined =>
  series.find((a) => a.name === markedName(marker, jti));

/** The command that deletes an account the adapter could not. */
export const deleteCommand = (projectId: string, id: string): string =>
  `pims service-accounts delete ${projectId} ${id}`;

/** Deletes `ids` (../serviceAccount/delete, the resource's loop); returns those deleted and the failures. */
export async function deleteAll(ctx: SeriesContext, projectId: string, ids: readonly string[]) {
  const none = new Set<string>(); // the adapter names no project as deleted outside Pulumi
  const failed = await deleteAccounts(projectId, ids, {
    goneProjects: () => none,
    client: () => ctx.client,
    warn: ctx.log,
  });
  const bad = new Set(failed.map((f) => f.id));
  return { deleted: ids.filter((id) => !bad.has(id)), failed };
}

/** What a request did, for the log line. */
export interface SeriesReport {
  created?: string;
  kept?: string;
  deleted: string[];
  /** Accounts left live that the series should not have (checked against the listing). */
  leftLive: string[];
}

/** A request refused because an account of its series carries its tag: 401, nothing written. */
export class Replayed extends Error {
  constructor(readonly accountId: string) {
    super(`replayed request: account ${accountId} of the series carries its jti`);
    this.name = "Replayed";
  }
}

/** A request that did not complete: 503 with `message` (what is left live, checked, and how to delete it). */
export class SeriesFailed extends Error {
  constructor(
    message: string,
    readonly deleted: string[],
    readonly leftLive: string[],
  ) {
    super(message);
    this.name = "SeriesFailed";
  }
}

/**
 * Creates the account named `name` (the request's own). A create the service committed but answered with a failure
 * leaves an account nobody holds: it carries the request's name, so it is deleted and the create tried once more. A
 * failure is thrown as {@link SeriesFailed}, naming exactly the accounts of that name the listing still shows.
 */
export async function createMarked(
  ctx: SeriesContext,
  req: AccountRequest,
  name: string,
  expiresIn: number,
  deleted: string[],
  later: string,
): Promise<CreatedAccount> {
  const body = { name, grants: req.grants, expiresIn, description: req.description ?? "" };
  for (let attempt = 1; ; attempt++) {
    try {
      return await createAccount(ctx.client, req.projectId, body, { ledger: ctx.ledger, watchMs: ctx.watchMs });
    } catch (e) {
      const uncertain = e instanceof UncertainCreateError;
      // The create's own failure: the uncertain create's message is written for a stack, not for ESC.
      let why = `creating the account failed: ${uncertain ? e.original.message : errorText(e)}`;
      if (!uncertain) throw new SeriesFailed(why, deleted, []);
      const cleaned = await deleteAll(
        ctx,
        req.projectId,
        e.candidates.map((c) => c.id),
      );
      deleted.push(...cleaned.deleted);
      if (e.look === "found" && cleaned.failed.length === 0 && attempt < 2) continue;
      if (e.look !== "found") why += ` (the service may still make the account ${JSON.stringify(name)}; ${later})`;
      throw await failedLeaving(ctx, req.projectId, why, deleted, (a) => a.name === name, later);
    }
  }
}

/**
 * The failure of a request after its clean-up: the accounts `left` selects that the listing still shows are named,
 * each with the command that deletes it; when the listing cannot be read, that is said instead. `later` says what a
 * later request of the series does with what is left (a rotation deletes it, an open once it has expired).
 */
export async function failedLeaving(
  ctx: SeriesContext,
  projectId: string,
  why: string,
  deleted: string[],
  left: (a: AccountSeen) => boolean,
  later: string,
): Promise<SeriesFailed> {
  const done = deleted.length > 0 ? ` Deleted: ${deleted.join(", ")}.` : "";
  let live: string[];
  try {
    live = accountsFromKeys(await ctx.client.listApiKeys(projectId))
      .filter(left)
      .map((a) => a.id);
  } catch (e) {
    return new SeriesFailed(
      `${why}.${done} Which accounts are left live could not be checked (GET /v2/projects/${projectId}/api-keys: ` +
        `${errorText(e)}): see \`pims service-accounts list ${projectId}\`; ${later}.`,
      deleted,
      [],
    );
  }
  const named = live.map((id) => `${id} (${deleteCommand(projectId, id)})`);
  const rest =
    live.length === 0
      ? " No account of this request is left live."
      : ` Left live, checked against the listing: ${named.join("; ")}; ${later}.`;
  return new SeriesFailed(`${why}.${done}${rest}`, deleted, live);
}
