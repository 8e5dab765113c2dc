/**
 * Entry point the serialized shim (sdk/nodejs/shim.ts) loads inside the dynamic-provider host: `newProvider(kind)`
 * gives the provider of each kind in ./kinds. Each resource's whole lifecycle lives in its own file.
 */
import type * as pulumi from "@pulumi/pulumi";
import { AppSecretsProvider } from "./appSecrets";
import { dynamicHostEngineAddress } from "./engineAddress";
import type { ResourceKind } from "./kinds";
import { ProjectProvider } from "./project";
import type { PimsProviderBase } from "./providerBase";
import { ServiceAccountProvider } from "./serviceAccount";
import { VolumeSizeProvider } from "./volumeSize";

/** The provider class of each kind: the compiler rejects a kind of ./kinds without one. */
const PROVIDERS: Record<ResourceKind, new () => pulumi.dynamic.ResourceProvider & PimsProviderBase> = {
  Project: ProjectProvider,
  ServiceAccount: ServiceAccountProvider,
  VolumeSize: VolumeSizeProvider,
  AppSecrets: AppSecretsProvider,
};

const METHODS = ["configure", "check", "diff", "create", "read", "update", "delete"] as const;

/**
 * The error a user sees, without a JavaScript stack: the dynamic-provider host prints a failure of check, diff, read
 * and delete as `${error}: ${error.stack}`, so `toString()` is the text before the first ": " and `stack` the rest,
 * and the line reads the message exactly once. Members the host reads (`id`, `properties`, `reasons` of an update
 * that stored a partial state) are kept.
 */
export function userFacing(e: unknown): Error {
  if (!(e instanceof Error)) return userFacing(new Error(String(e)));
  const message = e.message;
  const cut = message.indexOf(": ");
  const [head, rest] = cut > 0 ? [message.slice(0, cut), message.slice(cut + 2)] : ["pulumi-pims", message];
  const out = new Error(message);
  for (const k of ["id", "properties", "reasons"] as const)
    if (k in e) Object.assign(out, { [k]: (e as unknown as Record<string, unknown>)[k] });
  Object.defineProperty(out, "stack", { value: rest, writable: true, configurable: true, enumerable: false });
  Object.defineProperty(out, "toString", { value: () => head, enumerable: false });
  return out;
}

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

/** The provider object of a kind, as both hosts run it (the plugin configures it with `configureWith`). */
export function providerOf(kind: string): pulumi.dynamic.ResourceProvider & PimsProviderBase {
  const Provider = Object.prototype.hasOwnProperty.call(PROVIDERS, kind) ? PROVIDERS[kind as ResourceKind] : undefined;
  if (Provider === undefined)
    throw new Error(
      `pulumi-pims: unknown resource kind ${JSON.stringify(kind)} (state written by a newer pulumi-pims?)`,
    );
  return new Provider();
}

/** The provider of a kind as the serialized shim copies it (errors made {@link userFacing}). */
export function newProvider(kind: string): pulumi.dynamic.ResourceProvider {
  return bound(providerOf(kind));
}
