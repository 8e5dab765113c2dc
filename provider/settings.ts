/**
 * Every setting of the provider process, the program's functions and the CLI: the one table (`SETTINGS`, which
 * docs/settings.md is rendered from), the one parser, and the one place that reads them. Configured text comes first
 * (`ConfiguredSettings`: a dynamic provider's stack config or `pims.Provider` inputs, the program's stack config, the
 * CLI's flags, or a native plugin's `Configure` variables), then the environment (`PIMS_*`). Each is read at call time
 * (never at module load or serialization time) and parsed once: a bad value fails naming where it was set and the rule.
 */
import type * as pulumi from "@pulumi/pulumi";
import { PimsClient, type ClientOptions } from "./client";
import { baseUrlProblem, insecureHttpProblem, normalizeBaseUrl } from "./client/baseUrl";
import { RETRY_DEFAULTS } from "./client/retry";
import { processScheduler, SCHEDULER_DEFAULTS, SCHEDULER_MINIMUMS, type SchedulerSettings } from "./client/scheduler";
import { flagValue, parseList, wholeNumberProblem } from "./client/values";
import { isUnknown } from "./checks";
import {
  InvalidBaseUrlError,
  MissingCredentialsError,
  PimsConfigurationError,
  type CredentialsOptions,
} from "./configErrors";

/** How a setting's text is read: the one parser ({@link parseSetting}) has one rule per kind. */
export type SettingKind = "secret" | "url" | "flag" | "count" | "list" | "path";

/**
 * One setting: where it can be set (`env`: only its environment variable; `config`: also stack config `pims:<name>`
 * and a plugin's `Configure`; `argument`: also an argument of `pims.Provider`), how it is parsed (for `count`: the
 * least value and the unit the rule names), and what the docs say of it (default, and one or two sentences).
 */
export interface SettingSpec {
  env: string;
  set: "env" | "config" | "argument";
  kind: SettingKind;
  min?: number;
  unit?: string;
  /** The default value (rendered by {@link settingDefault}), `"required"`, or absent: none. */
  default?: number | boolean | "required";
  /** A default that is a rule rather than one value, as the docs say it. */
  defaultRule?: string;
  doc: string;
}

const ms = " of milliseconds";
const TIMEOUT_ENV = "PIMS_TIMEOUT_MS";

/** Every setting, once, in the docs' order. */
export const SETTINGS = {
  token: {
    env: "PIMS_TOKEN",
    set: "argument",
    kind: "secret",
    default: "required",
    doc:
      "Service-account token, sent as `Authorization: Bearer <token>`. Set it as a secret " +
      "(`pulumi config set --secret pims:token`). The `pims` CLI reads it only from its environment variable.",
  },
  baseUrl: {
    env: "PIMS_BASE_URL",
    set: "argument",
    kind: "url",
    default: "required",
    doc:
      "Service address, e.g. `https://pims.example.com` (a trailing `/v2` is removed). Plain `http://` is refused " +
      "unless the host is this machine (`localhost`, `127.0.0.0/8`, `[::1]`) or `allowInsecureHttp` is set. " +
      "The CLI also takes `--base-url`.",
  },
  allowInsecureHttp: {
    env: "PIMS_ALLOW_INSECURE_HTTP",
    set: "argument",
    kind: "flag",
    default: false,
    doc:
      "`true` allows a plain `http://` base address to another machine, for a private network or a proxy that " +
      "terminates TLS: every token then crosses that network unencrypted.",
  },
  maxConcurrency: {
    env: "PIMS_MAX_CONCURRENCY",
    set: "argument",
    kind: "count",
    min: SCHEDULER_MINIMUMS.maxConcurrency,
    default: SCHEDULER_DEFAULTS.maxConcurrency,
    doc: "Requests in flight at once in one process (each `pims.Provider` is a process of its own).",
  },
  rateLimitTimeoutMs: {
    env: "PIMS_RATE_LIMIT_TIMEOUT_MS",
    set: "argument",
    kind: "count",
    min: SCHEDULER_MINIMUMS.rateLimitTimeoutMs,
    unit: ms,
    default: SCHEDULER_DEFAULTS.rateLimitTimeoutMs,
    doc:
      "How long one request may keep being refused with HTTP 429 before it fails (a 429 did nothing, so waiting " +
      "is safe). 0 fails at the first refusal.",
  },
  goneProjects: {
    env: "PIMS_GONE_PROJECTS",
    set: "config",
    kind: "list",
    doc:
      "Project ids you confirm were deleted outside Pulumi (comma-separated or a JSON list): a service account " +
      "whose delete and project both answer 404 is then dropped from the state instead of failing.",
  },
  timeoutMs: {
    env: TIMEOUT_ENV,
    set: "env",
    kind: "count",
    min: 1,
    unit: ms,
    default: RETRY_DEFAULTS.timeoutMs,
    doc: "Per-attempt timeout of a request.",
  },
  retries: {
    env: "PIMS_MAX_RETRIES",
    set: "env",
    kind: "count",
    min: 0,
    default: RETRY_DEFAULTS.retries,
    doc: "Repeats of a request that failed in a way a repeat may fix (HTTP 408, 502, 503, 504, a network error).",
  },
  minDelayMs: {
    env: "PIMS_RETRY_MIN_DELAY_MS",
    set: "env",
    kind: "count",
    min: 0,
    unit: ms,
    default: RETRY_DEFAULTS.minDelayMs,
    doc: `First pause before a repeat; it doubles each repeat, up to ${RETRY_DEFAULTS.maxDelayMs} ms.`,
  },
  record: {
    env: "PIMS_WIRE_RECORD",
    set: "env",
    kind: "path",
    doc:
      "A file to append a wire recording to: one JSON line per request with the route, status and the shape of " +
      "the body, never a value. The CLI also takes `--record`.",
  },
  lostCreateWatchMs: {
    env: "PIMS_LOST_CREATE_WATCH_MS",
    set: "env",
    kind: "count",
    min: 0,
    unit: ms,
    defaultRule: `twice \`${TIMEOUT_ENV}\`, at least ${RETRY_DEFAULTS.lostCreateMinWatchMs}`,
    doc:
      "How long the project's API keys are watched after a service-account create got no answer, so that an " +
      "account the service creates late is named in the error.",
  },
  listingLagMs: {
    env: "PIMS_LISTING_LAG_MS",
    set: "env",
    kind: "count",
    min: 0,
    unit: ms,
    default: 120_000,
    doc:
      "On refresh, how long after its creation a service account the project's API-key listing does not show yet " +
      "is kept as it is (a listing may lag behind a create); older ones the listing no longer shows are gone.",
  },
} as const satisfies Record<string, SettingSpec>;

