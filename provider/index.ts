/**
 * The dynamic-provider host's entry, and only that: the serialized shim (sdk/nodejs/shim.ts) stored in users' state
 * requires this module's build (`pulumi-pims/bin/provider`, i.e. bin/provider/index.js) and calls
 * `newProvider(kind)`; both names are kept forever. The providers come from the registry both hosts share
 * (./registry, derived from ./kinds); the plugin never imports this module.
 */
import type * as pulumi from "@pulumi/pulumi";
import { dynamicHostEngineAddress } from "./engineAddress";
import { programConfigured } from "./providerBase";
import { providerOf } from "./registry";
import { userFacing } from "./userFacing";

const METHODS = ["configure", "check", "diff", "create", "read", "update", "delete"] as const;

let engineLines: Promise<typeof import("./engineLog") | undefined> | undefined;

/**
 * In the dynamic-provider host, the lines of ./client/log go to the engine's Log with their severities (its stderr,
 * the only other way out, is shown with none); started once per process, on the first call. Elsewhere, or when the
 * engine cannot be reached that way: undefined, and the lines stay on stderr (a line is never worth a failed call).
 */
function dynamicHostLines(): Promise<typeof import("./engineLog") | undefined> {
  engineLines ??= (async () => {
    const address = dynamicHostEngineAddress();
    if (address === undefined) return undefined;
    try {
      const lines = await import("./engineLog");
      lines.sendLinesToEngine(address);
      return lines;
    } catch {
      return undefined;
    }
  })();
  return engineLines;
}

/**
 * A plain object of the provider's methods bound to it (errors made {@link userFacing}; in the dynamic-provider host,
 * answering after the method's lines reached the engine), ready to be copied onto the shim.
 */
function bound(p: pulumi.dynamic.ResourceProvider): pulumi.dynamic.ResourceProvider {
  const out: Record<string, unknown> = {};
  const record = p as unknown as Record<string, unknown>;
  for (const name of METHODS) {
    const fn = record[name];
    if (typeof fn !== "function") continue;
    const run = async (args: unknown[]): Promise<unknown> => {
      if (name === "check" || name === "diff") programConfigured(); // the program ran: its config is the current one
      try {
        return await (fn as (...a: unknown[]) => Promise<unknown>).apply(p, args);
      } catch (e) {
        throw userFacing(e);
      }
    };
    out[name] = async (...args: unknown[]): Promise<unknown> => {
      const lines = await dynamicHostLines();
      return lines ? lines.inCall("", () => run(args)) : run(args);
    };
  }
  return out as unknown as pulumi.dynamic.ResourceProvider;
}

/** The provider of a kind as the serialized shim copies it (errors made {@link userFacing}). */
export function newProvider(kind: string): pulumi.dynamic.ResourceProvider {
  return bound(providerOf(kind));
}
