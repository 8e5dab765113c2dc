/**
 * The plugin's names: its package (`pims`) and the one way a type token is built, `pims:index:<Name>`, for resources
 * (`pims:index:Project`), functions (`pims:index:getApiKeys`) and object types (`pims:index:ApiKey`) alike.
 */
import { RESOURCE_KINDS, type ResourceKind } from "../kinds";

/** The package name of the plugin's schema and type tokens. */
export const PACKAGE = "pims";

/** The token of a resource, function or object type of the plugin's schema. */
export const nativeToken = (name: string): string => `${PACKAGE}:index:${name}`;

/** The name in a token of the plugin (`pims:index:getApiKeys` → `getApiKeys`), or undefined. */
export function nameOfToken(token: string): string | undefined {
  const prefix = nativeToken("");
  return token.startsWith(prefix) && token.length > prefix.length ? token.slice(prefix.length) : undefined;
}

/** The kind of a type token of the plugin (`pims:index:Project`), or undefined. */
export function kindOfToken(type: string): ResourceKind | undefined {
  return RESOURCE_KINDS.find((k) => nativeToken(k) === type);
}

/** The type of a resource from its URN (`urn:pulumi:<stack>::<project>::<parent$>type::<name>`). */
export function typeOfUrn(urn: string): string {
  const qualified = urn.split("::")[2] ?? "";
  return qualified.split("$").pop() ?? "";
}
