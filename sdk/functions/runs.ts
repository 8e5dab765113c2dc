/** Run cancellation: `DELETE /v2/projects/{project_id}/apps/{app_id}/runs/{run_id}`, an action rather than a read. */
import { clientForProviderCall, requireId, type PimsCallOptions } from "./call";

/** Arguments of {@link cancelRun}. */
export interface CancelRunArgs {
  /** Project of the app. */
  projectId: string;
  /** App the run belongs to. */
  appId: string;
  /** The run to cancel. */
  runId: string;
}

/** Result of {@link cancelRun}. */
export interface CancelRunResult {
  /** The service's message describing the result, e.g. `run run-1 cancelled`. */
  message: string;
}

/**
 * Requests cancellation of an ongoing run (`DELETE /v2/projects/{project_id}/apps/{app_id}/runs/{run_id}`) and
 * returns the service's message.
 *
 * @remarks This is an imperative action, not a read: calling it from a Pulumi program would cancel the run on
 * every `pulumi preview` and `pulumi up`. Programs rarely want that; the usual way is the command-line tool,
 * `pims runs cancel <project> <app> <run>`, or a one-off script. A run that already finished is refused by the
 * service (a `ConflictError` carrying its message); an unknown run is a `NotFoundError`.
 *
 * @example
 * ```ts
 * import { cancelRun } from "pulumi-pims";
 * const { message } = await cancelRun({ projectId: "p-1a2b3c4d", appId: "p-1a2b3c4d-web", runId: "run-9f8e" });
 * console.log(message);
 * ```
 */
export async function cancelRun(args: CancelRunArgs, opts?: PimsCallOptions): Promise<CancelRunResult> {
  const fn = "cancelRun";
  const projectId = requireId(fn, "projectId", args?.projectId);
  const appId = requireId(fn, "appId", args.appId);
  const runId = requireId(fn, "runId", args.runId);
  return { message: await (await clientForProviderCall(opts)).cancelRun(projectId, appId, runId) };
}
