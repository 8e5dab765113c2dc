/**
 * What every SDK function shares: per-call options (credentials, client tuning), the client built from them, argument
 * errors raised before any request, and the `getXOutput` wrapper.
 *
 * Dynamic providers do not serve functions, so these run in the program process. Credentials are read at call time,
 * in this order: `opts.token` / `opts.baseUrl`, then the settings of `opts.provider` (a `pims.Provider`), then stack
 * config `pims:token` / `pims:baseUrl` (inside a Pulumi program), then the `PIMS_TOKEN` / `PIMS_BASE_URL` environment
 * variables; missing ones fail with the same `MissingCredentialsError` the resources use.
 *
 * `@pulumi/pulumi` is loaded only when it is needed (Output forms, stack config), so scripts and the `pims` CLI that
 * pass credentials explicitly start quickly.
 */
import type * as pulumi from "@pulumi/pulumi";
import { ArgumentError, type ClientOptions, type PimsClient, type RetryOptions } from "../../../provider/client";
import { clientFor, programConfig } from "../../../provider/settings";
import { PimsConfigurationError } from "../../../provider/configErrors";
import type { FunctionName } from "../../../provider/functions";
import { nativeToken } from "../../../provider/identity";
import type { Provider, ProviderCallSettings } from "../providerResource";

/**
 * Per-call options: explicit credentials (for scripts and tests) and client tuning. Everything is optional;
 * by default credentials come from stack config (`pims:token`, `pims:baseUrl`) or the environment
 * (`PIMS_TOKEN`, `PIMS_BASE_URL`).
 */
export interface PimsCallOptions extends RetryOptions {
  /** Service address; overrides `pims:baseUrl` and `PIMS_BASE_URL`. */
  baseUrl?: string;
  /** Service-account token; overrides `pims:token` and `PIMS_TOKEN`. Sensitive: never log it. */
  token?: string;
  /** How a 401 or 403 names where `token` came from (e.g. `MY_TOKEN`, never the value). Default: the token option. */
  tokenSource?: string;
  /**
   * Allows a plain `http://` `baseUrl` to another machine (a private network, a proxy that terminates TLS). Default:
   * `pims:allowInsecureHttp`, else `PIMS_ALLOW_INSECURE_HTTP`, else false.
   */
  allowInsecureHttp?: boolean;
  /** Per-attempt timeout in ms. Default: `PIMS_TIMEOUT_MS`, else the default docs/settings.md shows. */
  timeoutMs?: number;
  /** User-Agent sent to the service. Default `pulumi-pims`. */
  userAgent?: string;
  /**
   * Appends a wire recording of every request of this call to this file: one JSON line per request with the route
   * (ids replaced by parameter names), the status, the content type, the header names and the shape of the body,
   * never a value. Default: `PIMS_WIRE_RECORD`, else none.
   */
  record?: string;
  /**
   * A `pims.Provider` whose token and base address this call uses (its Outputs resolved when the call runs; an Output
   * form's result is secret when the provider's token is). `token` / `baseUrl` given here still win.
   */
  provider?: Provider;
}

export function loadPulumi(): typeof pulumi {
  // Loaded lazily: the Promise forms and the CLI do not need the Pulumi runtime.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require("@pulumi/pulumi") as typeof pulumi;
}

/**
 * The client for one call: explicit options first, then stack config, then the environment (provider/settings.ts
 * reads them). The scheduler settings (`pims:maxConcurrency`, `pims:rateLimitTimeoutMs`) come from the stack config
 * too: the program process's scheduler serves every function call of the program.
 */
export function clientForCall(opts: PimsCallOptions = {}): PimsClient {
  const { baseUrl, token, provider, tokenSource, allowInsecureHttp, ...tuning } = opts;
  if (provider !== undefined)
    throw new TypeError("clientForCall: a provider's settings are known asynchronously: use clientForProviderCall");
  const { configured } = programConfig();
  if (token !== undefined) configured.token = token;
  if (baseUrl !== undefined) configured.baseUrl = baseUrl;
  if (allowInsecureHttp !== undefined) configured.allowInsecureHttp = String(allowInsecureHttp);
  const extra: Partial<ClientOptions> = {};
  for (const [k, v] of Object.entries(tuning)) if (v !== undefined) (extra as Record<string, unknown>)[k] = v;
  const named =
    token !== undefined && token.trim() !== "" ? (tokenSource ?? "the token option of the call") : undefined;
  return clientFor(configured, extra, { tokenSource: named });
}

/** The client for one call, once the settings of `opts.provider` (if any) are known. */
export async function clientForProviderCall(opts: PimsCallOptions = {}): Promise<PimsClient> {
  const { provider, ...rest } = opts;
  if (provider === undefined) return clientForCall(rest);
  const s = await providerSettings(provider);
  const fromProvider = rest.token === undefined && s.token !== undefined;
  return clientForCall({
    ...rest,
    token: rest.token ?? s.token,
    tokenSource: fromProvider ? tokenSourceOf(provider) : rest.tokenSource,
    baseUrl: rest.baseUrl ?? s.baseUrl,
    allowInsecureHttp: rest.allowInsecureHttp ?? s.allowInsecureHttp,
  });
}

