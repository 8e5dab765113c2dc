/**
 * The Pulumi package schema of the `pims` provider plugin (`pulumi-resource-pims`), built from the kinds' declarations
 * (../kinds), the functions' table (./functions), ./schemaProperties and the property descriptions the TSDoc of the
 * TypeScript side gives (read by `npm run schema`, scripts/generate/write-schema.ts). `npm run schema` writes it to
 * provider/schema.json (committed): the plugin's GetSchema serves that file, `pulumi package get-schema` prints it, the
 * Python and Go SDKs are generated from it, and tests/unit/plugin/schema.test.ts fails when it is stale.
 */
import { FUNCTIONS } from "./functions";
import { KINDS } from "../kinds";
import { SETTINGS } from "../settings";
import * as P from "./schemaProperties";
import type { PropertySpec, PropertyTable } from "./schemaProperties";
import { nativeToken, PACKAGE, packageVersion, releaseCoordinates, type Coordinates } from "../identity";

/**
 * The description of `member` of the TypeScript interface `iface` (its TSDoc); without a member, the TSDoc summary
 * of the TypeScript SDK's class or function `iface` (a resource's or a function's description). Throws when there is
 * none.
 */
export type Describe = (iface: string, member?: string) => string;

/**
 * The Go SDK's import path: package `pims` of the module `<home>/sdk/go` (sdk/go/go.mod), released by tags
 * `sdk/go/vX.Y.Z`. While the home is unset the module is `pulumi-pims/sdk/go`: no dot in the first element, so Go
 * never looks it up on the network, and users reach it with a `replace` to their copy (docs/go.md).
 */
export function goImportBasePath(env: NodeJS.ProcessEnv = {}): string {
  return `${releaseCoordinates(env).goModule}/pims`;
}

/**
 * The Java SDK's base package: its classes are in `pulumipims.pims` (`<base>.<package name>`), whatever the home. Not
 * `com.pulumi` (Pulumi's group on Maven Central). The Maven group is the home's (`releaseCoordinates().mavenGroup`,
 * e.g. `io.github.<owner>`, a namespace Maven Central verifies), which `npm run gen-sdk` writes into sdk/java/pom.xml
 * (tests/rules/javaPom.test.ts).
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
const language = (goBase: string): Record<string, object> => ({
  nodejs: {
    // The hand-written TypeScript SDK (sdk/nodejs) is published as `pulumi-pims`: converted programs import it,
    // and their package.json asks for it at the schema's version.
    packageName: "pulumi-pims",
  },
  python: { packageName: "pulumi_pims", pyproject: { enabled: true }, respectSchemaVersion: true },
  go: { importBasePath: goBase, generateResourceContainerTypes: true, respectSchemaVersion: true },
  // buildFiles "none": no Gradle files (Gradle cannot be had from the registries this project builds from); the
  // generator then writes the version.txt resource itself, and sdk/java/pom.xml builds the jars with Maven.
  java: {
    basePackage: JAVA_BASE_PACKAGE,
    buildFiles: "none",
    dependencies: { "com.pulumi:pulumi": JAVA_PULUMI_SDK_VERSION },
  },
});

/** The whole schema, as `GetSchema` returns it (JSON-serializable). */
export function pimsSchema(
  describe: Describe,
  version: string = packageVersion(),
  coords: Pick<Coordinates, "pluginDownloadURL" | "goModule" | "repository"> = releaseCoordinates(),
): Record<string, unknown> {
  const downloadURL = coords.pluginDownloadURL;
  const resources = Object.fromEntries(
    KINDS.map((r) => {
      const properties = described(r.properties, describe);
      return [
        nativeToken(r.kind),
        {
          description: [describe(r.kind), ...(r.pluginDoc === undefined ? [] : [r.pluginDoc])].join("\n\n"),
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
        description: [describe(name), ...(f.pluginDoc === undefined ? [] : [f.pluginDoc])].join("\n\n"),
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
    ...(coords.repository === undefined ? {} : { repository: coords.repository }),
    ...(downloadURL === undefined ? {} : { pluginDownloadURL: downloadURL }),
    meta: { moduleFormat: "(.*)" },
    config: { variables: P.configVariables() },
    provider: {
      description:
        "The provider for PIMS. The default provider reads stack config `pims:token` (a secret) and `pims:baseUrl`, " +
        `then \`${SETTINGS.token.env}\` and \`${SETTINGS.baseUrl.env}\`; an explicit \`pulumi:providers:pims\` takes ` +
        "the same settings as arguments, so one program can manage several accounts.",
      inputProperties: P.configVariables(),
    },
    resources,
    functions,
    types,
    language: language(`${coords.goModule}/pims`),
  };
}
