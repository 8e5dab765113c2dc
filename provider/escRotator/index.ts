/**
 * The adapter Pulumi ESC calls, host-agnostic: body bytes and headers in, status, headers and JSON out. Two routes,
 * each its own audience (the URL its ESC function names), served by the same process and the same function:
 * - rotations, `fn::rotate::external` (https://www.pulumi.com/docs/esc/integrations/rotated-secrets/external): ./rotate
 * - opens, `fn::open::external` (https://www.pulumi.com/docs/esc/integrations/dynamic-secrets/external): ./open, a
 *   short-lived account per open of the environment.
 * `pims esc-rotator serve` (cli/escRotator.ts) serves it over HTTPS; a serverless host calls {@link EscRotator.handle}
 * itself. One job per file: ./verify (the bearer JWT, `body_hash`, the allow-list, `jti`s seen: refusals are 401),
 * ./request (the two bodies: a malformed one is 400 naming the field), ./series (what both routes share: the marker,
 * the listing, the create and the delete), ./rotate, ./open.
 *
 * Nothing reaches the service before a request is verified and parsed. One log line per request (environment, trigger
 * user, account ids, outcome, time taken), never a token. Requests of one series run one at a time.
 */
import type { PimsClient } from "../client";
import { PimsConfigurationError } from "../configErrors";
import { packageVersion } from "../identity";
import { clientFor, escRotatorSettings, SETTINGS, type EscSettingTexts } from "../settings";
import { CreateLedger } from "../serviceAccount/create";
import { open, TooManyLeases, type Lease } from "./open";
import { BadRequest, parseOpenBody, parseRotationBody } from "./request";
import { rotate, type RotatedToken } from "./rotate";
import { Replayed, SeriesFailed, type Route, type SeriesReport } from "./series";
import { Refusal, Verifier, type Caller } from "./verify";

export { bodyHash } from "./verify";
export { inSeries, seriesMarker, seriesName, type Route } from "./series";
export type { Lease } from "./open";
export type { RotatedToken } from "./rotate";
export type { OpenRequest, RotationRequest } from "./request";

/**
 * How an adapter is set up. What is left out comes from the adapter's environment (docs/settings.md: `PIMS_ESC_*`,
 * and the pims credential `PIMS_TOKEN`, `PIMS_BASE_URL`), never from a request.
 */
export interface EscRotatorOptions {
  /** The client the adapter uses (its token is the adapter's pims credential). Default: from the environment. */
  client?: PimsClient;
  /** The JWKS address. Default: `PIMS_ESC_JWKS_URL`, else `https://api.pulumi.com/oidc/.well-known/jwks`. */
  jwksUrl?: string;
  /** The accepted `iss`. Default: `PIMS_ESC_ISSUER`, else `https://api.pulumi.com`. */
  issuer?: string;
  /** The rotation route's `aud`: the URL exactly as `fn::rotate::external` writes it. Default: `PIMS_ESC_AUDIENCE`. */
  audience?: string;
  /** The open route's `aud`: the URL exactly as `fn::open::external` writes it. Default: `PIMS_ESC_OPEN_AUDIENCE`. */
  openAudience?: string;
  /**
   * Organizations (`org`) and environments (`org/project/env`) whose requests are served; every other is refused.
   * Default: `PIMS_ESC_ALLOW`. An empty list is a configuration error.
   */
  allow?: readonly string[];
  /** The longest lease an open may ask for, in seconds. Default: `PIMS_ESC_MAX_TTL`, else 3600. */
  maxTtl?: number;
  /** The most live leases of one series. Default: `PIMS_ESC_MAX_LEASES`, else 10. */
  maxLeases?: number;
  /** How long a create whose answer was lost is watched for, in ms. Default: the `lostCreateWatchMs` setting. */
  lostCreateWatchMs?: number;
  /** Where the one line per request goes (default: standard error). Never given a token. */
  log?: (line: string) => void;
  /** Now, in ms since the epoch. Default `Date.now`. */
  now?: () => number;
}

/** The body of every answer but 200. */
export interface EscRotatorMessage {
  /** What went wrong: a refusal says only `unauthorized` (the reason is in the adapter's log). Never a token. */
  message: string;
}

/** An HTTP answer: the status, headers beyond `Content-Type`, and the JSON body. */
export interface EscRotatorResponse {
  /**
   * 200 (a complete rotation or open), 400 (malformed request), 401 (refused), 405 (not POST), 429 (an open past the
   * series' live leases: `Retry-After`), 503 (the request failed: its message names what is left live).
   */
  status: number;
  /** `Retry-After` (seconds) on 429. */
  headers?: Record<string, string>;
  /** The body: on 200, the new state ({@link RotatedToken}) or the lease ({@link Lease}); otherwise a message. */
  body: RotatedToken | Lease | EscRotatorMessage;
}

/** The adapter: one per process (it remembers the `jti`s it has seen and caches the JWKS). */
export interface EscRotator {
  /**
   * Handles one request as ESC sends it: `POST`, `Content-Type: application/json`, `Authorization: Bearer <JWT>`.
   * `body` must be the exact bytes received (their hash is checked against the token's `body_hash`).
   */
  handle(
    method: string,
    headers: Record<string, string | string[] | undefined>,
    body: Uint8Array,
  ): Promise<EscRotatorResponse>;
}

const header = (h: Record<string, string | string[] | undefined>, name: string): string | undefined => {
  const key = Object.keys(h).find((k) => k.toLowerCase() === name);
  const v = key === undefined ? undefined : h[key];
  return Array.isArray(v) ? v[0] : v;
};

