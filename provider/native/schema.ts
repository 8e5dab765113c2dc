/**
 * The Pulumi package schema of the `pims` provider plugin (`pulumi-resource-pims`), built from the per-kind tables
 * (./resources, ./functions, ./schemaProperties) and the property descriptions the TSDoc of the TypeScript side
 * gives (read by `npm run schema`, scripts/write-schema.ts). `npm run schema` writes it to provider/schema.json
 * (committed): the plugin's GetSchema serves that file, `pulumi package get-schema` prints it, the Python and Go SDKs
 * are generated from it, and tests/unit/nativeSchema.test.ts fails when it is stale.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { FUNCTIONS } from "./functions";
import { RESOURCES } from "./resources";
import * as P from "./schemaProperties";
import type { PropertySpec, PropertyTable } from "./schemaProperties";
import { nativeToken, PACKAGE } from "./tokens";

/** The description of `member` of the TypeScript interface `iface` (its TSDoc); throws when there is none. */
export type Describe = (iface: string, member: string) => string;

/** What the schema takes from package.json: the version and the release setting `release.pluginDownloadURL`. */
interface PackageFacts {
  version: string;
  release?: { pluginDownloadURL?: string };
}
/** package.json's facts, put in by the release bundle (scripts/release/bundle.ts): no package.json is beside it. */
declare const PIMS_BUNDLED_PACKAGE: PackageFacts | undefined;

/** package.json of this package, found from this file in the sources and in bin/ alike. */
function packageFacts(): PackageFacts {
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

/** This package's version (package.json). */
export function packageVersion(): string {
  return packageFacts().version;
}

/**
 * Where the engine downloads the plugin's archives from (the schema's `pluginDownloadURL`, carried by the SDKs):
 * package.json's `release.pluginDownloadURL`, the one release setting; empty means none (users install an archive
 * with `pulumi plugin install resource pims <version> --file <archive>`).
 */
export function pluginDownloadURL(): string | undefined {
  return packageFacts().release?.pluginDownloadURL || undefined;
}

/**
 * The Go SDK's import path: package `pims` of the module `pulumi-pims/sdk/go` (sdk/go/go.mod). No dot in the first
 * element: this repository has no public address yet, and such a path is never looked up on the network, so it
 * cannot name a made-up one; users reach it with a `replace` to their copy (docs/go.md). Once the repository has an
 * address, this becomes `<address>/sdk/go/pims` and tags `sdk/go/vX.Y.Z` publish it, as provider repositories do.
 */
export const GO_IMPORT_BASE_PATH = "pulumi-pims/sdk/go/pims";

/**
 * The Java SDK's base package: its classes are in `pulumipims.pims` (`<base>.<package name>`), and its Maven group is
 * the same (sdk/java/pom.xml, docs/java.md). Not `com.pulumi` (Pulumi's group on Maven Central) and no domain this
 * project does not own: at publication this becomes a namespace the publisher has verified on Maven Central (for
 * example `io.github.<owner>`), and the pom's groupId and plugin.json path follow it (tests/unit/javaSdk.test.ts).
 */
export const JAVA_BASE_PACKAGE = "pulumipims";

/** The Pulumi Java SDK the Java SDK is built against (the generator would otherwise ask for 1.0.0). */
export const JAVA_PULUMI_SDK_VERSION = "1.16.0";

/** The properties of a table with their descriptions; `only` keeps some (a resource's inputs). */
function described(t: PropertyTable, describe: Describe, only?: readonly string[]): Record<string, PropertySpec> {
  const keys = only ?? Object.keys(t.properties);
  return Object.fromEntries(keys.map((k) => [k, { ...t.properties[k], description: describe(t.tsdoc, k) }]));
}

/** Each property with the marks true of it (secret, replace-on-change), none where false. */
function marked(props: Record<string, PropertySpec>, secret: readonly string[], replace: readonly string[] = []) {
  return Object.fromEntries(
    Object.entries(props).map(([k, p]) => [
      k,
      {
        ...p,
        ...(secret.includes(k) ? { secret: true } : {}),
        ...(replace.includes(k) ? { replaceOnChanges: true } : {}),
      },
    ]),
  );
}

/** What program generators need to name the packages users install, and what each SDK generator reads. */
const LANGUAGE = {
  nodejs: {
    // The hand-written TypeScript SDK (sdk/nodejs) is published as `pulumi-pims`: converted programs import it,
    // and their package.json asks for it at the schema's version.
    packageName: "pulumi-pims",
  },
  python: { packageName: "pulumi_pims", pyproject: { enabled: true }, respectSchemaVersion: true },
  go: { importBasePath: GO_IMPORT_BASE_PATH, generateResourceContainerTypes: true, respectSchemaVersion: true },
  // buildFiles "none": no Gradle files (Gradle cannot be had from the registries this project builds from); the
  // generator then writes the version.txt resource itself, and sdk/java/pom.xml builds the jars with Maven.
  java: {
    basePackage: JAVA_BASE_PACKAGE,
    buildFiles: "none",
    dependencies: { "com.pulumi:pulumi": JAVA_PULUMI_SDK_VERSION },
  },
};

/** The whole schema, as `GetSchema` returns it (JSON-serializable). */
export function pimsSchema(
  describe: Describe,
  version: string = packageVersion(),
  downloadURL: string | undefined = pluginDownloadURL(),
): Record<string, unknown> {
  const resources = Object.fromEntries(
    Object.entries(RESOURCES).map(([kind, r]) => {
      const properties = described(r.properties, describe);
      return [
        nativeToken(kind),
        {
          description: r.description,
          properties: marked(properties, r.secret, r.replaceOnChanges),
          required: [...r.required],
          inputProperties: marked(described(r.properties, describe, r.inputs), r.secret, r.replaceOnChanges),
          requiredInputs: [...r.requiredInputs],
        },
      ];
    }),
  );
  const functions = Object.fromEntries(
    Object.entries(FUNCTIONS).map(([name, f]) => [
      nativeToken(name),
      {
        description: f.description,
        inputs: { properties: described(f.inputs, describe), required: [...f.requiredInputs] },
        outputs: { properties: marked(described(f.outputs, describe), f.secret), required: [...f.requiredOutputs] },
      },
    ]),
  );
  const types = Object.fromEntries(
    Object.entries(P.OBJECT_TYPES).map(([name, t]) => [
      nativeToken(name),
      { type: "object", description: t.description, properties: described(t.properties, describe) },
    ]),
  );
  return {
    name: PACKAGE,
    displayName: "PIMS",
    version,
    description: "Projects, service accounts and their tokens, volume sizes and app secrets of PIMS.",
    keywords: ["pulumi", "pims", "category/infrastructure", "kind/native"],
    license: "Apache-2.0",
    publisher: "pulumi-pims",
    ...(downloadURL === undefined ? {} : { pluginDownloadURL: downloadURL }),
    meta: { moduleFormat: "(.*)" },
    config: { variables: P.CONFIG },
    provider: {
      description:
        "The provider for PIMS. The default provider reads stack config `pims:token` (a secret) and `pims:baseUrl`, " +
        "then `PIMS_TOKEN` and `PIMS_BASE_URL`; an explicit `pulumi:providers:pims` takes the same settings as " +
        "arguments, so one program can manage several accounts.",
      inputProperties: P.CONFIG,
    },
    resources,
    functions,
    types,
    language: LANGUAGE,
  };
}
