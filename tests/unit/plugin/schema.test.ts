/**
 * The plugin's schema (provider/plugin/schema.ts) against the TypeScript side it must not contradict: property names
 * (the dynamic resources' output keys and the TypeScript interfaces whose TSDoc describes them), secret outputs, the
 * replace rules of each resource's `diff`, and the committed provider/schema.json (what `npm run schema` writes, which
 * the plugin serves). No network, no engine, no Go.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { APP_SECRETS_OUTPUT_KEYS, APP_SECRETS_SECRET_OUTPUTS, AppSecretsProvider } from "../../../provider/appSecrets";
import { FUNCTION_NAMES } from "../../../provider/functions";
import { KIND_BY_NAME as RESOURCES, RESOURCE_KINDS, type ResourceKind } from "../../../provider/kinds";
import { PROJECT_OUTPUT_KEYS, ProjectProvider } from "../../../provider/project";
import {
  SERVICE_ACCOUNT_OUTPUT_KEYS,
  SERVICE_ACCOUNT_SECRET_OUTPUTS,
  ServiceAccountProvider,
} from "../../../provider/serviceAccount";
import { SETTINGS } from "../../../provider/settings";
import { VOLUME_SIZE_OUTPUT_KEYS, VolumeSizeProvider } from "../../../provider/volumeSize";
import { FUNCTIONS } from "../../../provider/plugin/functions";
import { packageVersion } from "../../../provider/identity";
import * as P from "../../../provider/plugin/schemaProperties";
import { buildSchema, documentedInterfaces, tsdocDescriber } from "../../../scripts/generate/schema-docs";

const ROOT = path.resolve(__dirname, "..", "..", "..");
const sorted = (xs: Iterable<string>): string[] => [...xs].sort();

// ---- the TSDoc of the TypeScript side --------------------------------------------------------------------

const interfaces = documentedInterfaces();

/** The members of an interface and of those it extends (within the sources). */
function membersOf(name: string): string[] {
  const [i] = interfaces.get(name) ?? [];
  if (i === undefined) throw new Error(`no interface ${name}`);
  return [...new Set([...i.extendsNames.filter((b) => interfaces.has(b)).flatMap(membersOf), ...i.members.keys()])];
}

/** Every property table of the schema: the resources', the object types', the functions' arguments and results. */
const TABLES: Array<[string, P.PropertyTable]> = [
  ...RESOURCE_KINDS.map((k): [string, P.PropertyTable] => [k, RESOURCES[k].properties]),
  ...Object.entries(P.OBJECT_TYPES).map(([n, t]): [string, P.PropertyTable] => [`type ${n}`, t.properties]),
  ...FUNCTION_NAMES.flatMap((n): Array<[string, P.PropertyTable]> => [
    [`${n} inputs`, FUNCTIONS[n].inputs],
    [`${n} outputs`, FUNCTIONS[n].outputs],
  ]),
];

describe("one description: the schema's properties are the TypeScript members, described by their TSDoc", () => {
  test.each(TABLES)("%s: exactly the members of the interface it names, each with a TSDoc", (_what, table) => {
    expect(sorted(Object.keys(table.properties))).toEqual(sorted(membersOf(table.tsdoc)));
    const describe = tsdocDescriber(interfaces);
    for (const k of Object.keys(table.properties)) expect(describe(table.tsdoc, k).length).toBeGreaterThan(5);
  });

  test("a member without TSDoc stops `npm run schema`, naming it", () => {
    const describe = tsdocDescriber(interfaces);
    expect(() => describe("ProjectOutputs", "noSuchMember")).toThrow(/ProjectOutputs\.noSuchMember has no TSDoc/);
    expect(() => describe("NoSuchInterface", "x")).toThrow(/interface NoSuchInterface is declared 0 times/);
  });

  test("`{@link X}` reads X in the schema", () => {
    const schema = buildSchema() as {
      functions: Record<string, { inputs: { properties: Record<string, P.PropertySpec> } }>;
    };
    const limit = schema.functions["pims:index:getAppLogs"].inputs.properties.limit.description;
    expect(limit).toContain("DEFAULT_LOG_LIMIT");
    expect(JSON.stringify(schema)).not.toContain("@link");
  });

  test("the resources' inputs are the members of the TypeScript Inputs interfaces", () => {
    for (const kind of RESOURCE_KINDS) {
      expect({ kind, inputs: sorted(RESOURCES[kind].inputs) }).toEqual({
        kind,
        inputs: sorted(membersOf(`${kind}Inputs`)),
      });
    }
  });
});

// ---- names, secrets and replace rules ----------------------------------------------------------------------

