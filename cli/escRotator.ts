/**
 * `pims esc-rotator serve`: the Pulumi ESC adapter (provider/escRotator) as a long-running HTTPS service, the URLs an
 * environment's `fn::rotate::external` (docs/esc-rotation.md) and `fn::open::external` (docs/esc-short-lived-tokens.md)
 * call; the token's audience tells the two routes apart, so any path serves both. HTTPS with `--cert` and `--key`;
 * plain HTTP only on a loopback address, or with `--insecure-http` behind a proxy that terminates TLS. The adapter's
 * own settings come from the flags, else the environment (`PIMS_ESC_*`); its pims credential only from `PIMS_TOKEN` and
 * `PIMS_BASE_URL`. One log line per request on stderr, never a token: a body over the limit, one not complete within
 * the deadline and a client that goes away each get theirs. Stops on SIGINT or SIGTERM.
 */
import * as fs from "node:fs";
import * as http from "node:http";
import * as https from "node:https";
import type { AddressInfo } from "node:net";
import type { Command } from "commander";
import { isLoopbackHost } from "../provider/client/baseUrl";
import { createEscRotator, logLine, type EscRotator } from "../provider/escRotator";
import { ESC_DEFAULTS, escRotatorSettings, SETTINGS } from "../provider/settings";
import { EXIT_OK, io, type Runner } from "./context";
import { intOption, UsageError } from "./format";

/** Largest body read: ESC's `{request, state}` is a few hundred bytes. */
export const MAX_BODY_BYTES = 64 * 1024;

interface ServeOptions {
  host: string;
  port: number;
  cert?: string;
  key?: string;
  insecureHttp?: boolean;
  jwksUrl?: string;
  issuer?: string;
  audience?: string;
  openAudience?: string;
  allow?: string;
  maxTtl?: string;
  maxLeases?: string;
}

/** Why a body was not read: too large (413), not complete within the deadline (408), or the client went away. */
type Unread = { status: 413 | 408; message: string } | { status: 0; message: string };

/** Reads the whole body (at most {@link MAX_BODY_BYTES}, within `deadlineMs`), or why it was not read. */
function readBody(req: http.IncomingMessage, deadlineMs: number): Promise<Buffer | Unread> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (v: Buffer | Unread): void => {
      clearTimeout(timer);
      resolve(v);
    };
    const timer = setTimeout(
      () => done({ status: 408, message: `the body was not complete within ${deadlineMs / 1000} s` }),
      deadlineMs,
    );
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY_BYTES) chunks.push(c);
      else done({ status: 413, message: `the body exceeds ${MAX_BODY_BYTES} bytes` });
    });
    req.on("end", () => done(Buffer.concat(chunks)));
    const gone = (): void => done({ status: 0, message: "the client went away before its body was complete" });
    req.on("error", gone);
    req.on("close", () => !req.complete && gone());
  });
}

/** The request listener: the exact body bytes and the headers to the adapter, its status and JSON back. */
function listener(rotator: EscRotator, deadlineMs: number): http.RequestListener {
  return (req, res) => {
    const started = Date.now();
    const send = (status: number, body: unknown, headers: Record<string, string> = {}): void => {
      res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store", ...headers });
      res.end(JSON.stringify(body));
    };
    void (async () => {
      const body = await readBody(req, deadlineMs);
      if (!Buffer.isBuffer(body)) {
        // Answered without the adapter (nothing was verified): one line, as for every request.
        io.err(`${logLine({}, `${body.status || "no answer"}: ${body.message}`, Date.now() - started)}\n`);
        if (body.status !== 0) {
          // The rest of a body too large or too slow is not read: the connection closes once the answer is out.
          res.once("finish", () => req.socket.destroy());
          send(body.status, { message: body.message }, { connection: "close" });
        }
        return;
      }
      const answer = await rotator.handle(req.method ?? "", req.headers, body);
      send(answer.status, answer.body, answer.headers);
    })().catch((e: unknown) => {
      // The adapter answers every failure it knows; this is a bug or a broken connection, logged without the body.
      io.err(`pims esc-rotator: internal error: ${e instanceof Error ? e.message : String(e)}\n`);
      if (!res.headersSent) send(500, { message: "internal error" });
    });
  };
}

