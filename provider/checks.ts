/**
 * What every `check` shares: the value the engine sends for an input unknown at preview, the failure list, and the
 * rules more than one resource (or SDK function) applies to its arguments.
 */
import type * as pulumi from "@pulumi/pulumi";

/** The value the engine sends for an input that is not known during preview. */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

export const isUnknown = (v: unknown): boolean =>
  v === UNKNOWN ||
  (Array.isArray(v) && v.some(isUnknown)) ||
  (typeof v === "object" && v !== null && !Array.isArray(v) && Object.values(v).some(isUnknown));

export type CheckFailure = pulumi.dynamic.CheckFailure;

/**
 * Collects check failures. `add` records what it is given: a rule skips a value unknown at preview before it adds
 * (see `isUnknown`), as `requiredId` does.
 */
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
