/**
 * AppSecrets without a network: check and diff tables, and the SDK class under pulumi mocks (type token,
 * additionalSecretOutputs, secret inputs). Every failure reason is scanned for the secret values. The lifecycle
 * against the simulator is in tests/sim/appSecrets/lifecycle.test.ts.
 */
import * as pulumi from "@pulumi/pulumi";
import { UNKNOWN } from "../../../provider/checks";
import { AppSecretsProvider, type AppSecretsOutputs } from "../../../provider/appSecrets";
import { AppSecrets } from "../../../sdk/nodejs/appSecrets";
import { captureRegistrations, outputValue } from "../../kit/provider/mocks";
import { APP_SECRET_VALUES, appSecretsInputs } from "../../kit/provider/provider";
import { expectNoPlaintextSecrets } from "../../kit/secrets/secrets";

type Loose = Record<string, unknown>;
const VAL = APP_SECRET_VALUES;
const ALL_VALUES = Object.values(VAL);

// ---- check ---------------------------------------------------------------------------------------------

describe("AppSecrets check", () => {
  const provider = new AppSecretsProvider();
  const ids = { projectId: "p-1", appId: "p-1-web" };
  const RULE = "must match ^[A-Za-z_][A-Za-z0-9_]*$ (a letter or underscore, then letters, digits or underscores)";
  const cases: Array<[string, Loose, Array<[string, string]>]> = [
    ["two secrets", { ...ids, secrets: { DATABASE_URL: VAL.db1, _api_key2: VAL.api } }, []],
    ["a 256-character name", { ...ids, secrets: { ["A".repeat(256)]: VAL.key } }, []],
    ["an empty value", { ...ids, secrets: { EMPTY: "" } }, []],
    ["the whole map unknown at preview", { ...ids, secrets: UNKNOWN }, []],
    ["one value unknown at preview", { ...ids, secrets: { A: UNKNOWN, B: VAL.db1 } }, []],
    ["ids unknown at preview", { projectId: UNKNOWN, appId: UNKNOWN, secrets: { A: VAL.db1 } }, []],
    [
      "an empty map",
      { ...ids, secrets: {} },
      [
        [
          "secrets",
          "secrets must contain at least one secret: an empty map would change nothing in the service (its update " +
            "only sets the names it is given, and it has no operation to delete secrets)",
        ],
      ],
    ],
    [
      "a name starting with a digit",
      { ...ids, secrets: { "1ABC": VAL.db1 } },
      [["secrets", `secret name "1ABC" ${RULE}`]],
    ],
    ["a name with a dash", { ...ids, secrets: { "MY-KEY": VAL.api } }, [["secrets", `secret name "MY-KEY" ${RULE}`]]],
    ["an empty name", { ...ids, secrets: { "": VAL.api } }, [["secrets", `secret name "" ${RULE}`]]],
    [
      "a 257-character name",
      { ...ids, secrets: { ["B".repeat(257)]: VAL.key } },
      [["secrets", `secret name "${"B".repeat(60)}…" must be at most 256 characters (got 257)`]],
    ],
    [
      "a number value",
      { ...ids, secrets: { PORT: Number(VAL.num) } },
      [["secrets", 'secret "PORT" must have a string value (got number)']],
    ],
    [
      "an object value",
      { ...ids, secrets: { CFG: { nested: VAL.key } } },
      [["secrets", 'secret "CFG" must have a string value (got object)']],
    ],
    [
      "a null value",
      { ...ids, secrets: { NOTHING: null } },
      [["secrets", 'secret "NOTHING" has no value: values must be strings']],
    ],
    [
      "a bad name and a bad value",
      { ...ids, secrets: { "bad name": 1, GOOD: VAL.db2 } },
      [
        ["secrets", `secret name "bad name" ${RULE}`],
        ["secrets", 'secret "bad name" must have a string value (got number)'],
      ],
    ],
    [
      "an array",
      { ...ids, secrets: [VAL.db1] },
      [["secrets", "secrets must be a map of secret names to string values (got an array)"]],
    ],
    [
      "a string",
      { ...ids, secrets: VAL.db1 },
      [["secrets", "secrets must be a map of secret names to string values (got string)"]],
    ],
    ["no secrets", { ...ids }, [["secrets", "secrets is required"]]],
    ["no projectId", { appId: "a", secrets: { A: VAL.db1 } }, [["projectId", "projectId is required"]]],
    ["no appId", { projectId: "p", secrets: { A: VAL.db1 } }, [["appId", "appId is required"]]],
    ["an empty appId", { projectId: "p", appId: "", secrets: { A: VAL.db1 } }, [["appId", "appId must not be empty"]]],
  ];

  test.each(cases)("%s", async (_label, news, expected) => {
    const result = await provider.check(appSecretsInputs({}), appSecretsInputs(news));
    expect((result.failures ?? []).map((f) => [f.property, f.reason])).toEqual(expected);
    expect(result.inputs).toEqual(news);
    expectNoPlaintextSecrets(
      JSON.stringify(result.failures),
      [...ALL_VALUES, JSON.stringify(VAL.num)],
      "check failures",
    );
  });
});

// ---- diff ----------------------------------------------------------------------------------------------