describe("the resources match the dynamic resources", () => {
  test("properties are the output keys the SDK classes seed", () => {
    expect(sorted(Object.keys(RESOURCES.Project.properties.properties))).toEqual(sorted(PROJECT_OUTPUT_KEYS));
    expect(sorted(Object.keys(RESOURCES.ServiceAccount.properties.properties))).toEqual(
      sorted(SERVICE_ACCOUNT_OUTPUT_KEYS),
    );
    expect(sorted(Object.keys(RESOURCES.VolumeSize.properties.properties))).toEqual(sorted(VOLUME_SIZE_OUTPUT_KEYS));
    expect(sorted(Object.keys(RESOURCES.AppSecrets.properties.properties))).toEqual(sorted(APP_SECRETS_OUTPUT_KEYS));
  });

  test("secret properties are the SDK classes' additionalSecretOutputs, and marked in the schema", () => {
    expect(sorted(RESOURCES.ServiceAccount.secret)).toEqual(sorted(SERVICE_ACCOUNT_SECRET_OUTPUTS));
    expect(sorted(RESOURCES.AppSecrets.secret)).toEqual(sorted(APP_SECRETS_SECRET_OUTPUTS));
    expect(RESOURCES.Project.secret).toEqual([]);
    expect(RESOURCES.VolumeSize.secret).toEqual([]);
    const schema = buildSchema() as { resources: Record<string, { properties: Record<string, P.PropertySpec> }> };
    const marked = (token: string): string[] =>
      sorted(
        Object.entries(schema.resources[token].properties)
          .filter(([, p]) => p.secret === true)
          .map(([k]) => k),
      );
    expect(marked("pims:index:ServiceAccount")).toEqual(["adoptToken", "previousToken", "token"]);
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
  /** Per kind (the compiler requires every kind): its provider, inputs in each mode of its diff, and outputs. */
  type Case = { make: () => { diff: (...a: never[]) => Promise<unknown> }; modes: object[]; outs: object };
  const CASES: Record<ResourceKind, Case> = {
    Project: { make: () => new ProjectProvider(), modes: [{ name: "my-project" }], outs: { projectId: "p-1" } },
    VolumeSize: {
      make: () => new VolumeSizeProvider(),
      modes: [{ projectId: "p-1", volumeId: "v-1", sizeGb: 100 }],
      outs: {},
    },
    AppSecrets: {
      make: () => new AppSecretsProvider(),
      modes: [{ projectId: "p-1", appId: "p-1-web", secrets: { A: "1" } }],
      outs: { secretNames: ["A"] },
    },
    ServiceAccount: {
      make: () => new ServiceAccountProvider(),
      // every mode of the diff: without and with overlapping rotation
      modes: [false, true].map((keepPreviousToken) => ({
        projectId: "p-1",
        name: "sa",
        description: "d",
        grants: ["p-1"],
        expiresIn: 31_536_000,
        rotationTrigger: "1",
        rotateBeforeExpiry: 86_400,
        keepPreviousToken,
      })),
      outs: { serviceAccountId: "sa-1", tokenId: "t-1", token: "tok", tokenExpiresAt: future, createdAt: future },
    },
  };
  const cases = RESOURCE_KINDS.map((kind) => [kind, CASES[kind].make, CASES[kind].modes, CASES[kind].outs] as const);

  test.each(cases)(
    "%s: replaceOnChanges is exactly the inputs whose change replaces in every mode",
    async (name, make, modes, outs) => {
      const provider = make() as unknown as {
        diff: (id: string, olds: object, news: object) => Promise<{ replaces?: string[] }>;
      };
      const always: string[] = [];
      const quiet = jest.spyOn(console, "warn").mockImplementation(() => undefined); // AppSecrets' diff line
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
      quiet.mockRestore();
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
  const schema = buildSchema() as Json;

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
    // Program generators (`pulumi convert`) import the package users install: this one, by its npm name.
    expect(schema.language.nodejs.packageName).toBe(
      JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")).name,
    );
    expect(schema.language.python.packageName).toBe("pulumi_pims");
    expect(schema.language.go.importBasePath).toMatch(/\/sdk\/go\/pims$/);
  });

  test("config and the explicit provider: the same settings, the token secret, every stack config key present", () => {
    expect(schema.provider.inputProperties).toEqual(schema.config.variables);
    expect(schema.config.variables.token.secret).toBe(true);
    const keys = Object.keys(schema.config.variables);
    for (const [name, s] of Object.entries(SETTINGS)) if (s.set !== "env") expect(keys).toContain(name);
    expect(keys).toEqual(expect.arrayContaining([...membersOf("ProviderArgs"), "goneProjects"]));
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
      for (const k of [...r.required, ...r.requiredInputs, ...r.secret])
        expect(Object.keys(r.properties.properties)).toContain(k);
      for (const k of [...r.requiredInputs, ...r.replaceOnChanges]) expect(r.inputs).toContain(k);
    }
    for (const f of Object.values(FUNCTIONS)) {
      for (const k of f.requiredInputs) expect(Object.keys(f.inputs.properties)).toContain(k);
      for (const k of [...f.requiredOutputs, ...f.secret]) expect(Object.keys(f.outputs.properties)).toContain(k);
    }
    expect(schema.functions["pims:index:getApiKeys"].outputs.properties.keys.secret).toBe(true);
  });

  test("listInputs: only of kinds that declare `listable`, each an input; ServiceAccount lists by projectId", () => {
    for (const kind of RESOURCE_KINDS) {
      const { listInputs } = RESOURCES[kind];
      const spec = schema.resources[`pims:index:${kind}`].listInputs;
      if (listInputs === undefined) expect(spec).toBeUndefined();
      else {
        expect(RESOURCES[kind].instance().listable).toBeDefined();
        for (const k of listInputs) expect(RESOURCES[kind].inputs).toContain(k);
        expect(spec).toMatchObject({ type: "object", required: [...listInputs] });
      }
    }
    expect(schema.resources["pims:index:ServiceAccount"].listInputs.required).toEqual(["projectId"]);
    // Project lists nothing the service can tell: the capability (the protocol's empty answer), no `list` offered
    expect(RESOURCES.Project.instance().listable).toBeDefined();
    expect(schema.resources["pims:index:Project"].listInputs).toBeUndefined();
  });
});
