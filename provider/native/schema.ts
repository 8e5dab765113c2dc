/**
 * The Pulumi package schema of the `pims` provider plugin (`pulumi-resource-pims`): what `GetSchema` returns, what
 * `pulumi package get-schema` prints, and what the Python and Go SDKs are generated from. `npm run schema` writes it
 * to provider/schema.json (committed; tests/unit/nativeSchema.test.ts fails when that file is stale).
 *
 * The properties and their descriptions come from ./schemaProperties (checked against the TypeScript types); the
 * resource lists here (inputs, required, secret, replace-on-change) are checked against the dynamic resources'
 * output keys, secret outputs and `diff` by the same test, so the schema cannot say what the TypeScript side does not.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as P from "./schemaProperties";
import type { PropertySpec } from "./schemaProperties";

export { PACKAGE } from "./schemaProperties";
export type { PropertySpec, TypeSpec } from "./schemaProperties";

/** A resource of the schema as this file declares it: which properties are inputs, required, secret, replacing. */
export interface ResourceDecl {
  description: string;
  properties: Record<string, PropertySpec>;
  /** The inputs (all other properties are outputs only). */
  inputs: readonly string[];
  requiredInputs: readonly string[];
  /** Outputs always present after a create. */
  required: readonly string[];
  /** Properties stored and returned as secrets. */
  secret: readonly string[];
  /** Inputs whose change always replaces the resource (whatever else is set). */
  replaceOnChanges: readonly string[];
}

/** A function of the schema: its argument and result properties, required ones, and secret results. */
export interface FunctionDecl {
  description: string;
  inputs: Record<string, PropertySpec>;
  requiredInputs: readonly string[];
  outputs: Record<string, PropertySpec>;
  requiredOutputs: readonly string[];
  secret: readonly string[];
}

const YAML_PROJECT = ["```yaml", "resources:", "  project:", "    type: pims:index:Project", "    properties:"];

/** The four resources, by name (`pims:index:<name>`). */
export const RESOURCES: Record<"Project" | "ServiceAccount" | "VolumeSize" | "AppSecrets", ResourceDecl> = {
  Project: {
    description: [
      "A PIMS project, created with `POST /v2/projects`.",
      "",
      "The service has no operation to read, rename or delete a project: a `name` change **replaces** the project",
      "(the new one is created first, the old one stays in the service); refresh keeps the state as it is; import is",
      "refused; deleting the resource removes it from the stack only, with a warning that it still exists.",
      "",
      ...YAML_PROJECT,
      "      name: my-project",
      "```",
    ].join("\n"),
    properties: P.PROJECT,
    inputs: ["name"],
    requiredInputs: ["name"],
    required: ["name", "projectId"],
    secret: [],
    replaceOnChanges: ["name"],
  },
  ServiceAccount: {
    description: [
      "A PIMS service account and its token (`POST` and `DELETE` under",
      "`/v2/projects/{project_id}/service-accounts`). The service returns the token's secret only once, when the",
      "account is created: the provider keeps it in the state as a **secret** (`token`), and it cannot be read again.",
      "",
      "The service cannot update an account, so a change of any input it receives (`projectId`, `name`,",
      "`description`, `grants`, `expiresIn`, `rotationTrigger`) or a reached rotation window (`rotateBeforeExpiry`)",
      "needs a new account. By default that is a **replacement**: the new account is created first, resources that",
      "use `token` are updated, and the old account is deleted at the end of the same `pulumi up`. With",
      "`keepPreviousToken: true` it is an in-place update instead (overlapping rotation): the old account stays live",
      "as `previousToken` (also a secret) until the next rotation; only a new `projectId` still replaces.",
      "Changing `rotateBeforeExpiry` or `keepPreviousToken` alone never mints a token.",
      "",
      'A 404 on delete counts as "already deleted" only when the project\'s API keys confirm it; when the project',
      "itself is gone, name it in the `goneProjects` setting. Refresh checks the account against the project's",
      "API-key listing: an account deleted outside the stack leaves the state (the next `pulumi up` creates a new",
      "one); an account still listed, or one the listing cannot tell about, keeps its outputs exactly. Import is",
      "refused.",
      "",
      "```yaml",
      "resources:",
      "  deployer:",
      "    type: pims:index:ServiceAccount",
      "    properties:",
      "      projectId: ${project.projectId}",
      "      name: ci-deployer",
      '      grants: ["${project.projectId}"]',
      "      expiresIn: 7776000        # 90 days",
      "      rotateBeforeExpiry: 5184000",
      "      keepPreviousToken: true",
      "outputs:",
      "  deployerToken: ${deployer.token} # a secret",
      "```",
    ].join("\n"),
    properties: P.SERVICE_ACCOUNT,
    inputs: [
      "projectId",
      "name",
      "description",
      "grants",
      "expiresIn",
      "rotationTrigger",
      "rotateBeforeExpiry",
      "keepPreviousToken",
    ],
    requiredInputs: ["projectId", "name", "grants", "expiresIn"],
    required: [
      "projectId",
      "name",
      "description",
      "grants",
      "expiresIn",
      "serviceAccountId",
      "createdAt",
      "createdByUserId",
      "tokenId",
      "tokenExpiresAt",
      "token",
    ],
    secret: ["token", "previousToken"],
    replaceOnChanges: ["projectId"],
  },
  VolumeSize: {
    description: [
      "The size of an existing volume, set with `PATCH /v2/projects/{project_id}/volumes/{volume_id}/resize`.",
      "",
      "The service cannot create, read or delete a volume: this resource manages only its size. A volume only",
      "grows (a smaller `sizeGb` fails at preview); above 1024 GB only protected projects may. Another `projectId`",
      "or `volumeId` replaces the resource. Deleting it leaves the volume at its size, with a warning.",
      "",
      "```yaml",
      "resources:",
      "  data:",
      "    type: pims:index:VolumeSize",
      "    properties:",
      "      projectId: p-1a2b3c4d",
      "      volumeId: default-us-east-1",
      "      sizeGb: 100",
      "```",
    ].join("\n"),
    properties: P.VOLUME_SIZE,
    inputs: ["projectId", "volumeId", "sizeGb"],
    requiredInputs: ["projectId", "volumeId", "sizeGb"],
    required: ["projectId", "volumeId", "sizeGb"],
    secret: [],
    replaceOnChanges: ["projectId", "volumeId"],
  },
  AppSecrets: {
    description: [
      "Secrets of a PIMS app, set with `PATCH /v2/projects/{project_id}/apps/{app_id}/secrets`.",
      "",
      "Create and every update send the **full** map. The API cannot read or delete secrets: a name removed from",
      "`secrets` may stay in the app with its last value (the update warns, naming it), and deleting the resource",
      "leaves the secrets in the app (with a warning naming them). `secrets` is a **secret** in the state; values",
      "never appear in messages. Another `projectId` or `appId` replaces the resource.",
      "",
      "```yaml",
      "resources:",
      "  webSecrets:",
      "    type: pims:index:AppSecrets",
      "    properties:",
      "      projectId: p-1a2b3c4d",
      "      appId: p-1a2b3c4d-web",
      "      secrets:",
      "        PIMS_TOKEN: ${deployer.token}",
      "```",
    ].join("\n"),
    properties: P.APP_SECRETS,
    inputs: ["projectId", "appId", "secrets"],
    requiredInputs: ["projectId", "appId", "secrets"],
    required: ["projectId", "appId", "secrets", "secretNames"],
    secret: ["secrets"],
    replaceOnChanges: ["projectId", "appId"],
  },
};

