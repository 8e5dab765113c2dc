/**
 * P10: the Pulumi ESC rotation adapter (issue 54). (a) One rotation through the adapter (`createEscRotator(...).handle`
 * of the compiled package: the JWT verified against a JWKS on loopback, the body parsed, then POST create, GET the
 * project's API keys, DELETE the account before the kept one) ÷ the bare service calls a rotation needs (a raw axios
 * POST create and DELETE), against a simulator in its own process; the two alternate, the order flipped every
 * iteration, and the ratio is of the medians. Signing the request is the caller's (ESC's) work and is not timed.
 * (b) The verification cost per request: `handle` of a signed request whose `request` is malformed (verified, then
 * refused with 400 before any call) ÷ the same bare calls. Goals: ≤ 2.0 (the adapter makes one listing more than
 * the bare pair); (b) informative.
 */
import * as crypto from "node:crypto";
import * as http from "node:http";
import * as path from "node:path";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import {
  log,
  median,
  msText,
  now,
  okOrMissed,
  REPO,
  round,
  startSimProcess,
  type BenchOptions,
  type Row,
} from "./harness";

const axios = require("axios") as typeof import("axios").default;
type EscModule = typeof import("../provider/escRotator");
type ClientModule = typeof import("../provider/client");

const AUDIENCE = "https://rotator.bench.test/rotate";
const ISSUER = "https://api.pulumi.bench";

export async function p10(o: BenchOptions): Promise<Row[]> {
  const [iterations, warmup] = o.quick ? [20, 5] : [150, 20];
  const projectId = "p-bench0010";
  const sim = await startSimProcess({ projects: [projectId] });
  const keys = await generateKeyPair("RS256");
  const jwk = { ...(await exportJWK(keys.publicKey)), kid: "k1", alg: "RS256" };
  const jwks = http.createServer((_q, s) => s.writeHead(200).end(JSON.stringify({ keys: [jwk] })));
  await new Promise<void>((r) => jwks.listen(0, "127.0.0.1", r));
  try {
    const { createEscRotator } = require(path.join(REPO, "bin", "provider", "escRotator")) as EscModule;
    const { PimsClient } = require(path.join(REPO, "bin", "provider", "client")) as ClientModule;
    const rotator = createEscRotator({
      client: new PimsClient({ baseUrl: sim.baseUrl, token: sim.token }),
      jwksUrl: `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks`,
      issuer: ISSUER,
      audience: AUDIENCE,
      allow: ["bench"],
      log: () => undefined,
    });
    const sign = async (request: unknown, state: unknown) => {
      const body = Buffer.from(JSON.stringify({ request, state }));
      const t = Math.floor(Date.now() / 1000);
      const jwt = await new SignJWT({
        iss: ISSUER,
        aud: AUDIENCE,
        iat: t,
        exp: t + 300,
        jti: crypto.randomUUID(),
        org: "bench",
        current_env: "bench/app/prod",
        trigger_user: "bench",
        body_hash: `sha256-${crypto.createHash("sha256").update(body).digest("base64")}`,
      })
        .setProtectedHeader({ alg: "RS256", kid: "k1" })
        .sign(keys.privateKey);
      return { headers: { "content-type": "application/json", authorization: `Bearer ${jwt}` }, body };
    };
    const request = { projectId, name: "bench", grants: [projectId], expiresIn: 3600 };
    const headers = { Authorization: `Bearer ${sim.token}`, "Content-Type": "application/json" };
    const v2 = `${sim.baseUrl}/v2/projects/${projectId}/service-accounts`;
    let state: unknown = null;
    const rotation = async (): Promise<number> => {
      const r = await sign(request, state);
      const t0 = now();
      const answer = await rotator.handle("POST", r.headers, r.body);
      const ms = now() - t0;
      if (answer.status !== 200) throw new Error(`rotation answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      state = answer.body;
      return ms;
    };
    const bare = async (): Promise<number> => {
      const t0 = now();
      const created = await axios.post<{ id: string }>(v2, { ...request, name: "bare", description: "" }, { headers });
      await axios.delete(`${v2}/${created.data.id}`, { headers });
      return now() - t0;
    };
    const verifyOnly = async (): Promise<number> => {
      const r = await sign({ ...request, grants: "not a list" }, null);
      const t0 = now();
      const answer = await rotator.handle("POST", r.headers, r.body);
      const ms = now() - t0;
      if (answer.status !== 400) throw new Error(`the malformed request answered ${answer.status}`);
      return ms;
    };
    for (let i = 0; i < warmup; i++) {
      await rotation();
      await bare();
      await verifyOnly();
    }
    const [tr, tb, tv]: number[][] = [[], [], []];
    for (let i = 0; i < iterations; i++) {
      const steps: Array<[() => Promise<number>, number[]]> = [
        [rotation, tr],
        [bare, tb],
        [verifyOnly, tv],
      ];
      if (i % 2 === 1) steps.reverse();
      for (const [f, into] of steps) into.push(await f());
    }
    const [mr, mb, mv] = [median(tr), median(tb), median(tv)];
    log(`P10: rotation ${msText(mr)}, bare create+delete ${msText(mb)}, verification ${msText(mv)}`);
    const ratio = round(mr / mb);
    return [
      {
        id: "P10",
        measure: `ESC rotation through the adapter ÷ bare POST create + DELETE (median of ${iterations})`,
        ours: msText(mr),
        baseline: msText(mb),
        ratio,
        goal: "≤ 2.0",
        status: okOrMissed(ratio <= 2.0),
        raw: { rotationMs: tr, bareMs: tb },
      },
      {
        id: "P10",
        measure: "ESC request verification (JWT, body_hash, allow-list, jti) ÷ bare POST create + DELETE",
        ours: msText(mv),
        baseline: msText(mb),
        ratio: round(mv / mb),
        goal: "—",
        status: "N/A",
        raw: { verifyMs: tv },
      },
    ];
  } finally {
    jwks.closeAllConnections();
    jwks.close();
    await sim.stop();
  }
}