/** The log line of one request: never a token. */
export function logLine(c: Partial<Caller>, outcome: string, ms: number, r?: SeriesReport): string {
  const parts = [`pims esc-rotator: ${c.environment ?? "(unverified)"}`];
  if (c.route) parts.push(c.route);
  if (c.triggerUser) parts.push(`trigger ${c.triggerUser}`);
  if (r?.created) parts.push(`new ${r.created}`);
  if (r?.kept) parts.push(`kept ${r.kept}`);
  if (r && r.deleted.length > 0) parts.push(`deleted ${r.deleted.join(",")}`);
  if (r && r.leftLive.length > 0) parts.push(`left live: ${r.leftLive.join("; ")}`);
  return `${parts.join(" · ")} · ${outcome} in ${ms} ms`;
}

/**
 * An adapter with `options` (see {@link EscRotatorOptions}); `flags` are the settings' texts the CLI's flags give.
 * Throws a `PimsConfigurationError` when neither route's audience is set, both are the same, the allow-list is
 * missing, or the pims credential is.
 */
export function createEscRotator(options: EscRotatorOptions = {}, flags: EscSettingTexts = {}): EscRotator {
  const read = escRotatorSettings(flags);
  const audiences: Partial<Record<Route, string>> = {
    rotate: options.audience ?? read.audience,
    open: options.openAudience ?? read.openAudience,
  };
  const allow = options.allow ?? read.allow;
  const [rotateEnv, openEnv] = [SETTINGS.escAudience.env, SETTINGS.escOpenAudience.env];
  const missing = [
    ...(audiences.rotate || audiences.open ? [] : [`${rotateEnv} or ${openEnv} (the URLs the environments name)`]),
    ...(allow.length > 0 ? [] : [`${SETTINGS.escAllow.env} (the organizations and environments served)`]),
  ];
  if (missing.length > 0)
    throw new PimsConfigurationError("the ESC adapter is not configured", `set ${missing.join(" and ")}`);
  if (audiences.rotate === audiences.open)
    throw new PimsConfigurationError(
      `the ESC adapter's two routes have the same audience (${audiences.rotate})`,
      `give ${rotateEnv} and ${openEnv} different URLs (e.g. …/rotate and …/open)`,
    );
  const client =
    options.client ??
    clientFor({}, { userAgent: `pims-esc-rotator/${packageVersion()}` }, { env: read.env, audience: "cli" });
  const now = options.now ?? Date.now;
  const verifier = new Verifier({
    jwksUrl: options.jwksUrl ?? read.jwksUrl,
    issuer: options.issuer ?? read.issuer,
    audiences,
    allow,
    now,
  });
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const maxTtl = options.maxTtl ?? read.maxTtl;
  const bounds = { maxLeases: options.maxLeases ?? read.maxLeases };
  const watchMs = options.lostCreateWatchMs ?? read.settings.lostCreateWatchMs;
  const ctx = { client, ledger: new CreateLedger(), watchMs, now, log };
  const queues = new Map<string, Promise<unknown>>();
  /** Runs `f` after every request of the same series still running. */
  const serialized = <T>(key: string, f: () => Promise<T>): Promise<T> => {
    const before = queues.get(key) ?? Promise.resolve();
    const run = before.then(f, f);
    const tail = run.catch(() => undefined);
    queues.set(key, tail);
    void tail.then(() => queues.get(key) === tail && queues.delete(key));
    return run;
  };

  /** The route's work for a verified caller; a failure the adapter knows is thrown as its own error. */
  const serve = (caller: Caller, body: Uint8Array): Promise<{ body: RotatedToken | Lease; report: SeriesReport }> => {
    const key = (projectId: string, name: string) => `${caller.route}\n${caller.environment}\n${projectId}\n${name}`;
    if (caller.route === "open") {
      const req = parseOpenBody(body, maxTtl);
      return serialized(key(req.projectId, req.name), () => open(ctx, caller, req, bounds)).then((r) => ({
        body: r.lease,
        report: r.report,
      }));
    }
    const { request, state } = parseRotationBody(body);
    return serialized(key(request.projectId, request.name), () => rotate(ctx, caller, request, state)).then((r) => ({
      body: r.token,
      report: r.report,
    }));
  };

  return {
    async handle(method, headers, body) {
      const started = now();
      const took = (): number => now() - started;
      const answer = (status: number, message: string, c: Partial<Caller> = {}, r?: SeriesReport) => {
        log(logLine(c, `${status} ${message}`, took(), r));
        return { status, body: { message } };
      };
      // The caller learns only that it was refused; the reason goes to the adapter's log.
      const refused = (reason: string, c: Partial<Caller> = {}) => {
        log(logLine(c, `401 refused: ${reason}`, took()));
        return { status: 401, body: { message: "unauthorized" } };
      };
      if (method.toUpperCase() !== "POST") return answer(405, "only POST is served");
      let caller: Caller;
      try {
        caller = await verifier.verify(header(headers, "authorization"), body);
      } catch (e) {
        if (e instanceof Refusal) return refused(e.reason);
        throw e;
      }
      try {
        const done = await serve(caller, body);
        log(logLine(caller, caller.route === "open" ? "200 leased" : "200 rotated", took(), done.report));
        return { status: 200, body: done.body };
      } catch (e) {
        if (e instanceof BadRequest) return answer(400, `malformed ${e.message}`, caller);
        if (e instanceof Replayed) return refused(e.message, caller);
        if (e instanceof TooManyLeases) {
          const r = answer(429, e.message, caller, e.report);
          return { ...r, headers: { "Retry-After": String(e.retryAfterS) } };
        }
        const what = caller.route === "open" ? "open" : "rotation";
        if (e instanceof SeriesFailed)
          return answer(503, `${what} failed: ${e.message}`, caller, { deleted: e.deleted, leftLive: e.leftLive });
        return answer(503, `${what} failed: ${e instanceof Error ? e.message : String(e)}`, caller);
      }
    },
  };
}
