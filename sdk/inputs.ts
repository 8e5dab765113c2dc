/**
 * Types derived from the provider's declarations, so each field is declared (and documented) once:
 * a resource's `Args` are its provider inputs with every member a `pulumi.Input`, and its class's output
 * properties are its provider outputs as `pulumi.Output`s.
 */
import type * as pulumi from "@pulumi/pulumi";

/** Each member of `T` as a `pulumi.Input` (arrays: of Inputs; maps: of Inputs). Optional members stay optional. */
export type Inputs<T> = {
  [K in keyof T]: T[K] extends ReadonlyArray<infer E>
    ? pulumi.Input<pulumi.Input<E>[]>
    : T[K] extends Record<string, infer V>
      ? pulumi.Input<Record<string, pulumi.Input<V>>>
      : pulumi.Input<T[K]>;
};

/** Each member of `T` as a read-only `pulumi.Output` (for a resource class, by interface merging). */
export type OutputProps<T> = { readonly [K in keyof T]-?: pulumi.Output<T[K]> };
