/**
 * `pims esc-rotator serve` (the compiled CLI, a child process) over HTTPS with a certificate made in the test: issue
 * 54's acceptance table (tests/kit/esc/table.ts) and issue 64's (tests/kit/esc/openTable.ts) through the wire, each
 * instance a process of its own; what only the wire has (a body over the limit, one that stalls, a client that goes
 * away: each answered or not, and logged in one line of its own); and the plain-HTTP rule.
 */
import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as https from "node:https";
import * as os from "node:os";
import * as path from "node:path";
import { testCertificate } from "../../kit/esc/caller";
import type { EscRequest } from "../../kit/esc/caller";
import { describeEscOpenTable } from "../../kit/esc/openTable";
import type { StartTarget } from "../../kit/esc/suite";
import { describeEscTable } from "../../kit/esc/table";
import { ROOT } from "../../kit/sim/cli";
import { connect as tlsConnect } from "node:tls";
import { MAX_BODY_BYTES } from "../../../cli/escRotator";
import type { PimsSimulator } from "../../../simulator";
import { EscCaller } from "../../kit/esc/caller";
import { BOUNDS } from "../../kit/esc/suite";
import { startSimulator } from "../../kit/sim/simulator";

const CLI = path.join(ROOT, "bin", "cli", "pims.js");
const NODE_BIN = path.join(ROOT, "node_modules", ".bin", "node");
const NODE = fs.existsSync(NODE_BIN) ? NODE_BIN : process.execPath;

/** Starts `pims esc-rotator serve` with `args` and `env`; resolves with its address once it listens. */
async function startServe(
  args: string[],
  env: Record<string, string>,
): Promise<{ child: ChildProcess; url: string; output: () => string; exited: Promise<number | null> }> {
  const child = spawn(NODE, [CLI, "esc-rotator", "serve", ...args], {
    env: { PATH: process.env.PATH ?? "", HOME: os.tmpdir(), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let text = "";
  const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const look = (d: Buffer): void => {
      text += d.toString();
      const m = /listening on (\S+)/.exec(text);
      if (m) resolve(m[1]);
    };
    child.stderr?.on("data", look);
    child.stdout?.on("data", look);
    void exited.then((code) => reject(new Error(`serve exited (${code}) before listening:\n${text}`)));
  });
  return { child, url, output: () => text, exited };
}

let dir: string;
let tls: { cert: string; key: string };
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "esc-serve-"));
  tls = await testCertificate();
  fs.writeFileSync(path.join(dir, "cert.pem"), tls.cert);
  fs.writeFileSync(path.join(dir, "key.pem"), tls.key, { mode: 0o600 });
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A POST of `r` to `url` over HTTPS trusting the test certificate: status, headers, JSON body. */
function post(url: string, r: EscRequest): ReturnType<Awaited<ReturnType<StartTarget>>["send"]> {
  return new Promise((resolve, reject) => {
    const req = https.request(url, { method: "POST", headers: r.headers, ca: tls.cert }, (res) => {
      let text = "";
      res.on("data", (d: Buffer) => (text += d.toString()));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          body: JSON.parse(text) as Record<string, unknown>,
          headers: Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k, String(v)])),
        }),
      );
    });
    req.on("error", reject);
    req.end(r.body);
  });
}