/** Where a provider's token came from (a copy of an older pulumi-pims may not say). */
const tokenSourceOf = (p: Provider): string =>
  typeof p.tokenSource === "function" ? p.tokenSource() : "the token argument of a pims.Provider";

/** What the Output of a provider's settings offers beyond `apply` (present on every Output of the SDK). */
interface Settled<T> {
  isKnown?: Promise<boolean>;
  promise?: () => Promise<T>;
}

/**
 * The provider's token and base address. At preview they may depend on resources not created yet: a Promise form
 * cannot wait for them, so it fails with a message pointing at the Output form, which waits.
 */
async function providerSettings(provider: Provider): Promise<ProviderCallSettings> {
  const out = callSettingsOf(provider);
  if (out === undefined) {
    const got =
      typeof provider === "object" && provider !== null ? (provider as object).constructor?.name : typeof provider;
    throw new ArgumentError("checking the provider option", "provider", `must be a pims.Provider (got ${got})`);
  }
  const settled = out as unknown as Settled<ProviderCallSettings>;
  if (settled.isKnown !== undefined && settled.promise !== undefined) {
    if (!(await settled.isKnown)) {
      throw new PimsConfigurationError(
        "the provider's token or base address is not known yet",
        "they come from resources this update creates: use the getXOutput form of the function, which waits for them",
      );
    }
    return settled.promise();
  }
  return new Promise((resolve) => out.apply((v) => void resolve(v)));
}

/** The settings Output of a `pims.Provider`, or undefined for anything else. */
function callSettingsOf(provider: unknown): pulumi.Output<ProviderCallSettings> | undefined {
  if (provider === undefined) return undefined;
  // Loaded only when a provider is given: a Provider exists only where @pulumi/pulumi is loaded already.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Provider: P } = require("../providerResource") as typeof import("../providerResource");
  return P.isInstance(provider) ? provider.callSettings() : undefined;
}

/**
 * Applies `fn` to the resolved inputs, as generated `getXOutput` functions do. A `Date` member (plain, in a Promise or
 * in an Output) is passed on as its RFC 3339 text: `pulumi.output` would turn a Date into an empty object.
 */
export function outputOf<A extends object, R>(
  args: A,
  fn: (resolved: pulumi.Unwrap<A>) => Promise<R>,
  opts?: PimsCallOptions,
): pulumi.Output<R> {
  const p = loadPulumi();
  const dated: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args)) {
    if (p.Output.isInstance(v)) dated[k] = v.apply(undated);
    else if (v instanceof Promise) dated[k] = v.then(undated);
    else dated[k] = undated(v);
  }
  // With a provider, the call waits for its settings, and the result is secret (and unknown) when they are.
  const settings = callSettingsOf(opts?.provider);
  const inputs =
    settings === undefined ? p.output(dated) : p.all([p.output(dated), settings]).apply(([resolved]) => resolved);
  return inputs.apply((resolved) => fn(resolved as pulumi.Unwrap<A>));
}

/** A Date as RFC 3339 (an invalid one as `Invalid Date`, which the function's own check rejects naming the field). */
const undated = (v: unknown): unknown =>
  v instanceof Date ? (Number.isNaN(v.getTime()) ? String(v) : v.toISOString()) : v;

/**
 * Whether the program runs under `pulumi.runtime.setMocks` (a program's unit tests, as Pulumi's testing guide
 * writes them). Asked only when `@pulumi/pulumi` is loaded already (setMocks loads it): scripts and the CLI never load
 * it for this.
 */
function mocksSet(): boolean {
  let mocks: string;
  try {
    mocks = require.resolve("@pulumi/pulumi/runtime/mocks");
  } catch {
    return false;
  }
  if (require.cache[mocks] === undefined) return false;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { MockMonitor } = require(mocks) as typeof import("@pulumi/pulumi/runtime/mocks");
  return loadPulumi().runtime.getMonitor() instanceof MockMonitor;
}

/**
 * Runs function `name`: under `setMocks`, the mocks' `call` answers it with the plugin's token
 * (`pims:index:<name>`, so one mock serves TypeScript, Python and Go programs alike) and no request is sent; otherwise,
 * or when the call names its own service (`provider`, `token` or `baseUrl`), `run` calls the service.
 */
export async function callFunction<R>(
  name: FunctionName,
  args: object,
  opts: PimsCallOptions | undefined,
  run: () => Promise<R>,
): Promise<R> {
  const own = opts?.provider !== undefined || opts?.token !== undefined || opts?.baseUrl !== undefined;
  if (own || !mocksSet()) return run();
  const plain = Object.fromEntries(Object.entries(args).map(([k, v]) => [k, undated(v)]));
  return (await loadPulumi().runtime.invoke(nativeToken(name), plain)) as R;
}
