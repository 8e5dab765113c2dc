/**
 * What every function shares, in whichever host runs it (the SDK's functions in the program process, the plugin's
 * Invoke): where its client comes from, and argument errors raised before any request.
 */
import { ArgumentError, type PimsClient } from "../client";
import { idProblem } from "../checks";

/** The client of one call, built only once the arguments passed their checks (a bad argument needs no credentials). */
export type ClientSource = () => PimsClient | Promise<PimsClient>;

/** The error of an argument of `fn` that breaks `rule`, raised before any request is sent. */
export function badArgument(fn: string, field: string, rule: string): ArgumentError {
  return new ArgumentError(`checking ${fn} arguments`, field, rule);
}

/** The argument an {@link ArgumentError} is about (field, and the reason `<field> <rule>`), else undefined. */
export function argumentOf(e: unknown): { field: string; reason: string } | undefined {
  return e instanceof ArgumentError ? { field: e.field, reason: `${e.field} ${e.rule}` } : undefined;
}

/** The id argument `field` of `fn`, or an ArgumentError by the providers' rule (present, a string, not blank). */
export function requireId(fn: string, field: string, value: unknown): string {
  const problem = idProblem(field, value);
  if (problem !== undefined) throw badArgument(fn, field, problem.slice(field.length + 1));
  return value as string;
}
