/**
 * Checks of app-log query filters, made before any request so a bad filter costs no call and names the rule.
 * Query names as the service reads them on `GET /v2/projects/{project_id}/apps/{app_id}/logs`.
 */
import { ValidationError } from "./errors";
import type { AppLogsQuery } from "./types";
import { quote } from "./values";

/** Largest page the service serves. */
export const MAX_LOG_PAGE_SIZE = 1000;
const LOG_STREAMS = ["stdout", "stderr"] as const;
const LOG_DIRECTIONS = ["forward", "backward"] as const;

/** Checks app-log filters before any call. Throws `ValidationError` naming the field and the rule. */
export function validateLogsQuery(q: AppLogsQuery): void {
  const bad = (field: string, rule: string): never => {
    throw new ValidationError({
      action: "checking app log filters",
      method: "GET",
      path: "(not sent)",
      serverMessage: `${field} ${rule}`,
    });
  };
  if (q.pageSize !== undefined && (!Number.isInteger(q.pageSize) || q.pageSize < 1 || q.pageSize > MAX_LOG_PAGE_SIZE))
    bad("pageSize", `must be an integer from 1 to ${MAX_LOG_PAGE_SIZE} (got ${q.pageSize})`);
  if (q.stream !== undefined && !(LOG_STREAMS as readonly string[]).includes(q.stream))
    bad("stream", `must be one of ${LOG_STREAMS.join(", ")} (got ${quote(q.stream)})`);
  if (q.direction !== undefined && !(LOG_DIRECTIONS as readonly string[]).includes(q.direction))
    bad("direction", `must be one of ${LOG_DIRECTIONS.join(", ")} (got ${quote(q.direction)})`);
  for (const f of ["beforeDate", "afterDate"] as const) {
    const v = q[f];
    if (v !== undefined && !isRfc3339(v))
      bad(f, `must be an RFC 3339 timestamp such as 2024-05-01T12:00:00Z (got ${quote(v)})`);
  }
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** A full RFC 3339 date-time (date, time and zone), with a real calendar date and time of day. */
export function isRfc3339(v: string): boolean {
  const m = RFC3339.exec(v);
  if (!m) return false;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth && hour <= 23 && minute <= 59 && second <= 59;
}
