/**
 * The table of every setting of the provider process, the program's functions and the CLI (`SETTINGS`, which
 * docs/settings.md, the schema's config and `pims.Provider`'s argument docs are rendered from, by
 * {@link settingDefault}): where each can be set, how it is parsed, its default and its doc. Reading them is ./read's
 * job, building a client from them ./clientFactory's.
 */
import { RETRY_DEFAULTS } from "../client/retry";
import { SCHEDULER_DEFAULTS, SCHEDULER_MINIMUMS } from "../client/scheduler";

/** How a setting's text is read: the one parser (parseSetting, ./read) has one rule per kind. */
export type SettingKind = "secret" | "url" | "flag" | "count" | "list" | "path" | "text";

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

/**
 * The ESC rotation adapter's defaults: Pulumi Cloud's signing keys and issuer (provider/escRotator/verify.ts), and how
 * long `pims esc-rotator serve` waits for a body (ESC sends a few hundred bytes at once).
 */
export const ESC_DEFAULTS = {
  jwksUrl: "https://api.pulumi.com/oidc/.well-known/jwks",
  issuer: "https://api.pulumi.com",
  bodyDeadlineMs: 10_000,
} as const;
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
  escJwksUrl: {
    env: "PIMS_ESC_JWKS_URL",
    set: "env",
    kind: "text",
    defaultRule: `\`${ESC_DEFAULTS.jwksUrl}\``,
    doc:
      "`pims esc-rotator serve` and `createEscRotator`: where the signing keys of the Pulumi Cloud that calls the " +
      "adapter are published (a self-hosted Pulumi Cloud has its own). The CLI also takes `--jwks-url`.",
  },
  escIssuer: {
    env: "PIMS_ESC_ISSUER",
    set: "env",
    kind: "text",
    defaultRule: `\`${ESC_DEFAULTS.issuer}\``,
    doc: "The ESC rotation adapter: the only `iss` accepted in a request's token. The CLI also takes `--issuer`.",
  },
  escAudience: {
    env: "PIMS_ESC_AUDIENCE",
    set: "env",
    kind: "text",
    doc:
      "The ESC rotation adapter (required): the only `aud` accepted, the adapter's URL exactly as the environments' " +
      "`fn::rotate::external` `url` writes it. The CLI also takes `--audience`.",
  },
  escAllow: {
    env: "PIMS_ESC_ALLOW",
    set: "env",
    kind: "list",
    doc:
      "The ESC rotation adapter (required): the organizations (`acme`) and environments (`acme/app/prod`) whose " +
      "requests are served, comma-separated or a JSON list; every other one is refused with 401 before any call. " +
      "The CLI also takes `--allow`.",
  },
  escBodyDeadlineMs: {
    env: "PIMS_ESC_BODY_DEADLINE_MS",
    set: "env",
    kind: "count",
    min: 1,
    unit: ms,
    default: ESC_DEFAULTS.bodyDeadlineMs,
    doc:
      "`pims esc-rotator serve`: how long a client has to send its whole body once its headers arrived; a slower " +
      "one is answered 408 and disconnected (ESC sends a few hundred bytes at once).",
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