const invokeExample = (fn: string, args: string[], use: string): string =>
  ["```yaml", "variables:", "  result:", "    fn::invoke:", `      function: pims:index:${fn}`, "      arguments:"]
    .concat(
      args.map((a) => `        ${a}`),
      [`      return: ${use}`, "```"],
    )
    .join("\n");

/** The five functions, by name (`pims:index:<name>`). */
export const FUNCTIONS: Record<
  "getApiKeys" | "getInvoices" | "getAppLogs" | "getBuildLogs" | "cancelRun",
  FunctionDecl
> = {
  getApiKeys: {
    description:
      "Lists the API keys of a project (`GET /v2/projects/{project_id}/api-keys`), `expiresAt` ascending, keys " +
      "that never expire last. The result is a **secret** (it carries the key values).\n\n" +
      invokeExample("getApiKeys", ["projectId: p-1a2b3c4d"], "keys"),
    inputs: P.GET_API_KEYS_ARGS,
    requiredInputs: ["projectId"],
    outputs: P.GET_API_KEYS_RESULT,
    requiredOutputs: ["keys"],
    secret: ["keys"],
  },
  getInvoices: {
    description:
      "Lists the invoices of a project (`GET /v2/projects/{project_id}/invoices`), each with `amountDueMajor`, " +
      "the amount in major units of its currency (ISO 4217 digits: 0 for JPY, 3 for KWD, 2 by default).\n\n" +
      invokeExample("getInvoices", ["projectId: p-1a2b3c4d"], "invoices"),
    inputs: P.GET_INVOICES_ARGS,
    requiredInputs: ["projectId"],
    outputs: P.GET_INVOICES_RESULT,
    requiredOutputs: ["invoices"],
    secret: [],
  },
  getAppLogs: {
    description:
      "Reads an app's logs (`GET /v2/projects/{project_id}/apps/{app_id}/logs`) page by page, up to `limit` " +
      "lines (default 1000). Bad arguments are refused before any request; no matching lines is an empty result." +
      "\n\n" +
      invokeExample("getAppLogs", ["projectId: p-1a2b3c4d", "appId: p-1a2b3c4d-web", "stream: stderr"], "lines"),
    inputs: P.GET_APP_LOGS_ARGS,
    requiredInputs: ["projectId", "appId"],
    outputs: P.GET_APP_LOGS_RESULT,
    requiredOutputs: ["lines", "truncated"],
    secret: [],
  },
  getBuildLogs: {
    description:
      "Reads a build's logs and status (`GET /v2/projects/{project_id}/apps/{app_id}/builds/{build_id}/logs`).\n\n" +
      invokeExample("getBuildLogs", ["projectId: p-1a2b3c4d", "appId: p-1a2b3c4d-web", "buildId: build-42"], "status"),
    inputs: P.GET_BUILD_LOGS_ARGS,
    requiredInputs: ["projectId", "appId", "buildId"],
    outputs: P.GET_BUILD_LOGS_RESULT,
    requiredOutputs: ["projectId", "appId", "buildId", "status", "finished", "succeeded", "logs"],
    secret: [],
  },
  cancelRun: {
    description:
      "Requests cancellation of a run (`DELETE /v2/projects/{project_id}/apps/{app_id}/runs/{run_id}`) and " +
      "returns the service's message. **An action, not a read**: called from a program it cancels the run on every " +
      "`pulumi preview` and `pulumi up`. Prefer the command-line tool (`pims runs cancel <project> <app> <run>`). " +
      "A finished run is refused by the service; an unknown one is not found.",
    inputs: P.CANCEL_RUN_ARGS,
    requiredInputs: ["projectId", "appId", "runId"],
    outputs: P.CANCEL_RUN_RESULT,
    requiredOutputs: ["message"],
    secret: [],
  },
};

