/**
 * The pieces of import and adoption that need no service (provider/serviceAccount/adopt.ts, cli/importFile.ts) and the
 * plugin's member-by-member diff of AppSecrets (provider/plugin/lifecycle.ts diffResponse): the id form, the lifetime
 * read from a key, what an import's outputs and inputs hold, whether a key as a listing shows it could be a given
 * token and which states are imports from a file's outputs still to prove (issue 55, row 6), the import file's names,
 * and the detailed diff's paths.
 */
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import { importFile } from "../../../cli/importFile";
import { UNKNOWN } from "../../../provider/checks";
import type { ApiKey } from "../../../provider/client";
import { diffResponse } from "../../../provider/plugin/lifecycle";
import {
  adoptedOutputs,
  expiresInOf,
  importedFromOutputs,
  importedInputs,
  keyShows,
  parseImportId,
} from "../../../provider/serviceAccount/adopt";

const key = (over: Partial<ApiKey> = {}): ApiKey => ({
  id: "tok-1",
  name: "ci",
  description: "",
  apiKey: "pims_...abcd",
  projectId: "p-1",
  principalId: "sa-1",
  source: "service_account",
  status: "active",
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
  expiresAt: "2026-01-31T00:00:00.000Z",
  ...over,
});

describe("import ids and what a key tells", () => {
  test("the id is <projectId>/<serviceAccountId>; anything else is refused with the form", () => {
    expect(parseImportId("p-1/sa-1")).toEqual({ projectId: "p-1", accountId: "sa-1" });
    for (const bad of ["sa-1", "p-1/", "/sa-1", "p-1/sa-1/x", " p-1/sa-1", ""])
      expect(() => parseImportId(bad)).toThrow(/the import id is <projectId>\/<serviceAccountId>/);
  });

  test("expiresIn: 0 for never, the seconds from creation to expiry, nothing beyond a year or before creation", () => {
    expect(expiresInOf(key({ expiresAt: "never" }))).toBe(0);
    expect(expiresInOf(key())).toBe(30 * 86_400);
    expect(expiresInOf(key({ expiresAt: "2026-01-01T00:00:10.400Z" }))).toBe(10);
    expect(expiresInOf(key({ expiresAt: "2028-01-01T00:00:00.000Z" }))).toBeUndefined();
    expect(expiresInOf(key({ expiresAt: "2025-12-31T00:00:00.000Z" }))).toBeUndefined();
    expect(expiresInOf(key({ expiresAt: "soon" }))).toBeUndefined();
  });

  test("an import holds what the key tells, no token, and names what it could not read", () => {
    const o = adoptedOutputs(key({ expiresAt: "2028-01-01T00:00:00.000Z" }), "p-1", undefined);
    expect(o).toMatchObject({ serviceAccountId: "sa-1", tokenId: "tok-1", token: "", tokenHeld: false });
    expect(o.unreadInputs).toEqual(["grants", "expiresIn"]);
    expect(importedInputs(o)).toEqual({ projectId: "p-1", name: "ci" }); // no description "", no guessed lifetime
    const adopted = adoptedOutputs(key(), "p-1", "the-token", {
      projectId: "p-1",
      name: "ci",
      grants: ["p-1"],
      expiresIn: 60,
    });
    expect(adopted).toMatchObject({ grants: ["p-1"], expiresIn: 60, token: "the-token", tokenHeld: true });
    expect(adopted.unreadInputs).toBeUndefined();
  });
});

describe("a token the user gives (issue 55, row 6)", () => {
  const token = "pims_sa_0123456789abcdef0123456789abcdef0123abcd";

  test("a key matches by what its mask leaves (head and at least 4 characters of tail), or whole", () => {
    expect(keyShows("pims_...abcd", token)).toBe(true);
    expect(keyShows("pims_sa_****abcd", token)).toBe(true);
    expect(keyShows("pims_…abcd", token)).toBe(true);
    expect(keyShows("pims_...abce", token)).toBe(false);
    expect(keyShows("other_...abcd", token)).toBe(false);
    expect(keyShows(token, token)).toBe(true);
    expect(keyShows(`${token}x`, token)).toBe(false);
    // too little to tell: nothing, a short tail, a short unmasked value
    for (const v of [undefined, "", "pims_...bcd", "short"]) expect(keyShows(v, token)).toBeUndefined();
  });

  test("an import from a file's outputs is proven once: an import-form id and no createdByUserId or tokenId", () => {
    expect(importedFromOutputs("p-1/sa-1", { projectId: "p-1", token: token })).toBe(true);
    expect(importedFromOutputs("p-1/sa-1", { createdByUserId: "", tokenId: "tok-1" })).toBe(false); // proven
    expect(importedFromOutputs("sa-1", { projectId: "p-1" })).toBe(false); // pims' own ids are account ids
    expect(importedFromOutputs("p-1/sa-1", undefined)).toBe(false);
  });
});

describe("pims service-accounts import-file", () => {
  test("names from the accounts' names: safe, unique, never starting with a digit; the project as parent", () => {
    const accounts = [
      { id: "sa-1", name: "ci deployer" },
      { id: "sa-2", name: "ci deployer" },
      { id: "sa-3", name: "9lives" },
      { id: "sa-4", name: "app" },
      { id: "sa-5", name: "!!!" },
    ];
    expect(importFile("p-1", accounts, "app").resources).toEqual([
      { type: "pims:index:Project", name: "app", id: "p-1" },
      { type: "pims:index:ServiceAccount", name: "ci-deployer", id: "p-1/sa-1", parent: "app" },
      { type: "pims:index:ServiceAccount", name: "ci-deployer-2", id: "p-1/sa-2", parent: "app" },
      { type: "pims:index:ServiceAccount", name: "sa-9lives", id: "p-1/sa-3", parent: "app" },
      { type: "pims:index:ServiceAccount", name: "app-2", id: "p-1/sa-4", parent: "app" },
      { type: "pims:index:ServiceAccount", name: "account", id: "p-1/sa-5", parent: "app" },
    ]);
  });
});

describe("the plugin's detailed diff of a map shown by member", () => {
  const K = provproto.PropertyDiff.Kind;
  const detailed = (olds: object, news: object, replaces: string[] = []): Record<string, number | undefined> => {
    const d = diffResponse({ changes: true, replaces }, olds as never, news as never, Object.keys(olds), ["secrets"]);
    return Object.fromEntries(d.getDiffsList().map((k) => [k, d.getDetaileddiffMap().get(k)?.getKind()]));
  };

  test("each added, changed and removed name is its own path; a name that is no identifier is quoted", () => {
    expect(detailed({ secrets: { A: "1", B: "2", "x-y": "3" } }, { secrets: { A: "1", B: "9", C: "4" } })).toEqual({
      "secrets.B": K.UPDATE,
      "secrets.C": K.ADD,
      'secrets["x-y"]': K.DELETE,
    });
  });

  test("a map unknown at preview is shown whole; beside a replacement its members still are", () => {
    expect(detailed({ secrets: { A: "1" } }, { secrets: UNKNOWN })).toEqual({ secrets: K.UPDATE });
    expect(detailed({ secrets: { A: "1" }, appId: "a" }, { secrets: { A: "2" }, appId: "b" }, ["appId"])).toEqual({
      appId: K.UPDATE_REPLACE,
      "secrets.A": K.UPDATE,
    });
    expect(detailed({ secrets: { A: "1" } }, { secrets: { A: UNKNOWN } })).toEqual({ "secrets.A": K.UPDATE });
  });
});