export type SettingName = keyof typeof SETTINGS;
/** A table of the settings' specs: {@link SETTINGS}, or a changed copy of it (the docs' renderers take one). */
export type SettingsTable = Record<SettingName, SettingSpec>;

/** The one rendering of a setting's default, from its value (docs/settings.md, the schema, `pims.Provider`'s docs). */
export function settingDefault(spec: SettingSpec): string {
  if (spec.defaultRule !== undefined) return spec.defaultRule;
  if (spec.default === undefined || spec.default === "required") return spec.default ? "none: required" : "none";
  if (typeof spec.default === "boolean") return `\`${spec.default}\``;
  // A duration in whole minutes or seconds is also said in them: `300000 (5 minutes)`.
  const [size, word] = spec.default % 60_000 === 0 ? [60_000, "minute"] : [1000, "second"];
  const n = spec.default / size;
  const said = spec.unit === ms && Number.isInteger(n) && n > 0 ? ` (${n} ${word}${n === 1 ? "" : "s"})` : "";
  return `${spec.default}${said}`;
}
/** Names of the settings a source of configured text may hold (stack config keys without `pims:`). */
export type ConfigKey = { [K in SettingName]: (typeof SETTINGS)[K]["set"] extends "env" ? never : K }[SettingName];
/** Configured text by key without the namespace (`token`, `baseUrl`, …), as stack config or `Configure` gives it. */
export type ConfiguredSettings = Partial<Record<ConfigKey, string>>;

export const CONFIG_KEYS = (Object.keys(SETTINGS) as SettingName[]).filter(
  (k): k is ConfigKey => SETTINGS[k].set !== "env",
);

/** The value of each kind, as the one parser gives it. */
type KindValue = { secret: string; url: string; flag: boolean; count: number; list: ReadonlySet<string>; path: string };
/**
 * Every setting, parsed, by its name in the table (the base address normalized: no trailing slash or `/v2`); unset
 * ones are absent (their defaults apply where they are used), but for the flag and the list. `tokenSource`: where the
 * token came from, as a 401 or 403 names it (`pims:token`, `PIMS_TOKEN`, a provider's `token`).
 */
export type Settings = { [K in SettingName]?: KindValue[(typeof SETTINGS)[K]["kind"]] } & {
  tokenSource?: string;
  allowInsecureHttp: boolean;
  goneProjects: ReadonlySet<string>;
};

/** The token and the normalized base address (no trailing slash, no trailing `/v2`). */
export type Credentials = { token: string; baseUrl: string };

