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
