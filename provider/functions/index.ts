/**
 * The five functions as both hosts run them: the SDK's `getX` / `getXOutput` (sdk/nodejs/functions, in the program
 * process) and the plugin's Invoke (`pims:index:<name>`). Each takes its arguments and where its client comes from.
 */
import type { ClientSource } from "./args";
import { listApiKeys } from "./apiKeys";
import { getAppLogs } from "./appLogs";
import { getBuildLogs } from "./buildLogs";
import { getInvoices } from "./invoices";
import { cancelRun } from "./runs";

export type { ClientSource } from "./args";
export { argumentOf } from "./args";

/** A function by its schema name, with the results returned as secrets (API keys carry their values). */
export interface PimsFunction {
  run(args: never, client: ClientSource): Promise<object>;
  secretResults: readonly string[];
}

export const FUNCTIONS = {
  getApiKeys: { run: listApiKeys, secretResults: ["keys"] },
  getInvoices: { run: getInvoices, secretResults: [] },
  getAppLogs: { run: getAppLogs, secretResults: [] },
  getBuildLogs: { run: getBuildLogs, secretResults: [] },
  cancelRun: { run: cancelRun, secretResults: [] },
} as const satisfies Record<string, PimsFunction>;

export type FunctionName = keyof typeof FUNCTIONS;
