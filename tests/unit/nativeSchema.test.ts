/**
 * The plugin's schema (provider/native/schema.ts) against the TypeScript side it must not contradict: property names
 * (the dynamic resources' output keys and the TypeScript interfaces), each description (the TSDoc of the TypeScript
 * member, word for word), secret outputs, the replace rules of each resource's `diff`, and the committed
 * provider/schema.json (`npm run schema`). No network, no engine, no Go.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as ts from "typescript";
import { APP_SECRETS_OUTPUT_KEYS, APP_SECRETS_SECRET_OUTPUTS, AppSecretsProvider } from "../../provider/appSecrets";
import { PROJECT_OUTPUT_KEYS, ProjectProvider } from "../../provider/project";
import {
  SERVICE_ACCOUNT_OUTPUT_KEYS,
  SERVICE_ACCOUNT_SECRET_OUTPUTS,
  ServiceAccountProvider,
} from "../../provider/serviceAccount";
import { SETTINGS } from "../../provider/settings";
import { VOLUME_SIZE_OUTPUT_KEYS, VolumeSizeProvider } from "../../provider/volumeSize";
import { FUNCTIONS, RESOURCES, pimsSchema, packageVersion } from "../../provider/native/schema";
import * as P from "../../provider/native/schemaProperties";

const ROOT = path.resolve(__dirname, "..", "..");
const sorted = (xs: Iterable<string>): string[] => [...xs].sort();

// ---- the TSDoc of the TypeScript side --------------------------------------------------------------------

const SOURCES = [
  "provider/project.ts",
  "provider/serviceAccount/index.ts",
  "provider/serviceAccount/checks.ts",
  "provider/serviceAccount/rotation.ts",
  "provider/volumeSize.ts",
  "provider/appSecrets.ts",
  "provider/client/types.ts",
  "provider/functions/apiKeys.ts",
  "provider/functions/invoices.ts",
  "provider/functions/appLogs.ts",
  "provider/functions/buildLogs.ts",
  "provider/functions/runs.ts",
  "sdk/nodejs/providerResource.ts",
];

/** Every interface of SOURCES: its members' TSDoc (whitespace collapsed) and the interfaces it extends. */
const interfaces = new Map<string, { members: Map<string, string>; extendsNames: string[] }>();
for (const file of SOURCES) {
  const text = fs.readFileSync(path.join(ROOT, file), "utf8");
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  sf.forEachChild((node) => {
    if (!ts.isInterfaceDeclaration(node)) return;
    const members = new Map<string, string>();
    for (const m of node.members) {
      if (m.name === undefined) continue;
      const doc = ts
        .getJSDocCommentsAndTags(m)
        .filter(ts.isJSDoc)
        .map((d) => ts.getTextOfJSDocComment(d.comment) ?? "")
        .join(" ");
      members.set(m.name.getText(sf), doc.replace(/\s+/g, " ").trim());
    }
    const extendsNames = (node.heritageClauses ?? []).flatMap((h) => h.types.map((t) => t.expression.getText(sf)));
    interfaces.set(node.name.text, { members, extendsNames });
  });
}

/** The members of an interface and of those it extends (within SOURCES), name → TSDoc. */
function membersOf(name: string): Map<string, string> {
  const i = interfaces.get(name);
  if (i === undefined) throw new Error(`no interface ${name} in ${SOURCES.join(", ")}`);
  const out = new Map<string, string>();
  for (const base of i.extendsNames) if (interfaces.has(base)) for (const [k, v] of membersOf(base)) out.set(k, v);
  for (const [k, v] of i.members) out.set(k, v);
  return out;
}

/** `{@link X}` reads `X` in the schema (the registry does not resolve TypeScript links). */
const plain = (tsdoc: string): string => tsdoc.replace(/\{@link\s+([^}\s]+)\s*\}/g, "$1");

/** Each property table of the schema and the TypeScript interface whose members it describes. */
const TABLES: Array<[string, string, Record<string, P.PropertySpec>]> = [
  ["Project", "ProjectOutputs", P.PROJECT],
  ["ServiceAccount", "ServiceAccountOutputs", P.SERVICE_ACCOUNT],
  ["VolumeSize", "VolumeSizeInputs", P.VOLUME_SIZE],
  ["AppSecrets", "AppSecretsOutputs", P.APP_SECRETS],
  ["type ApiKey", "ApiKeyInfo", P.API_KEY],
  ["type Invoice", "InvoiceResult", P.INVOICE],
  ["type AppLogLine", "AppLogLine", P.APP_LOG_LINE],
  ["type BuildLogEntry", "BuildLogEntry", P.BUILD_LOG_ENTRY],
  ["getApiKeys inputs", "GetApiKeysArgs", P.GET_API_KEYS_ARGS],
  ["getApiKeys outputs", "GetApiKeysOutputResult", P.GET_API_KEYS_RESULT],
  ["getInvoices inputs", "GetInvoicesArgs", P.GET_INVOICES_ARGS],
  ["getInvoices outputs", "GetInvoicesResult", P.GET_INVOICES_RESULT],
  ["getAppLogs inputs", "GetAppLogsArgs", P.GET_APP_LOGS_ARGS],
  ["getAppLogs outputs", "GetAppLogsResult", P.GET_APP_LOGS_RESULT],
  ["getBuildLogs inputs", "GetBuildLogsArgs", P.GET_BUILD_LOGS_ARGS],
  ["getBuildLogs outputs", "GetBuildLogsResult", P.GET_BUILD_LOGS_RESULT],
  ["cancelRun inputs", "CancelRunArgs", P.CANCEL_RUN_ARGS],
  ["cancelRun outputs", "CancelRunResult", P.CANCEL_RUN_RESULT],
];

