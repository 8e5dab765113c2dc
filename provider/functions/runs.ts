/** Run cancellation: `DELETE /v2/projects/{project_id}/apps/{app_id}/runs/{run_id}`, an action rather than a read. */
import { requireId, type ClientSource } from "./args";

/** Arguments of `cancelRun`. */
export interface CancelRunArgs {
  /** Project of the app. */
  projectId: string;
  /** App the run belongs to. */
  appId: string;
  /** The run to cancel. */
  runId: string;
}

/** Result of `cancelRun`. */
export interface CancelRunResult {
  /** The service's message describing the result, e.g. `run run-1 cancelled`. */
  message: string;
}

/** Asks the service to cancel a run; its message. */
export async function run(args: CancelRunArgs, client: ClientSource): Promise<CancelRunResult> {
  const fn = "cancelRun";
  const projectId = requireId(fn, "projectId", args?.projectId);
  const appId = requireId(fn, "appId", args.appId);
  const runId = requireId(fn, "runId", args.runId);
  return { message: await (await client()).cancelRun(projectId, appId, runId) };
}
