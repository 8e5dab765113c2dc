/**
 * The one home of the small value helpers every layer needs (client, providers, SDK functions, CLI): what a plain
 * JSON object is, and how a user's value is quoted in an error text.
 */

/** A JSON object (not an array, not null). */
export const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * A value as an error text shows it: strings JSON-quoted and cut at `max` characters, other values named by their
 * kind (`an array`, `an object`, `null`), never throwing whatever the value.
 */
export function quote(v: unknown, max = 60): string {
  if (typeof v === "string") {
    const chars = Array.from(v);
    return JSON.stringify(chars.length > max ? `${chars.slice(0, max).join("")}…` : v);
  }
  if (Array.isArray(v)) return "an array";
  if (v === null) return "null";
  if (typeof v === "object") return "an object";
  if (typeof v === "function") return "a function";
  if (typeof v === "symbol") return v.toString();
  return `${v as number | boolean | bigint | undefined}`;
}
