/**
 * Invoke: the five functions (`pims:index:getApiKeys`, `getInvoices`, `getAppLogs`, `getBuildLogs`, `cancelRun`), run
 * by the same code as the SDK's functions (../functions) with a client from the provider's settings. A bad argument
 * is a check failure naming the field (the engine shows it with the function's name); the API keys come back secret.
 */
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import { progress } from "../client/log";
import { retryLine, type RetryInfo } from "../client/retry";
import { argumentOf, FUNCTION_NAMES, type FunctionName } from "../functions";
import { clientFor, type ConfiguredSettings } from "../settings";
import { coerceArgs } from "./coerce";
import { FUNCTIONS } from "./functions";
import { PLUGIN_SETTINGS_OPTIONS } from "./config";
import { PluginError } from "./lifecycle";
import { nameOfToken } from "./tokens";
import { fromStruct, toStruct, type Props } from "./values";

/** The function of a token `pims:index:<name>`, or undefined. */
function functionOf(tok: string): FunctionName | undefined {
  const name = nameOfToken(tok);
  return FUNCTION_NAMES.find((n) => n === name);
}

/** Runs a function with the provider's settings as Configure read them once (then the environment). */
export async function invoke(
  req: provproto.InvokeRequest,
  settings: ConfiguredSettings,
): Promise<provproto.InvokeResponse> {
  const name = functionOf(req.getTok());
  if (name === undefined) throw new PluginError(`pulumi-pims: unknown function ${JSON.stringify(req.getTok())}`);
  const fn = FUNCTIONS[name];
  const args = fromStruct(req.getArgs());
  const onRetry = { onRetry: (info: RetryInfo) => progress(retryLine(info)) };
  const client = () => clientFor(settings, onRetry, PLUGIN_SETTINGS_OPTIONS);
  const resp = new provproto.InvokeResponse();
  try {
    const result = await fn.run(coerceArgs(name, args.props) as never, client);
    resp.setReturn(toStruct(result as unknown as Props, fn.secret));
  } catch (e) {
    const bad = argumentOf(e);
    if (bad === undefined) throw e;
    resp.setFailuresList([new provproto.CheckFailure().setProperty(bad.field).setReason(bad.reason)]);
  }
  return resp;
}