describe("one description: the schema says what the TypeScript TSDoc says", () => {
  test.each(TABLES)("%s: the members of %s, each described by its TSDoc", (_what, iface, table) => {
    const members = membersOf(iface);
    expect(sorted(Object.keys(table))).toEqual(sorted(members.keys()));
    const differing = Object.entries(table)
      .filter(([k, p]) => p.description !== plain(members.get(k) ?? ""))
      .map(([k, p]) => ({ property: k, schema: p.description, tsdoc: plain(members.get(k) ?? "") }));
    expect(differing).toEqual([]);
  });

  test("the resources' inputs are the members of the TypeScript Inputs interfaces", () => {
    for (const [name, iface] of [
      ["Project", "ProjectInputs"],
      ["ServiceAccount", "ServiceAccountInputs"],
      ["VolumeSize", "VolumeSizeInputs"],
      ["AppSecrets", "AppSecretsInputs"],
    ] as const) {
      expect({ name, inputs: sorted(RESOURCES[name].inputs) }).toEqual({
        name,
        inputs: sorted(membersOf(iface).keys()),
      });
    }
  });
});

// ---- names, secrets and replace rules ----------------------------------------------------------------------

describe("the resources match the dynamic resources", () => {
  test("properties are the output keys the SDK classes seed", () => {
    expect(sorted(Object.keys(RESOURCES.Project.properties))).toEqual(sorted(PROJECT_OUTPUT_KEYS));
    expect(sorted(Object.keys(RESOURCES.ServiceAccount.properties))).toEqual(sorted(SERVICE_ACCOUNT_OUTPUT_KEYS));
    expect(sorted(Object.keys(RESOURCES.VolumeSize.properties))).toEqual(sorted(VOLUME_SIZE_OUTPUT_KEYS));
    expect(sorted(Object.keys(RESOURCES.AppSecrets.properties))).toEqual(sorted(APP_SECRETS_OUTPUT_KEYS));
  });

  test("secret properties are the SDK classes' additionalSecretOutputs, and marked in the schema", () => {
    expect(sorted(RESOURCES.ServiceAccount.secret)).toEqual(sorted(SERVICE_ACCOUNT_SECRET_OUTPUTS));
    expect(sorted(RESOURCES.AppSecrets.secret)).toEqual(sorted(APP_SECRETS_SECRET_OUTPUTS));
    expect(RESOURCES.Project.secret).toEqual([]);
    expect(RESOURCES.VolumeSize.secret).toEqual([]);
    const schema = pimsSchema("0.0.0") as { resources: Record<string, { properties: Record<string, P.PropertySpec> }> };
    const marked = (token: string): string[] =>
      sorted(
        Object.entries(schema.resources[token].properties)
          .filter(([, p]) => p.secret === true)
          .map(([k]) => k),
      );
    expect(marked("pims:index:ServiceAccount")).toEqual(["previousToken", "token"]);
    expect(marked("pims:index:AppSecrets")).toEqual(["secrets"]);
  });

  /** A different value of the same type: a changed input. */
  const changed = (v: unknown): unknown =>
    typeof v === "string"
      ? `${v}-changed`
      : typeof v === "number"
        ? v + 100
        : typeof v === "boolean"
          ? !v
          : Array.isArray(v)
            ? [...(v as unknown[]), "p-other"]
            : { ...(v as object), OTHER: "x" };

  const future = new Date(Date.now() + 400 * 86_400_000).toISOString();
  const cases: Array<[keyof typeof RESOURCES, () => { diff: (...a: never[]) => Promise<unknown> }, object[], object]> =
    [
      ["Project", () => new ProjectProvider(), [{ name: "my-project" }], { projectId: "p-1" }],
      ["VolumeSize", () => new VolumeSizeProvider(), [{ projectId: "p-1", volumeId: "v-1", sizeGb: 100 }], {}],
      [
        "AppSecrets",
        () => new AppSecretsProvider(),
        [{ projectId: "p-1", appId: "p-1-web", secrets: { A: "1" } }],
        { secretNames: ["A"] },
      ],
      [
        "ServiceAccount",
        () => new ServiceAccountProvider(),
        // every mode of the diff: without and with overlapping rotation
        [false, true].map((keepPreviousToken) => ({
          projectId: "p-1",
          name: "sa",
          description: "d",
          grants: ["p-1"],
          expiresIn: 31_536_000,
          rotationTrigger: "1",
          rotateBeforeExpiry: 86_400,
          keepPreviousToken,
        })),
        { serviceAccountId: "sa-1", tokenId: "t-1", token: "tok", tokenExpiresAt: future, createdAt: future },
      ],
    ];

  test.each(cases)(
    "%s: replaceOnChanges is exactly the inputs whose change replaces in every mode",
    async (name, make, modes, outs) => {
      const provider = make() as unknown as {
        diff: (id: string, olds: object, news: object) => Promise<{ replaces?: string[] }>;
      };
      const always: string[] = [];
      for (const key of RESOURCES[name].inputs) {
        let everyMode = true;
        for (const inputs of modes) {
          const base = inputs as Record<string, unknown>;
          const news = { ...base, [key]: changed(base[key] ?? (key === "description" ? "" : "x")) };
          const d = await provider.diff("id-1", { ...base, ...outs }, news);
          if (!(d.replaces ?? []).includes(key)) everyMode = false;
        }
        if (everyMode) always.push(key);
      }
      expect(sorted(RESOURCES[name].replaceOnChanges)).toEqual(sorted(always));
      expect(always.length).toBeGreaterThan(0);
    },
  );
});

