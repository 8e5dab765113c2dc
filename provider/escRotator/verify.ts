/**
 * Verifying a request the way Pulumi ESC signs it, before the adapter does anything else. ESC's contract for
 * `fn::rotate::external` (https://www.pulumi.com/docs/esc/integrations/rotated-secrets/external) and its JWT
 * authentication (https://www.pulumi.com/docs/esc/integrations/dynamic-secrets/external): `Authorization: Bearer
 * <JWT>`, signed RS256 by Pulumi Cloud with a key of its public JWKS; claims `iss`, `aud` (the adapter's URL as the
 * environment writes it), `exp`, `iat`, `jti` (unique), `org`, `current_env` (`org/project/env`), `trigger_user`, and
 * `body_hash` = `sha256-` + base64 of the SHA-256 of the exact body bytes.
 *
 * All signature and key work is the `jose` library's: `createRemoteJWKSet` caches the key set, fetches it again when a
 * token names a key id it does not hold, and at most once per cooldown (so a stream of unknown key ids cannot make the
 * adapter hammer the JWKS address). A refusal says why in the log line, never the token.
 */
import * as crypto from "node:crypto";
import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTPayload } from "jose";
import type { Route } from "./series";
/** Most `jti`s remembered at once; a token seen when the cache is full is refused (a flood cannot evict one). */
const MAX_REMEMBERED_JTIS = 100_000;
/** Clock skew tolerated on `exp` and `iat`, in seconds. */
const CLOCK_TOLERANCE_S = 30;

/** What verification needs: the JWKS address, the accepted issuer, each route's audience, the allow-list. */
export interface VerifierOptions {
  jwksUrl: string;
  issuer: string;
  /** The `aud` of each route served: the URL its ESC function names (a route without one is not served). */
  audiences: Partial<Record<Route, string>>;
  /** Entries `org` (every environment of the organization) or `org/project/env` (one environment). */
  allow: readonly string[];
  /** Seconds between two fetches of the JWKS for an unknown key id (jose's cooldown). Default 30. */
  jwksCooldownS?: number;
  /** Now, in ms since the epoch (tests move it). Default `Date.now`. */
  now?: () => number;
}

/** The verified caller: what the log line and the series marker use. */
export interface Caller {
  /** The route the token's audience names: a rotation or an open. */
  route: Route;
  org: string;
  /** `org/project/env`: the environment that declares the rotated value. */
  environment: string;
  triggerUser: string;
  jti: string;
}

/** A refused request: always 401, with the reason for the log line (never shown to the caller beyond a word). */
export class Refusal extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = "Refusal";
  }
}

/** `sha256-` + base64 of the SHA-256 of `body`: ESC's `body_hash`. */
export const bodyHash = (body: Uint8Array): string =>
  `sha256-${crypto.createHash("sha256").update(body).digest("base64")}`;

const claimText = (p: JWTPayload, name: string): string => {
  const v = p[name];
  if (typeof v !== "string" || v === "") throw new Refusal(`the token has no ${name} claim`);
  return v;
};

/** Verifies tokens; one per adapter (it holds the key set's cache and the `jti`s seen). */
export class Verifier {
  private readonly keys: ReturnType<typeof createRemoteJWKSet>;
  private readonly seen = new Map<string, number>();
  private swept = 0;
  private readonly now: () => number;

  constructor(private readonly o: VerifierOptions) {
    this.now = o.now ?? Date.now;
    const cooldown = (o.jwksCooldownS ?? 30) * 1000;
    this.keys = createRemoteJWKSet(new URL(o.jwksUrl), { cooldownDuration: cooldown, timeoutDuration: 5000 });
  }

