/**
 * The one home of the small value helpers every layer needs (client, providers, SDK functions, CLI): what a plain
 * JSON object is, and how a user's value is quoted in an error text.
 */

/** A JSON object (not an array, not null). */
export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

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

/**
 * Why `v` cannot be a whole-number setting (at least `min`), or undefined. Stack config and the environment give
 * text: digits (spaces around allowed) are accepted. The one rule of every whole-number setting, wherever it is set.
 */
export function wholeNumberProblem(v: unknown, field: string, min: number, unit: string): string | undefined {
  const n = typeof v === "string" && /^\s*\d+\s*$/.test(v) ? Number(v) : v;
  if (typeof n === "number" && Number.isInteger(n) && n >= min) return undefined;
  return `${field} must be a whole number${unit}${min > 0 ? ` >= ${min}` : ""} (got ${typeof v === "string" ? JSON.stringify(v) : String(v)})`;
}

/** A list as users write it in one setting (`pims:goneProjects`): a JSON list or comma-separated items. */
export function parseList(raw: string | undefined): Set<string> {
  const text = raw?.trim() ?? "";
  if (text === "") return new Set();
  let items: unknown[] = text.split(",");
  if (text.startsWith("[")) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (Array.isArray(parsed)) items = parsed;
    } catch {
      // not JSON: the comma-separated form
    }
  }
  return new Set(
    items
      .filter((v): v is string => typeof v === "string")
      .map((v) => v.trim().replace(/^"|"$/g, ""))
      .filter((v) => v !== ""),
  );
}
