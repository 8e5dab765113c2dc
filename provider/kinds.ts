/**
 * The one list of resource kinds. Each kind is a type token `pulumi-nodejs:dynamic/pims:<Kind>` (never renamed
 * without `aliases`), an SDK class, a provider class (`newProvider`, ./index) and a shim (sdk/nodejs/shim.ts). State
 * in the wild names these kinds, so a kind is never removed.
 */
export const RESOURCE_KINDS = ["Project", "ServiceAccount", "VolumeSize", "AppSecrets"] as const;

/** One of {@link RESOURCE_KINDS}. */
export type ResourceKind = (typeof RESOURCE_KINDS)[number];

/** The type token Pulumi stores for a kind. */
export const typeToken = (kind: ResourceKind): string => `pulumi-nodejs:dynamic/pims:${kind}`;
