/** Build logs and status: `GET /v2/projects/{project_id}/apps/{app_id}/builds/{build_id}/logs`. */
import type * as pulumi from "@pulumi/pulumi";
import * as core from "../../../provider/functions/buildLogs";
import type { GetBuildLogsArgs, GetBuildLogsResult } from "../../../provider/functions/buildLogs";
import type { Inputs } from "../inputs";
import { callFunction, clientForProviderCall, outputOf, type PimsCallOptions } from "./call";

export { BUILD_SUCCESS_STATUSES, isBuildFinished, isBuildSuccessful } from "../../../provider/functions/buildLogs";
export type { GetBuildLogsArgs, GetBuildLogsResult };

/** Arguments of {@link getBuildLogsOutput}: {@link GetBuildLogsArgs} as Inputs. */
export type GetBuildLogsOutputArgs = Inputs<GetBuildLogsArgs>;

/**
 * Reads a build's logs and status (`GET /v2/projects/{project_id}/apps/{app_id}/builds/{build_id}/logs`).
 *
 * @example
 * ```ts
 * import * as pims from "pulumi-pims";
 * const build = await pims.getBuildLogs({ projectId: "p-1a2b3c4d", appId: "p-1a2b3c4d-web", buildId: "build-42" });
 * if (build.finished && !build.succeeded) console.error(build.logs.map((e) => e.log).join("\n"));
 * ```
 */
export async function getBuildLogs(args: GetBuildLogsArgs, opts?: PimsCallOptions): Promise<GetBuildLogsResult> {
  return callFunction("getBuildLogs", args, opts, () => core.run(args, () => clientForProviderCall(opts)));
}

/**
 * Output form of {@link getBuildLogs}.
 *
 * @example
 * ```ts
 * import * as pims from "pulumi-pims";
 * export const buildStatus = pims.getBuildLogsOutput({ projectId: project.id, appId, buildId }).apply((b) => b.status);
 * ```
 */
export function getBuildLogsOutput(
  args: GetBuildLogsOutputArgs,
  opts?: PimsCallOptions,
): pulumi.Output<GetBuildLogsResult> {
  return outputOf(args, (a) => getBuildLogs(a, opts), opts);
}
