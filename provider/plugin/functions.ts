/**
 * The five functions of the plugin (`pims:index:<name>`), one entry each, read by the schema (./schema) and by Invoke
 * (./invoke): the description, argument and result types (./schemaProperties), the required ones, the results
 * returned as secrets, and the code that runs it (../functions, the same the SDK's `getX` functions run).
 */
import type { ClientSource, FunctionName } from "../functions";
import * as apiKeys from "../functions/apiKeys";
import * as appLogs from "../functions/appLogs";
import * as buildLogs from "../functions/buildLogs";
import * as invoices from "../functions/invoices";
import * as runs from "../functions/runs";
import * as P from "./schemaProperties";
import { nativeToken } from "./tokens";

/** What the plugin knows of a function: its schema, and the code that runs it. */
export interface NativeFunction {
  description: string;
  inputs: P.PropertyTable;
  requiredInputs: readonly string[];
  outputs: P.PropertyTable;
  requiredOutputs: readonly string[];
  /** Results returned as secrets (API keys carry their values). */
  secret: readonly string[];
  /** Runs the function with a client from the provider's settings. */
  run: (args: never, client: ClientSource) => Promise<object>;
}

const invokeExample = (fn: string, args: string[], use: string): string =>
  ["```yaml", "variables:", "  result:", "    fn::invoke:", `      function: ${nativeToken(fn)}`, "      arguments:"]
    .concat(
      args.map((a) => `        ${a}`),
      [`      return: ${use}`, "```"],
    )
    .join("\n");

/** The five functions, by name (`pims:index:<name>`). */
export const FUNCTIONS: Record<FunctionName, NativeFunction> = {
  getApiKeys: {
    description:
      "Lists the API keys of a project (`GET /v2/projects/{project_id}/api-keys`), `expiresAt` ascending, keys " +
      "that never expire last. The result is a **secret** (it carries the key values).\n\n" +
      invokeExample("getApiKeys", ["projectId: p-1a2b3c4d"], "keys"),
    inputs: P.GET_API_KEYS_ARGS,
    requiredInputs: ["projectId"],
    outputs: P.GET_API_KEYS_RESULT,
    requiredOutputs: ["keys"],
    secret: apiKeys.API_KEYS_SECRET_RESULTS,
    run: apiKeys.run,
  },
  getInvoices: {
    description:
      "Lists the invoices of a project (`GET /v2/projects/{project_id}/invoices`), each with `amountDueMajor`, " +
      "the amount in major units of its currency (ISO 4217 digits: 0 for JPY, 3 for KWD, 2 by default).\n\n" +
      invokeExample("getInvoices", ["projectId: p-1a2b3c4d"], "invoices"),
    inputs: P.GET_INVOICES_ARGS,
    requiredInputs: ["projectId"],
    outputs: P.GET_INVOICES_RESULT,
    requiredOutputs: ["invoices"],
    secret: [],
    run: invoices.run,
  },
  getAppLogs: {
    description:
      "Reads an app's logs (`GET /v2/projects/{project_id}/apps/{app_id}/logs`) page by page, up to `limit` " +
      "lines (default 1000). Bad arguments are refused before any request; no matching lines is an empty result." +
      "\n\n" +
      invokeExample("getAppLogs", ["projectId: p-1a2b3c4d", "appId: p-1a2b3c4d-web", "stream: stderr"], "lines"),
    inputs: P.GET_APP_LOGS_ARGS,
    requiredInputs: ["projectId", "appId"],
    outputs: P.GET_APP_LOGS_RESULT,
    requiredOutputs: ["lines", "truncated"],
    secret: [],
    run: appLogs.run,
  },
  getBuildLogs: {
    description:
      "Reads a build's logs and status (`GET /v2/projects/{project_id}/apps/{app_id}/builds/{build_id}/logs`).\n\n" +
      invokeExample("getBuildLogs", ["projectId: p-1a2b3c4d", "appId: p-1a2b3c4d-web", "buildId: build-42"], "status"),
    inputs: P.GET_BUILD_LOGS_ARGS,
    requiredInputs: ["projectId", "appId", "buildId"],
    outputs: P.GET_BUILD_LOGS_RESULT,
    requiredOutputs: ["projectId", "appId", "buildId", "status", "finished", "succeeded", "logs"],
    secret: [],
    run: buildLogs.run,
  },
  cancelRun: {
    description:
      "Requests cancellation of a run (`DELETE /v2/projects/{project_id}/apps/{app_id}/runs/{run_id}`) and " +
      "returns the service's message. **An action, not a read**: called from a program it cancels the run on every " +
      "`pulumi preview` and `pulumi up`. Prefer the command-line tool (`pims runs cancel <project> <app> <run>`). " +
      "A finished run is refused by the service; an unknown one is not found. No program example: runs are " +
      "cancelled from the CLI or a one-off program, not declared in a stack.",
    inputs: P.CANCEL_RUN_ARGS,
    requiredInputs: ["projectId", "appId", "runId"],
    outputs: P.CANCEL_RUN_RESULT,
    requiredOutputs: ["message"],
    secret: [],
    run: runs.run,
  },
};
