/**
 * The base of every resource provider: keeps what `configure()` gave (stack config, or a `pims.Provider`'s inputs),
 * checks it before any resource is touched, and builds a client per call.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { ClientOptions, PimsClient } from "./client";
import { baseUrlProblem } from "./client/baseUrl";
import { retryLine } from "./client/retry";
import { processScheduler } from "./client/scheduler";
import { isUnknown } from "./checks";
import { InvalidBaseUrlError } from "./configErrors";
import { clientFor, schedulerSettings, tuningFromEnv, type ConfiguredCredentials } from "./settings";

/** Progress for slow operations: the dynamic-provider host shows its stderr lines in the engine's diagnostics. */
export const progress = (line: string): void => console.warn(line);

export abstract class PimsProviderBase {
  protected configured: ConfiguredCredentials = {};

  /**
   * Runs once per provider process, at preview too, before any check: a bad `pims:baseUrl` or setting fails here,
   * before a wrong address can make every route answer 404. The values are kept first: the host does not call
   * configure again after a failure, and each client() call then repeats the same error.
   */
  async configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
    const known = (key: string): string | undefined => {
      const v = req.config.get(key);
      return v === undefined || isUnknown(v) ? undefined : v;
    };
    this.configured = {
      token: req.config.get("pims:token"),
      baseUrl: req.config.get("pims:baseUrl"),
      maxConcurrency: known("pims:maxConcurrency"),
      rateLimitTimeoutMs: known("pims:rateLimitTimeoutMs"),
    };
    processScheduler().configure(schedulerSettings(this.configured));
    tuningFromEnv(); // a bad PIMS_TIMEOUT_MS (or other tuning) fails here too, before any resource
    const baseUrl = this.configured.baseUrl;
    if (baseUrl === undefined || baseUrl.trim() === "" || isUnknown(baseUrl)) return;
    const problem = baseUrlProblem(baseUrl, "pims:baseUrl");
    if (problem !== undefined) throw new InvalidBaseUrlError(problem);
  }

  /** A client per call (credentials may change between calls); each retry is a progress line. */
  protected client(extra: Partial<ClientOptions> = {}): PimsClient {
    return clientFor(this.configured, { onRetry: (info) => progress(retryLine(info)), ...extra });
  }
}
