/**
 * The client under test: a fast-retrying client against a simulator, the client suites' per-test hook, a tiny real
 * HTTP server on loopback for answers the simulator never gives (odd but valid shapes), every text an error shows,
 * and a seeded project with an app.
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as util from "node:util";
import { PimsClient, type AppLogLine, type AppLogsQuery, type ClientOptions } from "../../../provider/client";
import { Scheduler } from "../../../provider/client/scheduler";
import { PimsSimulator } from "../../../simulator";
import { expectNoPlaintextSecrets } from "../secrets/secrets";

/**
 * A client against the simulator with fast retries (tests must not sleep for seconds) and a request scheduler of its
 * own, silent: the pace a 429 taught one test must not slow the next.
 */
export function testClient(sim: PimsSimulator, extra: Partial<ClientOptions> = {}): PimsClient {
  const scheduler = new Scheduler({ onProgress: () => undefined });
  return new PimsClient({
    baseUrl: sim.baseUrl,
    token: sim.token,
    minDelayMs: 5,
    maxDelayMs: 20,
    maxRetryAfterMs: 50,
    timeoutMs: 5000,
    scheduler,
    ...extra,
  });
}

/** The client suites' simulator and client, both new for each test (see useClientSuite). */
export interface ClientSuite {
  /** The current test's simulator. */
  readonly sim: PimsSimulator;
  /** A fast-retrying client for `sim`. */
  readonly client: PimsClient;
}

/** Jest hooks of the client suites: a fresh simulator and a fast-retrying client for each test. */
export function useClientSuite(): ClientSuite {
  let current: { sim: PimsSimulator; client: PimsClient } | undefined;
  const ready = (): { sim: PimsSimulator; client: PimsClient } => {
    if (!current) throw new Error("useClientSuite: the simulator exists only inside tests");
    return current;
  };
  beforeEach(async () => {
    const sim = await PimsSimulator.start();
    current = { sim, client: testClient(sim) };
  });
  afterEach(async () => {
    await current?.sim.stop();
    current = undefined;
  });
  return {
    get sim() {
      return ready().sim;
    },
    get client() {
      return ready().client;
    },
  };
}

/** Every text a user or a log could see of an error. */
export function errorTexts(err: unknown): Record<string, string> {
  const e = err as Error;
  return {
    "String(err)": String(err),
    "err.message": e.message,
    "err.stack": e.stack ?? "",
    "JSON.stringify(err)": JSON.stringify(err),
    "util.inspect(err)": util.inspect(err, { depth: 10 }),
  };
}

export function expectErrorFreeOf(err: unknown, secrets: string[]): void {
  for (const [where, text] of Object.entries(errorTexts(err))) expectNoPlaintextSecrets(text, secrets, where);
}

/** A project with an app in `sim`; returns their ids. */
export function seedApp(
  sim: PimsSimulator,
  opts: { protected?: boolean; id?: string } = {},
): { projectId: string; appId: string } {
  const projectId = sim.addProject({ protected: opts.protected, id: opts.id }).id;
  return { projectId, appId: sim.addApp(projectId, "web").id };
}

export const saRequest = (projectId: string, extra: Record<string, unknown> = {}) => ({
  name: "ci",
  description: "deploys",
  grants: [projectId],
  expiresIn: 3600,
  ...extra,
});

export interface TinyServer {
  baseUrl: string;
  requests: Array<{ method: string; url: string; authorization?: string; body: string }>;
  close(): Promise<void>;
}

export async function tinyServer(
  handler: (req: http.IncomingMessage, res: http.ServerResponse) => void,
): Promise<TinyServer> {
  const requests: TinyServer["requests"] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      requests.push({
        method: req.method ?? "",
        url: req.url ?? "",
        authorization: req.headers.authorization,
        body: Buffer.concat(chunks).toString("utf8"),
      });
      handler(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Answers every request with this status, content type and raw body. */
export function fixed(
  status: number,
  body: string,
  contentType = "application/json",
): (req: http.IncomingMessage, res: http.ServerResponse) => void {
  return (_req, res) => {
    if (status === 204) {
      res.writeHead(204).end();
      return;
    }
    res.writeHead(status, { "Content-Type": contentType, "Content-Length": Buffer.byteLength(body) });
    res.end(body);
  };
}

export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** At most `limit` lines through the client's one paging loop (`iterateAppLogs`); it stops reading once it has them. */
export async function collectLines(
  client: PimsClient,
  projectId: string,
  appId: string,
  query: AppLogsQuery,
  limit: number,
): Promise<AppLogLine[]> {
  const out: AppLogLine[] = [];
  for await (const line of client.iterateAppLogs(projectId, appId, query)) {
    out.push(line);
    if (out.length >= limit) break;
  }
  return out;
}
