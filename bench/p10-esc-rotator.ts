/**
 * P10: the Pulumi ESC adapter (issues 54 and 64), in the adapter's own time: `createEscRotator(...).handle` of the
 * compiled package called in-process (no HTTP, no TLS handshake: those are the caller's), each request ÷ the bare
 * service calls its protocol needs (raw axios), against a simulator in its own process, measured in the same run:
 * - (a) a rotation (`fn::rotate::external`: the JWT verified against a JWKS on loopback, the body parsed, then GET the
 *   project's API keys, POST create, DELETE the account before the kept one) ÷ bare GET listing + POST create +
 *   DELETE, the listing of a project holding as many accounts as the rotation's series (2);
 * - (b) an open (`fn::open::external`: verified, parsed, GET the listing, POST create) ÷ bare GET listing + POST
 *   create, each in a project of its own whose new account is deleted after each call (not timed), so every open
 *   finds its series empty and deletes nothing, as the first open of a series does;
 * - (c) the verification of one request: `handle` of a signed rotation whose `request` is malformed (verified, then
 *   refused with 400 before any call), in ms (÷ the rotation's bare calls beside it).
 * The requests each of (a) and (b) sends are counted before the timing (3 and 2; else the bench throws). The timed
 * variants alternate, the order flipped every iteration; the ratios are of the medians, and the CPU time of this
 * process per call (the adapter's work, or axios') is in the log line and `raw`. Signing a request is the caller's
 * (ESC's) work and is not timed. Goals: ≤ 1.2 for (a) and (b); (c) informative.
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
const OPEN_AUDIENCE = "https://rotator.bench.test/open";
const ISSUER = "https://api.pulumi.bench";
const GOAL = 1.2;
/** The projects: the rotation's series, its bare calls', the opens' and their bare calls'. */
const [ROTATED, BARE_ROTATED, OPENED, BARE_OPENED] = ["p-bench0010", "p-bench0011", "p-bench0012", "p-bench0013"];

