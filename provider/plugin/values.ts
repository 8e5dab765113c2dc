/**
 * The values the engine exchanges with the plugin, and the plain JSON the lifecycle code (the same code the dynamic
 * host runs) expects. The engine wraps a secret as `{ [SECRET_SIG]: SECRET_VALUE, value }` (the plugin says
 * `acceptSecrets`), and sends a value unknown at preview as the string {@link UNKNOWN}: the dynamic host's contract,
 * kept, so every `check` and `diff` works unchanged. Secrets are unwrapped on the way in and put back on the way out,
 * by top-level property: a property that held a secret anywhere comes back wholly secret.
 */
import * as structproto from "google-protobuf/google/protobuf/struct_pb";
import { UNKNOWN } from "../checks";
import { clean } from "../diff";

/**
 * The key and value that mark a secret in the engine's property values: copies of the runtime's `specialSigKey` and
 * `specialSecretSig` (this executable does not load `@pulumi/pulumi`), pinned by
 * tests/unit/plugin/wireConstants.test.ts.
 */
export const SECRET_SIG = "4dabf18193072939515e22adb298388d";
export const SECRET_VALUE = "1b47061264138c4ac30d75fd1eb44270";

/** A property map as the lifecycle code sees it. */
export type Props = Record<string, unknown>;

/**
 * The legacy input of a resource once served by the dynamic host: never read, compared or stored here (the runtime's
 * reserved key, pinned by tests/unit/plugin/wireConstants.test.ts).
 */
export const LEGACY_PROVIDER_KEY = "__provider";

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** True when `v` is a secret envelope. */
export const isSecret = (v: unknown): v is { value: unknown } => isObject(v) && v[SECRET_SIG] === SECRET_VALUE;

/** `v` marked secret (an envelope is not wrapped twice). */
export const secret = (v: unknown): unknown => (isSecret(v) ? v : { [SECRET_SIG]: SECRET_VALUE, value: v });

/** True when a secret envelope is anywhere inside `v`. */
export function containsSecret(v: unknown): boolean {
  if (isSecret(v)) return true;
  if (Array.isArray(v)) return v.some(containsSecret);
  return isObject(v) && Object.values(v).some(containsSecret);
}

/** `v` with every secret envelope replaced by its value (unknowns stay the {@link UNKNOWN} string). */
export function unwrap(v: unknown): unknown {
  if (isSecret(v)) return unwrap(v.value);
  if (Array.isArray(v)) return v.map(unwrap);
  if (isObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, unwrap(x)]));
  return v;
}

/** A request's property map: plain values, the secret top-level keys, and no legacy `__provider`. */
export interface Incoming {
  props: Props;
  secretKeys: Set<string>;
}

/** Reads a Struct of the engine (absent: an empty map). */
export function fromStruct(s: structproto.Struct | undefined): Incoming {
  const raw = (s?.toJavaScript() ?? {}) as Props;
  const props: Props = {};
  const secretKeys = new Set<string>();
  for (const [k, v] of Object.entries(raw)) {
    if (k === LEGACY_PROVIDER_KEY) continue;
    if (containsSecret(v)) secretKeys.add(k);
    props[k] = unwrap(v);
  }
  return { props, secretKeys };
}

/**
 * A property map for the engine: no `undefined` (the struct encoding refuses it), no legacy `__provider`, and each
 * key of `secretKeys` present in `props` wrapped as a secret (unknowns too: a secret that is not known yet).
 */
export function toStruct(props: Props, secretKeys: Iterable<string> = []): structproto.Struct {
  const out: Props = clean({ ...props });
  delete out[LEGACY_PROVIDER_KEY];
  for (const k of secretKeys) if (k in out) out[k] = secret(out[k]);
  return structproto.Struct.fromJavaScript(out as Record<string, structproto.JavaScriptValue>);
}

export { UNKNOWN };