/** `pims esc-rotator serve` for a suite's simulator and caller; every call starts a process of its own. */
const served =
  (extraEnv: Record<string, string> = {}): StartTarget =>
  async ({ sim, caller, allow, bounds }) => {
    const s = await startServe(
      ["--port", "0", "--cert", path.join(dir, "cert.pem"), "--key", path.join(dir, "key.pem")],
      {
        PIMS_TOKEN: sim.token,
        PIMS_BASE_URL: sim.baseUrl,
        PIMS_RETRY_MIN_DELAY_MS: "10",
        PIMS_MAX_RETRIES: "1",
        PIMS_LOST_CREATE_WATCH_MS: "200",
        PIMS_ESC_JWKS_URL: caller.jwksUrl,
        PIMS_ESC_ISSUER: caller.issuer,
        PIMS_ESC_AUDIENCE: caller.audience,
        PIMS_ESC_OPEN_AUDIENCE: caller.openAudience,
        PIMS_ESC_MAX_TTL: String(bounds.maxTtl),
        PIMS_ESC_MAX_LEASES: String(bounds.maxLeases),
        PIMS_ESC_ALLOW: allow.join(","),
        ...extraEnv,
      },
    );
    expect(s.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    let closed = false;
    return {
      // The path does not choose the route (the token's audience does): ESC's two URLs may share a host and path.
      send: (r) => post(`${s.url}/esc`, r),
      logs: s.output,
      url: s.url,
      close: async () => {
        if (closed) return;
        closed = true;
        s.child.kill("SIGTERM");
        expect(await s.exited).toBe(0);
      },
    };
  };

describeEscTable("pims esc-rotator serve over HTTPS", served());
describeEscOpenTable("pims esc-rotator serve over HTTPS: opens", served());

describe("pims esc-rotator serve: what only the wire has, each with a line of its own", () => {
  const DEADLINE_MS = 400;
  let sim: PimsSimulator;
  let caller: EscCaller;
  let target: Awaited<ReturnType<StartTarget>> & { url?: string };
  beforeAll(async () => {
    sim = await startSimulator();
    caller = await EscCaller.start();
    target = await served({ PIMS_ESC_BODY_DEADLINE_MS: String(DEADLINE_MS) })({
      sim,
      caller,
      allow: ["acme"],
      bounds: BOUNDS,
    });
  });
  afterAll(async () => {
    await target?.close();
    await caller?.close();
    await sim?.stop();
  });
  const lines = (): string[] =>
    target
      .logs()
      .split("\n")
      .filter((l) => l.startsWith("pims esc-rotator:"));
  /** Waits until the log has `n` more lines than `before` (the server logs after it answers). */
  const newLine = async (before: number): Promise<string> => {
    for (let i = 0; i < 100 && lines().length <= before; i++) await new Promise((r) => setTimeout(r, 20));
    return lines()[before] ?? "(no line)";
  };
  /** Sends `head` and `chunks` over a raw TLS socket; resolves with what came back before the socket closed. */
  const raw = (chunks: Buffer[], o: { end?: boolean; destroyAfterMs?: number } = {}): Promise<string> =>
    new Promise((resolve) => {
      const { port } = new URL(target.url ?? "");
      const sock = tlsConnect({ host: "127.0.0.1", port: Number(port), ca: tls.cert, servername: "localhost" }, () => {
        for (const c of chunks) sock.write(c);
        if (o.end) sock.end();
        if (o.destroyAfterMs !== undefined) setTimeout(() => sock.destroy(), o.destroyAfterMs);
      });
      let text = "";
      sock.on("data", (d: Buffer) => (text += d.toString()));
      sock.on("close", () => resolve(text));
      sock.on("error", () => undefined);
    });
  const head = (length: number) =>
    Buffer.from(
      `POST /esc HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`,
    );

  test("a body over the limit: 413 and one line", async () => {
    const before = lines().length;
    const big = Buffer.alloc(MAX_BODY_BYTES + 1, 0x20);
    const answer = await raw([head(big.length), big]);
    expect(answer).toMatch(/^HTTP\/1\.1 413/);
    expect(await newLine(before)).toMatch(/\(unverified\) · 413: the body exceeds 65536 bytes in \d+ ms$/);
  });

  test("a body that stalls: 408 once the deadline passes, and one line", async () => {
    const before = lines().length;
    const answer = await raw([head(100), Buffer.from('{"request":')]);
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(await newLine(before)).toMatch(/408: the body was not complete within 0\.4 s in \d+ ms$/);
  });

  test("a client that goes away mid-body: no answer to give, one line naming it (not an internal error)", async () => {
    const before = lines().length;
    await raw([head(100), Buffer.from('{"request":')], { destroyAfterMs: 50 });
    expect(await newLine(before)).toMatch(/no answer: the client went away before its body was complete/);
    expect(target.logs()).not.toContain("internal error");
  });
});

describe("pims esc-rotator serve refuses plain HTTP", () => {
  test("on a non-loopback address without --insecure-http: a usage error, nothing served", async () => {
    const child = spawn(NODE, [CLI, "esc-rotator", "serve", "--host", "0.0.0.0", "--port", "0"], {
      env: { PATH: process.env.PATH ?? "", PIMS_ESC_AUDIENCE: "https://x.test", PIMS_ESC_ALLOW: "acme" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let err = "";
    child.stderr?.on("data", (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((r) => child.on("exit", r));
    expect(code).toBe(2);
    expect(err).toContain("--cert and --key");
  });
});
