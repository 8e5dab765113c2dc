/**
 * The path every request takes through the simulator, in order: the request log, the rate limit (a refused request
 * does nothing, not even trip a fault rule), the fault rules, authentication, the route table (routes.ts), the reply
 * with the simulator's own `Date`. server.ts owns the pieces (state, dialect, faults, rate limit) and hands them here.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Dialect } from "./dialect";
import type { Faults } from "./faults";
import { bearerToken, readBody, requestUrl, writeReply } from "./http";
import type { RequestLogEntry, SimulatorStats } from "./options";
import type { RateLimiter } from "./rateLimit";
import { matchRoute, type Reply } from "./routes";
import type { Principal, SimState } from "./state";
import { HttpError } from "./util";

const UNAUTHORIZED = "invalid or missing bearer token";

/** What the pipeline reads and writes: the simulator's state and switches, and its request log. */
export interface PipelineParts {
  state: SimState;
  dialect: Dialect;
  faults: Faults;
  rateLimiter: RateLimiter;
  limits: { maxPageSize: number; defaultPageSize: number };
  requests: RequestLogEntry[];
}

export class RequestPipeline {
  private counters: SimulatorStats = { requests: 0, refused: 0, byStatus: {} };
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly parts: PipelineParts) {}

  stats(): SimulatorStats {
    return { ...this.counters, byStatus: { ...this.counters.byStatus } };
  }
  resetStats(): void {
    this.counters = { requests: 0, refused: 0, byStatus: {} };
  }
  /** Drops the requests still waiting out a `delay` fault: they never answer. */
  cancelDelays(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { state, faults, rateLimiter, requests } = this.parts;
    const url = requestUrl(req);
    const method = (req.method ?? "GET").toUpperCase();
    const query: Record<string, string> = {};
    for (const [key, value] of url.searchParams) if (!(key in query)) query[key] = value;
    const entry: RequestLogEntry = { method, path: url.pathname, query, status: 0, at: Date.now() };
    requests.push(entry);
    this.counters.requests++;

    let raw: string;
    try {
      raw = await readBody(req);
    } catch {
      return this.count(0); // the client went away; status stays 0
    }
    if (raw !== "") {
      try {
        entry.body = JSON.parse(raw);
      } catch {
        entry.body = raw;
      }
    }

    // The rate limit comes first: a refused request does nothing, not even trip a fault rule.
    const retryAfter = rateLimiter.take(bearerToken(req) ?? "");
    if (retryAfter !== undefined) {
      this.counters.refused++;
      const headers = { "Retry-After": retryAfter };
      return this.send(res, entry, {
        kind: "json",
        status: 429,
        headers,
        body: { message: "rate limit exceeded, retry later" },
      });
    }

    const fault = faults.take(method, url.pathname);
    const body = fault?.body ?? { message: "injected fault" };
    const injected: Reply = { kind: "json", status: fault?.status ?? 503, body };
    if (fault?.kind === "drop" && !fault.afterCommit) return this.drop(req);
    if (fault?.kind === "status" && !fault.afterCommit) return this.send(res, entry, injected);
    if (fault?.kind === "rateLimit") {
      const headers = { "Retry-After": fault.retryAfter ?? "0" };
      return this.send(res, entry, { kind: "json", status: 429, headers, body: { message: "rate limited" } });
    }
    if (fault?.kind === "delay") await this.sleep(fault.delayMs ?? 0);

    const who = state.authenticate(bearerToken(req));
    if (who) entry.principal = who.kind === "admin" ? "admin" : who.accountId;
    const reply = this.dispatch(req, method, url, raw);
    if (!fault?.afterCommit) return this.send(res, entry, reply);
    // The handler ran and its change is committed; the client sees a failure instead of the answer.
    entry.handledStatus = reply.status;
    if (fault.kind === "drop") return this.drop(req);
    this.send(res, entry, injected);
  }

  /** Authenticates, routes and runs the handler; every failure becomes a `{message}` reply. */
  private dispatch(req: IncomingMessage, method: string, url: URL, raw: string): Reply {
    const { state, dialect, limits } = this.parts;
    try {
      const principal: Principal | undefined = state.authenticate(bearerToken(req));
      if (!principal) throw new HttpError(401, UNAUTHORIZED);
      const match = matchRoute(method, url.pathname);
      if (match.kind === "none") throw dialect.noRoute(method, url.pathname);
      if (match.kind === "wrongMethod") {
        throw new HttpError(405, `method ${method} not allowed on ${url.pathname}`, {
          Allow: match.allowed.join(", "),
        });
      }
      return match.handler({
        state,
        dialect,
        limits,
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
    this.count(reply.status);
    // The `Date` header shows the simulator's own clock (advanceClock moves it), as a service's shows its own.
    if (!res.headersSent) res.setHeader("Date", this.parts.state.now().toUTCString());
    writeReply(res, reply);
  }

  /** Destroys the connection without an answer (the request log keeps status 0). */
  private drop(req: IncomingMessage): void {
    this.count(0);
    req.socket.destroy();
  }

  private count(status: number): void {
    this.counters.byStatus[status] = (this.counters.byStatus[status] ?? 0) + 1;
  }

  /** Resolves after ms, or never when the delays are cancelled first (the simulator stops). */
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
