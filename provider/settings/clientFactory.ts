/**
 * The client factory: a client, and the scheduler it uses, from the settings ./read reads. The one place the
 * scheduler takes the user's settings and a client its tuning.
 */
import { PimsClient, type ClientOptions } from "../client";
import { processScheduler, type SchedulerSettings } from "../client/scheduler";
import { credentialsOf, readSettings, type Settings, type SettingsOptions } from "./read";
import type { ConfiguredSettings } from "./table";

/** The scheduler's settings among `settings` (unset ones left out: the scheduler keeps its defaults). */
function schedulerPart(settings: Settings): SchedulerSettings {
  const out: SchedulerSettings = {};
  if (settings.maxConcurrency !== undefined) out.maxConcurrency = settings.maxConcurrency;
  if (settings.rateLimitTimeoutMs !== undefined) out.rateLimitTimeoutMs = settings.rateLimitTimeoutMs;
  return out;
}

/** The scheduler's settings of `configured` and the environment (unset ones left out). */
export function schedulerSettings(
  configured: ConfiguredSettings = {},
  env: NodeJS.ProcessEnv = process.env,
): SchedulerSettings {
  return schedulerPart(readSettings(configured, { env }));
}

/** The one place a scheduler (the process's, unless one is given) takes the user's settings. */
export function configureScheduler(settings: Settings, scheduler = processScheduler()): void {
  scheduler.configure(schedulerPart(settings));
}

/** Client tuning among `settings`: timeout, retries, first delay, wire record. */
export function clientTuning(settings: Settings): Partial<ClientOptions> {
  const out: Partial<ClientOptions> = {};
  for (const name of ["timeoutMs", "retries", "minDelayMs", "record"] as const) {
    const v = settings[name];
    if (v !== undefined) (out as Record<string, unknown>)[name] = v;
  }
  return out;
}

/**
 * A client for the settings of `configured` and the environment; the scheduler it uses (the process's unless `extra`
 * names one) takes the scheduler settings. A 401 or 403 names where the token came from.
 */
export function clientFor(
  configured: ConfiguredSettings = {},
  extra: Partial<ClientOptions> = {},
  options: SettingsOptions = {},
): PimsClient {
  const settings = readSettings(configured, { ...options, requireCredentials: true });
  const credentials = credentialsOf(settings, options);
  configureScheduler(settings, extra.scheduler);
  return new PimsClient({ ...clientTuning(settings), tokenSource: settings.tokenSource, ...extra, ...credentials });
}
