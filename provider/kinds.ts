/**
 * The one list of resource kinds: each kind's one declaration (./kindDeclaration), in its own file. Every registry
 * derives from this list: the dynamic host's providers (./registry, `newProvider`), the plugin's resources and schema
 * (provider/plugin), the type tokens; the lint config and the tests iterate it (tests/rules/kinds.test.ts checks that
 * nothing lists the kinds by hand). Each kind is a type token `pulumi-nodejs:dynamic/pims:<Kind>` (never renamed
 * without `aliases`), an SDK class (sdk/nodejs/<kind>.ts) and a shim (sdk/nodejs/shim.ts). State in the wild names
 * these kinds, so a kind is never removed.
 */
import { APP_SECRETS } from "./appSecrets";
import { nativeToken } from "./identity";
import type { Kind } from "./kindDeclaration";
import { PROJECT } from "./project";
import { SERVICE_ACCOUNT } from "./serviceAccount/kind";
import { VOLUME_SIZE } from "./volumeSize";

/** Every kind's declaration, in the order the schema and the docs show them. */
export const KINDS = [PROJECT, SERVICE_ACCOUNT, VOLUME_SIZE, APP_SECRETS] as const;

/** The name of one of {@link KINDS}. */
export type ResourceKind = (typeof KINDS)[number]["kind"];

/** Every kind's name. */
export const RESOURCE_KINDS: readonly ResourceKind[] = KINDS.map((k) => k.kind);

/** Each kind's declaration by its name. */
export const KIND_BY_NAME = Object.fromEntries(KINDS.map((k) => [k.kind, k])) as Record<ResourceKind, Kind>;

/** Whether `name` is one of the kinds (state written by a newer pulumi-pims may name another). */
export const isResourceKind = (name: string): name is ResourceKind =>
  Object.prototype.hasOwnProperty.call(KIND_BY_NAME, name);

/** The type token Pulumi stores for a kind written by the dynamic host (a TypeScript program). */
export const typeToken = (kind: ResourceKind): string => `pulumi-nodejs:dynamic/pims:${kind}`;

/**
 * The kind of a resource in a state or an export (`pulumi stack export`), whichever host wrote it: the dynamic
 * provider's {@link typeToken} (TypeScript) or the plugin's `pims:index:<Kind>` (YAML, Python, Go, Java:
 * ./identity `nativeToken`); undefined for any other type. Every reader of a state recognises the kinds through it.
 */
export function kindOfStoredType(type: unknown): ResourceKind | undefined {
  return typeof type === "string"
    ? RESOURCE_KINDS.find((k) => type === typeToken(k) || type === nativeToken(k))
    : undefined;
}
