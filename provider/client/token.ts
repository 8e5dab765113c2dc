/**
 * Reading the one-time token out of a `POST /v2/projects/{project_id}/service-accounts` answer. The service's docs
 * say only that the account carries a `token` object with an id, a secret and an expiry: not the member names, not
 * the expiry's form. Clients in the wild have met the secret under many names and the expiry as RFC 3339, epoch
 * seconds or milliseconds, `never`, 0 or null, so every plausible layout is read, and only an unambiguous one:
 * two different candidate secrets are as unreadable as none (picking one could store a token that does not work).
 */
import * as crypto from "node:crypto";
import type { ServiceAccountToken } from "./types";
import { isPlainObject, isRfc3339 } from "./values";

/** A member name as compared: lower case, without `_` and `-` (`access_token`, `Access-Token`, `accessToken` alike). */
export const memberKey = (name: string): string => name.toLowerCase().replace(/[_-]/g, "");

/** Names of a member holding the token object (or the token as a plain string) inside the account. */
const CONTAINER_NAMES = new Set([
  "token",
  "initialtoken",
  "accounttoken",
  "serviceaccounttoken",
  "tokeninfo",
  "tokendata",
  "credentials",
  "credential",
]);

/** Names under which a bearer secret has been seen. */
const SECRET_NAMES = new Set([
  "token",
  "secret",
  "value",
  "key",
  "accesstoken",
  "jwt",
  "plaintext",
  "plaintexttoken",
  "bearertoken",
  "bearer",
  "apitoken",
  "apikey",
  "authtoken",
  "tokenvalue",
  "tokensecret",
  "secretvalue",
  "secrettoken",
  "secretkey",
  "accesskey",
  "rawtoken",
  "fulltoken",
  "idtoken",
  "servicetoken",
  "serviceaccounttoken",
]);

/** Names of the token's expiry. */
const EXPIRY_NAMES = new Set([
  "expiresat",
  "expiry",
  "expires",
  "expiration",
  "expirationdate",
  "expirationtime",
  "expirydate",
  "expirytime",
  "expiredate",
  "expireat",
  "expiretime",
  "expiresutc",
  "validuntil",
  "validto",
  "notafter",
  "tokenexpiresat",
  "tokenexpiry",
  "tokenexpiration",
]);

/** Names of the token's own id (in the token object; in the account object only the token-specific ones). */
const TOKEN_ID_NAMES = ["id", "tokenid", "keyid", "tokenuuid", "uuid"];
const ACCOUNT_TOKEN_ID_NAMES = ["tokenid", "keyid", "tokenuuid"];

export interface TokenReading {
  /** The token, when exactly one secret could be identified. */
  token?: ServiceAccountToken;
  /** Member names seen in the token object (names only: never a value); empty when there was no token object. */
  members: string[];
  /** Whether the account carried a token member at all (object or string). */
  hadTokenMember: boolean;
}

/**
 * The token of a create-service-account answer `account` (the parsed JSON object), under any plausible layout:
 * a token object (or a plain string) under `token` or a similar name, or secret members on the account itself.
 */
export function readServiceAccountToken(account: Record<string, unknown>): TokenReading {
  const container = findMember(account, CONTAINER_NAMES);
  const tokenValue = container === undefined ? undefined : account[container];
  if (typeof tokenValue === "string" && tokenValue.trim() !== "") {
    return {
      token: {
        id: tokenIdIn(account, ACCOUNT_TOKEN_ID_NAMES),
        secret: tokenValue.trim(),
        expiresAt: expiryIn(account),
      },
      members: [],
      hadTokenMember: true,
    };
  }
  if (isPlainObject(tokenValue)) {
    const members = Object.keys(tokenValue);
    const secrets = secretCandidates(tokenValue, 0);
    // An object without any secret member: maybe the account itself carries it (a flat layout with a token id object).
    const fromAccount =
      secrets.size === 0 ? secretCandidates(withoutMember(account, container), 0, false) : new Set<string>();
    const all = secrets.size > 0 ? secrets : fromAccount;
    if (all.size !== 1) return { members, hadTokenMember: true };
    const [secret] = all;
    return {
      token: {
        id: tokenIdIn(tokenValue, TOKEN_ID_NAMES) || tokenIdIn(account, ACCOUNT_TOKEN_ID_NAMES),
        secret,
        expiresAt: expiryIn(tokenValue) || expiryIn(account),
      },
      members,
      hadTokenMember: true,
    };
  }
  // No token object: secret members on the account itself (never its `id`, `name` or other account fields).
  const rest = container === undefined ? account : withoutMember(account, container);
  const secrets = secretCandidates(rest, 0, false);
  if (secrets.size !== 1) return { members: [], hadTokenMember: container !== undefined };
  const [secret] = secrets;
  return {
    token: { id: tokenIdIn(account, ACCOUNT_TOKEN_ID_NAMES), secret, expiresAt: expiryIn(account) },
    members: [],
    hadTokenMember: false,
  };
}

