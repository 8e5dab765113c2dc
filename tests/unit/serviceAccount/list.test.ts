/**
 * Paging of a listing (provider/paging.ts, the provider protocol's `List`) and ServiceAccount's listed objects
 * (provider/serviceAccount/list.ts), without a network: pages by size, a limit over the whole enumeration,
 * continuations that start after the last id sent, refused when made up or given back with another query; one object
 * per account, its id the import's form, never a key's value.
 */
import * as fc from "fast-check";
import type { ListedObject } from "../../../provider/capabilities";
import { pageOf } from "../../../provider/paging";
import { parseImportId } from "../../../provider/serviceAccount/adopt";
import { listedAccounts, listedProject } from "../../../provider/serviceAccount/list";

const objects = (n: number): ListedObject[] =>
  Array.from({ length: n }, (_, i) => ({ id: `p-1/sa-${String(i).padStart(3, "0")}`, name: `n${i}` })).reverse();

/** Every page, following continuations. */
function walk(all: ListedObject[], inputs: Record<string, unknown>, page: { limit?: number; pageSize?: number }) {
  const pages: ListedObject[][] = [];
  let continuation: string | undefined;
  do {
    const p = pageOf(all, inputs, { ...page, continuation });
    pages.push(p.items);
    continuation = p.continuation;
    if (pages.length > 1000) throw new Error("no end");
  } while (continuation !== undefined);
  return pages;
}

describe("pageOf", () => {
  test("no page size and no limit: everything at once, ordered by id, no continuation", () => {
    const p = pageOf(objects(25), {}, {});
    expect(p.items.map((o) => o.id)).toEqual(
      objects(25)
        .map((o) => o.id)
        .sort(),
    );
    expect(p.continuation).toBeUndefined();
    expect(pageOf([], {}, {})).toEqual({ items: [] });
  });

  test("pages of a size, then the rest; a limit caps them all; 0 and negatives mean none", () => {
    expect(walk(objects(25), {}, { pageSize: 10 }).map((p) => p.length)).toEqual([10, 10, 5]);
    expect(walk(objects(25), {}, { pageSize: 5, limit: 12 }).map((p) => p.length)).toEqual([5, 5, 2]);
    expect(walk(objects(25), {}, { limit: 10 }).map((p) => p.length)).toEqual([10]);
    expect(walk(objects(20), {}, { pageSize: 10 }).map((p) => p.length)).toEqual([10, 10]);
    expect(walk(objects(7), {}, { pageSize: 0, limit: -3 }).map((p) => p.length)).toEqual([7]);
  });

  test("every page size and limit: each object at most once, in order, and exactly min(limit, all)", () => {
    fc.assert(
      fc.property(fc.nat(40), fc.nat(12), fc.integer({ min: -2, max: 45 }), (n, pageSize, limit) => {
        const pages = walk(objects(n), { projectId: "p-1" }, { pageSize, limit });
        const ids = pages.flat().map((o) => o.id);
        expect(ids).toEqual(
          objects(n)
            .map((o) => o.id)
            .sort()
            .slice(0, limit >= 1 ? limit : undefined),
        );
        if (pageSize >= 1) expect(pages.every((p) => p.length <= pageSize)).toBe(true);
      }),
    );
  });

  test("the next page starts after the last id sent: objects made or deleted in between move nothing", () => {
    const all = objects(10);
    const first = pageOf(all, {}, { pageSize: 4 });
    const later = [...all.filter((o) => o.id !== first.items[0].id), { id: "p-1/sa-0035", name: "new" }];
    const second = pageOf(later, {}, { pageSize: 4, continuation: first.continuation });
    expect(second.items.map((o) => o.id)).toEqual(["p-1/sa-0035", "p-1/sa-004", "p-1/sa-005", "p-1/sa-006"]);
  });

  test("a continuation made up, or given back with another query, is refused", () => {
    const first = pageOf(objects(10), { projectId: "p-1" }, { pageSize: 4 });
    expect(() => pageOf(objects(10), { projectId: "p-2" }, { continuation: first.continuation })).toThrow(
      "pulumi-pims: the continuation token was given for another query: list again from the start",
    );
    for (const bad of ["x", Buffer.from('{"after":1}').toString("base64url"), Buffer.from("[]").toString("base64url")])
      expect(() => pageOf(objects(10), {}, { continuation: bad })).toThrow(/is not one pims gave/);
  });

  test("the continuation carries no value of the query, only its digest", () => {
    const { continuation } = pageOf(objects(10), { projectId: "p-secret-project" }, { pageSize: 4 });
    expect(Buffer.from(continuation as string, "base64url").toString("utf8")).not.toContain("p-secret-project");
  });
});

describe("ServiceAccount's listed objects", () => {
  const key = (principalId: string | null, name: string, createdAt: string, apiKey: string) => ({
    id: `key-${name}-${createdAt}`,
    name,
    status: "active",
    createdAt,
    expiresAt: "never",
    principalId,
    apiKey,
  });

  test("one per account (its oldest key's name), keys of no account left out, ids as the import takes them", () => {
    const keys = [
      key("sa-b", "second key", "2026-01-02T00:00:00Z", "pims_secret_value_000000000001"),
      key("sa-b", "deployer", "2026-01-01T00:00:00Z", "pims_secret_value_000000000002"),
      key("sa-a", "ci", "2026-01-03T00:00:00Z", "pims_secret_value_000000000003"),
      key(null, "a user's key", "2026-01-03T00:00:00Z", "pims_secret_value_000000000004"),
    ];
    const listed = listedAccounts("p-1", keys);
    expect(listed).toEqual([
      { id: "p-1/sa-a", name: "ci" },
      { id: "p-1/sa-b", name: "deployer" },
    ]);
    expect(listed.map((o) => parseImportId(o.id))).toEqual([
      { projectId: "p-1", accountId: "sa-a" },
      { projectId: "p-1", accountId: "sa-b" },
    ]);
    expect(JSON.stringify(listed)).not.toMatch(/pims_secret_value/);
  });

  test("the project is required: a missing, blank or non-string projectId is refused naming it", () => {
    expect(listedProject({ projectId: "p-1" })).toBe("p-1");
    expect(() => listedProject({})).toThrow("pulumi-pims: listing service accounts: projectId is required");
    expect(() => listedProject({ projectId: " " })).toThrow("projectId must not be empty");
    expect(() => listedProject({ projectId: 3 })).toThrow("projectId must be a string (got number)");
  });
});
