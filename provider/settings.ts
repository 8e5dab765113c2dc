/**
 * Every setting of the provider process, the program's functions and the CLI, and where each comes from: stack config
 * (`pims:*`, or a `pims.Provider`'s inputs) first, then the environment (`PIMS_*`). Each is read at call time (never
 * at module load or serialization time) and parsed here, once: a value that breaks its rule fails naming where it was
 * set and the rule.
 */
import { PimsClient, type ClientOptions } from "./client";
import { baseUrlProblem, normalizeBaseUrl } from "./client/baseUrl";
import { processScheduler, type SchedulerSettings } from "./client/scheduler";
import { wholeNumberProblem } from "./client/values";
export { wholeNumberProblem };
import {
  InvalidBaseUrlError,
  MissingCredentialsError,
  PimsConfigurationError,
  type CredentialsOptions,
} from "./configErrors";

export interface Credentials {
  token: string;
  /** Normalized: no trailing slash, no trailing `/v2`. */
  baseUrl: string;
}

/** Values read from stack config (or, for the CLI, from its flags); any may be missing. Text, as config gives it. */
export interface ConfiguredCredentials {
  token?: string;
  baseUrl?: string;
  /** `pims:maxConcurrency`: requests in flight at once in this process. */
  maxConcurrency?: string;
  /** `pims:rateLimitTimeoutMs`: how long one request may keep being refused with 429 before it fails. */
  rateLimitTimeoutMs?: string;
}

/** A whole-number setting: its stack config key (when it has one), its environment variable, least value and unit. */
export interface WholeNumberSetting {
  configKey?: `pims:${string}`;
  env: string;
  min: number;
  unit: string;
}

/** The whole-number settings, once. The scheduler's two are also stack config keys and `pims.Provider` arguments. */
export const SETTINGS = {
  maxConcurrency: { configKey: "pims:maxConcurrency", env: "PIMS_MAX_CONCURRENCY", min: 1, unit: "" },
  rateLimitTimeoutMs: {
    configKey: "pims:rateLimitTimeoutMs",
    env: "PIMS_RATE_LIMIT_TIMEOUT_MS",
    min: 0,
    unit: " of milliseconds",
  },
  timeoutMs: { env: "PIMS_TIMEOUT_MS", min: 1, unit: " of milliseconds" },
  retries: { env: "PIMS_MAX_RETRIES", min: 0, unit: "" },
  minDelayMs: { env: "PIMS_RETRY_MIN_DELAY_MS", min: 0, unit: " of milliseconds" },
  /** How long a create whose answer was lost is watched for (provider/serviceAccountCreate.ts: lostCreateWatchMs). */
  lostCreateWatchMs: { env: "PIMS_LOST_CREATE_WATCH_MS", min: 0, unit: " of milliseconds" },
} as const satisfies Record<string, WholeNumberSetting>;

export type SettingName = keyof typeof SETTINGS;

const nonEmpty = (v: string | undefined): string | undefined =>
  v !== undefined && v.trim() !== "" ? v.trim() : undefined;

/** A setting's value: config (when it has a key) first, then the environment; undefined when neither is set. */
export function readSetting(
  name: SettingName,
  fromConfig: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): number | undefined {
  const s: WholeNumberSetting = SETTINGS[name];
  const configured = s.configKey !== undefined ? nonEmpty(fromConfig) : undefined;
  const text = configured ?? nonEmpty(env[s.env]);
  if (text === undefined) return undefined;
  const problem = wholeNumberProblem(text, configured !== undefined ? (s.configKey ?? s.env) : s.env, s.min, s.unit);
  if (problem !== undefined) throw new PimsConfigurationError("pulumi-pims is not configured correctly", problem);
  return Number(text);
}

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
  const field =
    fromConfig !== undefined ? (options.audience === "cli" ? "--base-url" : "pims:baseUrl") : "PIMS_BASE_URL";
  const problem = baseUrlProblem(baseUrl, field);
  if (problem !== undefined) throw new InvalidBaseUrlError(problem);
  return { token, baseUrl: normalizeBaseUrl(baseUrl) };
}

/** Client tuning from the environment: PIMS_TIMEOUT_MS, PIMS_MAX_RETRIES, PIMS_RETRY_MIN_DELAY_MS, PIMS_WIRE_RECORD. */
export function tuningFromEnv(env: NodeJS.ProcessEnv = process.env): Partial<ClientOptions> {
  const out: Partial<ClientOptions> = {};
  for (const name of ["timeoutMs", "retries", "minDelayMs"] as const) {
    const v = readSetting(name, undefined, env);
    if (v !== undefined) out[name] = v;
  }
  // PIMS_WIRE_RECORD=<file>: the wire recorder (provider/client/recorder), in the provider host and the program alike.
  const record = nonEmpty(env.PIMS_WIRE_RECORD);
  if (record !== undefined) out.record = record;
  return out;
}

/**
 * Settings of the process's request scheduler (`pims:maxConcurrency` / PIMS_MAX_CONCURRENCY,
 * `pims:rateLimitTimeoutMs` / PIMS_RATE_LIMIT_TIMEOUT_MS). Unset values are left out (the scheduler keeps its
 * defaults: 8, 5 minutes).
 */
export function schedulerSettings(
  configured: ConfiguredCredentials = {},
  env: NodeJS.ProcessEnv = process.env,
): SchedulerSettings {
  const out: SchedulerSettings = {};
  const maxConcurrency = readSetting("maxConcurrency", configured.maxConcurrency, env);
  const rateLimitTimeoutMs = readSetting("rateLimitTimeoutMs", configured.rateLimitTimeoutMs, env);
  if (maxConcurrency !== undefined) out.maxConcurrency = maxConcurrency;
  if (rateLimitTimeoutMs !== undefined) out.rateLimitTimeoutMs = rateLimitTimeoutMs;
  return out;
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

/**
 * The stack config of the `pims` namespace as the engine gives every plugin process in `PULUMI_CONFIG` (a JSON
 * object; keys arrive without the namespace, `token`, and are accepted with it, `pims:token`). The native plugin's
 * explicit providers fall back to it for a setting they are not given, as `pims.Provider` does in TypeScript.
 * Unreadable or absent: an empty map.
 */
export function pluginStackConfig(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const text = env.PULUMI_CONFIG;
  if (text === undefined || text.trim() === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return {};
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(parsed as Record<string, unknown>)) {
    const key = /^pims:(config:)?/.test(k) ? k.replace(/^pims:(config:)?/, "") : k.includes(":") ? undefined : k;
    if (key !== undefined && v !== undefined && v !== null) out[key] = typeof v === "string" ? v : JSON.stringify(v);
  }
  return out;
}
