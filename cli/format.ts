/** Text helpers of the `pims` command-line tool: tables, masking, log lines, argument parsing. */
import type { AppLogLine, BuildLogEntry } from "../provider/client";

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

/** An aligned text table: a header row, then one row per record; `right` lists right-aligned columns. */
export function table(headers: string[], rows: string[][], right: ReadonlySet<number> = new Set()): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => (right.has(i) ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join("  ")
      .trimEnd();
  return [line(headers), ...rows.map(line)].join("\n") + "\n";
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
      throw new UsageError(`${flag} must be an integer from ${min} to ${max} (got ${JSON.stringify(raw)})`);
    }
    return n;
  };
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const RELATIVE = /^(\d+)(s|m|h|d)$/;
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * An instant for --before/--after: an RFC 3339 timestamp (passed through unchanged), or a duration ago such as
 * `30s`, `15m`, `2h`, `1d` (turned into a timestamp relative to `now`).
 */
export function instantOption(flag: string, now: () => number = Date.now): (raw: string) => string {
  return (raw: string) => {
    const v = raw.trim();
    const rel = RELATIVE.exec(v);
    if (rel) return new Date(now() - Number(rel[1]) * UNIT_MS[rel[2]]).toISOString();
    if (RFC3339.test(v) && !Number.isNaN(Date.parse(v.replace(" ", "T")))) return v;
    throw new UsageError(`${flag} must be an RFC 3339 timestamp such as 2024-05-01T12:00:00Z, or a duration ago such as 15m, 2h, 1d (got ${JSON.stringify(raw)})`);
  };
}