/** This package's version (package.json), found from this file in the sources and in bin/ alike. */
export function packageVersion(): string {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const file = path.join(dir, "package.json");
    if (fs.existsSync(file)) {
      const pkg = JSON.parse(fs.readFileSync(file, "utf8")) as { name?: string; version?: string };
      if (pkg.name === "pulumi-pims" && typeof pkg.version === "string") return pkg.version;
    }
    if (path.dirname(dir) === dir) throw new Error(`pulumi-pims: no package.json of pulumi-pims above ${__dirname}`);
  }
}

const tokenOf = (name: string): string => `${P.PACKAGE}:index:${name}`;
const pick = (props: Record<string, PropertySpec>, keys: readonly string[]): Record<string, PropertySpec> =>
  Object.fromEntries(keys.map((k) => [k, props[k]]));
/** A property as the schema states it: marks only where they are true, a resource's own marks applied. */
function mark(p: PropertySpec, secret: boolean, replace: boolean): PropertySpec {
  return { ...p, ...(secret ? { secret: true } : {}), ...(replace ? { replaceOnChanges: true } : {}) };
}
function marked(
  props: Record<string, PropertySpec>,
  d: { secret: readonly string[] },
  replace: readonly string[] = [],
) {
  return Object.fromEntries(
    Object.entries(props).map(([k, p]) => [k, mark(p, d.secret.includes(k), replace.includes(k))]),
  );
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
 * example `io.github.<owner>`), and the pom's groupId follows it.
 */
export const JAVA_BASE_PACKAGE = "pulumipims";

/** The Pulumi Java SDK the Java SDK is built against (the generator would otherwise ask for 1.0.0). */
export const JAVA_PULUMI_SDK_VERSION = "1.16.0";

/** The whole schema, as `GetSchema` returns it (JSON-serializable). */
export function pimsSchema(version: string = packageVersion()): Record<string, unknown> {
  const resources = Object.fromEntries(
    Object.entries(RESOURCES).map(([name, r]) => [
      tokenOf(name),
      {
        description: r.description,
        properties: marked(r.properties, r, r.replaceOnChanges),
        required: [...r.required],
        inputProperties: marked(pick(r.properties, r.inputs), r, r.replaceOnChanges),
        requiredInputs: [...r.requiredInputs],
      },
    ]),
  );
  const functions = Object.fromEntries(
    Object.entries(FUNCTIONS).map(([name, f]) => [
      tokenOf(name),
      {
        description: f.description,
        inputs: { properties: f.inputs, required: [...f.requiredInputs] },
        outputs: { properties: marked(f.outputs, f), required: [...f.requiredOutputs] },
      },
    ]),
  );
  const types = Object.fromEntries(
    Object.entries(P.OBJECT_TYPES).map(([name, t]) => [
      tokenOf(name),
      { type: "object", description: t.description, properties: t.properties },
    ]),
  );
  return {
    name: P.PACKAGE,
    displayName: "PIMS",
    version,
    description: "Projects, service accounts and their tokens, volume sizes and app secrets of PIMS.",
    keywords: ["pulumi", "pims", "category/infrastructure", "kind/native"],
    license: "Apache-2.0",
    publisher: "pulumi-pims",
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
    language: {
      python: {
        packageName: "pulumi_pims",
        pyproject: { enabled: true },
        respectSchemaVersion: true,
      },
      go: {
        importBasePath: GO_IMPORT_BASE_PATH,
        generateResourceContainerTypes: true,
        respectSchemaVersion: true,
      },
      // buildFiles "none": no Gradle files (Gradle cannot be had from the registries this project builds from); the
      // generator then writes the version.txt resource itself, and sdk/java/pom.xml builds the jars with Maven.
      java: {
        basePackage: JAVA_BASE_PACKAGE,
        buildFiles: "none",
        dependencies: { "com.pulumi:pulumi": JAVA_PULUMI_SDK_VERSION },
      },
    },
  };
}
