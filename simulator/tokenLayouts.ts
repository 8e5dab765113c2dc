/**
 * Layouts of the `token` object in the answer of `POST /v2/projects/{project_id}/service-accounts`. The service's
 * documentation says the object carries the token's id, secret and expiry, and names none of its members, nor the
 * expiry's form: each layout here is one plausible answer. The secret is always a working bearer token.
 */
import { NEVER } from "./accounts";
import { randomHex, seededRandom } from "./util";

/** How a finite expiry is written. */
export type ExpiryForm = "rfc3339" | "epochSeconds" | "epochMillis";
/** How "never expires" is written: the literal `never`, null, no member at all, or 0. */
export type NeverForm = "never" | "null" | "absent" | "zero";

export interface TokenLayout {
  name: TokenLayoutName;
  /** Member holding the secret; undefined: the token is the secret itself, as a plain string. */
  secret?: string;
  id?: { member: string; numeric?: boolean };
  expiry?: { member: string; finite: ExpiryForm; never: NeverForm };
  /**
   * Forcible only, never chosen by round robin or at random: `twoSecrets` carries the working secret under `token`
   * and a decoy of the same form under `secret`; `hashOnly` carries only a hash of the secret.
   */
  unreadable?: "twoSecrets" | "hashOnly";
}

export const READABLE_TOKEN_LAYOUT_NAMES = [
  "accessToken",
  "access_token",
  "jwt",
  "plaintext",
  "value",
  "secret",
  "key",
  "token",
  "AccessToken",
  "ACCESS_TOKEN",
  "string",
] as const;
export const UNREADABLE_TOKEN_LAYOUT_NAMES = ["twoSecrets", "hashOnly"] as const;

/** `default` is the layout of the default profile: `{ id, secret, expiresAt }` with RFC 3339 or `never`. */
export type TokenLayoutName =
  "default" | (typeof READABLE_TOKEN_LAYOUT_NAMES)[number] | (typeof UNREADABLE_TOKEN_LAYOUT_NAMES)[number];

/** A fixed layout, one after another over the readable ones (`roundRobin`), or drawn from a seeded PRNG (`random`). */
export type TokenLayoutMode = TokenLayoutName | "roundRobin" | "random";

const expiry = (member: string, finite: ExpiryForm, never: NeverForm) => ({ member, finite, never });

export const TOKEN_LAYOUTS: Readonly<Record<TokenLayoutName, TokenLayout>> = {
  default: { name: "default", secret: "secret", id: { member: "id" }, expiry: expiry("expiresAt", "rfc3339", "never") },
  accessToken: {
    name: "accessToken",
    secret: "accessToken",
    id: { member: "tokenId" },
    expiry: expiry("expiresAt", "epochSeconds", "zero"),
  },
  access_token: {
    name: "access_token",
    secret: "access_token",
    id: { member: "token_id" },
    expiry: expiry("expires_at", "rfc3339", "null"),
  },
  jwt: { name: "jwt", secret: "jwt", id: { member: "id" }, expiry: expiry("expiry", "epochMillis", "absent") },
  plaintext: {
    name: "plaintext",
    secret: "plaintext",
    id: { member: "id" },
    expiry: expiry("expiration", "rfc3339", "never"),
  },
  value: {
    name: "value",
    secret: "value",
    id: { member: "tokenId", numeric: true },
    expiry: expiry("validUntil", "epochSeconds", "null"),
  },
  secret: {
    name: "secret",
    secret: "secret",
    id: { member: "token_id" },
    expiry: expiry("expiresAt", "epochMillis", "zero"),
  },
  key: { name: "key", secret: "key", id: { member: "id" }, expiry: expiry("expires_at", "rfc3339", "absent") },
  token: { name: "token", secret: "token", id: { member: "id" }, expiry: expiry("expiresAt", "rfc3339", "never") },
  AccessToken: {
    name: "AccessToken",
    secret: "AccessToken",
    id: { member: "TokenId" },
    expiry: expiry("ExpiresAt", "rfc3339", "null"),
  },
  ACCESS_TOKEN: {
    name: "ACCESS_TOKEN",
    secret: "ACCESS_TOKEN",
    id: { member: "TOKEN_ID" },
    expiry: expiry("EXPIRES_AT", "epochSeconds", "zero"),
  },
  string: { name: "string" },
  twoSecrets: {
    name: "twoSecrets",
    secret: "token",
    id: { member: "id" },
    expiry: expiry("expiresAt", "rfc3339", "never"),
    unreadable: "twoSecrets",
  },
  hashOnly: {
    name: "hashOnly",
    id: { member: "id" },
    expiry: expiry("expiresAt", "rfc3339", "never"),
    unreadable: "hashOnly",
  },
};

