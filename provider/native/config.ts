/**
 * The provider's own configuration in the plugin: `CheckConfig`, `DiffConfig` and `Configure`. The default provider's
 * inputs are the stack config of the `pims` namespace (`pims:token`, `pims:baseUrl`, ...); an explicit provider
 * (`pulumi:providers:pims`) has its arguments instead, and falls back to the stack config (`PULUMI_CONFIG`) for a
 * setting it is not given, as `pims.Provider` does in TypeScript; the environment (`PIMS_*`) comes last, read by
 * ../settings when a client is built. The token is always returned as a secret, so the engine never stores it in
 * plaintext among the provider's inputs.
 */
import type * as pulumi from "@pulumi/pulumi";
import { baseUrlProblem } from "../client/baseUrl";
import { isUnknown } from "../checks";
import { pluginStackConfig, SETTINGS, wholeNumberProblem } from "../settings";
import type { Props } from "./values";

/** The provider's settings (inputs of `pulumi:providers:pims`, keys of the `pims` config namespace). */
export const CONFIG_KEYS = ["token", "baseUrl", "maxConcurrency", "rateLimitTimeoutMs", "goneProjects"] as const;
export type ConfigKey = (typeof CONFIG_KEYS)[number];

/** Provider inputs stored as secrets whatever was passed. */
export const SECRET_CONFIG_KEYS: readonly ConfigKey[] = ["token"];

const WHOLE_NUMBERS = ["maxConcurrency", "rateLimitTimeoutMs"] as const;

/** A default provider's URN ends in `::default` or `::default_<version>`: its settings are stack config keys. */
export const isDefaultProvider = (urn: string): boolean => /::default(_[^:]*)?$/.test(urn);

/** How a failure names a setting: `pims:<key>` for the default provider (stack config), `<key>` for an explicit one. */
const fieldName = (key: string, urn: string): string => (isDefaultProvider(urn) ? `pims:${key}` : key);

/** Failures of the provider's inputs (unknown values are checked when known). The token's value is never shown. */
export function configFailures(news: Props, urn: string): pulumi.dynamic.CheckFailure[] {
  const failures: pulumi.dynamic.CheckFailure[] = [];
  const known = (v: unknown): boolean => v !== undefined && v !== null && !isUnknown(v);
  const token = news.token;
  if (known(token) && (typeof token !== "string" || token.trim() === ""))
    failures.push({
      property: "token",
      reason: `${fieldName("token", urn)} must be a non-empty string (got ${typeof token === "string" ? "an empty one" : typeof token})`,
    });
  if (known(news.baseUrl)) {
    const problem = baseUrlProblem(news.baseUrl, fieldName("baseUrl", urn));
    if (problem !== undefined) failures.push({ property: "baseUrl", reason: problem });
  }
  for (const key of WHOLE_NUMBERS) {
    const { min, unit } = SETTINGS[key];
    if (!known(news[key])) continue;
    const problem = wholeNumberProblem(news[key], fieldName(key, urn), min, unit);
    if (problem !== undefined) failures.push({ property: key, reason: problem });
  }
  return failures;
}

/**
 * The settings a Configure gives the lifecycle code, as the dynamic host's `ConfigureRequest` gives them (text, keys
 * `pims:<key>`): the provider's inputs first, then (for a setting they lack) the stack config. Numbers become text,
 * the form stack config has; unknown values (a preview before their source exists) stay the unknown marker.
 */
export function configureRequest(
  args: Props,
  env: NodeJS.ProcessEnv = process.env,
): { request: pulumi.dynamic.ConfigureRequest; values: Partial<Record<ConfigKey, string>> } {
  const stack = pluginStackConfig(env);
  const values: Partial<Record<ConfigKey, string>> = {};
  for (const key of CONFIG_KEYS) {
    const v = args[key] ?? stack[key];
    if (v === undefined || v === null) continue;
    values[key] = typeof v === "string" ? v : JSON.stringify(v);
  }
  const get = (key: string): string | undefined => {
    const k = key.startsWith("pims:") ? key.slice("pims:".length) : key;
    return (values as Record<string, string | undefined>)[k];
  };
  const require = (key: string): string => {
    const v = get(key);
    if (v === undefined) throw new Error(`missing required configuration key ${key}`);
    return v;
  };
  return { request: { config: { get, require } }, values };
}

/** The provider's inputs as Configure and DiffConfig read them: from `args`, else from the `variables` map. */
export function configArgs(args: Props | undefined, variables: ReadonlyArray<[string, string]> = []): Props {
  if (args !== undefined && Object.keys(args).length > 0) return args;
  const out: Props = {};
  for (const [k, v] of variables) out[k.replace(/^pims:(config:)?/, "")] = v;
  return out;
}
