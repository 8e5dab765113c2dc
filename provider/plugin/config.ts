/**
 * The provider's own configuration in the plugin: `CheckConfig`, `DiffConfig` and `Configure`. The default provider's
 * inputs are the stack config of the `pims` namespace (`pims:token`, `pims:baseUrl`, ...); an explicit provider
 * (`pulumi:providers:pims`) has its arguments instead, and falls back to the stack config (`PULUMI_CONFIG`) for a
 * setting it is not given, as `pims.Provider` does in TypeScript; the environment (`PIMS_*`) comes last, read by
 * ../settings when a client is built. The settings, their rules and their parser are ../settings' table: this file
 * only says where the plugin's values come from; Configure hands them once to the same base the dynamic host
 * configures (../providerBase). The token is always returned as a secret, so the engine never
 * stores it in plaintext among the provider's inputs.
 */
import type * as pulumi from "@pulumi/pulumi";
import { isUnknown } from "../checks";
import {
  CONFIG_KEYS,
  configuredFrom,
  pluginConfigText,
  plainHttpProblem,
  settingProblem,
  type ConfigKey,
  type ConfiguredSettings,
  type SettingsOptions,
} from "../settings";
import type { Props } from "./values";

export type { ConfigKey };

/** Provider inputs stored as secrets whatever was passed. */
export const SECRET_CONFIG_KEYS: readonly ConfigKey[] = ["token"];

/** A default provider's URN ends in `::default` or `::default_<version>`: its settings are stack config keys. */
export const isDefaultProvider = (urn: string): boolean => /::default(_[^:]*)?$/.test(urn);

/** A value as configured text (stack config is text; YAML may give numbers, booleans or lists). */
const asText = (v: unknown): string | undefined =>
  v === undefined || v === null ? undefined : typeof v === "string" ? v : JSON.stringify(v);

/** Failures of the provider's inputs (unknown values are checked when known). The token's value is never shown. */
export function configFailures(news: Props, urn: string): pulumi.dynamic.CheckFailure[] {
  const field = (key: string): string => (isDefaultProvider(urn) ? `pims:${key}` : key);
  const failures: pulumi.dynamic.CheckFailure[] = [];
  for (const key of CONFIG_KEYS) {
    const v = news[key];
    if (v === undefined || v === null || isUnknown(v)) continue;
    const problem = settingProblem(key, Array.isArray(v) ? JSON.stringify(v) : v, field(key));
    if (problem !== undefined) failures.push({ property: key, reason: problem });
  }
  const baseUrl = news.baseUrl;
  if (
    typeof baseUrl === "string" &&
    !failures.some((f) => f.property === "baseUrl") &&
    !isUnknown(news.allowInsecureHttp)
  ) {
    const problem = plainHttpProblem(baseUrl, field("baseUrl"), asText(news.allowInsecureHttp));
    if (problem !== undefined) failures.push({ property: "baseUrl", reason: problem });
  }
  return failures;
}

/** The stack config of the `pims` namespace the engine gave this process (keys `token`, `pims:token` accepted). */
export function pluginStackConfig(env?: NodeJS.ProcessEnv): ConfiguredSettings {
  let all: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(pluginConfigText(env) ?? "{}");
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed))
      all = parsed as Record<string, unknown>;
  } catch {
    // unreadable: no stack config
  }
  return configuredFrom((key) => asText(all[key] ?? all[`pims:${key}`] ?? all[`pims:config:${key}`]));
}

/**
 * The settings of a Configure, handed as they are to the provider objects (../providerBase `configureWith`) and to
 * Invoke: the provider's inputs first, then (for a setting they lack) the stack config, as text. Unknown values (a
 * preview before their source exists) stay the unknown marker, which ../settings skips.
 */
export function pluginSettings(args: Props, env?: NodeJS.ProcessEnv): ConfiguredSettings {
  const stack = pluginStackConfig(env);
  return configuredFrom((key) => asText(args[key]) ?? stack[key]);
}

/**
 * How a 401 or 403 names the token, as the plugin's users write it: stack config `pims:token` (the default provider,
 * and an explicit provider without a `token`), or the `token` argument of an explicit `pulumi:providers:pims`
 * resource (YAML) / `pims.Provider` (Python, Go). The process cannot tell which one it got, so it names both.
 */
export const PLUGIN_SETTINGS_OPTIONS: SettingsOptions = {
  tokenSource: "pims:token (the stack config), or the token argument of the explicit provider (pulumi:providers:pims)",
};

/** The provider's inputs as Configure and DiffConfig read them: from `args`, else from the `variables` map. */
export function configArgs(args: Props | undefined, variables: ReadonlyArray<[string, string]> = []): Props {
  if (args !== undefined && Object.keys(args).length > 0) return args;
  const out: Props = {};
  for (const [k, v] of variables) out[k.replace(/^pims:(config:)?/, "")] = v;
  return out;
}

/**
 * The options a Configure hands the provider objects: the default provider (whose settings a refresh or destroy
 * without `--run-program` takes from the state) also reads the stack config's current `pims:token` from
 * `PULUMI_CONFIG`, so a 401 to a stored credential that is no longer the configured one says exactly that
 * (../providerBase `staleCredentialNote`). An explicit provider's token is its own argument: nothing to compare.
 */
export function configureOptions(urn: string, env?: NodeJS.ProcessEnv): SettingsOptions {
  if (!isDefaultProvider(urn)) return PLUGIN_SETTINGS_OPTIONS;
  return { ...PLUGIN_SETTINGS_OPTIONS, stackToken: () => pluginStackConfig(env).token };
}
