/** Text helpers of the `pims` command-line tool: tables, masking, log lines, argument parsing. */
import type { AppLogLine, BuildLogEntry } from "../provider/client";
import { isRfc3339, quote } from "../provider/client/values";

/** A usage or configuration problem found before any request: exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/**
 * Masks a secret for display: the first 4 and last 4 characters of a value of 16 characters or more
 * (`pims…f00d`), only the last 4 of a value of 12 to 15 characters, and nothing of a shorter one.
 */
export function maskSecret(value: string): string {
  if (value.length >= 16) return `${value.slice(0, 4)}…${value.slice(-4)}`;
  if (value.length >= 12) return `…${value.slice(-4)}`;
  return value === "" ? "" : "****";
}

/** Characters that take no column: combining marks, format characters (zero-width space, joiners, BOM). */
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}]$/u;
/** East Asian wide and fullwidth characters (CJK, Hangul, fullwidth forms) and emoji: two columns each. */
const WIDE = new RegExp(
  "^[" +
    "\\u{1100}-\\u{115F}\\u{2E80}-\\u{303E}\\u{3041}-\\u{33FF}\\u{3400}-\\u{4DBF}\\u{4E00}-\\u{9FFF}" +
    "\\u{A000}-\\u{A4CF}\\u{AC00}-\\u{D7A3}\\u{F900}-\\u{FAFF}\\u{FE30}-\\u{FE4F}\\u{FF00}-\\u{FF60}" +
    "\\u{FFE0}-\\u{FFE6}\\u{20000}-\\u{3FFFD}" +
    "\\p{Extended_Pictographic}]$",
  "u",
);

/** Columns a terminal gives `s`: wide characters count 2, combining and zero-width ones 0, others 1. */
export function displayWidth(s: string): number {
  let width = 0;
  for (const ch of s) width += ZERO_WIDTH.test(ch) ? 0 : WIDE.test(ch) ? 2 : 1;
  return width;
}

/**
 * A value as one table cell: control characters (a newline or tab from the service, an escape sequence) shown
 * escaped, so a cell can neither break its row nor drive the terminal.
 */
export function cellText(v: string | null | undefined): string {
  if (v === null || v === undefined) return "-";
  const escape = (c: string): string => CONTROL_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  return v.replace(/[\u0000-\u001f\u007f-\u009f]/g, escape);
}

const CONTROL_ESCAPES: Readonly<Record<string, string>> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/**
 * An aligned text table: a header row, then one row per record; `right` lists right-aligned columns. Widths are
 * measured on the cells as printed (display columns, not string length), whatever the values look like.
 */
export function table(
  headers: string[],
  rows: Array<Array<string | null | undefined>>,
  right: ReadonlySet<number> = new Set(),
): string {
  const cells = [headers, ...rows.map((r) => headers.map((_h, i) => cellText(r[i])))];
  const widths = headers.map((_h, i) => Math.max(...cells.map((r) => displayWidth(r[i]))));
  const line = (row: string[]): string =>
    row
      .map((c, i) => {
        const pad = " ".repeat(widths[i] - displayWidth(c));
        return right.has(i) ? pad + c : c + pad;
      })
      .join("  ")
      .trimEnd();
  return cells.map(line).join("\n") + "\n";
}

/** `timestamp [stream] container: line` */
export function formatLogLine(l: AppLogLine): string {
  return `${l.timestamp} [${l.stream}] ${l.containerName || l.containerId || "-"}: ${l.logLine}`;
}

/** `createdAt log` (just the log when the entry has no timestamp). */
export function formatBuildEntry(e: BuildLogEntry): string {
  return e.createdAt ? `${e.createdAt} ${e.log}` : e.log;
}

/** Key identifying a log line across polls: its logId, or its content when the service sent none. */
export function logKey(l: AppLogLine): string {
  return l.logId || `${l.timestamp}\u0000${l.containerId}\u0000${l.stream}\u0000${l.lineNumber}\u0000${l.logLine}`;
}

/** A set that remembers only the most recent `capacity` keys (follow mode must not grow without bound). */
export class RecentKeys {
  private readonly set = new Set<string>();
  constructor(private readonly capacity = 20_000) {}
  has(key: string): boolean {
    return this.set.has(key);
  }
  add(key: string): void {
    if (this.set.has(key)) return;
    this.set.add(key);
    if (this.set.size > this.capacity) {
      const oldest = this.set.values().next().value;
      if (oldest !== undefined) this.set.delete(oldest);
    }
  }
  get size(): number {
    return this.set.size;
  }
}

/** A parser for an integer option in [min, max], with an error naming the flag and the rule. */
export function intOption(flag: string, min: number, max: number): (raw: string) => number {
  return (raw: string) => {
    const n = /^\s*\d+\s*$/.test(raw) ? Number(raw) : NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      throw new UsageError(`${flag} must be an integer from ${min} to ${max} (got ${quote(raw)})`);
    }
    return n;
  };
}

const RELATIVE = /^(\d+)(s|m|h|d)$/;
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration such as `30s`, `15m`, `2h`, `7d` in milliseconds; undefined when `raw` is not one. */
function durationMs(raw: string): number | undefined {
  const rel = RELATIVE.exec(raw.trim());
  const ms = rel ? Number(rel[1]) * UNIT_MS[rel[2]] : NaN;
  return Number.isSafeInteger(ms) ? ms : undefined;
}

/** A duration option (`30s`, `15m`, `2h`, `7d`, one unit) in milliseconds, with an error naming the flag. */
export function durationOption(flag: string): (raw: string) => number {
  return (raw: string) => {
    const ms = durationMs(raw);
    if (ms === undefined)
      throw new UsageError(`${flag} must be a duration such as 30s, 15m, 2h, 7d (got ${quote(raw)})`);
    return ms;
  };
}

/**
 * An instant for --before/--after: an RFC 3339 timestamp (passed through unchanged), or a duration ago such as
 * `30s`, `15m`, `2h`, `1d` (turned into a timestamp relative to `now`).
 */
export function instantOption(flag: string, now: () => number = Date.now): (raw: string) => string {
  return (raw: string) => {
    const v = raw.trim();
    const ago = durationMs(v);
    if (ago !== undefined) return new Date(now() - ago).toISOString();
    if (isRfc3339(v)) return v;
    throw new UsageError(
      `${flag} must be an RFC 3339 timestamp such as 2024-05-01T12:00:00Z, or a duration ago such as 15m, 2h, 1d ` +
        `(got ${quote(raw)})`,
    );
  };
}
