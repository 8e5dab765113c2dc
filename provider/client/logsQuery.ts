/**
 * Checks of app-log query filters, made before any request so a bad filter costs no call and names the rule.
 * Query names as the service reads them on `GET /v2/projects/{project_id}/apps/{app_id}/logs`.
 */
import { ArgumentError } from "./errors";
import type { AppLogsQuery } from "./types";
import { isRfc3339, quote } from "./values";

/** Largest page the service serves. */
export const MAX_LOG_PAGE_SIZE = 1000;
const LOG_STREAMS = ["stdout", "stderr"] as const;
const LOG_DIRECTIONS = ["forward", "backward"] as const;

/** Checks app-log filters before any call. Throws `ArgumentError` naming the field and the rule. */
export function validateLogsQuery(q: AppLogsQuery): void {
  const bad = (field: string, rule: string): never => {
    throw new ArgumentError("checking app log filters", field, rule);
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
