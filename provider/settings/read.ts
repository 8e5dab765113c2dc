/**
 * The one place settings are read (configured text first: a dynamic provider's stack config or `pims.Provider`
 * inputs, the program's stack config, the CLI's flags, or a native plugin's `Configure` variables; then the
 * environment, `PIMS_*`), by the one parser. Each is read at call time (never at module load or serialization time)
 * and parsed once: a bad value fails naming where it was set and the rule. A default the provider code uses is applied
 * here, once; the client's and the scheduler's own tuning keep their defaults there (the same constants the table
 * names: provider/client/retry.ts, provider/client/scheduler.ts).
 */
import type * as pulumi from "@pulumi/pulumi";
import { baseUrlProblem, insecureHttpProblem, normalizeBaseUrl } from "../client/baseUrl";
import { RETRY_DEFAULTS } from "../client/retry";
import { flagValue, parseList, wholeNumberProblem } from "../client/values";
import { isUnknown } from "../checks";
import {
  InvalidBaseUrlError,
  MissingCredentialsError,
  PimsConfigurationError,
  type CredentialsOptions,
} from "../configErrors";
import {
  CONFIG_KEYS,
  ESC_DEFAULTS,
  SETTINGS,
  type ConfigKey,
  type ConfiguredSettings,
  type SettingName,
  type SettingSpec,
} from "./table";

/** The value of each kind, as the one parser gives it. */
type KindValue = {
  secret: string;
  url: string;
  flag: boolean;
  count: number;
  list: ReadonlySet<string>;
  path: string;
  text: string;
};
/**
 * How long the project's API keys are watched after a create whose answer was lost, unless `PIMS_LOST_CREATE_WATCH_MS`
 * says: twice the per-attempt timeout, at least 10 s. A service that missed the timeout has then had three times the
 * timeout to finish the request; an account that appears within that time is named in the error.
 */
export const lostCreateWatchMs = (timeoutMs: number): number =>
  Math.max(RETRY_DEFAULTS.lostCreateMinWatchMs, 2 * timeoutMs);

/** The settings whose defaults this module applies (the provider code reads them; no consumer repeats a default). */
type Defaulted = "allowInsecureHttp" | "goneProjects" | "listingLagMs" | "lostCreateWatchMs";

/**
 * Every setting, parsed, by its name in the table (the base address normalized: no trailing slash or `/v2`). The ones
 * the provider code reads ({@link Defaulted}) always hold a value, their default when unset; the client's and the
 * scheduler's tuning are absent when unset (the client and the scheduler apply their own defaults, the constants the
 * table names). `tokenSource`: where the token came from, as a 401 or 403 names it (`pims:token`, `PIMS_TOKEN`, a
 * provider's `token`).
 */
export type Settings = { [K in Exclude<SettingName, Defaulted>]?: KindValue[(typeof SETTINGS)[K]["kind"]] } & {
  [K in Defaulted]: KindValue[(typeof SETTINGS)[K]["kind"]];
} & { tokenSource?: string };

/** The token and the normalized base address (no trailing slash, no trailing `/v2`). */
export type Credentials = { token: string; baseUrl: string };

/** Options of {@link readSettings}: who reads the messages (the CLI names `--base-url` and the environment). */
export interface SettingsOptions extends CredentialsOptions {
  /** Token and base address must be set: `MissingCredentialsError` (before any other check) when one is not. */
  requireCredentials?: boolean;
  /** Where a configured token came from, when the source knows better than `pims:token`. */
  tokenSource?: string;
  /**
   * The stack config's `pims:token` now, when the host can read it apart from the configured one (the plugin's
   * default provider: `PULUMI_CONFIG`); a refresh or destroy whose stored credential differs says so
   * (../providerBase `staleCredentialNote`).
   */
  stackToken?: () => string | undefined;
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
  settings.listingLagMs ??= SETTINGS.listingLagMs.default;
  settings.lostCreateWatchMs ??= lostCreateWatchMs(settings.timeoutMs ?? RETRY_DEFAULTS.timeoutMs);
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

/** The stack config the engine gives every plugin process (`PULUMI_CONFIG`, JSON), parsed by provider/plugin/config. */
export const pluginConfigText = (env: NodeJS.ProcessEnv = process.env): string | undefined => env.PULUMI_CONFIG;

/**
 * The environment of a program the provider runs for the user (the token-delivery command): the provider's own,
 * without its credential (PIMS_TOKEN), plus `extra`.
 */
export function childEnvironment(
  extra: Record<string, string>,
  env: NodeJS.ProcessEnv = process.env,
): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env, ...extra };
  delete out.PIMS_TOKEN;
  return out;
}

/** The ESC rotation adapter's settings, by their names in `SETTINGS`, as flags give them. */
export type EscSettingTexts = Partial<
  Record<
    "escJwksUrl" | "escIssuer" | "escAudience" | "escOpenAudience" | "escAllow" | "escMaxTtl" | "escMaxLeases",
    string
  >
>;

/** The ESC rotation adapter's settings read: its own verification settings, and its pims credential. */
export interface EscRotatorSettings {
  jwksUrl: string;
  issuer: string;
  audience: string | undefined;
  openAudience: string | undefined;
  allow: string[];
  /** The longest lease, in seconds. */
  maxTtl: number;
  /** The most live leases of one series. */
  maxLeases: number;
  /** The environment the adapter's client is built from (the flags' values in their variables). */
  env: NodeJS.ProcessEnv;
  settings: Settings;
}

/**
 * The ESC rotation adapter's settings: `flags` first (by setting name), then the environment, with the defaults of
 * `ESC_DEFAULTS`. The pims credential is `PIMS_TOKEN` and `PIMS_BASE_URL` only (never a request's content): the client
 * built from `env` requires them.
 */
export function escRotatorSettings(
  flags: EscSettingTexts = {},
  env: NodeJS.ProcessEnv = process.env,
): EscRotatorSettings {
  const merged: NodeJS.ProcessEnv = { ...env };
  for (const [name, text] of Object.entries(flags) as Array<[keyof EscSettingTexts, string | undefined]>)
    if (text !== undefined) merged[SETTINGS[name].env] = text;
  const settings = readSettings({}, { env: merged, audience: "cli" });
  return {
    jwksUrl: settings.escJwksUrl ?? ESC_DEFAULTS.jwksUrl,
    issuer: settings.escIssuer ?? ESC_DEFAULTS.issuer,
    audience: settings.escAudience,
    openAudience: settings.escOpenAudience,
    allow: [...(settings.escAllow ?? [])],
    maxTtl: settings.escMaxTtl ?? ESC_DEFAULTS.maxTtlS,
    maxLeases: settings.escMaxLeases ?? ESC_DEFAULTS.maxLeases,
    env: merged,
    settings,
  };
}
