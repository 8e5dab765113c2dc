/** App logs: `GET /v2/projects/{project_id}/apps/{app_id}/logs`, read page by page up to a limit. */
import type * as pulumi from "@pulumi/pulumi";
import * as core from "../../../provider/functions/appLogs";
import type { GetAppLogsArgs, GetAppLogsResult } from "../../../provider/functions/appLogs";
import type { Inputs } from "../inputs";
import { callFunction, clientForProviderCall, outputOf, type PimsCallOptions } from "./call";

export { appLogsQueryFor, DEFAULT_LOG_LIMIT, MAX_LOG_LIMIT } from "../../../provider/functions/appLogs";
export type { GetAppLogsArgs, GetAppLogsResult };

/** Arguments of {@link getAppLogsOutput}: {@link GetAppLogsArgs} as Inputs (`before`/`after` may be Dates here too). */
export type GetAppLogsOutputArgs = Inputs<GetAppLogsArgs>;

/**
 * Reads an app's logs (`GET /v2/projects/{project_id}/apps/{app_id}/logs`), following `nextToken` page by page
 * while the service says `hasMore`, and stopping at `limit` lines (default 1000). Filters map to the service's query
 * names: before → `beforeDate`, after → `afterDate`, containerId → `container`, runId, search, stream, direction,
 * pageSize.
 *
 * Bad arguments (`pageSize` outside 1–1000, `stream` not stdout/stderr, `direction` not forward/backward,
 * `limit` outside 1–100000, unreadable timestamps) are rejected before any request. When the app has no
 * matching lines (the service answers 204), the result is empty.
 *
 * @example
 * ```ts
 * import * as pims from "pulumi-pims";
 * const { lines, truncated } = await pims.getAppLogs({
 *   projectId: "p-1a2b3c4d", appId: "p-1a2b3c4d-web",
 *   stream: "stderr", after: new Date(Date.now() - 3600_000), limit: 500,
 * });
 * for (const l of lines) console.log(l.timestamp, l.containerName, l.logLine);
 * if (truncated) console.log("(more lines exist)");
 * ```
 */
export async function getAppLogs(args: GetAppLogsArgs, opts?: PimsCallOptions): Promise<GetAppLogsResult> {
  return callFunction("getAppLogs", args, opts, () => core.run(args, () => clientForProviderCall(opts)));
}

/**
 * Output form of {@link getAppLogs}.
 *
 * @example
 * ```ts
 * import * as pims from "pulumi-pims";
 * export const recentErrors = pims.getAppLogsOutput({ projectId: project.id, appId, stream: "stderr", limit: 20 })
 *   .apply((r) => r.lines.map((l) => l.logLine));
 * ```
 */
export function getAppLogsOutput(args: GetAppLogsOutputArgs, opts?: PimsCallOptions): pulumi.Output<GetAppLogsResult> {
  return outputOf(args, (a) => getAppLogs(a, opts), opts);
}
