/**
 * The plugin's translation between the engine's values and the lifecycle's plain JSON (no network, no engine):
 * secret envelopes and unknowns, the schema-typed reading of YAML values, the provider settings' checks, the
 * stack config the engine passes in PULUMI_CONFIG, and the detailed diff.
 */
import * as structproto from "google-protobuf/google/protobuf/struct_pb";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import { UNKNOWN } from "../../../provider/checks";
import { coerceArgs, coerceInputs } from "../../../provider/plugin/coerce";
import { configArgs, configFailures, pluginSettings, pluginStackConfig } from "../../../provider/plugin/config";
import { diffResponse } from "../../../provider/plugin/lifecycle";
import { dynamicHostEngineAddress, engineAddressOf } from "../../../provider/engineAddress";
import { missingPeerMessage } from "../../../provider/plugin/main";
import { kindOfToken, typeOfUrn } from "../../../provider/plugin/tokens";
import {
  containsSecret,
  fromStruct,
  SECRET_SIG,
  SECRET_VALUE,
  toStruct,
  unwrap,
} from "../../../provider/plugin/values";

const sec = (value: unknown): Record<string, unknown> => ({ [SECRET_SIG]: SECRET_VALUE, value });

describe("values", () => {
  test("secrets are unwrapped at any depth; the top-level keys that held one are remembered", () => {
    const incoming = toStructRaw({ a: sec("x"), b: { c: [sec(1)] }, d: "plain", __provider: "legacy" });
    const { props, secretKeys } = fromStruct(incoming);
    expect(props).toEqual({ a: "x", b: { c: [1] }, d: "plain" });
    expect([...secretKeys].sort()).toEqual(["a", "b"]);
    expect(unwrap(sec(sec("y")))).toBe("y");
    expect(containsSecret({ x: [{ y: sec("z") }] })).toBe(true);
  });

  test("outputs: undefined and __provider dropped, the named keys wrapped (unknowns too), none twice", () => {
    const out = toStruct({ token: "t", previousToken: UNKNOWN, x: undefined, __provider: "p", s: sec("k") }, [
      "token",
      "previousToken",
      "s",
      "absent",
    ]).toJavaScript();
    expect(out).toEqual({ token: sec("t"), previousToken: sec(UNKNOWN), s: sec("k") });
  });
});

describe("types and tokens", () => {
  test("YAML's values are read by the schema's types; anything else is left for the check", () => {
    expect(
      coerceInputs("ServiceAccount", { rotationTrigger: 1, expiresIn: "3600", keepPreviousToken: "true" }),
    ).toEqual({ rotationTrigger: "1", expiresIn: 3600, keepPreviousToken: true });
    expect(coerceInputs("ServiceAccount", { expiresIn: "soon", grants: [UNKNOWN], name: UNKNOWN })).toEqual({
      expiresIn: "soon",
      grants: [UNKNOWN],
      name: UNKNOWN,
    });
    expect(coerceInputs("AppSecrets", { secrets: { PORT: 8080 } })).toEqual({ secrets: { PORT: "8080" } });
    expect(coerceArgs("getAppLogs", { limit: "20", stream: "stderr" })).toEqual({ limit: 20, stream: "stderr" });
  });

  test("an object type's members too (tokenDelivery, from YAML config): each by its own type", () => {
    const delivery = { command: ["sink", 2], commandTimeoutSeconds: "30", ageRecipients: UNKNOWN };
    expect(coerceInputs("ServiceAccount", { tokenDelivery: delivery })).toEqual({
      tokenDelivery: { command: ["sink", "2"], commandTimeoutSeconds: 30, ageRecipients: UNKNOWN },
    });
    expect(coerceInputs("ServiceAccount", { tokenDelivery: UNKNOWN })).toEqual({ tokenDelivery: UNKNOWN });
    expect(coerceInputs("ServiceAccount", { tokenDelivery: "sealed" })).toEqual({ tokenDelivery: "sealed" });
  });

  test("the engine's address among the plugin's arguments", () => {
    expect(engineAddressOf(["--logtostderr", "-v=9", "--tracing", "tcp://t:1", "127.0.0.1:4242"])).toBe(
      "127.0.0.1:4242",
    );
    expect(engineAddressOf([])).toBeUndefined();
  });

  test("the dynamic-provider host is told apart from every other process by its main script", () => {
    const host = "/p/node_modules/@pulumi/pulumi/cmd/dynamic-provider/index.js";
    const argv = (...rest: string[]): string[] => ["/usr/bin/node", host, ...rest];
    expect(dynamicHostEngineAddress(host, argv("127.0.0.1:4242"))).toBe("127.0.0.1:4242");
    expect(dynamicHostEngineAddress(host, argv("-v=9", "127.0.0.1:4242", "x"))).toBe("127.0.0.1:4242");
    expect(dynamicHostEngineAddress("C:\\p\\node_modules\\@pulumi\\pulumi\\cmd\\dynamic-provider", argv("h:1"))).toBe(
      "h:1",
    );
    expect(dynamicHostEngineAddress(host, argv())).toBeUndefined();
    // a program, the pims CLI, the plugin, a test: their lines stay on stderr
    expect(dynamicHostEngineAddress("/p/index.ts", argv("127.0.0.1:4242"))).toBeUndefined();
    expect(dynamicHostEngineAddress("/p/node_modules/@pulumi/pulumi/cmd/run/index.js", argv("a:1"))).toBeUndefined();
    expect(dynamicHostEngineAddress(undefined, argv("127.0.0.1:4242"))).toBeUndefined();
    expect(dynamicHostEngineAddress()).toBeUndefined(); // this process (jest)
  });

  test("a missing @pulumi/pulumi is named with the command that installs it, and where", () => {
    const missing = (): string => {
      throw new Error("Cannot find module");
    };
    expect(missingPeerMessage(() => "/found", "/p/node_modules/pulumi-pims")).toBeUndefined();
    expect(missingPeerMessage(missing, "/p/node_modules/pulumi-pims")).toMatch(
      /^pulumi-resource-pims: run `npm install @pulumi\/pulumi` in \/p: .*--legacy-peer-deps/,
    );
    expect(missingPeerMessage(missing, "/usr/lib/node_modules/pulumi-pims")).toMatch(
      /^pulumi-resource-pims: run `npm install -g @pulumi\/pulumi`: /,
    );
    expect(missingPeerMessage(missing, "/src/pulumi-pims")).toMatch(
      /^pulumi-resource-pims: run `npm install @pulumi\/pulumi`: /,
    );
  });

  test("type tokens and URNs", () => {
    expect(kindOfToken("pims:index:ServiceAccount")).toBe("ServiceAccount");
    expect(kindOfToken("pulumi-nodejs:dynamic/pims:ServiceAccount")).toBeUndefined();
    expect(typeOfUrn("urn:pulumi:dev::p::my:component$pims:index:Project::x")).toBe("pims:index:Project");
  });
});