export async function p10(o: BenchOptions): Promise<Row[]> {
  const [iterations, warmup] = o.quick ? [20, 5] : [150, 20];
  const sim = await startSimProcess({ projects: [ROTATED, BARE_ROTATED, OPENED, BARE_OPENED] });
  const keys = await generateKeyPair("RS256");
  const jwk = { ...(await exportJWK(keys.publicKey)), kid: "k1", alg: "RS256" };
  const jwks = http.createServer((_q, s) => s.writeHead(200).end(JSON.stringify({ keys: [jwk] })));
  await new Promise<void>((r) => jwks.listen(0, "127.0.0.1", r));
  try {
    const { createEscRotator } = require(path.join(REPO, "bin", "provider", "escRotator")) as EscModule;
    const { PimsClient } = require(path.join(REPO, "bin", "provider", "client")) as ClientModule;
    const adapter = createEscRotator({
      client: new PimsClient({ baseUrl: sim.baseUrl, token: sim.token }),
      jwksUrl: `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks`,
      issuer: ISSUER,
      audience: AUDIENCE,
      openAudience: OPEN_AUDIENCE,
      allow: ["bench"],
      log: () => undefined,
    });
    /** A request as ESC sends it: the body's bytes and a JWT over them for `aud`. Not timed. */
    const sign = async (aud: string, payload: unknown) => {
      const body = Buffer.from(JSON.stringify(payload));
      const t = Math.floor(Date.now() / 1000);
      const jwt = await new SignJWT({
        iss: ISSUER,
        aud,
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
    const headers = { Authorization: `Bearer ${sim.token}`, "Content-Type": "application/json" };
    const accounts = (p: string) => `${sim.baseUrl}/v2/projects/${p}/service-accounts`;
    const listing = (p: string) => axios.get(`${sim.baseUrl}/v2/projects/${p}/api-keys`, { headers });
    const account = (p: string, name: string, expiresIn: number) => ({ projectId: p, name, grants: [p], expiresIn });
    const createBare = (p: string, name: string, expiresIn: number) =>
      axios.post<{ id: string }>(accounts(p), { ...account(p, name, expiresIn), description: "" }, { headers });
    const deleteBare = (p: string, id: string) => axios.delete(`${accounts(p)}/${id}`, { headers });
    /** Wall and CPU time (this process: the adapter's work, or axios') of `f`, in ms. */
    const timed = async (f: () => Promise<unknown>): Promise<{ ms: number; cpu: number; value: unknown }> => {
      const [t0, c0] = [now(), process.cpuUsage()];
      const value = await f();
      const c = process.cpuUsage(c0);
      return { ms: now() - t0, cpu: (c.user + c.system) / 1000, value };
    };
    type Timed = { ms: number; cpu: number };

    const rotationRequest = account(ROTATED, "bench", 3600);
    let state: unknown = null;
    const rotation = async (): Promise<Timed> => {
      const r = await sign(AUDIENCE, { request: rotationRequest, state });
      const t = await timed(() => adapter.handle("POST", r.headers, r.body));
      const answer = t.value as Awaited<ReturnType<typeof adapter.handle>>;
      if (answer.status !== 200) throw new Error(`rotation answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      state = answer.body;
      return t;
    };
    const bareRotation = (): Promise<Timed> =>
      timed(async () => {
        await listing(BARE_ROTATED);
        const created = await createBare(BARE_ROTATED, "bare", 3600);
        await deleteBare(BARE_ROTATED, created.data.id);
      });
    const openRequest = { projectId: OPENED, name: "bench", grants: [OPENED], ttl: 3600 };
    /** One open; its lease is deleted afterwards (not timed), so the next open finds its series empty. */
    const openOnce = async (): Promise<Timed> => {
      const r = await sign(OPEN_AUDIENCE, openRequest);
      const t = await timed(() => adapter.handle("POST", r.headers, r.body));
      const answer = t.value as Awaited<ReturnType<typeof adapter.handle>>;
      if (answer.status !== 200) throw new Error(`open answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      await deleteBare(OPENED, (answer.body as { serviceAccountId: string }).serviceAccountId);
      return t;
    };
    const bareOpen = async (): Promise<Timed> => {
      let id = "";
      const t = await timed(async () => {
        await listing(BARE_OPENED);
        id = (await createBare(BARE_OPENED, "bare", 3600)).data.id;
      });
      await deleteBare(BARE_OPENED, id);
      return t;
    };
    const verifyOnly = async (): Promise<Timed> => {
      const r = await sign(AUDIENCE, { request: { ...rotationRequest, grants: "not a list" }, state: null });
      const t = await timed(() => adapter.handle("POST", r.headers, r.body));
      const answer = t.value as Awaited<ReturnType<typeof adapter.handle>>;
      if (answer.status !== 400) throw new Error(`the malformed request answered ${answer.status}`);
      return t;
    };

    // The bare rotation lists a project holding as many accounts as the rotated series does (the kept one and the one
    // to retire): two standing accounts.
    for (const name of ["standing-1", "standing-2"]) await createBare(BARE_ROTATED, name, 3600);
    // Self-check: each adapter call sends exactly the requests of its baseline. A rotation retires the account before
    // the kept one: from the third on, the series holds one (the first two delete nothing).
    await rotation();
    await rotation();
    const sent = async (f: () => Promise<unknown>): Promise<number> => {
      await sim.stats();
      await f();
      return (await sim.stats()).requests;
    };
    const [perRotation, perOpen] = [await sent(rotation), (await sent(openOnce)) - 1]; // less the untimed delete
    if (perRotation !== 3 || perOpen !== 2)
      throw new Error(`P10: a rotation sent ${perRotation} requests (expected 3), an open ${perOpen} (expected 2)`);

    const steps: Array<[string, () => Promise<Timed>]> = [
      ["rotation", rotation],
      ["bare rotation", bareRotation],
      ["open", openOnce],
      ["bare open", bareOpen],
      ["verification", verifyOnly],
    ];
    for (let i = 0; i < warmup; i++) for (const [, f] of steps) await f();
    const runs = new Map<string, Timed[]>(steps.map(([k]) => [k, []]));
    for (let i = 0; i < iterations; i++)
      for (const [k, f] of i % 2 === 0 ? steps : [...steps].reverse()) runs.get(k)?.push(await f());
    const ms = (k: string) => (runs.get(k) ?? []).map((t) => t.ms);
    const m = (k: string) => median(ms(k));
    const cpu = (k: string) => round(median((runs.get(k) ?? []).map((t) => t.cpu)), 3);
    const [mr, mbr, mo, mbo, mv] = [m("rotation"), m("bare rotation"), m("open"), m("bare open"), m("verification")];
    log(
      `P10: rotation ${msText(mr)} ÷ bare ${msText(mbr)}; open ${msText(mo)} ÷ bare ${msText(mbo)}; ` +
        `verification ${msText(mv)}. This process's CPU per call (median, ms): rotation ${cpu("rotation")}, bare ` +
        `${cpu("bare rotation")}; open ${cpu("open")}, bare ${cpu("bare open")}; verification ${cpu("verification")}`,
    );
    const [rr, ro] = [round(mr / mbr), round(mo / mbo)];
    return [
      {
        id: "P10",
        measure: `ESC rotation through the adapter ÷ bare GET listing + POST create + DELETE (median of ${iterations})`,
        ours: msText(mr),
        baseline: msText(mbr),
        ratio: rr,
        goal: `≤ ${GOAL}`,
        status: okOrMissed(rr <= GOAL),
        raw: {
          rotationMs: ms("rotation"),
          bareMs: ms("bare rotation"),
          cpuMs: [cpu("rotation"), cpu("bare rotation")],
        },
      },
      {
        id: "P10",
        measure: `ESC open (a lease) through the adapter ÷ bare GET listing + POST create (median of ${iterations})`,
        ours: msText(mo),
        baseline: msText(mbo),
        ratio: ro,
        goal: `≤ ${GOAL}`,
        status: okOrMissed(ro <= GOAL),
        raw: { openMs: ms("open"), bareMs: ms("bare open"), cpuMs: [cpu("open"), cpu("bare open")] },
      },
      {
        id: "P10",
        measure:
          "ESC request verification (JWT, body_hash, allow-list, jti, the body parsed) ÷ the rotation's bare calls",
        ours: msText(mv),
        baseline: msText(mbr),
        ratio: round(mv / mbr),
        goal: "—",
        status: "N/A",
        raw: { verifyMs: ms("verification"), cpuMs: cpu("verification") },
      },
    ];
  } finally {
    jwks.closeAllConnections();
    jwks.close();
    await sim.stop();
  }
}
