/**
 * PimsSimulator: a real HTTP server (node:http) that implements the PIMS interface with in-memory state,
 * fault injection and a request log, for tests and local demos.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ApiKey, AppLogLine, Invoice } from "../provider/client/types";
import { matchRoute, type Reply } from "./routes";
import {
  type GenerateLogsOptions,
  type LogSeedLine,
  type Principal,
  type SecretsMode,
  type SeedServiceAccount,
  type SimApp,
  type SimBuild,
  type SimProject,
  type SimRun,
  type SimRunStatus,
  type SimServiceAccount,
  type SimVolume,
  SimState,
} from "./state";
import { HttpError, methodMatches, pathMatches, randomHex, seededRandom } from "./util";

/**
 * How the simulator answers where the service's documentation is silent. `default`: the shapes the client was
 * first written against. `quirky`: other plausible shapes (see simulator/README.md).
 */
export type SimulatorProfile = "default" | "quirky";

export interface SimulatorOptions {
  /** Default "default", or the PIMS_SIM_PROFILE environment variable. */
  profile?: SimulatorProfile;
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default: random `pims_admin_` + 32 hex. */
  token?: string;
  /** How operation 9 applies a body. Default "merge". */
  secretsMode?: SecretsMode;
  /** Largest accepted app logs pageSize. Default 1000. */
  maxPageSize?: number;
  /** App logs pageSize when none is given. Default 200. */
  defaultPageSize?: number;
}

export interface RequestLogEntry {
  method: string;
  /** The URL pathname. */
  path: string;
  query: Record<string, string>;
  /** Final status; 0 when the connection was dropped. */
  status: number;
  /** Arrival time, ms since the epoch (wall clock, not the simulator clock). */
  at: number;
  /** Parsed JSON body (the raw text when it is not JSON); absent when the request had none. */
  body?: unknown;
}

export interface FaultRule {
  method?: string;
  /** Matched against the URL pathname; a string is an exact pathname or a prefix ending in `*`. */
  path?: string | RegExp;
  kind: "status" | "rateLimit" | "delay" | "drop";
  /** For kind status; default 503. */
  status?: number;
  /** Retry-After header value for rateLimit; default "0". */
  retryAfter?: string;
  /** For delay: wait this long, then handle normally. */
  delayMs?: number;
  /** How many matching requests it affects; default Infinity. */
  times?: number;
  /** 0..1, default 1; drawn from a PRNG seeded with `seed` so runs are reproducible. */
  probability?: number;
  seed?: number;
}

export type {
  GenerateLogsOptions,
  LogSeedLine,
  SecretsMode,
  SeedServiceAccount,
  SimApp,
  SimBuild,
  SimProject,
  SimRun,
  SimRunStatus,
  SimServiceAccount,
  SimVolume,
};

interface ActiveFault {
  rule: FaultRule;
  remaining: number;
  random: () => number;
}

const UNAUTHORIZED = "invalid or missing bearer token";

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function requestUrl(req: IncomingMessage): URL {
  const target = req.url ?? "/";
  try {
    // Concatenate rather than resolve, so a pathname like `//x` is not read as a host.
    return target.startsWith("/") ? new URL(`http://simulator.invalid${target}`) : new URL(target);
  } catch {
    return new URL("http://simulator.invalid/");
  }
}

function bearerToken(req: IncomingMessage): string | undefined {
  const match = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? "");
  return match ? match[1].trim() : undefined;
}

export class PimsSimulator {
  readonly baseUrl: string;
  readonly token: string;
  readonly requests: RequestLogEntry[] = [];

