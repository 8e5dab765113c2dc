/**
 * Entry point the serialized shim (sdk/shim.ts) loads inside the dynamic-provider host.
 * Each resource's whole lifecycle lives in its own file.
 */
import type * as pulumi from "@pulumi/pulumi";
import { AppSecretsProvider } from "./appSecrets";
import { ProjectProvider } from "./project";
import { ServiceAccountProvider } from "./serviceAccount";
import { VolumeSizeProvider } from "./volumeSize";

const METHODS = ["configure", "check", "diff", "create", "read", "update", "delete"] as const;

/** A plain object of the provider's methods bound to it, ready to be copied onto the shim. */
function bound(p: pulumi.dynamic.ResourceProvider): pulumi.dynamic.ResourceProvider {
  const out: Record<string, unknown> = {};
  const record = p as unknown as Record<string, unknown>;
  for (const name of METHODS) {
    const fn = record[name];
    if (typeof fn === "function") out[name] = fn.bind(p);
  }
  return out as unknown as pulumi.dynamic.ResourceProvider;
}

export function newProvider(kind: string): pulumi.dynamic.ResourceProvider {
  switch (kind) {
    case "Project":
      return bound(new ProjectProvider());
    case "ServiceAccount":
      return bound(new ServiceAccountProvider());
    case "VolumeSize":
      return bound(new VolumeSizeProvider());
    case "AppSecrets":
      return bound(new AppSecretsProvider());
    default:
      throw new Error(`pulumi-pims: unknown resource kind ${JSON.stringify(kind)} (state written by a newer pulumi-pims?)`);
  }
}
