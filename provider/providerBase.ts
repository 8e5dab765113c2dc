/**
 * The base of every resource provider, in both hosts: keeps the settings it is configured with (the dynamic host's
 * `configure()` request: stack config, or a `pims.Provider`'s inputs; the plugin's Configure: provider/plugin/config),
 * checks them before any resource is touched, and builds a client per call. Settings are read by ./settings.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { ClientOptions, PimsClient, RetryInfo } from "./client";
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