  private readonly state: SimState;
  private readonly faults: ActiveFault[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly limits: { maxPageSize: number; defaultPageSize: number };
  private stopped = false;

  private constructor(
    private readonly server: Server,
    host: string,
    token: string,
    opts: SimulatorOptions,
  ) {
    const { port } = server.address() as AddressInfo;
    this.baseUrl = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
    this.token = token;
    this.state = new SimState(token, opts.secretsMode ?? "merge");
    this.limits = { maxPageSize: opts.maxPageSize ?? 1000, defaultPageSize: opts.defaultPageSize ?? 200 };
    server.on("request", (req: IncomingMessage, res: ServerResponse) => void this.onRequest(req, res));
  }

  static async start(opts: SimulatorOptions = {}): Promise<PimsSimulator> {
    const host = opts.host ?? "127.0.0.1";
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(opts.port ?? 0, host, () => {
        server.off("error", reject);
        resolve();
      });
    });
    return new PimsSimulator(server, host, opts.token ?? `pims_admin_${randomHex(32)}`, opts);
  }

  /** Closes the server and every open socket (keep-alive ones included); pending delayed requests are dropped. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await closed;
  }

  // ---- seeding ----

  addProject(p?: { id?: string; name?: string; protected?: boolean }): SimProject {
    return this.state.addProject(p);
  }
  addApp(projectId: string, appName: string): SimApp {
    return this.state.addApp(projectId, appName);
  }
  addVolume(projectId: string, v: { id?: string; sizeGb: number }): SimVolume {
    return this.state.addVolume(projectId, v);
  }
  addRun(projectId: string, appId: string, r?: { id?: string; status?: SimRunStatus }): SimRun {
    return this.state.addRun(projectId, appId, r);
  }
  addLogs(projectId: string, appId: string, lines: LogSeedLine[]): AppLogLine[] {
    return this.state.addLogs(projectId, appId, lines);
  }
  generateLogs(projectId: string, appId: string, count: number, opts?: GenerateLogsOptions): void {
    this.state.generateLogs(projectId, appId, count, opts);
  }
  addBuild(
    projectId: string,
    appId: string,
    b: { id?: string; status: string; logs?: Array<{ createdAt?: string; log: string }> },
  ): SimBuild {
    return this.state.addBuild(projectId, appId, b);
  }
  setBuildStatus(projectId: string, appId: string, buildId: string, status: string, appendLogs?: string[]): void {
    this.state.setBuildStatus(projectId, appId, buildId, status, appendLogs);
  }
  addInvoice(projectId: string, inv?: Partial<Invoice>): Invoice {
    return this.state.addInvoice(projectId, inv);
  }
  addApiKey(projectId: string, k?: Partial<ApiKey>): ApiKey {
    return this.state.addApiKey(projectId, k);
  }
  /**
   * Seeds a live service account with a chosen id and token secret (both optional), as if operation 2 had created
   * it: it is listed by serviceAccounts() and by the API-key list, its secret is a valid bearer token (and counted
   * in issuedSecrets()), and operation 3 deletes it. Returns the stored view (without the secret).
   */
  addServiceAccount(s: SeedServiceAccount): SimServiceAccount {
    return this.state.addServiceAccount(s);
  }
  setSecretsMode(mode: SecretsMode): void {
    this.state.secretsMode = mode;
  }

  // ---- inspection ----

  clearRequests(): void {
    this.requests.length = 0;
  }
  countRequests(filter: { method?: string; path?: string | RegExp } = {}): number {
    return this.requests.filter((r) => methodMatches(filter.method, r.method) && pathMatches(filter.path, r.path))
      .length;
  }
  projects(): SimProject[] {
    return this.state.projects();
  }
  project(id: string): SimProject | undefined {
    return this.state.project(id);
  }
  serviceAccounts(projectId?: string): SimServiceAccount[] {
    return this.state.serviceAccounts(projectId);
  }
  deletedServiceAccounts(): string[] {
    return this.state.deletedServiceAccounts();
  }
  volumes(projectId?: string): SimVolume[] {
    return this.state.volumes(projectId);
  }
  volume(projectId: string, volumeId: string): SimVolume | undefined {
    return this.state.volume(projectId, volumeId);
  }
  appSecrets(projectId: string, appId: string): Record<string, string> {
    return this.state.appSecrets(projectId, appId);
  }
  runs(): SimRun[] {
    return this.state.runs();
  }
  builds(): SimBuild[] {
    return this.state.builds();
  }
  issuedSecrets(): string[] {
    return this.state.issuedSecrets();
  }

  // ---- faults and clock ----

  addFault(rule: FaultRule): void {
    this.faults.push({ rule, remaining: rule.times ?? Infinity, random: seededRandom(rule.seed ?? 1) });
  }
  clearFaults(): void {
    this.faults.length = 0;
  }
  now(): Date {
    return this.state.now();
  }
  advanceClock(ms: number): void {
    this.state.advanceClock(ms);
  }

  // ---- HTTP ----

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = requestUrl(req);
    const method = (req.method ?? "GET").toUpperCase();
    const query: Record<string, string> = {};
    for (const [key, value] of url.searchParams) if (!(key in query)) query[key] = value;
    const entry: RequestLogEntry = { method, path: url.pathname, query, status: 0, at: Date.now() };
    this.requests.push(entry);

    let raw: string;
    try {
      raw = await readBody(req);
    } catch {
      return; // the client went away; status stays 0
    }
    if (raw !== "") {
      try {
        entry.body = JSON.parse(raw);
      } catch {
        entry.body = raw;
      }
    }

    const fault = this.takeFault(method, url.pathname);
    if (fault?.kind === "drop") {
      req.socket.destroy();
      return;
    }
    if (fault?.kind === "status") {
      return this.send(res, entry, { kind: "json", status: fault.status ?? 503, body: { message: "injected fault" } });
    }
    if (fault?.kind === "rateLimit") {
      const headers = { "Retry-After": fault.retryAfter ?? "0" };
      return this.send(res, entry, { kind: "json", status: 429, headers, body: { message: "rate limited" } });
    }
    if (fault?.kind === "delay") await this.sleep(fault.delayMs ?? 0);

    this.send(res, entry, this.dispatch(req, method, url, raw));
  }

  /** Authenticates, routes and runs the handler; every failure becomes a `{message}` reply. */
  private dispatch(req: IncomingMessage, method: string, url: URL, raw: string): Reply {
    try {
      const principal: Principal | undefined = this.state.authenticate(bearerToken(req));
      if (!principal) throw new HttpError(401, UNAUTHORIZED);
      const match = matchRoute(method, url.pathname);
      if (match.kind === "none") throw new HttpError(404, `no route for ${method} ${url.pathname}`);
      if (match.kind === "wrongMethod") {
        throw new HttpError(405, `method ${method} not allowed on ${url.pathname}`, {
          Allow: match.allowed.join(", "),
        });
      }
      return match.handler({
        state: this.state,
        limits: this.limits,
        params: match.params,
        query: url.searchParams,
        principal,
        json: () => {
          if (raw.trim() === "") throw new HttpError(400, "request body must be a JSON document");
          try {
            return JSON.parse(raw) as unknown;
          } catch {
            throw new HttpError(400, "request body is not valid JSON");
          }
        },
      });
    } catch (err) {
      if (err instanceof HttpError) {
        return { kind: "json", status: err.status, headers: err.headers, body: { message: err.message } };
      }
      const detail = err instanceof Error ? err.message : String(err);
      return { kind: "json", status: 500, body: { message: `internal simulator error: ${detail}` } };
    }
  }

  private send(res: ServerResponse, entry: RequestLogEntry, reply: Reply): void {
    entry.status = reply.status;
    if (res.destroyed || res.writableEnded) return;
    if (reply.kind === "empty") {
      res.writeHead(reply.status, reply.headers).end();
      return;
    }
    const body = reply.kind === "json" ? JSON.stringify(reply.body) : reply.body;
    res.writeHead(reply.status, {
      ...reply.headers,
      "Content-Type": reply.kind === "json" ? "application/json; charset=utf-8" : "text/plain; charset=utf-8",
      "Content-Length": Buffer.byteLength(body),
    });
    res.end(body);
  }

  /** The first rule that matches, has uses left and passes its probability draw; consumes one use. */
  private takeFault(method: string, pathname: string): FaultRule | undefined {
    for (const fault of this.faults) {
      const { rule } = fault;
      if (fault.remaining <= 0 || !methodMatches(rule.method, method) || !pathMatches(rule.path, pathname)) continue;
      if (rule.probability !== undefined && rule.probability < 1 && fault.random() >= rule.probability) continue;
      fault.remaining--;
      return rule;
    }
    return undefined;
  }

  /** Resolves after ms, or never when the simulator stops first (stop() clears the timer). */
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        resolve();
      }, ms);
      this.timers.add(timer);
    });
  }
}
