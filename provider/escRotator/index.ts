/**
 * The rotation adapter Pulumi ESC calls for `fn::rotate::external` (the contract:
 * https://www.pulumi.com/docs/esc/integrations/rotated-secrets/external), host-agnostic: body bytes and headers in,
 * status and JSON out. `pims esc-rotator serve` (cli/escRotator.ts) serves it over HTTPS; a serverless host calls
 * {@link EscRotator.handle} itself. One job per file:
 * - ./verify: the bearer JWT (jose, the JWKS cached), `body_hash`, the allow-list, `jti` replays: refusals are 401
 * - ./request: the body (`request`, `state`): a malformed `request` is 400 naming the field
 * - ./series: the rotation (create, keep the one in `state`, delete the rest of the series)
 *
 * Nothing reaches the service before a request is verified and parsed. One log line per request (environment, trigger
 * user, account ids, outcome, time taken), never a token. Rotations of one series run one at a time.
 */
import type { PimsClient } from "../client";
import { PimsConfigurationError } from "../configErrors";
import { packageVersion } from "../identity";
import { clientFor, escRotatorSettings, SETTINGS, type EscSettingTexts } from "../settings";
import { CreateLedger } from "../serviceAccount/create";
import { BadRequest, parseBody } from "./request";
import { RotationFailed, rotate, type RotatedToken, type RotationReport } from "./series";
import { Refusal, Verifier, type Caller } from "./verify";

export { bodyHash } from "./verify";
export { seriesName, type RotatedToken } from "./series";
export type { RotationRequest } from "./request";

/**
 * How an adapter is set up. What is left out comes from the adapter's environment (docs/settings.md: `PIMS_ESC_*`,
 * and the pims credential `PIMS_TOKEN`, `PIMS_BASE_URL`), never from a request.
 */
export interface EscRotatorOptions {
  /** The client the rotations use (its token is the adapter's pims credential). Default: from the environment. */
  client?: PimsClient;
  /** The JWKS address. Default: `PIMS_ESC_JWKS_URL`, else `https://api.pulumi.com/oidc/.well-known/jwks`. */
  jwksUrl?: string;
  /** The accepted `iss`. Default: `PIMS_ESC_ISSUER`, else `https://api.pulumi.com`. */
  issuer?: string;
  /** The accepted `aud`: the adapter's URL exactly as the environments write it. Default: `PIMS_ESC_AUDIENCE`. */
  audience?: string;
  /**
   * Organizations (`org`) and environments (`org/project/env`) whose requests are served; every other is refused.
   * Default: `PIMS_ESC_ALLOW`. An empty list is a configuration error.
   */
  allow?: readonly string[];
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

/** An HTTP answer: the status and the JSON body. */
export interface EscRotatorResponse {
  /** 200 (a complete rotation), 400 (malformed request), 401 (refused), 405 (not POST), 503 (the rotation failed). */
  status: number;
  /** The body: on 200, the new state ({@link RotatedToken}); otherwise `{ "message": … }`. */
  body: RotatedToken | EscRotatorMessage;
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
export function logLine(c: Partial<Caller>, outcome: string, ms: number, r?: RotationReport): string {
  const parts = [`pims esc-rotator: ${c.environment ?? "(unverified)"}`];
  if (c.triggerUser) parts.push(`trigger ${c.triggerUser}`);
  if (r?.created) parts.push(`new ${r.created}`);
  if (r?.kept) parts.push(`kept ${r.kept}`);
  if (r && r.deleted.length > 0) parts.push(`deleted ${r.deleted.join(",")}`);
  if (r && r.leftover.length > 0) parts.push(`left live: ${r.leftover.join("; ")}`);
  return `${parts.join(" · ")} · ${outcome} in ${ms} ms`;
}

/**
 * An adapter with `options` (see {@link EscRotatorOptions}); `flags` are the settings' texts the CLI's flags give.
 * Throws
 * a `PimsConfigurationError` when the audience or the allow-list is missing, or the pims credential is.
 */
export function createEscRotator(options: EscRotatorOptions = {}, flags: EscSettingTexts = {}): EscRotator {
  const read = escRotatorSettings(flags);
  const audience = options.audience ?? read.audience;
  const allow = options.allow ?? read.allow;
  const missing = [
    ...(audience ? [] : [`${SETTINGS.escAudience.env} (the adapter's URL as the environments write it)`]),
    ...(allow.length > 0 ? [] : [`${SETTINGS.escAllow.env} (the organizations and environments served)`]),
  ];
  if (missing.length > 0 || !audience)
    throw new PimsConfigurationError("the ESC rotation adapter is not configured", `set ${missing.join(" and ")}`);
  const client =
    options.client ??
    clientFor({}, { userAgent: `pims-esc-rotator/${packageVersion()}` }, { env: read.env, audience: "cli" });
  const verifier = new Verifier({
    jwksUrl: options.jwksUrl ?? read.jwksUrl,
    issuer: options.issuer ?? read.issuer,
    audience,
    allow,
    now: options.now,
  });
  const now = options.now ?? Date.now;
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const watchMs = options.lostCreateWatchMs ?? read.settings.lostCreateWatchMs;
  const ctx = { client, ledger: new CreateLedger(), watchMs, now, log };
  const queues = new Map<string, Promise<unknown>>();
  /** Runs `f` after every rotation of the same series still running. */
  const serialized = <T>(key: string, f: () => Promise<T>): Promise<T> => {
    const before = queues.get(key) ?? Promise.resolve();
    const run = before.then(f, f);
    const tail = run.catch(() => undefined);
    queues.set(key, tail);
    void tail.then(() => queues.get(key) === tail && queues.delete(key));
    return run;
  };

  return {
    async handle(method, headers, body) {
      const started = now();
      const took = (): number => now() - started;
      const answer = (status: number, message: string, c: Partial<Caller> = {}, r?: RotationReport) => {
        log(logLine(c, `${status} ${message}`, took(), r));
        return { status, body: { message } };
      };
      if (method.toUpperCase() !== "POST") return answer(405, "only POST is served");
      let caller: Caller;
      try {
        caller = await verifier.verify(header(headers, "authorization"), body);
      } catch (e) {
        // The caller learns only that it was refused; the reason goes to the adapter's log.
        if (e instanceof Refusal) {
          log(logLine({}, `401 refused: ${e.reason}`, took()));
          return { status: 401, body: { message: "unauthorized" } };
        }
        throw e;
      }
      let parsed: ReturnType<typeof parseBody>;
      try {
        parsed = parseBody(body);
      } catch (e) {
        if (e instanceof BadRequest) return answer(400, `malformed ${e.message}`, caller);
        throw e;
      }
      const { request, state } = parsed;
      const key = `${caller.environment}\n${request.projectId}\n${request.name}`;
      try {
        const { token, report } = await serialized(key, () => rotate(ctx, caller.environment, request, state));
        log(logLine(caller, "200 rotated", took(), report));
        return { status: 200, body: token };
      } catch (e) {
        if (e instanceof RotationFailed) return answer(503, `rotation failed: ${e.message}`, caller, e.report);
        return answer(503, `rotation failed: ${e instanceof Error ? e.message : String(e)}`, caller);
      }
    },
  };
}
