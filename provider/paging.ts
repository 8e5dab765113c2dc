/**
 * Paging of a listing (the provider protocol's `List`, ./capabilities `Listable`), for kinds whose service answers a
 * listing whole (one GET gives every object): the objects ordered by id, cut to the page asked for. The continuation
 * is opaque to the caller: the last id sent and how many were sent, so the next page starts after that id (objects
 * made or deleted between two pages move nothing) and `limit` caps the whole enumeration, as the protocol says; it
 * carries a digest of the query, so a continuation given back with another query is refused, not misread.
 */
import * as crypto from "node:crypto";
import type { ListedObject, ListPage, ListPageRequest } from "./capabilities";

/** What a continuation carries. */
interface Cursor {
  /** The last id sent. */
  after: string;
  /** How many objects were sent before this page, all pages together. */
  sent: number;
  /** The query's digest. */
  query: string;
}

/** A short digest of the query's inputs, in a stable order (never the values themselves). */
function queryDigest(inputs: Record<string, unknown>): string {
  const stable = JSON.stringify(
    Object.keys(inputs)
      .sort()
      .map((k) => [k, inputs[k]]),
  );
  return crypto.createHash("sha256").update(stable).digest("hex").slice(0, 16);
}

const encode = (c: Cursor): string => Buffer.from(JSON.stringify(c)).toString("base64url");

/** The cursor of a continuation, or an error saying it is not one this provider gave for this query. */
function decode(token: string, query: string): Cursor {
  let c: Partial<Cursor> | undefined;
  try {
    c = JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as Partial<Cursor>;
  } catch {
    c = undefined;
  }
  const valid =
    typeof c === "object" &&
    c !== null &&
    typeof c.after === "string" &&
    typeof c.sent === "number" &&
    Number.isSafeInteger(c.sent) &&
    c.sent >= 0 &&
    typeof c.query === "string";
  if (!valid) throw new Error(`pulumi-pims: the continuation token ${JSON.stringify(token)} is not one pims gave`);
  if (c?.query !== query)
    throw new Error("pulumi-pims: the continuation token was given for another query: list again from the start");
  return c as Cursor;
}

/** A positive whole number, or none (0, negative or missing: no bound, as the protocol says). */
const bound = (n: number | undefined): number =>
  n !== undefined && Number.isFinite(n) && n >= 1 ? Math.floor(n) : Infinity;

/**
 * The page `page` asks for of `objects` (any order; ids unique) listed for `inputs`: at most `pageSize`, and no more
 * than `limit` minus what earlier pages sent; a continuation while objects remain and the limit is not reached.
 */
export function pageOf(
  objects: readonly ListedObject[],
  inputs: Record<string, unknown>,
  page: ListPageRequest,
): ListPage {
  const query = queryDigest(inputs);
  const cursor = page.continuation ? decode(page.continuation, query) : undefined;
  const sorted = [...objects].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const rest = cursor === undefined ? sorted : sorted.filter((o) => o.id > cursor.after);
  const sent = cursor?.sent ?? 0;
  const room = Math.max(0, bound(page.limit) - sent);
  const items = rest.slice(0, Math.min(room, bound(page.pageSize)));
  const more = items.length < rest.length && sent + items.length < bound(page.limit) && items.length > 0;
  if (!more) return { items };
  const last = items[items.length - 1];
  return { items, continuation: encode({ after: last.id, sent: sent + items.length, query }) };
}