/** Options of {@link readSettings}: who reads the messages (the CLI names `--base-url` and the environment). */
export interface SettingsOptions extends CredentialsOptions {
  /** Token and base address must be set: `MissingCredentialsError` (before any other check) when one is not. */
  requireCredentials?: boolean;
  /** Where a configured token came from, when the source knows better than `pims:token`. */
  tokenSource?: string;
  /** The environment read after `configured` (default: `process.env`). */
  env?: NodeJS.ProcessEnv;
}

const nonEmpty = (v: string | undefined): string | undefined =>
  v !== undefined && v.trim() !== "" ? v.trim() : undefined;

/**
 * The configured text of every config key `lookup` holds (keys without the namespace: `token`, `baseUrl`, …). A
 * native plugin's `Configure` variables (a `Record<string, string>`) are already in this form.
 */
export function configuredFrom(lookup: (key: ConfigKey) => string | undefined): ConfiguredSettings {
  const out: ConfiguredSettings = {};
  for (const k of CONFIG_KEYS) {
    const v = lookup(k);
    if (v !== undefined) out[k] = v;
  }
  return out;
}

/** Stack config as a dynamic provider's `configure` receives it (`pims:<key>`; or a `pims.Provider`'s inputs). */
export function configuredFromStack(config: { get(key: string): string | undefined }): ConfiguredSettings {
  return configuredFrom((key) => config.get(`pims:${key}`));
}

/** The program's stack config (`pims:*`, Pulumi loaded when asked): its text, and the token as a secret Output. */
export function programConfig(): { configured: ConfiguredSettings; token?: pulumi.Output<string> } {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const config = new (require("@pulumi/pulumi") as typeof pulumi).Config("pims");
    return { configured: configuredFrom((key) => config.get(key)), token: config.getSecret("token") };
  } catch {
    return { configured: {} };
  }
}

/** Why `value` breaks the rule of setting `name` (named `where`), or undefined. Accepts text or a typed value. */
export function settingProblem(name: SettingName, value: unknown, where: string): string | undefined {
  const s: SettingSpec = SETTINGS[name];
  switch (s.kind) {
    case "count":
      return wholeNumberProblem(value, where, s.min ?? 0, s.unit ?? "");
    case "url":
      return baseUrlProblem(value, where);
    case "flag":
      return flagValue(value) !== undefined
        ? undefined
        : `${where} must be true or false (got ${typeof value === "string" ? JSON.stringify(value) : String(value)})`;
    case "secret":
      if (typeof value !== "string") return `${where} must be a string (got ${value === null ? "null" : typeof value})`;
      return value.trim() === "" ? `${where} must not be empty` : undefined;
    default:
      return typeof value === "string" ? undefined : `${where} must be text (got ${typeof value})`;
  }
}

/** The one parser: the text of setting `name` as its value, or a configuration error naming `where` and the rule. */
export function parseSetting(name: SettingName, text: string, where: string): string | number | boolean | Set<string> {
  const problem = settingProblem(name, text, where);
  if (problem !== undefined && SETTINGS[name].kind === "url") throw new InvalidBaseUrlError(problem);
  if (problem !== undefined) throw new PimsConfigurationError("pulumi-pims is not configured correctly", problem);
  switch (SETTINGS[name].kind) {
    case "count":
      return Number(text);
    case "url":
      return normalizeBaseUrl(text);
    case "flag":
      return flagValue(text) === true;
    case "list":
      return parseList(text);
    default:
      return text.trim();
  }
}

/**
 * Every setting from `configured` first (values unknown at preview are left unchecked, with no fallback), then the
 * environment; parsed and checked (a plain `http://` address to another machine included). Token and base address
 * may be missing here: {@link credentialsOf} requires them.
 */
export function readSettings(configured: ConfiguredSettings = {}, options: SettingsOptions = {}): Settings {
  const env = options.env ?? process.env;
  const texts: Partial<Record<SettingName, string>> = {};
  const where: Partial<Record<SettingName, string>> = {};
  for (const name of Object.keys(SETTINGS) as SettingName[]) {
    const s: SettingSpec = SETTINGS[name];
    const raw = s.set !== "env" ? configured[name as ConfigKey] : undefined;
    if (raw !== undefined && isUnknown(raw)) continue;
    const fromConfig = nonEmpty(raw);
    texts[name] = fromConfig ?? nonEmpty(env[s.env]);
    const cli = options.audience === "cli" && name === "baseUrl";
    where[name] = fromConfig === undefined ? s.env : cli ? "--base-url" : `pims:${name}`;
  }
  if (options.requireCredentials) {
    const missing = (["token", "baseUrl"] as const).filter((k) => texts[k] === undefined);
    if (missing.length > 0) throw new MissingCredentialsError(missing, options);
  }
  const out: Record<string, unknown> = { allowInsecureHttp: false, goneProjects: new Set<string>() };
  for (const [name, text] of Object.entries(texts) as Array<[SettingName, string | undefined]>)
    if (text !== undefined) out[name] = parseSetting(name, text, where[name] ?? name);
  const settings = out as unknown as Settings;
  if (settings.token !== undefined)
    settings.tokenSource = where.token === SETTINGS.token.env ? where.token : (options.tokenSource ?? where.token);
  const byEnv = `${SETTINGS.allowInsecureHttp.env}=true`;
  const wayOut =
    options.audience === "cli"
      ? byEnv
      : `pims:allowInsecureHttp set to true (or ${byEnv}, or a pims.Provider's argument)`;
  const insecure = settings.allowInsecureHttp ? undefined : settings.baseUrl;
  const problem = insecure && insecureHttpProblem(insecure, where.baseUrl ?? "baseUrl", wayOut);
  if (problem) throw new InvalidBaseUrlError(problem);
  return settings;
}

