/**
 * The plugin's names: its package (`pims`) and the one way a type token is built, `pims:index:<Name>`, for resources
 * (`pims:index:Project`), functions (`pims:index:getApiKeys`) and object types (`pims:index:ApiKey`) alike; and its
 * version, package.json's ({@link packageVersion}).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { ReleaseSetting } from "./home";
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

/** What the schema takes from package.json: the version and the release settings (`release.home`, ./home). */
interface PackageFacts {
  version: string;
  release?: ReleaseSetting;
}
/** package.json's facts, put in by the release bundle (scripts/release/bundle.ts): no package.json is beside it. */
declare const PIMS_BUNDLED_PACKAGE: PackageFacts | undefined;

/** package.json of this package, found from this file in the sources and in bin/ alike. */
export function packageFacts(): PackageFacts {
  if (typeof PIMS_BUNDLED_PACKAGE !== "undefined") return PIMS_BUNDLED_PACKAGE;
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const file = path.join(dir, "package.json");
    if (fs.existsSync(file)) {
      const pkg = JSON.parse(fs.readFileSync(file, "utf8")) as { name?: string } & Partial<PackageFacts>;
      if (pkg.name === "pulumi-pims" && typeof pkg.version === "string")
        return { version: pkg.version, release: pkg.release };
    }
    if (path.dirname(dir) === dir) throw new Error(`pulumi-pims: no package.json of pulumi-pims above ${__dirname}`);
  }
}

/** This package's version (package.json): the one reader of it, for the plugin, the CLI, the scripts and tests. */
export function packageVersion(): string {
  return packageFacts().version;
}
