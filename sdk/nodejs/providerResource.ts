/**
 * `pims.Provider`: an explicit provider instance, so one program can use several PIMS accounts or services.
 *
 * pulumi-pims resources are dynamic resources (type `pulumi-nodejs:dynamic/pims:<Type>`), served by the
 * `pulumi-nodejs` dynamic-provider plugin. A `pulumi.ProviderResource` of that package starts a provider process of
 * its own, whose `configure` receives this resource's inputs (`pims:token`, `pims:baseUrl`, `pims:maxConcurrency`,
 * `pims:rateLimitTimeoutMs`) instead of the stack's config; resources given `{ provider }` are served by that
 * process. The SDK functions run in the program process and read the same settings from the instance (see
 * {@link Provider.callSettings}).
 */
import * as pulumi from "@pulumi/pulumi";
import { PimsConfigurationError } from "../../provider/configErrors";
import { parseSetting, plainHttpProblem, programConfig, settingProblem } from "../../provider/settings";

/** Arguments of {@link Provider}. Each one is optional: see {@link Provider} for where a missing one comes from. */
export interface ProviderArgs {
  /**
   * Service-account token, sent as `Authorization: Bearer <token>`. Set it as a secret (`pulumi config set --secret
   * pims:token`). The `pims` CLI reads it only from its environment variable. Default: stack config `pims:token`, else
   * `PIMS_TOKEN`.
   */
  token?: pulumi.Input<string>;
  /**
   * Service address, e.g. `https://pims.example.com` (a trailing `/v2` is removed). Plain `http://` is refused unless
   * the host is this machine (`localhost`, `127.0.0.0/8`, `[::1]`) or `allowInsecureHttp` is set. The CLI also takes
   * `--base-url`. Default: stack config `pims:baseUrl`, else `PIMS_BASE_URL`.
   */
  baseUrl?: pulumi.Input<string>;
  /**
   * Requests in flight at once in one process (each `pims.Provider` is a process of its own). A whole number >= 1.
   * Default: stack config `pims:maxConcurrency`, else `PIMS_MAX_CONCURRENCY`, else 8.
   */
  maxConcurrency?: pulumi.Input<number>;
  /**
   * How long one request may keep being refused with HTTP 429 before it fails (a 429 did nothing, so waiting is safe).
   * 0 fails at the first refusal. A whole number of milliseconds >= 0. Default: stack config `pims:rateLimitTimeoutMs`,
   * else `PIMS_RATE_LIMIT_TIMEOUT_MS`, else 300000 (5 minutes).
   */
  rateLimitTimeoutMs?: pulumi.Input<number>;
  /**
   * `true` allows a plain `http://` base address to another machine, for a private network or a proxy that terminates
   * TLS: every token then crosses that network unencrypted. Default: stack config `pims:allowInsecureHttp`, else
   * `PIMS_ALLOW_INSECURE_HTTP`, else `false`.
   */
  allowInsecureHttp?: pulumi.Input<boolean>;
}

/** A provider's settings as the SDK functions use them, once known (absent ones fall back to the environment). */
export interface ProviderCallSettings {
  /** The provider's token, when it has one. */
  token?: string;
  /** The provider's base address, when it has one. */
  baseUrl?: string;
  /** The provider's `allowInsecureHttp`, when it has one. */
  allowInsecureHttp?: boolean;
}

/**
 * An argument of `new pims.Provider(...)` that breaks a rule; the message names the provider, the field and the rule.
 */
export class ProviderArgumentError extends PimsConfigurationError {
  constructor(providerName: string, problem: string) {
    super(`pims.Provider ${JSON.stringify(providerName)} has an invalid argument`, problem);
  }
}

/** The settings a provider takes as arguments besides the token (their config key, rule and unit: SETTINGS). */
const TEXT_ARGS = ["baseUrl", "allowInsecureHttp", "maxConcurrency", "rateLimitTimeoutMs"] as const;

/** A checked `allowInsecureHttp` text as a boolean. */
const allowed = (text: string): boolean => parseSetting("allowInsecureHttp", text, "pims:allowInsecureHttp") === true;

const isPlain = <T>(v: pulumi.Input<T>): v is T => !pulumi.Output.isInstance(v) && !(v instanceof Promise);

