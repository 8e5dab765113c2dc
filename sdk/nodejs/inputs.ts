/**
 * Types derived from the provider's declarations, so each field is declared (and documented) once:
 * a resource's `Args` are its provider inputs with every member a `pulumi.Input`, and its class's output
 * properties are its provider outputs as `pulumi.Output`s.
 *
 * The pattern every resource follows. Model a new one on VolumeSize (`provider/volumeSize.ts`,
 * `sdk/nodejs/volumeSize.ts`: the smallest with the whole lifecycle, an in-place update included) or, for secret
 * outputs and several accounts per resource, on ServiceAccount; Project is replace-only (the service cannot rename or
 * delete one) and has no update:
 * - `provider/<resource>.ts` declares and documents `XInputs` and `XOutputs` (outputs extend inputs: every input is
 *   copied into the state so `diff` can compare it), and exports the list of output keys, taken from an object
 *   literal typed `Record<keyof XOutputs, true>` so the compiler rejects a missing or unknown key:
 *   `const OUTPUT_KEY_SET: Record<keyof XOutputs, true> = { a: true, b: true };`
 *   `export const X_OUTPUT_KEYS = Object.keys(OUTPUT_KEY_SET);`
 * - `sdk/<resource>.ts`:
 *   `export interface XArgs extends Inputs<XInputs> {}` (the documented inputs, each a `pulumi.Input`);
 *   `export interface X extends OutputProps<XOutputs> {}` merged with `class X extends pulumi.dynamic.Resource`
 *   (no `declare`d fields: the merged interface types the outputs the Resource constructor puts on the instance);
 *   the constructor passes `resourceProps(args, X_OUTPUT_KEYS)` to `super` (wrapping secret inputs there).
 * Adding a field is then an edit of the provider file only: its type, its key, and where `outputs()` sets it.
 */
import type * as pulumi from "@pulumi/pulumi";

/** One member as a `pulumi.Input`: arrays take an Input per element, maps an Input per value. */
export type InputOf<V> = [V] extends [ReadonlyArray<infer E>]
  ? pulumi.Input<pulumi.Input<E>[]>
  : [V] extends [Record<string, infer M>]
    ? pulumi.Input<Record<string, pulumi.Input<M>>>
    : pulumi.Input<V>;

/** Each member of `T` as a `pulumi.Input` (see {@link InputOf}). Optional members stay optional. */
export type Inputs<T> = { [K in keyof T]: InputOf<Exclude<T[K], undefined>> };

/** Each member of `T` as a read-only `pulumi.Output` (for a resource class, by interface merging). */
export type OutputProps<T> = { readonly [K in keyof T]-?: pulumi.Output<T[K]> };

/**
 * The props a resource class passes to `super`: every output key, with the program's value when it is an input and
 * `undefined` otherwise. Every key must be present: the Resource constructor creates an output property for each key
 * it is given, and only for those. Members of `args` that are not output keys are not sent.
 */
export function resourceProps(args: object, outputKeys: readonly string[]): Record<string, unknown> {
  const given = args as Record<string, unknown>;
  return Object.fromEntries(outputKeys.map((k) => [k, given[k]]));
}
