/**
 * Where the provider's credential and endpoint come from, resolved at call time (never at module load or
 * serialization time): stack config `pims:token` / `pims:baseUrl` first, then `PIMS_TOKEN` / `PIMS_BASE_URL`.
 */
import { PimsClient, type ClientOptions } from "./client";
import { baseUrlProblem, normalizeBaseUrl } from "./client/baseUrl";
import { processScheduler, type SchedulerSettings } from "./client/scheduler";

export interface Credentials {
  token: string;
  /** Normalized: no trailing slash, no trailing `/v2`. */
  baseUrl: string;
}

/** Values read from stack config (or, for the CLI, from its flags); either may be missing. */
export interface ConfiguredCredentials {
  token?: string;
  baseUrl?: string;
  /** `pims:maxConcurrency`: requests in flight at once in this process. */
  maxConcurrency?: string;
  /** `pims:rateLimitTimeoutMs`: how long one request may keep being refused with 429 before it fails. */
  rateLimitTimeoutMs?: string;
}

/**
 * Who reads the message: a Pulumi program or provider (`pulumi config` or the environment) or the `pims` CLI
 * (the environment or `--base-url`; it has no stack config).
 */
export type CredentialsAudience = "pulumi" | "cli";

/** Options of the credential errors and resolution. */
export interface CredentialsOptions {
  /** Who reads the messages: a Pulumi user (stack config or environment) or a `pims` CLI user. Default `pulumi`. */
  audience?: CredentialsAudience;
}

/**
 * A configuration problem the user fixes outside the code: one plain line, no stack. The dynamic-provider host
 * prints a failure of check, diff, read and delete as `${error}: ${error.stack}`, and the program host prints an
 * unknown error's stack; here `toString()` is the headline and `stack` the rest, so that line reads the message
 * exactly once, and `__pulumiRunError` makes the program host print only the message (as it does for its own
 * `RunError`). `message` holds the whole text for everything else (the engine's error line, the CLI, tests).
 */
export class PimsConfigurationError extends Error {
  /** The first line of the message: what is wrong, without the details. */
  readonly headline: string;

  constructor(headline: string, detail: string) {
    super(`${headline}: ${detail}`);
    this.name = new.target.name;
    this.headline = headline;
    Object.defineProperty(this, "stack", { value: detail, writable: true, configurable: true, enumerable: false });
    Object.defineProperty(this, "__pulumiRunError", { value: true, enumerable: false });
  }

  override toString(): string {
    return this.headline;
  }
}

/** A token or base address is set nowhere. The message names both ways to set each missing value. */
export class MissingCredentialsError extends PimsConfigurationError {
  /** Which settings are missing. */
  readonly missing: ReadonlyArray<"token" | "baseUrl">;

  constructor(missing: Array<"token" | "baseUrl">, options: CredentialsOptions = {}) {
    const cli = options.audience === "cli";
    const lines = missing.map((m) =>
      m === "token"
        ? cli
          ? "set the service-account token in the PIMS_TOKEN environment variable"
          : "set the service-account token with `pulumi config set --secret pims:token <token>` or the PIMS_TOKEN environment variable"
        : cli
          ? "set the service address with --base-url <url> or the PIMS_BASE_URL environment variable"
          : "set the service address with `pulumi config set pims:baseUrl <url>` or the PIMS_BASE_URL environment variable",
    );
    super(cli ? "pims is not configured" : "pulumi-pims is not configured", `${lines.join("; and ")}.`);
    this.missing = [...missing];
  }
}

/** A base address that cannot be used; the message names where it was set and the rule. */
export class InvalidBaseUrlError extends PimsConfigurationError {
  constructor(reason: string) {
    super("pulumi-pims is not configured correctly", reason);
  }
}

const nonEmpty = (v: string | undefined): string | undefined => (v !== undefined && v.trim() !== "" ? v.trim() : undefined);

/**
 * The token and normalized base address, from `configured` first, then the environment. Throws
 * `MissingCredentialsError` naming what is missing, or `InvalidBaseUrlError` naming where the bad address was set
 * (`pims:baseUrl`, or `--base-url` for the CLI, or `PIMS_BASE_URL`) and the rule.
 */
export function resolveCredentials(
  configured: ConfiguredCredentials = {},
  env: NodeJS.ProcessEnv = process.env,
  options: CredentialsOptions = {},
): Credentials {
  const token = nonEmpty(configured.token) ?? nonEmpty(env.PIMS_TOKEN);
  const fromConfig = nonEmpty(configured.baseUrl);
  const baseUrl = fromConfig ?? nonEmpty(env.PIMS_BASE_URL);
  const missing: Array<"token" | "baseUrl"> = [];
  if (!token) missing.push("token");
  if (!baseUrl) missing.push("baseUrl");
  if (missing.length > 0 || !token || !baseUrl) throw new MissingCredentialsError(missing, options);
  const field = fromConfig !== undefined ? (options.audience === "cli" ? "--base-url" : "pims:baseUrl") : "PIMS_BASE_URL";
  const problem = baseUrlProblem(baseUrl, field);
  if (problem !== undefined) throw new InvalidBaseUrlError(problem);
  return { token, baseUrl: normalizeBaseUrl(baseUrl) };
}