describe("provider settings", () => {
  test("failures name the stack config key for the default provider and the argument for an explicit one", () => {
    const bad = { token: "", baseUrl: "http://x?q=1", maxConcurrency: 0, rateLimitTimeoutMs: "x" };
    expect(configFailures(bad, "urn:pulumi:dev::p::pulumi:providers:pims::default_0_2_0").map((f) => f.reason)).toEqual(
      [
        "pims:token must not be empty",
        expect.stringMatching(/^pims:baseUrl must be an absolute http\(s\) URL .*it has a query\)$/),
        "pims:maxConcurrency must be a whole number >= 1 (got 0)",
        'pims:rateLimitTimeoutMs must be a whole number of milliseconds (got "x")',
      ],
    );
    expect(
      configFailures({ baseUrl: UNKNOWN, token: UNKNOWN }, "urn:pulumi:dev::p::pulumi:providers:pims::eu"),
    ).toEqual([]);
    expect(configFailures({ maxConcurrency: -1 }, "urn:pulumi:dev::p::pulumi:providers:pims::eu")[0].reason).toMatch(
      /^maxConcurrency must be/,
    );
  });

  test("Configure: arguments first, then the stack config (PULUMI_CONFIG); numbers as the text config gives", () => {
    const env = { PULUMI_CONFIG: JSON.stringify({ baseUrl: "https://stack", "pims:goneProjects": "p-1", other: 1 }) };
    const settings = pluginSettings({ token: "t", maxConcurrency: 4 }, env);
    expect(settings).toEqual({ token: "t", baseUrl: "https://stack", maxConcurrency: "4", goneProjects: "p-1" });
    expect(pluginStackConfig({ PULUMI_CONFIG: "not json" })).toEqual({});
    expect(
      pluginStackConfig({ PULUMI_CONFIG: JSON.stringify({ "aws:region": "x", "pims:config:token": "y" }) }),
    ).toEqual({ token: "y" });
    expect(configArgs({}, [["pims:config:baseUrl", "https://v"]])).toEqual({ baseUrl: "https://v" });
  });
});

describe("detailed diff", () => {
  const K = provproto.PropertyDiff.Kind;
  const kinds = (r: provproto.DiffResponse): Record<string, number> => {
    const out: Record<string, number> = {};
    r.getDetaileddiffMap().forEach((d, k) => (out[k] = d.getKind()));
    return out;
  };

  test("added, deleted, updated, replaced; arrays of ids compare as sets", () => {
    const olds = { name: "a", grants: ["p1", "p2"], description: "d", serviceAccountId: "sa" };
    const news = { name: "b", grants: ["p2", "p1"], rotateBeforeExpiry: 60 };
    const r = diffResponse({ changes: true, replaces: ["name"] }, olds, news, ["name", "grants", "description"]);
    expect(kinds(r)).toEqual({ name: K.UPDATE_REPLACE, rotateBeforeExpiry: K.ADD, description: K.DELETE });
    expect(r.getReplacesList()).toEqual(["name"]);
    expect(r.getHasdetaileddiff()).toBe(true);
  });

  test("a replacement for a reason no input shows (a rotation window reached) still names it", () => {
    const r = diffResponse(
      { changes: true, replaces: ["rotateBeforeExpiry"] },
      { rotateBeforeExpiry: 5 },
      {
        rotateBeforeExpiry: 5,
      },
      ["rotateBeforeExpiry"],
    );
    expect(kinds(r)).toEqual({ rotateBeforeExpiry: K.UPDATE_REPLACE });
  });

  test("no changes: no detailed diff", () => {
    const r = diffResponse({ changes: false }, { a: 1 }, { a: 1 }, ["a"]);
    expect(r.getChanges()).toBe(provproto.DiffResponse.DiffChanges.DIFF_NONE);
    expect(r.getDetaileddiffMap().getLength()).toBe(0);
  });
});

/** A Struct as the engine sends it (secret envelopes included). */
const toStructRaw = (o: Record<string, unknown>): structproto.Struct =>
  structproto.Struct.fromJavaScript(o as Record<string, structproto.JavaScriptValue>);
