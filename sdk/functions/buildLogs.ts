/** Build logs and status: `GET /v2/projects/{project_id}/apps/{app_id}/builds/{build_id}/logs`. */
import type * as pulumi from "@pulumi/pulumi";
import { BUILD_SUCCESS_STATUSES, BUILD_TERMINAL_STATUSES, type BuildLogEntry } from "../../provider/client";
import type { Inputs } from "../inputs";
import { clientForProviderCall, outputOf, requireId, type PimsCallOptions } from "./call";

export { BUILD_SUCCESS_STATUSES };

/** True when a build status is final (success or failure): polling can stop. */
export function isBuildFinished(status: string): boolean {
  return BUILD_TERMINAL_STATUSES.includes(status.toLowerCase());
}

/** True when a build status means success (`success`, `ready`). */
export function isBuildSuccessful(status: string): boolean {
  return BUILD_SUCCESS_STATUSES.includes(status.toLowerCase());
}

/** Arguments of {@link getBuildLogs}. */
export interface GetBuildLogsArgs {
  /** Project of the app. */
  projectId: string;
  /** App that was built. */
  appId: string;
  /** Build whose logs are read. */
  buildId: string;
}

/** Arguments of {@link getBuildLogsOutput}: {@link GetBuildLogsArgs} as Inputs. */
export type GetBuildLogsOutputArgs = Inputs<GetBuildLogsArgs>;

/** Result of {@link getBuildLogs} and {@link getBuildLogsOutput}. */
export interface GetBuildLogsResult {
  /** Project of the app. */
  projectId: string;
  /** App that was built. */
  appId: string;
  /** The build. */
  buildId: string;
  /** Status as the service reports it, e.g. `building`, `success`, `build_failure` (`unknown` when absent). */
  status: string;
  /** True when `status` is final (see `BUILD_TERMINAL_STATUSES`). */
  finished: boolean;
  /** True when `status` is `success` or `ready`. */
  succeeded: boolean;
  /** Log entries so far, oldest first. */
  logs: BuildLogEntry[];
}

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
  const fn = "getBuildLogs";
  const projectId = requireId(fn, "projectId", args?.projectId);
  const appId = requireId(fn, "appId", args.appId);
  const buildId = requireId(fn, "buildId", args.buildId);
  const r = await (await clientForProviderCall(opts)).getBuildLogs(projectId, appId, buildId);
  return {
    projectId: r.project_id,
    appId: r.app_id,
    buildId: r.build_id,
    status: r.status,
    finished: isBuildFinished(r.status),
    succeeded: isBuildSuccessful(r.status),
    logs: r.logs,
  };
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
