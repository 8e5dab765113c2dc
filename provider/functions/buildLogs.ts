/** Build logs and status: `GET /v2/projects/{project_id}/apps/{app_id}/builds/{build_id}/logs`. */
import { BUILD_SUCCESS_STATUSES, BUILD_TERMINAL_STATUSES, type BuildLogEntry } from "../client";
import { requireId, type ClientSource } from "./args";

export { BUILD_SUCCESS_STATUSES };

/** True when a build status is final (success or failure): polling can stop. */
export function isBuildFinished(status: string): boolean {
  return BUILD_TERMINAL_STATUSES.includes(status.toLowerCase());
}

/** True when a build status means success (`success`, `ready`). */
export function isBuildSuccessful(status: string): boolean {
  return BUILD_SUCCESS_STATUSES.includes(status.toLowerCase());
}

/** Arguments of `getBuildLogs`. */
export interface GetBuildLogsArgs {
  /** Project of the app. */
  projectId: string;
  /** App that was built. */
  appId: string;
  /** Build whose logs are read. */
  buildId: string;
}

/** Result of `getBuildLogs` and `getBuildLogsOutput`. */
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

/** A build's status and logs. */
export async function run(args: GetBuildLogsArgs, client: ClientSource): Promise<GetBuildLogsResult> {
  const fn = "getBuildLogs";
  const projectId = requireId(fn, "projectId", args?.projectId);
  const appId = requireId(fn, "appId", args.appId);
  const buildId = requireId(fn, "buildId", args.buildId);
  const r = await (await client()).getBuildLogs(projectId, appId, buildId);
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
