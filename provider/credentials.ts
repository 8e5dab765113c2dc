/**
 * Where the provider's credential and endpoint come from, resolved at call time (never at module load or
 * serialization time): stack config `pims:token` / `pims:baseUrl` first, then `PIMS_TOKEN` / `PIMS_BASE_URL`.
 */
import { PimsClient, type ClientOptions } from "./client";

export interface Credentials {
  token: string;
  baseUrl: string;
}

/** Values read from stack config; either may be missing. */
export interface ConfiguredCredentials {
  token?: string;
  baseUrl?: string;
}

export class MissingCredentialsError extends Error {
  constructor(missing: Array<"token" | "baseUrl">) {
    const lines = missing.map((m) =>
      m === "token"
        ? "the service-account token: `pulumi config set --secret pims:token <token>` or the PIMS_TOKEN environment variable"
        : "the service address: `pulumi config set pims:baseUrl <url>` or the PIMS_BASE_URL environment variable",
    );
    super(`pulumi-pims is not configured. Set ${lines.join("; and ")}.`);
    this.name = "MissingCredentialsError";
  }
}

const nonEmpty = (v: string | undefined): string | undefined => (v !== undefined && v.trim() !== "" ? v.trim() : undefined);

export function resolveCredentials(configured: ConfiguredCredentials = {}, env: NodeJS.ProcessEnv = process.env): Credentials {
  const token = nonEmpty(configured.token) ?? nonEmpty(env.PIMS_TOKEN);
  const baseUrl = nonEmpty(configured.baseUrl) ?? nonEmpty(env.PIMS_BASE_URL);
  const missing: Array<"token" | "baseUrl"> = [];
  if (!token) missing.push("token");
  if (!baseUrl) missing.push("baseUrl");
  if (missing.length > 0 || !token || !baseUrl) throw new MissingCredentialsError(missing);
  return { token, baseUrl };
}

/** Client options that tune behaviour without code: PIMS_TIMEOUT_MS, PIMS_MAX_RETRIES (e.g. for a flaky network). */
export function tuningFromEnv(env: NodeJS.ProcessEnv = process.env): Partial<ClientOptions> {
  const int = (v: string | undefined): number | undefined => (v !== undefined && /^\d+$/.test(v.trim()) ? Number(v) : undefined);
  const out: Partial<ClientOptions> = {};
  const timeoutMs = int(env.PIMS_TIMEOUT_MS);
  const retries = int(env.PIMS_MAX_RETRIES);
  const minDelayMs = int(env.PIMS_RETRY_MIN_DELAY_MS);
  if (timeoutMs !== undefined) out.timeoutMs = timeoutMs;
  if (retries !== undefined) out.retries = retries;
  if (minDelayMs !== undefined) out.minDelayMs = minDelayMs;
  return out;
}

export function clientFor(configured: ConfiguredCredentials = {}, extra: Partial<ClientOptions> = {}, env: NodeJS.ProcessEnv = process.env): PimsClient {
  return new PimsClient({ ...tuningFromEnv(env), ...extra, ...resolveCredentials(configured, env) });
}