/**
 * The distinct non-empty strings under secret-like names, descending into secret-like or container-like objects
 * (e.g. `{ accessToken: { value: "…" } }`) up to three levels. `deep` false: only direct string members.
 */
function secretCandidates(o: Record<string, unknown>, depth: number, deep = true): Set<string> {
  const out = new Set<string>();
  for (const [name, v] of Object.entries(o)) {
    const k = memberKey(name);
    if (!SECRET_NAMES.has(k) && !CONTAINER_NAMES.has(k)) continue;
    if (typeof v === "string" && v.trim() !== "") out.add(v.trim());
    else if (deep && isPlainObject(v) && depth < 3) for (const s of secretCandidates(v, depth + 1)) out.add(s);
  }
  return out;
}

function findMember(o: Record<string, unknown>, names: ReadonlySet<string>): string | undefined {
  return Object.keys(o).find((name) => names.has(memberKey(name)) && o[name] !== null && o[name] !== undefined);
}

function withoutMember(o: Record<string, unknown>, name: string | undefined): Record<string, unknown> {
  const out = { ...o };
  if (name !== undefined) delete out[name];
  return out;
}

function tokenIdIn(o: Record<string, unknown>, names: readonly string[]): string {
  for (const [name, v] of Object.entries(o)) {
    if (!names.includes(memberKey(name))) continue;
    if (typeof v === "string" && v.trim() !== "") return v.trim();
    if (typeof v === "number" && Number.isFinite(v)) return String(v);
  }
  return "";
}

/** The first expiry member of `o` that can be read, normalized; "" when none can. */
function expiryIn(o: Record<string, unknown>): string {
  for (const [name, v] of Object.entries(o)) {
    if (!EXPIRY_NAMES.has(memberKey(name))) continue;
    const e = normalizeExpiry(v);
    if (e !== "") return e;
  }
  return "";
}

/** Epoch values at or above this are milliseconds (as seconds it would be the year 5138). */
const MS_THRESHOLD = 100_000_000_000;

/**
 * An expiry as RFC 3339, `never`, or "" when unknown. Accepts RFC 3339 (kept as sent), `never` (any case), 0 or
 * "0" (never expires, as `expiresIn` 0 means), epoch seconds or milliseconds as numbers or numeric strings, and
 * other dates `Date.parse` reads with a zone (e.g. an HTTP date). null, absent, negative or unreadable → "".
 */
export function normalizeExpiry(v: unknown): string {
  if (typeof v === "string") {
    const t = v.trim();
    if (t === "") return "";
    if (/^never$/i.test(t)) return "never";
    if (/^-?\d+(\.\d+)?$/.test(t)) return normalizeExpiry(Number(t));
    if (isRfc3339(t)) return t;
    if (!/(Z|GMT|UTC|[+-]\d{2}:?\d{2})$/i.test(t)) return ""; // no zone: the instant is unknown
    const ms = Date.parse(t);
    return Number.isFinite(ms) ? new Date(ms).toISOString() : "";
  }
  if (typeof v === "number" && Number.isFinite(v)) {
    if (v === 0) return "never";
    if (v < 0) return "";
    const ms = v >= MS_THRESHOLD ? v : v * 1000;
    const d = new Date(Math.round(ms));
    return Number.isFinite(d.getTime()) ? d.toISOString() : "";
  }
  return "";
}

/** An expiry as a time: its normalized text ({@link normalizeExpiry}), whether it never expires, and its instant. */
export interface Expiry {
  /** RFC 3339, `never`, or "" when unknown. */
  expiresAt: string;
  never: boolean;
  /** Milliseconds since the epoch; null for `never` or an expiry that cannot be read. */
  epochMs: number | null;
}

/**
 * The one expiry parser of the package (`getApiKeys`' `expiresAtEpochMs`, the CLI's `pims tokens`, a stored token's
 * rotation window): read liberally by {@link normalizeExpiry}, RFC 3339, `never`, epoch seconds or milliseconds.
 */
export function readExpiry(v: unknown): Expiry {
  const expiresAt = normalizeExpiry(v);
  const ms = expiresAt === "" || expiresAt === "never" ? NaN : Date.parse(expiresAt);
  return { expiresAt, never: expiresAt === "never", epochMs: Number.isNaN(ms) ? null : ms };
}

/** First 16 hex digits of SHA-256 of the token's UTF-8 bytes; "" for no token. Proves which token, reveals none. */
export function fingerprint(token: string | undefined): string {
  if (typeof token !== "string" || token === "") return "";
  return crypto.createHash("sha256").update(token, "utf8").digest("hex").slice(0, 16);
}
