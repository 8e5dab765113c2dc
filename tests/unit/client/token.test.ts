/**
 * Reading the one-time token of a create-service-account answer under every plausible layout (member names, case
 * styles, nesting, expiry forms), refusing ambiguous ones, and never putting a secret into an error text. The
 * client is driven through its `adapter` option (an injected transport: no network).
 */
import type { AxiosAdapter } from "axios";
import fc from "fast-check";
import * as util from "node:util";
import {
  normalizeExpiry,
  PimsClient,
  readExpiry,
  PimsError,
  readServiceAccountToken,
  UnreadableTokenError,
} from "../../../provider/client";
import { rejectionOf } from "../../kit/rejection";

const SECRET = "pims_sa_0123456789abcdefSECRET";
const OTHER = "pims_sa_fedcba9876543210OTHER";
const REQUEST = { name: "ci", grants: ["p-1"], expiresIn: 3600 };

/** A client whose transport answers every request with `status` and the JSON of `body`. */
function clientAnswering(body: unknown, status = 201): PimsClient {
  const adapter: AxiosAdapter = async (config) => ({
    data: JSON.stringify(body),
    status,
    statusText: "",
    headers: {},
    config,
  });
  return new PimsClient({
    baseUrl: "http://pims.invalid",
    token: "the_callers_bearer_token_0123",
    retries: 0,
    adapter,
  });
}

const account = (extra: Record<string, unknown>): Record<string, unknown> => ({
  id: "sa-1",
  name: "ci",
  projectId: "p-1",
  grants: ["p-1"],
  ...extra,
});

describe("readServiceAccountToken: layouts that carry one secret", () => {
  const E = "2030-01-01T00:00:00Z";
  it.each<[string, Record<string, unknown>, { id: string; expiresAt: string }]>([
    [
      "documented-looking { id, secret, expiresAt }",
      { token: { id: "t-1", secret: SECRET, expiresAt: E } },
      { id: "t-1", expiresAt: E },
    ],
    [
      "{ value, expires_at, token_id }",
      { token: { token_id: "t-1", value: SECRET, expires_at: E } },
      { id: "t-1", expiresAt: E },
    ],
    ["{ token } inside token", { token: { id: "t-1", token: SECRET, expiry: E } }, { id: "t-1", expiresAt: E }],
    ["{ key, expiration }", { token: { id: "t-1", key: SECRET, expiration: E } }, { id: "t-1", expiresAt: E }],
    [
      "{ accessToken, expiresAt as epoch seconds }",
      { token: { tokenId: "t-1", accessToken: SECRET, expiresAt: 1893456000 } },
      { id: "t-1", expiresAt: E.replace("Z", ".000Z") },
    ],
    [
      "{ access_token, expires as epoch ms }",
      { token: { id: "t-1", access_token: SECRET, expires: 1893456000000 } },
      { id: "t-1", expiresAt: "2030-01-01T00:00:00.000Z" },
    ],
    [
      "{ ACCESS-TOKEN, Valid-Until }",
      { token: { "ACCESS-TOKEN": SECRET, "Valid-Until": E } },
      { id: "", expiresAt: E },
    ],
    [
      "{ jwt, expirationDate: never }",
      { token: { id: "t-1", jwt: SECRET, expirationDate: "never" } },
      { id: "t-1", expiresAt: "never" },
    ],
    [
      "{ plaintext, validUntil: null }",
      { token: { id: "t-1", plaintext: SECRET, validUntil: null } },
      { id: "t-1", expiresAt: "" },
    ],
    [
      "{ bearerToken, expiresAt: 0 }",
      { token: { id: "t-1", bearerToken: SECRET, expiresAt: 0 } },
      { id: "t-1", expiresAt: "never" },
    ],
    [
      "{ apiToken, expiresAt: numeric string seconds }",
      { token: { id: "t-1", apiToken: SECRET, expiresAt: "1893456000" } },
      { id: "t-1", expiresAt: "2030-01-01T00:00:00.000Z" },
    ],
    ["{ Secret, NEVER }", { token: { Secret: SECRET, ExpiresAt: "NEVER" } }, { id: "", expiresAt: "never" }],
    [
      "the secret twice under two names (same value)",
      { token: { id: "t-1", secret: SECRET, value: SECRET } },
      { id: "t-1", expiresAt: "" },
    ],
    [
      "nested { accessToken: { value } }",
      { token: { id: "t-1", accessToken: { value: SECRET, expiresAt: E } } },
      { id: "t-1", expiresAt: "" },
    ],
    ["a plain string under token", { token: SECRET, tokenId: "t-1", tokenExpiresAt: E }, { id: "t-1", expiresAt: E }],
    ["a plain string with white space", { token: ` ${SECRET}\n` }, { id: "", expiresAt: "" }],
    [
      "no token object: the account carries accessToken",
      { accessToken: SECRET, expires_at: E },
      { id: "", expiresAt: E },
    ],
    ["token: null and the account carries secret", { token: null, secret: SECRET }, { id: "", expiresAt: "" }],
    [
      "a token object without secret; the account carries it",
      { token: { id: "t-1", expiresAt: E }, secret: SECRET },
      { id: "t-1", expiresAt: E },
    ],
    ["initialToken instead of token", { initialToken: { id: "t-1", secret: SECRET } }, { id: "t-1", expiresAt: "" }],
  ])("%s", (_name, extra, expected) => {
    const r = readServiceAccountToken(account(extra));
    expect(r.token).toEqual({ secret: SECRET, ...expected });
  });
});

