/**
 * The five functions of the plugin (`pims:index:<name>`), one entry each, read by the schema (./schema) and by Invoke
 * (./invoke): argument and result types (./schemaProperties), the required ones, the results returned as secrets,
 * and the code that runs it (../functions, the same the SDK's `getX` functions run). The description is the TSDoc
 * summary of the SDK's function (sdk/nodejs/functions/), which `npm run schema` reads, and `pluginDoc`.
 */
import type { ClientSource, FunctionName } from "../functions";
import * as apiKeys from "../functions/apiKeys";
import * as appLogs from "../functions/appLogs";
import * as buildLogs from "../functions/buildLogs";
import * as invoices from "../functions/invoices";
import * as runs from "../functions/runs";
import * as P from "./schemaProperties";

/** What the plugin knows of a function: its schema, and the code that runs it. */
export interface NativeFunction {
  /** What the schema's description says beyond the SDK function's TSDoc summary (what only the plugin's users read). */
  pluginDoc?: string;
  inputs: P.PropertyTable;
  requiredInputs: readonly string[];
  outputs: P.PropertyTable;
  requiredOutputs: readonly string[];
  /** Results returned as secrets (API keys carry their values). */
  secret: readonly string[];
  /** Runs the function with a client from the provider's settings. */
  run: (args: never, client: ClientSource) => Promise<object>;
}

/** The five functions, by name (`pims:index:<name>`). */
export const FUNCTIONS: Record<FunctionName, NativeFunction> = {
  getApiKeys: {
    pluginDoc: "The result is a **secret** (it carries the key values).",
    inputs: P.GET_API_KEYS_ARGS,
    requiredInputs: ["projectId"],
    outputs: P.GET_API_KEYS_RESULT,
    requiredOutputs: ["keys"],
    secret: apiKeys.API_KEYS_SECRET_RESULTS,
    run: apiKeys.run,
  },
  getInvoices: {
    inputs: P.GET_INVOICES_ARGS,
    requiredInputs: ["projectId"],
    outputs: P.GET_INVOICES_RESULT,
    requiredOutputs: ["invoices"],
    secret: [],
    run: invoices.run,
  },
  getAppLogs: {
    inputs: P.GET_APP_LOGS_ARGS,
    requiredInputs: ["projectId", "appId"],
    outputs: P.GET_APP_LOGS_RESULT,
    requiredOutputs: ["lines", "truncated"],
    secret: [],
    run: appLogs.run,
  },
  getBuildLogs: {
    inputs: P.GET_BUILD_LOGS_ARGS,
    requiredInputs: ["projectId", "appId", "buildId"],
    outputs: P.GET_BUILD_LOGS_RESULT,
    requiredOutputs: ["projectId", "appId", "buildId", "status", "finished", "succeeded", "logs"],
    secret: [],
    run: buildLogs.run,
  },
  cancelRun: {
    pluginDoc:
      "**An action, not a read**: called from a program it cancels the run on every `pulumi preview` and " +
      "`pulumi up`. Prefer the command-line tool (`pims runs cancel <project> <app> <run>`). A finished run is " +
      "refused by the service; an unknown one is not found. No program example: runs are cancelled from the CLI or " +
      "a one-off program, not declared in a stack.",
    inputs: P.CANCEL_RUN_ARGS,
    requiredInputs: ["projectId", "appId", "runId"],
    outputs: P.CANCEL_RUN_RESULT,
    requiredOutputs: ["message"],
    secret: [],
    run: runs.run,
  },
};
