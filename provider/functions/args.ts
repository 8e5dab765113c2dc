/**
 * What every function shares, in whichever host runs it (the SDK's functions in the program process, the plugin's
 * Invoke): where its client comes from, and argument errors raised before any request.
 */
import { ValidationError, type PimsClient } from "../client";
import { idProblem } from "../checks";

/** The client of one call, built only once the arguments passed their checks (a bad argument needs no credentials). */
export type ClientSource = () => PimsClient | Promise<PimsClient>;

/** A ValidationError for an argument of `fn`, raised before any request is sent; `argument` names the field. */
export function badArgument(fn: string, field: string, rule: string): ValidationError {
  const err = new ValidationError({
    action: `checking ${fn} arguments`,
    method: "-",
    path: "(not sent)",
    serverMessage: `${field} ${rule}`,
  });
  Object.defineProperty(err, "argument", { value: { field, reason: `${field} ${rule}` }, enumerable: false });
  return err;
}

/** The argument a {@link badArgument} error is about (field and reason), or undefined for any other error. */
export function argumentOf(e: unknown): { field: string; reason: string } | undefined {
  return typeof e === "object" && e !== null
    ? ((e as { argument?: { field: string; reason: string } }).argument ?? undefined)
    : undefined;
}

/** The id argument `field` of `fn`, or a ValidationError by the providers' rule (present, a string, not blank). */
export function requireId(fn: string, field: string, value: unknown): string {
  const problem = idProblem(field, value);
  if (problem !== undefined) throw badArgument(fn, field, problem.slice(field.length + 1));
  return value as string;
}