describe("readServiceAccountToken: unreadable layouts", () => {
  it.each<[string, Record<string, unknown>, string[]]>([
    ["two different secrets", { token: { id: "t-1", secret: SECRET, value: OTHER } }, ["id", "secret", "value"]],
    ["an unknown member name", { token: { id: "t-1", credentialBlob: SECRET } }, ["id", "credentialBlob"]],
    ["only an id", { token: { id: "t-1" } }, ["id"]],
    ["an empty secret", { token: { id: "t-1", secret: "  " } }, ["id", "secret"]],
    ["a number as secret", { token: { id: "t-1", secret: 12345678 } }, ["id", "secret"]],
    ["no token at all", {}, []],
    ["token null, nothing on the account", { token: null }, []],
    ["two secrets on the account itself", { accessToken: SECRET, secret: OTHER }, []],
  ])("%s", (_name, extra, members) => {
    const r = readServiceAccountToken(account(extra));
    expect(r.token).toBeUndefined();
    expect(r.members).toEqual(members);
  });

  it("never takes an account field for the secret", () => {
    expect(
      readServiceAccountToken({ id: "sa-1", name: "token-like-name-0123", description: "a secret description" }).token,
    ).toBeUndefined();
  });
});

describe("normalizeExpiry", () => {
  it.each<[unknown, string]>([
    ["2030-01-01T00:00:00Z", "2030-01-01T00:00:00Z"],
    ["2030-01-01T00:00:00.123+02:00", "2030-01-01T00:00:00.123+02:00"],
    ["never", "never"],
    [" Never ", "never"],
    [0, "never"],
    ["0", "never"],
    [1893456000, "2030-01-01T00:00:00.000Z"],
    [1893456000000, "2030-01-01T00:00:00.000Z"],
    ["1893456000", "2030-01-01T00:00:00.000Z"],
    ["1893456000000", "2030-01-01T00:00:00.000Z"],
    [1893456000.5, "2030-01-01T00:00:00.500Z"],
    ["Tue, 01 Jan 2030 00:00:00 GMT", "2030-01-01T00:00:00.000Z"],
    [null, ""],
    [undefined, ""],
    ["", ""],
    [-5, ""],
    ["2030-01-01", ""],
    ["2030-01-01T00:00:00", ""],
    ["soon", ""],
    [true, ""],
    [{}, ""],
    [Number.NaN, ""],
  ])("%j → %j", (input, out) => expect(normalizeExpiry(input)).toBe(out));
});

