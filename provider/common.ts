/**
 * Small helpers every resource provider file uses: credentials from configure(), preview unknowns, check
 * failures, and output normalization (the dynamic-provider host rejects `undefined` anywhere in outputs).
 */
import type * as pulumi from "@pulumi/pulumi";
import { clientFor, type ConfiguredCredentials } from "./credentials";
import type { PimsClient } from "./client";

/** The value the engine sends for an input that is not known during preview. */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

export const isUnknown = (v: unknown): boolean =>
  v === UNKNOWN || (Array.isArray(v) && v.some(isUnknown)) || (typeof v === "object" && v !== null && !Array.isArray(v) && Object.values(v).some(isUnknown));

export type CheckFailure = pulumi.dynamic.CheckFailure;

/** Base of every provider: keeps what configure() gave and builds a client per call. */
export abstract class PimsProviderBase {
  protected configured: ConfiguredCredentials = {};

  async configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
    this.configured = { token: req.config.get("pims:token"), baseUrl: req.config.get("pims:baseUrl") };
  }

  /** A client per call (credentials may change between calls); retries are reported as progress lines. */
  protected client(): PimsClient {
    return clientFor(this.configured, { onRetry: reportRetry });
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
    if (value === undefined || value === null) this.add(field, `${field} is required`);
    else if (isUnknown(value)) return;
    else if (typeof value !== "string") this.add(field, `${field} must be a string (got ${typeof value})`);
    else if (value.trim() === "") this.add(field, `${field} must not be empty`);
  }
}

/** Length in characters (code points), as a person counts them. */
export const charLength = (s: string): number => Array.from(s).length;

export function sameStringSet(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  const x = [...(a ?? [])].sort();
  const y = [...(b ?? [])].sort();
  return x.length === y.length && x.every((v, i) => v === y[i]);
}
