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

/** A flag's value: `true` or `1`, `false` or `0` (any case, spaces around); undefined for anything else. */
export function flagValue(v: unknown): boolean | undefined {
  if (typeof v === "boolean") return v;
  const t = typeof v === "string" ? v.trim().toLowerCase() : undefined;
  return t === "true" || t === "1" ? true : t === "false" || t === "0" ? false : undefined;
}

/**
 * Why `v` cannot be a whole-number setting (at least `min`), or undefined. Stack config and the environment give
 * text: digits (spaces around allowed) are accepted. The one rule of every whole-number setting, wherever it is set.
 */
export function wholeNumberProblem(v: unknown, field: string, min: number, unit: string): string | undefined {
  const n = typeof v === "string" && /^\s*\d+\s*$/.test(v) ? Number(v) : v;
  if (typeof n === "number" && Number.isInteger(n) && n >= min) return undefined;
  const got = typeof v === "string" ? JSON.stringify(v) : String(v);
  return `${field} must be a whole number${unit}${min > 0 ? ` >= ${min}` : ""} (got ${got})`;
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

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * The one RFC 3339 check: a full date-time (date, time and zone) with a real calendar date and time of day. The
 * app-log filters, the token's expiry, the CLI's --before/--after and the wire recorder's shapes all ask it.
 */
export function isRfc3339(v: string): boolean {
  const m = RFC3339.exec(v);
  if (!m) return false;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth && hour <= 23 && minute <= 59 && second <= 59;
}

/**
 * The one way a length of time is written (progress lines, errors, the CLI): its two largest whole units, `9s`,
 * `4m 10s`, `2h 5m`, `6d 3h` (rounded down; a unit that is 0 is left out: `2h`); under a second in milliseconds,
 * `250ms`; under 10 s to a tenth, `2.5s`; `0s` for none. A negative `ms` is shown as its size.
 */
export function formatDuration(ms: number): string {
  const size = Math.abs(ms);
  if (size > 0 && size < 1000) return `${Math.max(1, Math.floor(size))}ms`;
  if (size < 10_000 && size % 1000 >= 100) return `${Math.floor(size / 100) / 10}s`; // 2.5s, not 2s
  const total = Math.floor(size / 1000);
  const parts: Array<[number, string]> = [
    [Math.floor(total / 86_400), "d"],
    [Math.floor(total / 3600) % 24, "h"],
    [Math.floor(total / 60) % 60, "m"],
    [total % 60, "s"],
  ];
  const first = parts.findIndex(([n]) => n > 0);
  if (first === -1) return "0s";
  return parts
    .slice(first, first + 2)
    .filter(([n]) => n > 0)
    .map(([n, unit]) => `${n}${unit}`)
    .join(" ");
}
