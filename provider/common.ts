/**
 * Small helpers every resource provider file uses: credentials from configure(), preview unknowns, check
 * failures, and output normalization (the dynamic-provider host rejects `undefined` anywhere in outputs).
 */
import type * as pulumi from "@pulumi/pulumi";
import { baseUrlProblem } from "./client/baseUrl";
import { processScheduler } from "./client/scheduler";
import { clientFor, InvalidBaseUrlError, schedulerSettings, type ConfiguredCredentials } from "./credentials";
import type { ClientOptions, PimsClient } from "./client";

/** The value the engine sends for an input that is not known during preview. */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

export const isUnknown = (v: unknown): boolean =>
  v === UNKNOWN || (Array.isArray(v) && v.some(isUnknown)) || (typeof v === "object" && v !== null && !Array.isArray(v) && Object.values(v).some(isUnknown));

export type CheckFailure = pulumi.dynamic.CheckFailure;

/** Base of every provider: keeps what configure() gave and builds a client per call. */
export abstract class PimsProviderBase {
  protected configured: ConfiguredCredentials = {};

  /**
   * Runs once per provider process, at preview too, before any check: a bad `pims:baseUrl` fails here, before a
   * wrong address can make every route answer 404. The values are kept first: the host does not call configure
   * again after a failure, and each client() call then repeats the same error.
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
    // The process's scheduler takes its settings now; a bad value fails here, before any resource.
    processScheduler().configure(schedulerSettings(this.configured));
    const baseUrl = this.configured.baseUrl;
    if (baseUrl === undefined || baseUrl.trim() === "" || isUnknown(baseUrl)) return;
    const problem = baseUrlProblem(baseUrl, "pims:baseUrl");
    if (problem !== undefined) throw new InvalidBaseUrlError(problem);
  }

  /** A client per call (credentials may change between calls); retries are reported as progress lines. */
  protected client(extra: Partial<ClientOptions> = {}): PimsClient {
    return clientFor(this.configured, { onRetry: reportRetry, ...extra });
  }
}

/**
 * Progress for slow operations: the dynamic-provider host shows its stderr lines in the engine's diagnostics.
 * Only method, path (ids) and the reason: never a header or a body.
 */
function reportRetry(info: { attempt: number; method: string; path: string; reason: string; delayMs: number }): void {
  console.warn(`pulumi-pims: ${info.method} ${info.path} got ${info.reason}; retry ${info.attempt} in ${Math.round(info.delayMs)} ms`);
}

/** Removes `undefined` members (recursively) so outputs survive the gRPC struct encoding. */
export function clean<T>(value: T): T {
  if (Array.isArray(value)) return value.filter((v) => v !== undefined).map(clean) as unknown as T;
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = clean(v);
    return out as T;
  }
  return value;
}

/** Collects check failures; `add` skips a property whose value is unknown at preview. */
export class Failures {
  readonly list: CheckFailure[] = [];
  add(property: string, reason: string): void {
    this.list.push({ property, reason });
  }
  /** A required id (project, app, volume): present, a non-empty string; skipped when unknown at preview. */
  requiredId(field: string, value: unknown): void {
    if (isUnknown(value)) return;
    const problem = idProblem(field, value);
    if (problem !== undefined) this.add(field, problem);
  }
}

/**
 * The one "required id" rule (providers' check, SDK function arguments): present, a string, not blank. Returns the
 * reason naming the field, or undefined when the id is usable.
 */
export function idProblem(field: string, value: unknown): string | undefined {
  if (value === undefined || value === null) return `${field} is required`;
  if (typeof value !== "string") return `${field} must be a string (got ${typeof value})`;
  if (value.trim() === "") return `${field} must not be empty`;
  return undefined;
}

/** Length in characters (code points), as a person counts them. */
export const charLength = (s: string): number => Array.from(s).length;

export function sameStringSet(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  const x = [...(a ?? [])].sort();
  const y = [...(b ?? [])].sort();
  return x.length === y.length && x.every((v, i) => v === y[i]);
}
