/** Run cancellation: `DELETE /v2/projects/{project_id}/apps/{app_id}/runs/{run_id}`, an action rather than a read. */
import type * as pulumi from "@pulumi/pulumi";
import * as core from "../../../provider/functions/runs";
import type { CancelRunArgs, CancelRunResult } from "../../../provider/functions/runs";
import type { Inputs } from "../inputs";
import { callFunction, clientForProviderCall, outputOf, type PimsCallOptions } from "./call";

export type { CancelRunArgs, CancelRunResult };

/** Arguments of {@link cancelRunOutput}: {@link CancelRunArgs} as Inputs. */
export type CancelRunOutputArgs = Inputs<CancelRunArgs>;

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
  return callFunction("cancelRun", args, opts, () => core.run(args, () => clientForProviderCall(opts)));
}

/**
 * Output form of {@link cancelRun}, the name Pulumi's program generators give it (a YAML program's
 * `fn::invoke: pims:index:cancelRun`, converted with `pulumi convert`). The same action: it cancels the run whenever
 * the program runs, previews included.
 */
export function cancelRunOutput(args: CancelRunOutputArgs, opts?: PimsCallOptions): pulumi.Output<CancelRunResult> {
  return outputOf(args, (a) => cancelRun(a, opts), opts);
}