/**
 * An explicit provider for pulumi-pims resources and functions: its own token and service address, so one program
 * can work with several PIMS accounts or services. Pass it as `{ provider }` to resources (or `providers` of a
 * component) and as the `provider` option of the functions (`getApiKeys(args, { provider })`, `cancelRun`, ...).
 *
 * - **Settings.** `token` (always stored as a secret), `baseUrl`, `maxConcurrency`, `rateLimitTimeoutMs`. A setting
 *   not given falls back to the stack config (`pims:token`, `pims:baseUrl`, `pims:maxConcurrency`,
 *   `pims:rateLimitTimeoutMs`, read here, in the program, because a provider process only receives its provider's
 *   inputs), then to the environment of the provider process (`PIMS_TOKEN`, `PIMS_BASE_URL`, `PIMS_MAX_CONCURRENCY`,
 *   `PIMS_RATE_LIMIT_TIMEOUT_MS`), as for the default provider.
 * - **Checks.** Plain values are checked here, before anything is registered: a `baseUrl` must be an absolute
 *   http(s) URL without query, fragment or user:password, a `token` a non-empty string, `maxConcurrency` a whole
 *   number >= 1, `rateLimitTimeoutMs` a whole number >= 0; the error names the provider, the field and the rule. A
 *   `baseUrl` known only later (an Output) is checked by the provider process at preview, before any call.
 * - **Changing the token** (or any setting) is an update of this provider alone: none of its resources is replaced,
 *   and later operations (including `destroy` and `refresh`) use the newest token. When the token comes from a
 *   `ServiceAccount`, rotate that account with its `rotationTrigger` (the new account is created first, the provider
 *   and everything it serves are updated, the old account is deleted last). Do not set `deleteBeforeReplace` on it.
 * - **Processes.** Each instance runs in a provider process of its own, with its own request scheduler: retries and
 *   throttling apply per instance.
 *
 * @example Bootstrap
 * An admin token (the stack's `pims:token`) creates a project and a project-scoped account; that account's token
 * manages the project from then on.
 * ```ts
 * import * as pims from "pulumi-pims";
 *
 * const project = new pims.Project("team", { name: "team-a" });
 * const deployer = new pims.ServiceAccount("deployer", {
 *   projectId: project.projectId,
 *   name: "team-a-deployer",
 *   grants: [project.projectId],
 *   expiresIn: 90 * 24 * 3600,
 * });
 * const teamA = new pims.Provider("team-a", { token: deployer.token });
 *
 * new pims.VolumeSize(
 *   "data",
 *   { projectId: project.projectId, volumeId: "default-us-east-1", sizeGb: 100 },
 *   { provider: teamA },
 * );
 * export const keyNames = pims
 *   .getApiKeysOutput({ projectId: project.projectId }, { provider: teamA })
 *   .apply((r) => r.keys.map((k) => k.name));
 * ```
 *
 * @example Two services
 * Another PIMS service in the same program, with its own address and token.
 * ```ts
 * const cfg = new pulumi.Config();
 * const eu = new pims.Provider("eu", { baseUrl: cfg.require("euBaseUrl"), token: cfg.requireSecret("euToken") });
 * new pims.AppSecrets(
 *   "eu-web",
 *   { projectId: "p-1a2b3c4d", appId: "p-1a2b3c4d-web", secrets: { REGION: "eu" } },
 *   { provider: eu },
 * );
 * ```
 */
export class Provider extends pulumi.ProviderResource {
  private readonly settings: pulumi.Output<ProviderCallSettings>;
  private readonly tokenFrom: string;

  /** True when `obj` is a {@link Provider} (also across copies of this package). */
  static override isInstance(obj: unknown): obj is Provider {
    return typeof obj === "object" && obj !== null && (obj as { __pimsProvider?: unknown }).__pimsProvider === true;
  }

  /**
   * @param name The unique name of the provider resource.
   * @param args Token, service address, plain-http allowance, concurrency cap and rate-limit timeout; each optional
   *   (see {@link ProviderArgs}).
   * @param opts Resource options.
   */
  constructor(name: string, args: ProviderArgs = {}, opts?: pulumi.ResourceOptions) {
    const { configured, token: configToken } = programConfig();
    const fail = (problem: string | undefined): void => {
      if (problem !== undefined) throw new ProviderArgumentError(name, problem);
    };
    if (args.token !== undefined && isPlain(args.token)) fail(settingProblem("token", args.token, "token"));
    // Missing settings come from the stack config here: the provider process receives only these inputs.
    const token = args.token !== undefined ? pulumi.secret(args.token) : configToken;
    const props: pulumi.Inputs = {};
    if (token !== undefined) props["pims:token"] = token;
    // Plain values (arguments or stack config) as text, with where each was set, for the plain-http rule below.
    const plain: Partial<Record<(typeof TEXT_ARGS)[number], { text: string; where: string }>> = {};
    for (const field of TEXT_ARGS) {
      const arg = args[field];
      const fromConfig = configured[field];
      if (arg !== undefined) {
        if (isPlain(arg)) {
          fail(settingProblem(field, arg, field));
          plain[field] = { text: String(arg), where: field };
        }
        // The base address as given: one known only later is checked by the provider process, at preview, before
        // any call. The others are sent as text, the form stack config gives the default provider.
        props[`pims:${field}`] =
          field === "baseUrl"
            ? arg
            : pulumi.output(arg).apply((v) => {
                fail(settingProblem(field, v, field));
                return String(v);
              });
      } else if (fromConfig !== undefined) {
        if (field !== "baseUrl") fail(settingProblem(field, fromConfig, `pims:${field}`));
        props[`pims:${field}`] = field === "baseUrl" ? fromConfig : fromConfig.trim();
        plain[field] = { text: fromConfig, where: `pims:${field}` };
      }
    }
    const url = plain.baseUrl;
    if (url !== undefined && settingProblem("baseUrl", url.text, url.where) === undefined)
      fail(plainHttpProblem(url.text, url.where, plain.allowInsecureHttp?.text));
    super("pulumi-nodejs", name, props, opts);
    Object.defineProperty(this, "__pimsProvider", { value: true, enumerable: false });
    // A secret Output whenever the token is one (always, when a token is set here or in the stack config).
    const baseUrl = args.baseUrl ?? configured.baseUrl;
    const allowInsecureHttp =
      args.allowInsecureHttp ?? (plain.allowInsecureHttp ? allowed(plain.allowInsecureHttp.text) : undefined);
    this.settings = pulumi.output({ token, baseUrl, allowInsecureHttp });
    this.tokenFrom =
      args.token !== undefined ? `the token argument of pims.Provider ${JSON.stringify(name)}` : "pims:token";
  }

  /**
   * The token and base address the SDK functions use with this provider, as one Output (secret when the token is
   * set). Unknown during a preview when they depend on resources not created yet.
   */
  callSettings(): pulumi.Output<ProviderCallSettings> {
    return this.settings;
  }

  /** Where this provider's token came from, as a 401 or 403 of a function call names it. */
  tokenSource(): string {
    return this.tokenFrom;
  }
}
