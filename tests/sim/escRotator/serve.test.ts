/**
 * `pims esc-rotator serve` (the compiled CLI, a child process) over HTTPS with a certificate made in the test: issue
 * 54's acceptance table (tests/kit/esc/table.ts) through the wire; what only the wire has (a body over the limit, one
 * that stalls, a client that goes away: each answered or not, and logged in one line of its own); and the plain-HTTP
 * rule.
 */
import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as https from "node:https";
import * as os from "node:os";
import * as path from "node:path";
import { testCertificate } from "../../kit/esc/caller";
import { describeEscTable } from "../../kit/esc/table";
import { ROOT } from "../../kit/sim/cli";
import { connect as tlsConnect } from "node:tls";
import { MAX_BODY_BYTES } from "../../../cli/escRotator";

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

describeEscTable("pims esc-rotator serve over HTTPS", async ({ sim, caller, allow }) => {
  const served = await startServe(
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
      PIMS_ESC_ALLOW: allow.join(","),
    },
  );
  expect(served.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  return {
    send: (r) =>
      new Promise((resolve, reject) => {
        const req = https.request(
          `${served.url}/rotate`,
          { method: "POST", headers: r.headers, ca: tls.cert },
          (res) => {
            let text = "";
            res.on("data", (d: Buffer) => (text += d.toString()));
            res.on("end", () =>
              resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> }),
            );
          },
        );
        req.on("error", reject);
        req.end(r.body);
      }),
    logs: served.output,
    close: async () => {
      served.child.kill("SIGTERM");
      expect(await served.exited).toBe(0);
    },
  };
});

describe("pims esc-rotator serve: what only the wire has, each with a line of its own", () => {
  let served: Awaited<ReturnType<typeof startServe>>;
  beforeAll(async () => {
    served = await startServe(
      ["--port", "0", "--cert", path.join(dir, "cert.pem"), "--key", path.join(dir, "key.pem")],
      {
        PIMS_TOKEN: "pims_sa_not_used",
        PIMS_BASE_URL: "http://127.0.0.1:9",
        PIMS_ESC_JWKS_URL: "http://127.0.0.1:9/jwks",
        PIMS_ESC_AUDIENCE: "https://rotator.example.test/rotate",
        PIMS_ESC_ALLOW: "acme",
        PIMS_ESC_BODY_DEADLINE_MS: "400",
      },
    );
  });
  afterAll(async () => {
    served.child.kill("SIGTERM");
    expect(await served.exited).toBe(0);
  });
  const lines = (): string[] =>
    served
      .output()
      .split("\n")
      .filter((l) => l.startsWith("pims esc-rotator:") && !l.includes("listening on"));
  /** Waits until the log has a line more than `before` (the server logs after it answers). */
  const newLine = async (before: number): Promise<string> => {
    for (let i = 0; i < 100 && lines().length <= before; i++) await new Promise((r) => setTimeout(r, 20));
    return lines()[before] ?? "(no line)";
  };
  /** Writes `chunks` on a raw TLS connection; resolves with what came back before the connection closed. */
  const raw = (chunks: Buffer[], destroyAfterMs?: number): Promise<string> =>
    new Promise((resolve) => {
      const { port } = new URL(served.url);
      const sock = tlsConnect({ host: "127.0.0.1", port: Number(port), ca: tls.cert, servername: "localhost" }, () => {
        for (const c of chunks) sock.write(c);
        if (destroyAfterMs !== undefined) setTimeout(() => sock.destroy(), destroyAfterMs);
      });
      let text = "";
      sock.on("data", (d: Buffer) => (text += d.toString()));
      sock.on("close", () => resolve(text));
      sock.on("error", () => undefined);
    });
  const head = (length: number): Buffer =>
    Buffer.from(
      `POST /rotate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`,
    );

  test("a body over the limit: 413 and one line", async () => {
    const before = lines().length;
    const big = Buffer.alloc(MAX_BODY_BYTES + 1, 0x20);
    expect(await raw([head(big.length), big])).toMatch(/^HTTP\/1\.1 413/);
    expect(await newLine(before)).toMatch(/\(unverified\) · 413: the body exceeds 65536 bytes in \d+ ms$/);
  });

  test("a body that stalls: 408 once the deadline passes, and one line", async () => {
    const before = lines().length;
    expect(await raw([head(100), Buffer.from('{"request":')])).toMatch(/^HTTP\/1\.1 408/);
    expect(await newLine(before)).toMatch(/408: the body was not complete within 0\.4 s in \d+ ms$/);
  });

  test("a client that goes away mid-body: no answer to give, one line naming it (not an internal error)", async () => {
    const before = lines().length;
    await raw([head(100), Buffer.from('{"request":')], 50);
    expect(await newLine(before)).toMatch(/no answer: the client went away before its body was complete/);
    expect(served.output()).not.toContain("internal error");
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
