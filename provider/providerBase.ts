/**
 * The base of every resource provider: keeps what `configure()` gave (stack config, or a `pims.Provider`'s inputs),
 * checks it before any resource is touched, and builds a client per call. Settings are read by ./settings.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { ClientOptions, PimsClient } from "./client";
import { retryLine } from "./client/retry";
import {
  clientFor,
  configuredFromStack,
  configureScheduler,
  readSettings,
  type ConfiguredSettings,
  type Settings,
  type SettingsOptions,
} from "./settings";

/** Progress for slow operations: the dynamic-provider host shows its stderr lines in the engine's diagnostics. */
export const progress = (line: string): void => console.warn(line);

/**
 * `pims:token` reaches a provider process from the stack config (the default provider) or from a `pims.Provider`'s
 * inputs (its `token` argument, else the stack config): the process cannot tell which, so a 401 names both.
 */
const OPTIONS: SettingsOptions = {
  tokenSource: "pims:token (the stack config, or the pims.Provider's token)",
};

export abstract class PimsProviderBase {
  protected configured: ConfiguredSettings = {};

  /**
   * Runs once per provider process, at preview too, before any check: a bad `pims:baseUrl` or setting (or a plain
   * http address to another machine) fails here, before a wrong address can make every route answer 404 or a token
   * is sent. The values are kept first: the host does not call configure again after a failure, and each client()
   * call then repeats the same error.
   */
  async configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
    this.configured = configuredFromStack(req.config);
    configureScheduler(readSettings(this.configured, undefined, OPTIONS));
  }

  /** Every setting, read now (configured values first, then the environment). */
  protected settings(): Settings {
    return readSettings(this.configured, undefined, OPTIONS);
  }

  /** A client per call (credentials may change between calls); each retry is a progress line. */
  protected client(extra: Partial<ClientOptions> = {}): PimsClient {
    return clientFor(this.configured, { onRetry: (info) => progress(retryLine(info)), ...extra }, undefined, OPTIONS);
  }
}