export function isTokenLayoutMode(value: string): value is TokenLayoutMode {
  return value === "roundRobin" || value === "random" || Object.prototype.hasOwnProperty.call(TOKEN_LAYOUTS, value);
}

/** The token as the simulator holds it. */
export interface HeldToken {
  id: string;
  secret: string;
  /** RFC 3339 or `never`. */
  expiresAt: string;
}

function writeExpiry(layout: TokenLayout, expiresAt: string, out: Record<string, unknown>): void {
  if (!layout.expiry) return;
  const { member, finite, never } = layout.expiry;
  if (expiresAt === NEVER) {
    if (never !== "absent") out[member] = never === "never" ? NEVER : never === "null" ? null : 0;
    return;
  }
  const ms = Date.parse(expiresAt);
  out[member] = finite === "rfc3339" ? expiresAt : finite === "epochMillis" ? ms : Math.floor(ms / 1000);
}

/**
 * The `token` member of a creation answer in a layout. `extras` are members no documentation mentions (added to an
 * object, never to a plain string); `decoy` is the second secret-looking string of the `twoSecrets` layout.
 */
export function renderToken(
  layout: TokenLayout,
  token: HeldToken,
  extras: Record<string, unknown> = {},
  decoy?: string,
): unknown {
  if (layout.secret === undefined && layout.unreadable === undefined) return token.secret;
  const out: Record<string, unknown> = {};
  if (layout.id) out[layout.id.member] = layout.id.numeric ? Number(token.id) : token.id;
  if (layout.unreadable === "hashOnly") out.hash = `sha256:${randomHex(64)}`;
  if (layout.unreadable === "twoSecrets") out.secret = decoy ?? `pims_sa_${randomHex(40)}`;
  if (layout.secret !== undefined) out[layout.secret] = token.secret;
  writeExpiry(layout, token.expiresAt, out);
  return { ...out, ...extras };
}

/** Chooses the layout of each new account and remembers it. */
export class TokenLayoutPicker {
  private next = 0;
  private random: () => number;
  private readonly byAccount = new Map<string, TokenLayoutName>();

  constructor(
    private mode: TokenLayoutMode,
    seed = 1,
  ) {
    this.random = seededRandom(seed);
  }

  setMode(mode: TokenLayoutMode, seed?: number): void {
    this.mode = mode;
    this.next = 0;
    if (seed !== undefined) this.random = seededRandom(seed);
  }

  pick(): TokenLayout {
    const names = READABLE_TOKEN_LAYOUT_NAMES;
    if (this.mode === "roundRobin") return TOKEN_LAYOUTS[names[this.next++ % names.length]];
    if (this.mode === "random") return TOKEN_LAYOUTS[names[Math.floor(this.random() * names.length)]];
    return TOKEN_LAYOUTS[this.mode];
  }

  remember(accountId: string, layout: TokenLayout): void {
    this.byAccount.set(accountId, layout.name);
  }

  layoutOf(accountId: string): TokenLayoutName | undefined {
    return this.byAccount.get(accountId);
  }
}
