/**
 * Pulumi ESC as the rotation adapter sees it: a caller with its own RSA keys and a JWKS served on loopback, sending
 * `POST` with the documented body (`{"request", "state"}`), `Content-Type: application/json` and `Authorization:
 * Bearer <JWT>` signed RS256 with the documented claims, `body_hash` included. Keys and signing are `jose`'s; the test
 * certificate for `pims esc-rotator serve` is `selfsigned`'s.
 */
import * as crypto from "node:crypto";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT, type JWTPayload, type KeyLike } from "jose";
import { generate } from "selfsigned";

/** What one test sends: the claims it changes, the key and key id it signs with, a body other than the one signed. */
export interface CallOptions {
  claims?: Record<string, unknown>;
  /** Sign with the stranger's key (same key id as the JWKS's: a forged signature). */
  forged?: boolean;
  /** Sign naming this key id (one the JWKS does not hold). */
  kid?: string;
  /** Send these bytes instead of the body whose hash the token names (a tampered body). */
  sentBody?: Buffer;
}

/** A request as ESC sends it. */
export interface EscRequest {
  headers: Record<string, string>;
  body: Buffer;
}

/** The caller: its keys, its JWKS on loopback (with a count of the fetches), and the requests it signs. */
export class EscCaller {
  readonly issuer = "https://api.pulumi.test";
  readonly audience = "https://rotator.example.test/rotate";
  readonly org = "acme";
  readonly environment = "acme/app/prod";
  /** GET requests the JWKS answered. */
  jwksFetches = 0;

  private constructor(
    private readonly key: KeyLike,
    private readonly strangerKey: KeyLike,
    private readonly server: http.Server,
  ) {}

  /** New keys (one published, one a stranger's) and the JWKS served on 127.0.0.1. */
  static async start(): Promise<EscCaller> {
    const [mine, stranger] = await Promise.all([generateKeyPair("RS256"), generateKeyPair("RS256")]);
    const jwk = { ...(await exportJWK(mine.publicKey)), kid: "k1", alg: "RS256", use: "sig" };
    const server = http.createServer((_req, res) => {
      caller.jwksFetches++;
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys: [jwk] }));
    });
    const caller = new EscCaller(mine.privateKey, stranger.privateKey, server);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    return caller;
  }

  get jwksUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/oidc/.well-known/jwks`;
  }

  /** The claims ESC documents, for `body`, each overridable. */
  claims(body: Buffer, extra: Record<string, unknown> = {}): JWTPayload {
    const now = Math.floor(Date.now() / 1000);
    return {
      iss: this.issuer,
      sub: `pulumi:environments:org:${this.org}:env:app/prod`,
      aud: this.audience,
      iat: now,
      exp: now + 300,
      jti: crypto.randomUUID(),
      org: this.org,
      env: "app/prod",
      current_env: this.environment,
      root_env: this.environment,
      trigger_user: "alice",
      body_hash: `sha256-${crypto.createHash("sha256").update(body).digest("base64")}`,
      ...extra,
    };
  }

  /** A signed request carrying `{request, state}`. */
  async request(request: unknown, state: unknown, o: CallOptions = {}): Promise<EscRequest> {
    const body = Buffer.from(JSON.stringify({ request, state }));
    const jwt = await new SignJWT(this.claims(body, o.claims))
      .setProtectedHeader({ alg: "RS256", kid: o.kid ?? "k1", typ: "JWT" })
      .sign(o.forged ? this.strangerKey : this.key);
    return {
      headers: { "content-type": "application/json", authorization: `Bearer ${jwt}` },
      body: o.sentBody ?? body,
    };
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

/** A certificate and key for 127.0.0.1 and localhost (PEM), made in the test. */
export async function testCertificate(): Promise<{ cert: string; key: string }> {
  const pems = await generate([{ name: "commonName", value: "localhost" }], {
    keySize: 2048,
    algorithm: "sha256",
    extensions: [
      { name: "basicConstraints", cA: true },
      {
        name: "subjectAltName",
        altNames: [
          { type: 2, value: "localhost" },
          { type: 7, ip: "127.0.0.1" },
        ],
      },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}
