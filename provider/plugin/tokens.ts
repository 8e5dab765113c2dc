/**
 * The plugin's reading of type tokens and URNs: the kind a `pims:index:<Kind>` token names. The package's names, the
 * token's form and its version are the package's identity (../identity), re-exported here for the plugin's modules.
 */
import { nativeToken } from "../identity";
import { RESOURCE_KINDS, type ResourceKind } from "../kinds";

export { nameOfToken, nativeToken, PACKAGE, packageFacts, packageVersion } from "../identity";

/** The kind of a type token of the plugin (`pims:index:Project`), or undefined. */
export function kindOfToken(type: string): ResourceKind | undefined {
  return RESOURCE_KINDS.find((k) => nativeToken(k) === type);
}

/** The type of a resource from its URN (`urn:pulumi:<stack>::<project>::<parent$>type::<name>`). */
export function typeOfUrn(urn: string): string {
  const qualified = urn.split("::")[2] ?? "";
  return qualified.split("$").pop() ?? "";
}