async function serve(o: ServeOptions): Promise<number> {
  if ((o.cert === undefined) !== (o.key === undefined)) throw new UsageError("--cert and --key go together");
  const tls = o.cert !== undefined && o.key !== undefined;
  if (!tls && !o.insecureHttp && !isLoopbackHost(o.host))
    throw new UsageError(
      `plain HTTP on ${o.host} would carry tokens unencrypted: give --cert and --key, or --insecure-http when a ` +
        "proxy in front terminates TLS",
    );
  const flags = {
    escJwksUrl: o.jwksUrl,
    escIssuer: o.issuer,
    escAudience: o.audience,
    escOpenAudience: o.openAudience,
    escAllow: o.allow,
    escMaxTtl: o.maxTtl,
    escMaxLeases: o.maxLeases,
  };
  const rotator = createEscRotator({ log: (line) => io.err(`${line}\n`) }, flags);
  const deadlineMs = escRotatorSettings(flags).settings.escBodyDeadlineMs ?? ESC_DEFAULTS.bodyDeadlineMs;
  const handle = listener(rotator, deadlineMs);
  const server =
    o.cert !== undefined && o.key !== undefined
      ? https.createServer({ cert: fs.readFileSync(o.cert), key: fs.readFileSync(o.key) }, handle)
      : http.createServer(handle);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port, o.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const host = o.host.includes(":") ? `[${o.host}]` : o.host;
  io.err(`pims esc-rotator: listening on ${tls ? "https" : "http"}://${host}:${port}\n`);
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      server.close(() => resolve());
      server.closeIdleConnections();
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  return EXIT_OK;
}

export function addEscRotatorCommands(program: Command, run: Runner): void {
  const group = program
    .command("esc-rotator")
    .description(
      "the Pulumi ESC adapter: rotations for fn::rotate::external (docs/esc-rotation.md), short-lived tokens for " +
        "fn::open::external (docs/esc-short-lived-tokens.md)",
    );
  group
    .command("serve")
    .description("serve the adapter: HTTPS with --cert and --key (plain HTTP only on loopback or with --insecure-http)")
    .option("--host <address>", "address to listen on", "127.0.0.1")
    .option("--port <n>", "port to listen on (0: any free one)", intOption("--port", 0, 65535), 8443)
    .option("--cert <file>", "TLS certificate (PEM)")
    .option("--key <file>", "TLS private key (PEM)")
    .option("--insecure-http", "serve plain HTTP on a non-loopback address (a proxy in front terminates TLS)")
    .option(
      "--jwks-url <url>",
      `Pulumi Cloud's signing keys (default: $${SETTINGS.escJwksUrl.env}, else Pulumi Cloud's)`,
    )
    .option("--issuer <iss>", `the accepted token issuer (default: $${SETTINGS.escIssuer.env}, else Pulumi Cloud)`)
    .option(
      "--audience <url>",
      `the rotation route's URL as fn::rotate::external writes it (default: $${SETTINGS.escAudience.env})`,
    )
    .option(
      "--open-audience <url>",
      `the open route's URL as fn::open::external writes it (default: $${SETTINGS.escOpenAudience.env})`,
    )
    .option(
      "--max-ttl <seconds>",
      `the longest lease an open may ask for, in seconds (default: $${SETTINGS.escMaxTtl.env}, else docs/settings.md)`,
    )
    .option(
      "--max-leases <n>",
      `the most live leases of one series (default: $${SETTINGS.escMaxLeases.env}, else docs/settings.md)`,
    )
    .option(
      "--allow <list>",
      `organizations and org/project/env served, comma-separated (default: $${SETTINGS.escAllow.env})`,
    )
    .action((o: ServeOptions) => run(serve(o)));
}