  /**
   * The caller of a request, or a {@link Refusal}: bearer token, signature (RS256 only) with a key of the JWKS, `iss`,
   * `aud` (one route's audience: the route), `exp`, `iat`, `body_hash` over `body`, the allow-list, then `jti`
   * (remembered until the token expires).
   */
  async verify(authorization: string | undefined, body: Uint8Array): Promise<Caller> {
    const m = /^Bearer ([A-Za-z0-9_.-]+)$/.exec(authorization?.trim() ?? "");
    if (!m) throw new Refusal("no bearer token in Authorization");
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(m[1], this.keys, {
        algorithms: ["RS256"],
        issuer: this.o.issuer,
        audience: Object.values(this.o.audiences).filter((a): a is string => typeof a === "string"),
        clockTolerance: CLOCK_TOLERANCE_S,
        currentDate: new Date(this.now()),
        requiredClaims: ["exp", "iat", "jti"],
      }));
    } catch (e) {
      throw new Refusal(joseReason(e));
    }
    if ((payload.iat ?? 0) * 1000 > this.now() + CLOCK_TOLERANCE_S * 1000)
      throw new Refusal("the token was issued in the future");
    const hash = claimText(payload, "body_hash");
    if (!timingSafeEqualText(hash, bodyHash(body))) throw new Refusal("body_hash differs from the body's hash");
    const auds = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
    const routes = (Object.keys(this.o.audiences) as Route[]).filter(
      (r) => this.o.audiences[r] !== undefined && auds.includes(this.o.audiences[r]),
    );
    if (routes.length !== 1) throw new Refusal(`aud names ${routes.length === 0 ? "no" : "more than one"} route`);
    const caller: Caller = {
      route: routes[0],
      org: claimText(payload, "org"),
      environment: claimText(payload, "current_env"),
      triggerUser: typeof payload.trigger_user === "string" ? payload.trigger_user : "",
      jti: claimText(payload, "jti"),
    };
    // `org/project/env`; the docs' claims table also shows the older `org/env` form.
    const parts = caller.environment.split("/");
    if (parts[0] !== caller.org || parts.length < 2 || parts.length > 3 || parts.some((x) => x === ""))
      throw new Refusal(
        `current_env ${JSON.stringify(caller.environment)} is not org/project/env of org ${caller.org}`,
      );
    if (!allowed(this.o.allow, caller)) throw new Refusal(`environment ${caller.environment} is not on the allow-list`);
    this.remember(caller.jti, (payload.exp ?? 0) * 1000);
    return caller;
  }

  /** Records a `jti` until `expMs` (plus the tolerance); one seen before and not yet expired is a replay. */
  private remember(jti: string, expMs: number): void {
    const now = this.now();
    // Expired entries are swept at most once a second, not on every request (the map holds up to 100,000).
    if (now - this.swept >= 1000) {
      this.swept = now;
      for (const [k, until] of this.seen) if (until < now) this.seen.delete(k);
    }
    const until = this.seen.get(jti);
    if (until !== undefined && until >= now) throw new Refusal("jti seen before (a replayed request)");
    if (this.seen.size >= MAX_REMEMBERED_JTIS) throw new Refusal("too many requests in flight to remember their jti");
    this.seen.set(jti, expMs + CLOCK_TOLERANCE_S * 1000);
  }
}

/** An allow-list entry names the organization, or the exact `org/project/env`. */
export function allowed(allow: readonly string[], caller: Pick<Caller, "org" | "environment">): boolean {
  return allow.some((entry) => entry === caller.org || entry === caller.environment);
}

function timingSafeEqualText(a: string, b: string): boolean {
  const [x, y] = [Buffer.from(a), Buffer.from(b)];
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}

/** A short reason for a jose error (its code: which check failed), never the token. */
function joseReason(e: unknown): string {
  if (e instanceof joseErrors.JWKSNoMatchingKey) return "no key of the JWKS matches the token's key id";
  if (e instanceof joseErrors.JWTExpired) return "the token has expired";
  if (e instanceof joseErrors.JWTClaimValidationFailed) return `claim ${e.claim} is not accepted (${e.reason})`;
  if (e instanceof joseErrors.JWSSignatureVerificationFailed) return "the signature does not verify";
  if (e instanceof joseErrors.JOSEError) return `${e.code}: ${e.message}`;
  return `the token could not be verified: ${e instanceof Error ? e.message : String(e)}`;
}
