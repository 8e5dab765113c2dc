/**
 * Inputs as the schema types them. A YAML program (and stack config behind `${...}`) may give `1` where the schema
 * says string, or `"100"` where it says integer; the engine passes them on as they are. The plugin reads them as a
 * typed SDK would have sent them (a number or boolean as text for a string, digits for an integer or number,
 * `true`/`false` for a boolean) before the lifecycle code checks them; anything else is left for the check to refuse
 * with its own message. Unknowns (preview) are left alone.
 */
import { UNKNOWN } from "../checks";
import type { FunctionName } from "../functions";
import type { ResourceKind } from "../kinds";
import { FUNCTIONS } from "./functions";
import { KIND_BY_NAME } from "../kinds";
import { OBJECT_TYPES, type TypeSpec } from "./schemaProperties";
import { nativeToken } from "./tokens";
import type { Props } from "./values";

/** The object type a `$ref` names (`#/types/pims:index:<Name>`), by its members' types; undefined for another. */
function objectType(ref: string): Record<string, TypeSpec> | undefined {
  const name = ref.slice(ref.lastIndexOf(":") + 1) as keyof typeof OBJECT_TYPES;
  return ref === `#/types/${nativeToken(name)}` && Object.hasOwn(OBJECT_TYPES, name)
    ? OBJECT_TYPES[name].properties.properties
    : undefined;
}

function coerce(v: unknown, t: TypeSpec | undefined): unknown {
  if (t === undefined || v === UNKNOWN || v === null || v === undefined) return v;
  if (t.$ref !== undefined) {
    // An object type (ServiceAccount's tokenDelivery): each member read by its own type.
    const members = objectType(t.$ref);
    return members !== undefined && typeof v === "object" && !Array.isArray(v) ? coerceAll(v as Props, members) : v;
  }
  switch (t.type) {
    case "string":
      return typeof v === "number" || typeof v === "boolean" ? String(v) : v;
    case "integer":
    case "number":
      return typeof v === "string" && /^\s*-?\d+(\.\d+)?\s*$/.test(v) ? Number(v) : v;
    case "boolean":
      return v === "true" ? true : v === "false" ? false : v;
    case "array":
      return Array.isArray(v) ? v.map((x) => coerce(x, t.items)) : v;
    case "object":
      return typeof v === "object" && !Array.isArray(v) && t.additionalProperties !== undefined
        ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, coerce(x, t.additionalProperties)]))
        : v;
    default:
      return v;
  }
}

function coerceAll(props: Props, types: Record<string, TypeSpec>): Props {
  return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, coerce(v, types[k])]));
}

/** A resource's inputs read by its schema types. */
export const coerceInputs = (kind: ResourceKind, props: Props): Props =>
  coerceAll(props, KIND_BY_NAME[kind].properties.properties);

/** A function's arguments read by its schema types (an unknown function: unchanged). */
export function coerceArgs(name: string, props: Props): Props {
  const fn = Object.prototype.hasOwnProperty.call(FUNCTIONS, name) ? FUNCTIONS[name as FunctionName] : undefined;
  return fn === undefined ? props : coerceAll(props, fn.inputs.properties);
}