/** Client options that tune behaviour without code: PIMS_TIMEOUT_MS, PIMS_MAX_RETRIES (e.g. for a flaky network), PIMS_WIRE_RECORD. */
export function tuningFromEnv(env: NodeJS.ProcessEnv = process.env): Partial<ClientOptions> {
  const int = (v: string | undefined): number | undefined => (v !== undefined && /^\d+$/.test(v.trim()) ? Number(v) : undefined);
  const out: Partial<ClientOptions> = {};
  const timeoutMs = int(env.PIMS_TIMEOUT_MS);
  const retries = int(env.PIMS_MAX_RETRIES);
  const minDelayMs = int(env.PIMS_RETRY_MIN_DELAY_MS);
  if (timeoutMs !== undefined) out.timeoutMs = timeoutMs;
  if (retries !== undefined) out.retries = retries;
  if (minDelayMs !== undefined) out.minDelayMs = minDelayMs;
  // PIMS_WIRE_RECORD=<file>: the wire recorder (provider/client/recorder), in the provider host and the program alike.
  if (env.PIMS_WIRE_RECORD?.trim()) out.record = env.PIMS_WIRE_RECORD.trim();
  return out;
}

/**
 * Settings of the process's request scheduler, each from stack config first, then the environment:
 * `pims:maxConcurrency` / PIMS_MAX_CONCURRENCY (requests in flight, >= 1) and `pims:rateLimitTimeoutMs` /
 * PIMS_RATE_LIMIT_TIMEOUT_MS (how long a request may keep being refused with 429). Unset values are left out (the
 * scheduler keeps its defaults: 8, 5 minutes). A value that is not a whole number in range fails here, naming where
 * it was set.
 */
export function schedulerSettings(configured: ConfiguredCredentials = {}, env: NodeJS.ProcessEnv = process.env): SchedulerSettings {
  const out: SchedulerSettings = {};
  const maxConcurrency = wholeNumberSetting(configured.maxConcurrency, "pims:maxConcurrency", env.PIMS_MAX_CONCURRENCY, "PIMS_MAX_CONCURRENCY", 1, "");
  if (maxConcurrency !== undefined) out.maxConcurrency = maxConcurrency;
  const timeout = wholeNumberSetting(
    configured.rateLimitTimeoutMs,
    "pims:rateLimitTimeoutMs",
    env.PIMS_RATE_LIMIT_TIMEOUT_MS,
    "PIMS_RATE_LIMIT_TIMEOUT_MS",
    0,
    " of milliseconds",
  );
  if (timeout !== undefined) out.rateLimitTimeoutMs = timeout;
  return out;
}

/** A whole-number setting: the config value if set, else the environment's; undefined when neither is set. */
function wholeNumberSetting(
  fromConfig: string | undefined,
  configKey: string,
  fromEnv: string | undefined,
  envName: string,
  min: number,
  unit: string,
): number | undefined {
  const configured = nonEmpty(fromConfig);
  const text = configured ?? nonEmpty(fromEnv);
  if (text === undefined) return undefined;
  const problem = wholeNumberProblem(text, configured !== undefined ? configKey : envName, min, unit);
  if (problem !== undefined) throw new PimsConfigurationError("pulumi-pims is not configured correctly", problem);
  return Number(text);
}

/**
 * Why `v` cannot be a whole-number setting (at least `min`), or undefined. Stack config and the environment give
 * text: digits (spaces around allowed) are accepted. Shared by the provider process and `pims.Provider`.
 */
export function wholeNumberProblem(v: unknown, field: string, min: number, unit: string): string | undefined {
  const n = typeof v === "string" && /^\s*\d+\s*$/.test(v) ? Number(v) : v;
  if (typeof n === "number" && Number.isInteger(n) && n >= min) return undefined;
  return `${field} must be a whole number${unit}${min > 0 ? ` >= ${min}` : ""} (got ${typeof v === "string" ? JSON.stringify(v) : String(v)})`;
}

/** A client for the resolved credentials; the scheduler it uses (the process's unless `extra` names one) takes the settings above. */
export function clientFor(
  configured: ConfiguredCredentials = {},
  extra: Partial<ClientOptions> = {},
  env: NodeJS.ProcessEnv = process.env,
  options: CredentialsOptions = {},
): PimsClient {
  const credentials = resolveCredentials(configured, env, options);
  (extra.scheduler ?? processScheduler()).configure(schedulerSettings(configured, env));
  return new PimsClient({ ...tuningFromEnv(env), ...extra, ...credentials });
}
