/**
 * What goes into the state and how it is compared with the program's inputs: outputs that survive the engine's
 * struct encoding, and the one replace rule of every resource's `diff`.
 */
import { isUnknown } from "./checks";

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

/** The same strings, in any order. */
export function sameStringSet(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  const x = [...(a ?? [])].sort();
  const y = [...(b ?? [])].sort();
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

/**
 * The replace rule: the `keys` whose new value differs from the stored one, in the order given. A value unknown at
 * preview counts as changed (it may be); arrays compare as sets of strings (order never matters to the service).
 */
export function changedKeys<K extends string>(
  olds: Partial<Record<K, unknown>>,
  news: Partial<Record<K, unknown>>,
  keys: readonly K[],
): K[] {
  return keys.filter((k) => {
    const [a, b] = [olds?.[k], news?.[k]];
    if (isUnknown(b)) return true;
    return Array.isArray(a) && Array.isArray(b) ? !sameStringSet(a as string[], b as string[]) : a !== b;
  });
}
