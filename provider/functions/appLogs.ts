/** App logs: `GET /v2/projects/{project_id}/apps/{app_id}/logs`, read page by page up to a limit. */
import {
  MAX_LOG_PAGE_SIZE,
  isRfc3339,
  validateLogsQuery,
  type AppLogLine,
  type AppLogsQuery,
  type LogDirection,
  type LogStream,
} from "../client";
import { quote } from "../client/values";
import { badArgument, requireId, type ClientSource } from "./args";

/** Lines `getAppLogs` returns when no `limit` is given. */
export const DEFAULT_LOG_LIMIT = 1000;
/** Largest `limit` `getAppLogs` accepts (the lines are held in memory). */
export const MAX_LOG_LIMIT = 100_000;

/** Arguments of `getAppLogs`. Every filter is optional. */
export interface GetAppLogsArgs {
  /** Project of the app. */
  projectId: string;
  /** App whose logs are read, e.g. `p-1a2b3c4d-web`. */
  appId: string;
  /** Only lines before this instant (RFC 3339 timestamp or Date). Sent as `beforeDate`. */
  before?: string | Date;
  /** Only lines after this instant (RFC 3339 timestamp or Date). Sent as `afterDate`. */
  after?: string | Date;
  /** Only lines of this container (id or name). Sent as `container`. */
  containerId?: string;
  /** Only lines of this run. */
  runId?: string;
  /** Only lines containing this term. */
  search?: string;
  /** Only this output stream: `stdout` or `stderr`. */
  stream?: LogStream;
  /**
   * Paging direction: `backward` (the service's default) reads newest first, `forward` oldest first. With a
   * `limit`, it decides which end of the range you get.
   */
  direction?: LogDirection;
  /** Lines per request, 1 to 1000. Default: `limit`, capped at 1000 (fewest requests). */
  pageSize?: number;
  /** Most lines returned, 1 to 100000. Default 1000 ({@link DEFAULT_LOG_LIMIT}). */
  limit?: number;
}

/** Result of `getAppLogs` and `getAppLogsOutput`. */
export interface GetAppLogsResult {
  /** The matching lines in paging order (newest first for `backward`, oldest first for `forward`). */
  lines: AppLogLine[];
  /** True when `limit` was reached while more matching lines existed. */
  truncated: boolean;
}

function isoInstant(fn: string, field: string, v: string | Date | undefined): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (v instanceof Date) {
    if (Number.isNaN(v.getTime())) throw badArgument(fn, field, "must be a valid Date");
    return v.toISOString();
  }
  if (typeof v !== "string" || !isRfc3339(v)) {
    throw badArgument(fn, field, `must be an RFC 3339 timestamp such as 2024-05-01T12:00:00Z (got ${quote(v)})`);
  }
  return v;
}

/**
 * Checks {@link GetAppLogsArgs} without sending anything and returns the service query and the limit.
 * Throws an `ArgumentError` naming the field and the rule.
 */
export function appLogsQueryFor(args: GetAppLogsArgs, fn = "getAppLogs"): { query: AppLogsQuery; limit: number } {
  requireId(fn, "projectId", args?.projectId);
  requireId(fn, "appId", args.appId);
  const limit = args.limit ?? DEFAULT_LOG_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LOG_LIMIT) {
    throw badArgument(fn, "limit", `must be an integer from 1 to ${MAX_LOG_LIMIT} (got ${quote(limit)})`);
  }
  const query: AppLogsQuery = {
    beforeDate: isoInstant(fn, "before", args.before),
    afterDate: isoInstant(fn, "after", args.after),
    container: args.containerId,
    runId: args.runId,
    search: args.search,
    stream: args.stream,
    direction: args.direction,
    pageSize: args.pageSize ?? Math.min(limit, MAX_LOG_PAGE_SIZE),
  };
  for (const k of Object.keys(query) as Array<keyof AppLogsQuery>) if (query[k] === undefined) delete query[k];
  validateLogsQuery(query); // pageSize, stream, direction: the client's rules
  return { query, limit };
}

/** The matching lines, page after page (`nextToken`) while the service says `hasMore`, up to `limit`. */
export async function run(args: GetAppLogsArgs, client: ClientSource): Promise<GetAppLogsResult> {
  const { query, limit } = appLogsQueryFor(args);
  const lines: AppLogLine[] = [];
  // The client's paging loop; leaving it early (return) ends it without another request.
  for await (const page of (await client()).iterateAppLogPages(args.projectId, args.appId, query)) {
    const room = limit - lines.length;
    lines.push(...page.logs.slice(0, room));
    if (page.logs.length > room || (lines.length === limit && page.more)) return { lines, truncated: true };
  }
  return { lines, truncated: false };
}
