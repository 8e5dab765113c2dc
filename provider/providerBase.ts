/**
 * The base of every resource provider, in both hosts: keeps the settings it is configured with (the dynamic host's
 * `configure()` request: stack config, or a `pims.Provider`'s inputs; the plugin's Configure: provider/plugin/config),
 * checks them before any resource is touched, and builds a client per call. Settings are read by ./settings.
 */
import type * as pulumi from "@pulumi/pulumi";
import { AuthError, fingerprint, type ClientOptions, type PimsClient, type RetryInfo } from "./client";
import { progress } from "./client/log";
import { retryLine } from "./client/retry";
import {
  clientFor,
  configuredFromStack,
  readSettings,
  resolveCredentials,
  type ConfiguredSettings,
  type Credentials,
  type Settings,
  type SettingsOptions,
} from "./settings";

/**
 * `pims:token` reaches a dynamic provider process from the stack config (the default provider) or from a
 * `pims.Provider`'s inputs (its `token` argument, else the stack config): the process cannot tell which, so a 401
 * names both, as TypeScript users write them. The plugin names them as its users write them (provider/plugin/config).
 */
const DYNAMIC_HOST_OPTIONS: SettingsOptions = {
  tokenSource: "pims:token (the stack config, or the pims.Provider's token)",
};

/**
 * Set once this process served a check or diff: the engine ran the program, so the provider was configured from the
 * program's (current) stack config. Without one, a refresh or destroy (without `--run-program`) configured it from the
 * provider's inputs stored in the state by the last `pulumi up` (pulumi/pulumi#4981): for a dynamic provider the whole
 * stack config of that time, for the plugin's default provider its `pims` keys.
 */
let programRan = false;

/** Called by both hosts on each check and diff (provider/index.ts, provider/plugin/lifecycle.ts). */
export function programConfigured(): void {
  programRan = true;
}

export abstract class PimsProviderBase {
  protected configured: ConfiguredSettings = {};
  private options: SettingsOptions = DYNAMIC_HOST_OPTIONS;

  /**
   * Runs once per provider process, at preview too, before any check: a bad `pims:baseUrl` or setting (or a plain
   * http address to another machine) fails here, before a wrong address can make every route answer 404 or a token
   * is sent. The values are kept first: the host does not call configure again after a failure, and each client()
   * call then repeats the same error.
   */
  async configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
    this.configureWith(configuredFromStack(req.config));
  }

  /** The one way settings come in: the dynamic host's {@link configure}, and the plugin's Configure directly. */
  configureWith(settings: ConfiguredSettings, options: SettingsOptions = DYNAMIC_HOST_OPTIONS): void {
    this.configured = settings;
    this.options = options;
    // Read once now so a bad setting fails at configure; the scheduler takes its settings where clients are built
    // (./settings clientFor), the one place it is configured.
    readSettings(this.configured, this.options);
  }

  /** Every setting, read now (configured values first, then the environment). */
  protected settings(): Settings {
    return readSettings(this.configured, this.options);
  }

  /** The token and base address now, or the error naming what is missing (as the host's users write it). */
  protected credentials(): Credentials {
    return resolveCredentials(this.configured, this.options);
  }

  /**
   * What a 401 to the configured credential means during a refresh or destroy, or undefined when it cannot be the
   * state's stale credential (the token came from PIMS_TOKEN, or the program ran). The host's stack config, when it
   * can read it (the plugin's default provider: {@link SettingsOptions.stackToken}), decides; the dynamic host cannot
   * read the current stack config, so it says where the credential came from and what to run. Fingerprints only.
   */
  staleCredentialNote(operation: "refresh" | "destroy"): string | undefined {
    let s: Settings;
    try {
      s = this.settings();
    } catch {
      return undefined;
    }
    if (s.token === undefined || s.tokenSource === "PIMS_TOKEN") return undefined;
    const stack = this.options.stackToken?.();
    if (programRan && stack === undefined) return undefined;
    const inUse = `fingerprint ${fingerprint(s.token)}`;
    const fix =
      `\`pulumi ${operation} --run-program\`, which configures the provider from the program's current stack ` +
      "config, or `pulumi up` first, which stores the current credential in the state";
    if (stack !== undefined && stack !== "" && stack !== s.token)
      return (
        `the state still holds the previous credential: this ${operation} sent the pims:token the last ` +
        `\`pulumi up\` stored in the state (${inUse}), not the stack config's current one (fingerprint ` +
        `${fingerprint(stack)}), and the service refused it (401). Run ${fix}.`
      );
    if (stack !== undefined) return undefined; // the stack config holds the very token that was refused
    return (
      `Without --run-program, this ${operation} sent the credential the last \`pulumi up\` stored in the state ` +
      `(${inUse}), not the current stack config's: if pims:token was changed since (a rotated provider token), ` +
      `the state still holds the previous credential. Run ${fix}.`
    );
  }

  /** `e` with {@link staleCredentialNote} when it is a 401 to the configured credential; else `e` itself. */
  protected explainRefusal(e: unknown, operation: "refresh" | "destroy"): unknown {
    if (!(e instanceof AuthError) || e.status !== 401) return e;
    const note = this.staleCredentialNote(operation);
    if (note === undefined) return e;
    // The definite case replaces the generic advice ("check that it is the whole token"); else the note follows it.
    const said = `${e.status} ${e.serverMessage ?? ""}`.trim();
    const definite = note.startsWith("the state still holds");
    return new Error(definite ? `pulumi-pims: ${e.action}: ${said}: ${note}` : `${e.message}. ${note}`, { cause: e });
  }

  /**
   * A client per call (credentials may change between calls); each retry is a progress line, and a 401 or 403 names
   * the token as the host's users write it. `token` sends another token than the configured one (a service account's
   * own, to prove it works); the caller then names it in `extra.tokenSource`.
   */
  protected client(extra: Partial<ClientOptions> = {}, token?: string): PimsClient {
    const retry = { onRetry: (info: RetryInfo) => progress(retryLine(info)) };
    const configured = token === undefined ? this.configured : { ...this.configured, token };
    return clientFor(configured, { ...retry, ...extra }, this.options);
  }
}