/**
 * The plain-http rule for a value checked outside {@link readSettings} (a `pims.Provider`'s plain arguments): why
 * `baseUrl` (valid, set at `where`) must not be used, unless `allow` (text; else PIMS_ALLOW_INSECURE_HTTP) says true.
 */
export function plainHttpProblem(
  baseUrl: string,
  where: string,
  allow: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  if (flagValue(nonEmpty(allow) ?? nonEmpty(env[SETTINGS.allowInsecureHttp.env])) === true) return undefined;
  return insecureHttpProblem(baseUrl, where, "allowInsecureHttp: true (or pims:allowInsecureHttp)");
}

/** The token and base address of `settings`, or `MissingCredentialsError` naming what is missing. */
export function credentialsOf(settings: Settings, options: CredentialsOptions = {}): Credentials {
  const { token, baseUrl } = settings;
  const missing: Array<"token" | "baseUrl"> = [];
  if (!token) missing.push("token");
  if (!baseUrl) missing.push("baseUrl");
  if (missing.length > 0 || !token || !baseUrl) throw new MissingCredentialsError(missing, options);
  return { token, baseUrl };
}

/**
 * The token and normalized base address, from `configured` first, then the environment. Throws
 * `MissingCredentialsError` naming what is missing, or `InvalidBaseUrlError` naming where the bad address was set
 * (`pims:baseUrl`, or `--base-url` for the CLI, or `PIMS_BASE_URL`) and the rule.
 */
export function resolveCredentials(configured: ConfiguredSettings = {}, options: SettingsOptions = {}): Credentials {
  return credentialsOf(readSettings(configured, { ...options, requireCredentials: true }), options);
}

/** The scheduler's settings among `settings` (unset ones left out: the scheduler keeps its defaults). */
function schedulerPart(settings: Settings): SchedulerSettings {
  const out: SchedulerSettings = {};
  if (settings.maxConcurrency !== undefined) out.maxConcurrency = settings.maxConcurrency;
  if (settings.rateLimitTimeoutMs !== undefined) out.rateLimitTimeoutMs = settings.rateLimitTimeoutMs;
  return out;
}

/** The scheduler's settings of `configured` and the environment (unset ones left out). */
export function schedulerSettings(
  configured: ConfiguredSettings = {},
  env: NodeJS.ProcessEnv = process.env,
): SchedulerSettings {
  return schedulerPart(readSettings(configured, { env }));
}

/** The one place a scheduler (the process's, unless one is given) takes the user's settings. */
export function configureScheduler(settings: Settings, scheduler = processScheduler()): void {
  scheduler.configure(schedulerPart(settings));
}

/** Client tuning among `settings`: timeout, retries, first delay, wire record. */
export function clientTuning(settings: Settings): Partial<ClientOptions> {
  const out: Partial<ClientOptions> = {};
  for (const name of ["timeoutMs", "retries", "minDelayMs", "record"] as const) {
    const v = settings[name];
    if (v !== undefined) (out as Record<string, unknown>)[name] = v;
  }
  return out;
}

/**
 * A client for the settings of `configured` and the environment; the scheduler it uses (the process's unless `extra`
 * names one) takes the scheduler settings. A 401 or 403 names where the token came from.
 */
export function clientFor(
  configured: ConfiguredSettings = {},
  extra: Partial<ClientOptions> = {},
  options: SettingsOptions = {},
): PimsClient {
  const settings = readSettings(configured, { ...options, requireCredentials: true });
  const credentials = credentialsOf(settings, options);
  configureScheduler(settings, extra.scheduler);
  return new PimsClient({ ...clientTuning(settings), tokenSource: settings.tokenSource, ...extra, ...credentials });
}
/** The stack config the engine gives every plugin process (`PULUMI_CONFIG`, JSON), parsed by provider/plugin/config. */
export const pluginConfigText = (env: NodeJS.ProcessEnv = process.env): string | undefined => env.PULUMI_CONFIG;