describe("AppSecrets diff", () => {
  const provider = new AppSecretsProvider();
  const ids = { projectId: "p-1", appId: "p-1-web" };
  const olds = { ...ids, secrets: { A: VAL.db1, B: VAL.api }, secretNames: ["A", "B"] };
  const cases: Array<[string, Loose, Loose, pulumi.dynamic.DiffResult]> = [
    ["nothing changed", olds, { ...ids, secrets: { B: VAL.api, A: VAL.db1 } }, { changes: false }],
    ["a value changed", olds, { ...ids, secrets: { A: VAL.db2, B: VAL.api } }, { changes: true }],
    ["a secret added", olds, { ...ids, secrets: { A: VAL.db1, B: VAL.api, C: VAL.key } }, { changes: true }],
    ["a secret removed", olds, { ...ids, secrets: { A: VAL.db1 } }, { changes: true }],
    ["a secret renamed", olds, { ...ids, secrets: { A: VAL.db1, C: VAL.api } }, { changes: true }],
    ["a value unknown at preview", olds, { ...ids, secrets: { A: UNKNOWN, B: VAL.api } }, { changes: true }],
    ["the map unknown at preview", olds, { ...ids, secrets: UNKNOWN }, { changes: true }],
    [
      "another app",
      olds,
      { ...ids, appId: "p-1-api", secrets: olds.secrets },
      { changes: true, replaces: ["appId"], deleteBeforeReplace: false },
    ],
    [
      "another project",
      olds,
      { ...ids, projectId: "p-2", secrets: olds.secrets },
      { changes: true, replaces: ["projectId"], deleteBeforeReplace: false },
    ],
    [
      "an app unknown at preview",
      olds,
      { ...ids, appId: UNKNOWN, secrets: olds.secrets },
      { changes: true, replaces: ["appId"], deleteBeforeReplace: false },
    ],
    [
      "state without a secrets map",
      { ...ids, secretNames: ["A"] },
      { ...ids, secrets: { A: VAL.db1 } },
      { changes: true },
    ],
  ];
  test.each(cases)("%s", async (_label, o, news, expected) => {
    expect(await provider.diff("p-1/p-1-web", o as unknown as AppSecretsOutputs, appSecretsInputs(news))).toEqual(
      expected,
    );
  });
});

// ---- the SDK class under mocks -------------------------------------------------------------------------

describe("AppSecrets SDK class", () => {
  const SECRET_SIG = pulumi.runtime.specialSigKey;
  const SECRET_VALUE = pulumi.runtime.specialSecretSig;
  const registered = captureRegistrations({
    newResource: (args) => {
      // the mock monitor hands inputs over with secrets still wrapped: {<sig>: <secret>, value}
      const raw = (args.inputs.secrets ?? {}) as Record<string, unknown>;
      const secrets = (SECRET_SIG in raw ? raw.value : raw) as Record<string, string>;
      return { id: `${args.name}-id`, state: { ...args.inputs, secretNames: Object.keys(secrets).sort() } };
    },
    call: (args) => args.inputs,
  });

  test("registers pulumi-nodejs:dynamic/pims:AppSecrets, secrets a secret input and a secret output", async () => {
    const s = new AppSecrets("web", {
      projectId: "p-1",
      appId: "p-1-web",
      secrets: { DATABASE_URL: VAL.db1, API_KEY: pulumi.output(VAL.api) },
    });
    expect(await outputValue(s.urn)).toBe("urn:pulumi:stack::proj::pulumi-nodejs:dynamic/pims:AppSecrets::web");

    const reg = registered.find((r) => r.name === "web");
    expect(reg?.type).toBe("pulumi-nodejs:dynamic/pims:AppSecrets");
    expect(reg?.additionalSecretOutputs).toEqual(["secrets"]);
    // the input travels as a secret (so it is encrypted in the state's inputs too)
    expect(reg?.object.secrets).toEqual({
      [SECRET_SIG]: SECRET_VALUE,
      value: { DATABASE_URL: VAL.db1, API_KEY: VAL.api },
    });
    expect(reg?.object).toMatchObject({ projectId: "p-1", appId: "p-1-web" });

    // outputs: secrets is secret, the names are not
    expect(await pulumi.isSecret(s.secrets)).toBe(true);
    expect(await outputValue(s.secrets)).toEqual({ DATABASE_URL: VAL.db1, API_KEY: VAL.api });
    expect(await pulumi.isSecret(s.secretNames)).toBe(false);
    expect(await outputValue(s.secretNames)).toEqual(["API_KEY", "DATABASE_URL"]);
    expect(await outputValue(s.projectId)).toBe("p-1");
    expect(await outputValue(s.appId)).toBe("p-1-web");
  });

  test("user options are kept alongside additionalSecretOutputs", async () => {
    const s = new AppSecrets(
      "api",
      { projectId: "p-1", appId: "p-1-api", secrets: { A: VAL.key } },
      { additionalSecretOutputs: ["appId"], protect: true },
    );
    await outputValue(s.urn);
    const reg = registered.find((r) => r.name === "api");
    expect([...(reg?.additionalSecretOutputs ?? [])].sort()).toEqual(["appId", "secrets"]);
  });
});
