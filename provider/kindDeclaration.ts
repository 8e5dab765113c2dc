/**
 * What one resource kind declares, once, in its own file ({@link declareKind}): its provider class (the lifecycle both
 * hosts run), the schema type of every output (each described by the TSDoc of the interface it names), the inputs, the
 * required ones, the secrets, the replace rules, the outputs a preview leaves unknown, the schema's description and
 * example, and its capabilities beyond the lifecycle (./capabilities). ./kinds lists the declarations; every registry
 * (the dynamic host's providers, the plugin's resources and schema, the type tokens) derives from that one list.
 *
 * Every list is typed by the kind's Inputs `I` and Outputs `O`: the compiler refuses a list naming a member they lack,
 * `inputs` missing one, a property table missing or adding one, and a capability the provider class does not
 * implement; tests/unit/plugin/schema.test.ts checks the lists against `diff` for every kind.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { Capabilities } from "./capabilities";
import type { PimsProviderBase } from "./providerBase";

/** A type of the schema (the subset this package uses). */
export interface TypeSpec {
  type?: "string" | "integer" | "number" | "boolean" | "array" | "object";
  items?: TypeSpec;
  additionalProperties?: TypeSpec;
  $ref?: string;
}

/** A table of property types: exactly the members of the TypeScript type `T`. */
export type Props<T> = { [K in keyof Required<T>]: TypeSpec };

/** Property types, and the TypeScript interface (in provider/ or sdk/nodejs/) whose members' TSDoc describes them. */
export interface PropertyTable {
  tsdoc: string;
  properties: Record<string, TypeSpec>;
}

/** The property table of the TypeScript type `T`, described by the TSDoc of the interface named `tsdoc`. */
export const table = <T>(tsdoc: string, properties: Props<T>): PropertyTable => ({ tsdoc, properties });

export const STR: TypeSpec = { type: "string" };
export const INT: TypeSpec = { type: "integer" };
export const NUM: TypeSpec = { type: "number" };
export const BOOL: TypeSpec = { type: "boolean" };
export const STR_LIST: TypeSpec = { type: "array", items: STR };
export const STR_MAP: TypeSpec = { type: "object", additionalProperties: STR };

/** A provider object as both hosts run it. */
export type KindProvider = pulumi.dynamic.ResourceProvider & PimsProviderBase;

/** Names of members of `T`. */
type Names<T> = readonly (keyof T & string)[];

/** The example project of examples/ that the schema's description shows (scripts/generate/schema-examples.ts). */
export interface KindExample {
  scenario: string;
  title: string;
}

/**
 * A kind as its file writes it: `K` its name (the type tokens `pims:index:<K>` and `pulumi-nodejs:dynamic/pims:<K>`,
 * never renamed), `I` and `O` its Inputs and Outputs, `P` its provider class.
 */
export interface KindDeclaration<K extends string, I, O extends I, P extends KindProvider> {
  kind: K;
  provider: new () => P;
  /**
   * Its capabilities beyond the lifecycle, each the provider itself typed as the capability's interface
   * (`(p) => ({ importable: p })`): the compiler refuses one the provider class does not implement.
   */
  capabilities?: (provider: P) => Capabilities;
  /**
   * What the schema's description says beyond the SDK class's TSDoc summary (sdk/nodejs/<kind>.ts, read by
   * `npm run schema`, which also adds the example): what only the plugin's users read, such as `pulumi import`.
   */
  pluginDoc?: string;
  /** The example project the schema shows; none for a kind no example program uses. */
  example?: KindExample;
  /** The schema's type of every output (every member of `O`, once). */
  properties: Props<O>;
  /** The interface whose members' TSDoc describes the properties. */
  tsdoc: string;
  /** The inputs (all other properties are outputs only): every member of `I`, once. */
  inputs: Record<keyof Required<I>, true>;
  requiredInputs: Names<I>;
  /** Outputs always present after a create. */
  required: Names<O>;
  /** Inputs and outputs stored and returned as secrets, whatever the program passed. */
  secret: Names<O>;
  /** Inputs whose change always replaces the resource (whatever else is set). */
  replaceOnChanges: Names<I>;
  /** Outputs a create computes (unknown in the preview of a create). */
  computedOnCreate: Names<O>;
  /** Outputs an update may change beyond the inputs (unknown in the preview of an update). */
  computedOnUpdate: Names<O>;
  /** Map inputs whose change a preview shows member by member (names; a secret map's values stay `[secret]`). */
  memberDiffs?: Names<I>;
}

/** A provider object with the capabilities its kind declares. */
export interface KindInstance extends Capabilities {
  provider: KindProvider;
}

/** A kind as the registries read it: the lists as plain names, a provider made with its capabilities. */
export interface Kind<K extends string = string> {
  kind: K;
  /** A new provider object of the kind, and its declared capabilities (the same object, typed as each). */
  instance(): KindInstance;
  /** Every output (the keys of the property table). */
  outputKeys: readonly string[];
  pluginDoc?: string;
  example?: KindExample;
  properties: PropertyTable;
  inputs: readonly string[];
  requiredInputs: readonly string[];
  required: readonly string[];
  secret: readonly string[];
  replaceOnChanges: readonly string[];
  computedOnCreate: readonly string[];
  computedOnUpdate: readonly string[];
  memberDiffs?: readonly string[];
}

/** The one declaration of a kind, checked by the compiler against its types, as the registries read it. */
export function declareKind<K extends string, I, O extends I, P extends KindProvider>(
  d: KindDeclaration<K, I, O, P>,
): Kind<K> {
  const { provider: Provider, capabilities, tsdoc, properties, inputs, ...lists } = d;
  return {
    ...lists,
    instance: () => {
      const provider = new Provider();
      return { ...capabilities?.(provider), provider };
    },
    outputKeys: Object.keys(properties),
    properties: { tsdoc, properties },
    inputs: Object.keys(inputs),
  };
}