// ---- the whole schema --------------------------------------------------------------------------------------

/** The schema as JSON reads it (a test walks it freely). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe("the schema", () => {
  const schema = pimsSchema() as Json;

  test("provider/schema.json is what `npm run schema` writes now", () => {
    const committed = JSON.parse(fs.readFileSync(path.join(ROOT, "provider", "schema.json"), "utf8"));
    expect(committed).toEqual(schema);
  });

  test("name pims, the package version, every resource and function under pims:index", () => {
    expect(schema.name).toBe("pims");
    expect(schema.version).toBe(JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")).version);
    expect(packageVersion()).toBe(schema.version);
    expect(sorted(Object.keys(schema.resources))).toEqual(
      sorted(["Project", "ServiceAccount", "VolumeSize", "AppSecrets"].map((n) => `pims:index:${n}`)),
    );
    expect(sorted(Object.keys(schema.functions))).toEqual(
      sorted(["getApiKeys", "getInvoices", "getAppLogs", "getBuildLogs", "cancelRun"].map((n) => `pims:index:${n}`)),
    );
    expect(schema.language.python.packageName).toBe("pulumi_pims");
    expect(schema.language.go.importBasePath).toMatch(/\/sdk\/go\/pims$/);
  });

  test("config and the explicit provider: the same settings, the token secret, every stack config key present", () => {
    expect(schema.provider.inputProperties).toEqual(schema.config.variables);
    expect(schema.config.variables.token.secret).toBe(true);
    const keys = Object.keys(schema.config.variables);
    for (const [name, s] of Object.entries(SETTINGS)) if (s.set !== "env") expect(keys).toContain(name);
    expect(keys).toEqual(expect.arrayContaining([...membersOf("ProviderArgs").keys(), "goneProjects"]));
    expect(Object.entries(schema.config.variables).filter(([, p]) => (p as P.PropertySpec).secret)).toHaveLength(1);
  });

  test("every resource, function, type and property is described", () => {
    const missing: string[] = [];
    const props = (where: string, ps: Record<string, P.PropertySpec> = {}): void => {
      for (const [k, p] of Object.entries(ps)) if (!(p.description?.trim().length > 5)) missing.push(`${where}.${k}`);
    };
    for (const [token, r] of Object.entries<Json>({ ...schema.resources, ...schema.types })) {
      if (!(r.description?.length > 10)) missing.push(token);
      props(token, r.properties);
      props(`${token} inputs`, r.inputProperties);
    }
    for (const [token, f] of Object.entries<Json>(schema.functions)) {
      if (!(f.description?.length > 10)) missing.push(token);
      props(`${token} inputs`, f.inputs.properties);
      props(`${token} outputs`, f.outputs.properties);
    }
    props("config", schema.config.variables);
    expect(missing).toEqual([]);
  });

  test("required lists name declared properties; getApiKeys' keys are secret", () => {
    for (const r of Object.values(RESOURCES)) {
      for (const k of [...r.required, ...r.requiredInputs, ...r.secret]) expect(Object.keys(r.properties)).toContain(k);
      for (const k of [...r.requiredInputs, ...r.replaceOnChanges]) expect(r.inputs).toContain(k);
    }
    for (const f of Object.values(FUNCTIONS)) {
      for (const k of f.requiredInputs) expect(Object.keys(f.inputs)).toContain(k);
      for (const k of [...f.requiredOutputs, ...f.secret]) expect(Object.keys(f.outputs)).toContain(k);
    }
    expect(schema.functions["pims:index:getApiKeys"].outputs.properties.keys.secret).toBe(true);
  });
});