describe("readExpiry: the one expiry parser (getApiKeys, pims tokens, the rotation window)", () => {
  const at = Date.UTC(2030, 0, 1);
  it.each<[unknown, boolean, number | null]>([
    ["2030-01-01T00:00:00Z", false, at],
    ["2030-01-01T02:00:00+02:00", false, at],
    [1893456000, false, at],
    ["1893456000000", false, at],
    ["never", true, null],
    [0, true, null],
    ["next tuesday", false, null],
    [null, false, null],
  ])("%j: never %j, epoch ms %j", (input, never, epochMs) => {
    expect(readExpiry(input)).toMatchObject({ never, epochMs });
  });
});

describe("createServiceAccount with other layouts (through the transport)", () => {
  it.each([200, 201, 202])("any 2xx is success: %i", async (status) => {
    const sa = await clientAnswering(
      account({ token: { id: "t-1", access_token: SECRET, expires_at: 1893456000 } }),
      status,
    ).createServiceAccount("p-1", REQUEST);
    expect(sa).toMatchObject({
      id: "sa-1",
      token: { id: "t-1", secret: SECRET, expiresAt: "2030-01-01T00:00:00.000Z" },
    });
  });

  it("an account id without a readable secret: UnreadableTokenError with the member names, no value", async () => {
    const err = await rejectionOf(
      clientAnswering(account({ token: { tokenId: "t-1", secret: SECRET, value: OTHER } })).createServiceAccount(
        "p-1",
        REQUEST,
      ),
      UnreadableTokenError,
    );
    expect(err).toMatchObject({
      accountId: "sa-1",
      members: ["tokenId", "secret", "value"],
      status: 201,
      url: "http://pims.invalid/v2/projects/p-1/service-accounts",
    });
    expect(err.message).toContain('members of its token object: "tokenId", "secret", "value"; values not shown');
    expect(err.message).toContain("The account exists and its token is lost");
    for (const text of [err.message, String(err), err.stack ?? "", util.inspect(err), JSON.stringify(err)]) {
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(OTHER);
    }
  });

  it("no token object: the message names the account's members instead", async () => {
    const err = await rejectionOf(
      clientAnswering({ id: "sa-1", name: "ci", credentialBlob: SECRET }).createServiceAccount("p-1", REQUEST),
      UnreadableTokenError,
    );
    expect(err.members).toEqual([]);
    expect(err.message).toContain('no token object; members of the account: "id", "name", "credentialBlob"');
    expect(err.message).not.toContain(SECRET);
  });

  it("no account id: an ambiguous PimsError with the 2xx status, not UnreadableTokenError", async () => {
    const err = await rejectionOf(
      clientAnswering({ name: "ci", token: { weird: SECRET } }, 200).createServiceAccount("p-1", REQUEST),
      PimsError,
    );
    expect(err).not.toBeInstanceOf(UnreadableTokenError);
    expect(err.status).toBe(200);
    expect(err.message).not.toContain(SECRET);
  });
});

describe("property: a secret never reaches an error text", () => {
  const memberName = fc.constantFrom(
    "secret",
    "value",
    "token",
    "key",
    "accessToken",
    "access_token",
    "JWT",
    "blob",
    "data",
    "credential_blob",
    "x",
  );
  const secret = fc.string({ minLength: 8, maxLength: 40 }).filter((s) => s.trim().length >= 8 && !/["\\]/.test(s));
  it("whatever layout and values the token object has, an unreadable answer never quotes a value", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(memberName, secret, { minKeys: 0, maxKeys: 5 }),
        fc.boolean(),
        async (tokenObject, withId) => {
          const body = withId ? account({ token: tokenObject }) : { name: "ci", token: tokenObject };
          let err: unknown;
          try {
            await clientAnswering(body).createServiceAccount("p-1", REQUEST);
            return; // a readable layout: nothing to check
          } catch (e) {
            err = e;
          }
          expect(err).toBeInstanceOf(PimsError);
          const e = err as PimsError;
          for (const value of Object.values(tokenObject)) {
            for (const text of [e.message, String(e), e.stack ?? "", util.inspect(e), JSON.stringify(e)])
              expect(text).not.toContain(value.trim());
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
