/**
 * The five functions as both hosts run them: the SDK's `getX` / `getXOutput` (sdk/nodejs/functions, in the program
 * process) and the plugin's Invoke (`pims:index:<name>`, ../plugin/functions). Each module's `run` is its function's
 * logic (its arguments checked, then the requests): one name per thing, so `getInvoices` is only ever what users call.
 * It takes the arguments and where its client comes from.
 */
export type { ClientSource } from "./args";
export { argumentOf } from "./args";

/** The functions, by the name both hosts give them (the plugin's token is `pims:index:<name>`). */
export const FUNCTION_NAMES = ["getApiKeys", "getInvoices", "getAppLogs", "getBuildLogs", "cancelRun"] as const;

/** One of {@link FUNCTION_NAMES}. */
export type FunctionName = (typeof FUNCTION_NAMES)[number];
