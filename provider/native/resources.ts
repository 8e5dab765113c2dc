/**
 * The four resources as the plugin serves them: the type token of each kind (`pims:index:<Kind>`), and what the
 * engine needs beyond the lifecycle (which the provider classes of ./../index own): the properties always returned as
 * secrets (a YAML program has no SDK to add `additionalSecretOutputs`), and the outputs only a create or an update
 * knows (unknown in a preview).
 */
import { RESOURCE_KINDS, type ResourceKind } from "../kinds";
import { SERVICE_ACCOUNT_SECRET_OUTPUTS } from "../serviceAccount";
import { SERVICE_ACCOUNT_CURRENT_KEYS, SERVICE_ACCOUNT_PREVIOUS_KEYS } from "../serviceAccount/rotation";

/** The package name of the plugin's type tokens. */
export const PACKAGE = "pims";

/** The type token of a kind in the plugin's schema. */
export const nativeToken = (kind: ResourceKind): string => `${PACKAGE}:index:${kind}`;

/** The kind of a type token of the plugin (`pims:index:Project`), or undefined. */
export function kindOfToken(type: string): ResourceKind | undefined {
  return RESOURCE_KINDS.find((k) => nativeToken(k) === type);
}

/** The type of a resource from its URN (`urn:pulumi:<stack>::<project>::<parent$>type::<name>`). */
export function typeOfUrn(urn: string): string {
  const qualified = urn.split("::")[2] ?? "";
  return qualified.split("$").pop() ?? "";
}

interface NativeResource {
  /** Inputs and outputs stored and returned as secrets, whatever the program passed. */
  secret: readonly string[];
  /** Outputs a create computes (unknown in the preview of a create). */
  computedOnCreate: readonly string[];
  /** Outputs an update may change beyond the inputs (unknown in the preview of an update). */
  computedOnUpdate: readonly string[];
}

export const NATIVE_RESOURCES: Record<ResourceKind, NativeResource> = {
  Project: { secret: [], computedOnCreate: ["projectId"], computedOnUpdate: [] },
  ServiceAccount: {
    secret: SERVICE_ACCOUNT_SECRET_OUTPUTS,
    computedOnCreate: SERVICE_ACCOUNT_CURRENT_KEYS,
    // A rotation with keepPreviousToken mints a new account: the current and previous ones may both change.
    computedOnUpdate: [...SERVICE_ACCOUNT_CURRENT_KEYS, ...SERVICE_ACCOUNT_PREVIOUS_KEYS, "retiredServiceAccountIds"],
  },
  VolumeSize: { secret: [], computedOnCreate: [], computedOnUpdate: [] },
  AppSecrets: { secret: ["secrets"], computedOnCreate: ["secretNames"], computedOnUpdate: ["secretNames"] },
};
