/**
 * AppSecrets: check and diff tables (pure), a lifecycle against the simulator under both "merge" and "replace"
 * behaviours of operation 9, value scrubbing of errors, and the SDK class under pulumi mocks (type token,
 * additionalSecretOutputs, secret inputs). Every failure reason, error message and warning is scanned for the
 * secret values.
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as pulumi from "@pulumi/pulumi";
import { UNKNOWN } from "../../provider/common";
import { AppSecretsProvider, type AppSecretsInputs, type AppSecretsOutputs } from "../../provider/appSecrets";
import { AppSecrets } from "../../sdk/appSecrets";
import { captureRegistrations, configureRequest, expectNoPlaintextSecrets, outputValue, useSimulatorProvider } from "../helpers";
import type { SecretsMode } from "../../simulator";

type Loose = Record<string, unknown>;
const asInputs = (o: Loose): AppSecretsInputs => o as unknown as AppSecretsInputs;

/** Values long enough for the scanner (≥ 8 characters) and unlikely anywhere else. */
const VAL = {
  db1: "postgres://u:Pa55-db-one@db/x",
  db2: "postgres://u:Pa55-db-two@db/x",
  api: "sk_live_4f9a7c2e11b0d3",
  key: "hmac-9c1e77aa0b5d42f0",
  num: "98765432123456789",
};
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
      [["secrets", "secrets must contain at least one secret: an empty map would change nothing in the service (its update only sets the names it is given, and it has no operation to delete secrets)"]],
    ],
    ["a name starting with a digit", { ...ids, secrets: { "1ABC": VAL.db1 } }, [["secrets", `secret name "1ABC" ${RULE}`]]],
    ["a name with a dash", { ...ids, secrets: { "MY-KEY": VAL.api } }, [["secrets", `secret name "MY-KEY" ${RULE}`]]],
    ["an empty name", { ...ids, secrets: { "": VAL.api } }, [["secrets", `secret name "" ${RULE}`]]],
    ["a 257-character name", { ...ids, secrets: { ["B".repeat(257)]: VAL.key } }, [["secrets", `secret name "${"B".repeat(60)}…" must be at most 256 characters (got 257)`]]],
    ["a number value", { ...ids, secrets: { PORT: 98765432123456789 } }, [["secrets", 'secret "PORT" must have a string value (got number)']]],
    ["an object value", { ...ids, secrets: { CFG: { nested: VAL.key } } }, [["secrets", 'secret "CFG" must have a string value (got object)']]],
    ["a null value", { ...ids, secrets: { NOTHING: null } }, [["secrets", 'secret "NOTHING" has no value: values must be strings']]],
    [
      "a bad name and a bad value",
      { ...ids, secrets: { "bad name": 1, GOOD: VAL.db2 } },
      [["secrets", `secret name "bad name" ${RULE}`], ["secrets", 'secret "bad name" must have a string value (got number)']],
    ],
    ["an array", { ...ids, secrets: [VAL.db1] }, [["secrets", "secrets must be a map of secret names to string values (got an array)"]]],
    ["a string", { ...ids, secrets: VAL.db1 }, [["secrets", "secrets must be a map of secret names to string values (got string)"]]],
    ["no secrets", { ...ids }, [["secrets", "secrets is required"]]],
    ["no projectId", { appId: "a", secrets: { A: VAL.db1 } }, [["projectId", "projectId is required"]]],
    ["no appId", { projectId: "p", secrets: { A: VAL.db1 } }, [["appId", "appId is required"]]],
    ["an empty appId", { projectId: "p", appId: "", secrets: { A: VAL.db1 } }, [["appId", "appId must not be empty"]]],
  ];

  test.each(cases)("%s", async (_label, news, expected) => {
    const result = await provider.check(asInputs({}), asInputs(news));
    expect((result.failures ?? []).map((f) => [f.property, f.reason])).toEqual(expected);
    expect(result.inputs).toEqual(news);
    expectNoPlaintextSecrets(JSON.stringify(result.failures), [...ALL_VALUES, JSON.stringify(VAL.num)], "check failures");
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
    ["another app", olds, { ...ids, appId: "p-1-api", secrets: olds.secrets }, { changes: true, replaces: ["appId"], deleteBeforeReplace: false }],
    ["another project", olds, { ...ids, projectId: "p-2", secrets: olds.secrets }, { changes: true, replaces: ["projectId"], deleteBeforeReplace: false }],
    ["an app unknown at preview", olds, { ...ids, appId: UNKNOWN, secrets: olds.secrets }, { changes: true, replaces: ["appId"], deleteBeforeReplace: false }],
    ["state without a secrets map", { ...ids, secretNames: ["A"] }, { ...ids, secrets: { A: VAL.db1 } }, { changes: true }],
  ];
  test.each(cases)("%s", async (_label, o, news, expected) => {
    expect(await provider.diff("p-1/p-1-web", o as unknown as AppSecretsOutputs, asInputs(news))).toEqual(expected);
  });
});

// ---- against the simulator -----------------------------------------------------------------------------

describe("AppSecrets against the simulator", () => {
  const errors: string[] = [];
  const ctx = useSimulatorProvider(AppSecretsProvider, {
    afterEachTest: (warn) => {
      const lines = warn.mock.calls.map((c) => c.map(String).join(" "));
      expectNoPlaintextSecrets(lines.join("\n"), ALL_VALUES, "console.warn lines");
    },
    // every error message of the suite, scanned once more together
    beforeStop: () => expectNoPlaintextSecrets(errors.join("\n"), ALL_VALUES, "error messages"),
  });

  const failure = async (p: Promise<unknown>): Promise<Error> => {
    const e = await p.then(
      () => undefined,
      (err: unknown) => err,
    );
    if (!(e instanceof Error)) throw new Error("expected a rejection with an Error");
    errors.push(e.message, String(e.stack));
    return e;
  };

  test("check never calls the service, even with bad input", async () => {
    for (const news of [{}, { projectId: "p", appId: "a", secrets: {} }, { projectId: "p", appId: "a", secrets: { "1x": VAL.db1 } }, { projectId: "p", appId: "a", secrets: { A: 5 } }]) {
      const r = await ctx.provider.check(asInputs({}), asInputs(news));
      expect(r.failures?.length).toBeGreaterThan(0);
    }
    expect(ctx.sim.requests).toHaveLength(0);
  });

  describe.each<SecretsMode>(["merge", "replace"])("with secrets mode %s", (mode) => {
    let projectId: string;
    let appId: string;
    let app2: string;

    beforeAll(() => {
      ctx.sim.setSecretsMode(mode);
      projectId = ctx.sim.addProject().id;
      appId = ctx.sim.addApp(projectId, "web").id;
      app2 = ctx.sim.addApp(projectId, "api").id;
    });

    test("create → add/change → read → remove a key → replace → delete", async () => {
      // create: the full map, exactly
      const created = await ctx.provider.create({ projectId, appId, secrets: { DATABASE_URL: VAL.db1, API_KEY: VAL.api } });
      expect(created.id).toBe(`${projectId}/${appId}`);
      expect(created.outs).toEqual({ projectId, appId, secrets: { DATABASE_URL: VAL.db1, API_KEY: VAL.api }, secretNames: ["API_KEY", "DATABASE_URL"] });
      expect(ctx.sim.appSecrets(projectId, appId)).toEqual({ DATABASE_URL: VAL.db1, API_KEY: VAL.api });
      let outs = created.outs as AppSecretsOutputs;

      // change one value and add one: the full desired map is sent, the app holds exactly it (both modes)
      ctx.sim.clearRequests();
      const grown = { projectId, appId, secrets: { DATABASE_URL: VAL.db2, API_KEY: VAL.api, HMAC_KEY: VAL.key } };
      expect(await ctx.provider.diff(created.id, outs, grown)).toEqual({ changes: true });
      const u1 = await ctx.provider.update(created.id, outs, grown);
      expect(u1.outs).toEqual({ ...grown, secretNames: ["API_KEY", "DATABASE_URL", "HMAC_KEY"] });
      expect(ctx.sim.requests.map((r) => [r.method, r.path, r.body])).toEqual([
        ["PATCH", `/v2/projects/${projectId}/apps/${appId}/secrets`, grown.secrets],
      ]);
      expect(ctx.sim.appSecrets(projectId, appId)).toEqual(grown.secrets);
      expect(ctx.warn).not.toHaveBeenCalled();
      outs = u1.outs as AppSecretsOutputs;

      // read (refresh): no read endpoint, state unchanged, no call
      ctx.sim.clearRequests();
      expect(await ctx.provider.read(created.id, outs)).toEqual({ id: created.id, props: outs });
      expect(ctx.sim.requests).toHaveLength(0);

      // remove API_KEY: the full desired map is sent; what happens depends on the service; a warning names the key
      const shrunk = { projectId, appId, secrets: { DATABASE_URL: VAL.db2, HMAC_KEY: VAL.key } };
      const u2 = await ctx.provider.update(created.id, outs, shrunk);
      expect(u2.outs).toEqual({ ...shrunk, secretNames: ["DATABASE_URL", "HMAC_KEY"] });
      expect(ctx.sim.requests.map((r) => r.body)).toEqual([shrunk.secrets]);
      if (mode === "replace") expect(ctx.sim.appSecrets(projectId, appId)).toEqual(shrunk.secrets);
      else expect(ctx.sim.appSecrets(projectId, appId)).toEqual({ ...shrunk.secrets, API_KEY: VAL.api });
      expect(ctx.warn.mock.calls).toEqual([
        [
          `pulumi-pims: secret(s) "API_KEY" were dropped from AppSecrets of app ${appId} in project ${projectId}, ` +
            "but the API has no operation to delete a secret: if the service merges updates they remain in the app with their " +
            "last values; remove them in the web console if they should go.",
        ],
      ]);
      outs = u2.outs as AppSecretsOutputs;
      ctx.warn.mockClear();

      // another app replaces: the new app gets the map first, then the old resource is deleted (nothing sent)
      const moved = { projectId, appId: app2, secrets: shrunk.secrets };
      expect(await ctx.provider.diff(created.id, outs, moved)).toEqual({ changes: true, replaces: ["appId"], deleteBeforeReplace: false });
      const replacement = await ctx.provider.create(moved);
      expect(replacement.id).toBe(`${projectId}/${app2}`);
      expect(ctx.sim.appSecrets(projectId, app2)).toEqual(shrunk.secrets);

      const before = ctx.sim.appSecrets(projectId, appId);
      ctx.sim.clearRequests();
      await ctx.provider.delete(created.id, outs);
      expect(ctx.sim.requests).toHaveLength(0);
      expect(ctx.sim.appSecrets(projectId, appId)).toEqual(before);
      expect(ctx.warn.mock.calls).toEqual([
        [
          `pulumi-pims: AppSecrets of app ${appId} in project ${projectId} was removed from the stack but secret(s) "DATABASE_URL", "HMAC_KEY" remain in the app: ` +
            "the service has no delete operation for secrets; remove them in the web console if they should go.",
        ],
      ]);
    });

    test("a secret set outside the resource: kept by a merging service, dropped by a replacing one", async () => {
      const other = ctx.sim.addApp(projectId, `ext-${mode}`).id;
      await ctx.provider.create({ projectId, appId: other, secrets: { OUTSIDE: VAL.num } });
      await ctx.provider.create({ projectId, appId: other, secrets: { MANAGED: VAL.key } });
      expect(ctx.sim.appSecrets(projectId, other)).toEqual(mode === "merge" ? { OUTSIDE: VAL.num, MANAGED: VAL.key } : { MANAGED: VAL.key });
    });
  });

  test("an app that does not exist: the error names the app, not the values", async () => {
    const projectId = ctx.sim.addProject().id;
    const e = await failure(ctx.provider.create({ projectId, appId: `${projectId}-ghost`, secrets: { A: VAL.db1, B: VAL.api } }));
    expect(e.message).toMatch(new RegExp(`^updating secrets of app ${projectId}-ghost in project ${projectId}: 404 `));
    expectNoPlaintextSecrets(`${e.message}\n${e.stack}`, ALL_VALUES, "error message");
  });

  test("a service refusal is passed on with the service's message", async () => {
    const projectId = ctx.sim.addProject().id;
    const appId = ctx.sim.addApp(projectId, "web").id;
    // check would stop this name; the service's own rule is shown when check is bypassed
    const e = await failure(ctx.provider.create({ projectId, appId, secrets: { "bad-name": VAL.db1 } }));
    expect(e.message).toBe(`updating secrets of app ${appId} in project ${projectId}: 422 secret name "bad-name" must match ^[A-Za-z_][A-Za-z0-9_]*$`);
    expect(ctx.sim.appSecrets(projectId, appId)).toEqual({});
  });

  test("a service that echoes the body in its error: the values are scrubbed from the message", async () => {
    const echo = http.createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString("utf8")));
      req.on("end", () => {
        res.writeHead(422, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ message: `rejected ${body}` }));
      });
    });
    await new Promise<void>((resolve) => echo.listen(0, "127.0.0.1", () => resolve()));
    try {
      const { port } = echo.address() as AddressInfo;
      const p = new AppSecretsProvider();
      await p.configure(configureRequest({ "pims:token": "echo-token-123456", "pims:baseUrl": `http://127.0.0.1:${port}` }));
      const e = await failure(p.create({ projectId: "p-1", appId: "p-1-web", secrets: { DATABASE_URL: VAL.db1, API_KEY: VAL.api } }));
      expect(e.message).toBe('updating secrets of app p-1-web in project p-1: 422 rejected {"DATABASE_URL":"[REDACTED]","API_KEY":"[REDACTED]"}');
      expectNoPlaintextSecrets(`${e.message}\n${e.stack}`, ALL_VALUES, "error message");
    } finally {
      echo.closeAllConnections();
      await new Promise<void>((resolve) => echo.close(() => resolve()));
    }
  });

  test("import (read with no state) is refused with what to do instead", async () => {
    await expect(ctx.provider.read("p-1/p-1-web")).rejects.toThrow(/cannot be imported: the service has no operation to read secrets/);
    expect(ctx.sim.requests).toHaveLength(0);
  });
});

// ---- the SDK class under mocks -------------------------------------------------------------------------

describe("AppSecrets SDK class", () => {
  const SECRET_SIG = "4dabf18193072939515e22adb298388d";
  const SECRET_VALUE = "1b47061264138c4ac30d75fd1eb44270";
  const registered = captureRegistrations({
    newResource: (args) => {
      // the mock monitor hands inputs over with secrets still wrapped: {<sig>: <secret>, value}
      const raw = (args.inputs.secrets ?? {}) as Record<string, unknown>;
      const secrets = (SECRET_SIG in raw ? raw.value : raw) as Record<string, string>;
      return { id: `${args.name}-id`, state: { ...args.inputs, secretNames: Object.keys(secrets).sort() } };
    },
    call: (args) => args.inputs,
  });

  test("registers pulumi-nodejs:dynamic/pims:AppSecrets with secrets as a secret input and a secret output", async () => {
    const s = new AppSecrets("web", { projectId: "p-1", appId: "p-1-web", secrets: { DATABASE_URL: VAL.db1, API_KEY: pulumi.output(VAL.api) } });
    expect(await outputValue(s.urn)).toBe("urn:pulumi:stack::proj::pulumi-nodejs:dynamic/pims:AppSecrets::web");

    const reg = registered.find((r) => r.name === "web");
    expect(reg?.type).toBe("pulumi-nodejs:dynamic/pims:AppSecrets");
    expect(reg?.additionalSecretOutputs).toEqual(["secrets"]);
    // the input travels as a secret (so it is encrypted in the state's inputs too)
    expect(reg?.object.secrets).toEqual({ [SECRET_SIG]: SECRET_VALUE, value: { DATABASE_URL: VAL.db1, API_KEY: VAL.api } });
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
    const s = new AppSecrets("api", { projectId: "p-1", appId: "p-1-api", secrets: { A: VAL.key } }, { additionalSecretOutputs: ["appId"], protect: true });
    await outputValue(s.urn);
    const reg = registered.find((r) => r.name === "api");
    expect([...(reg?.additionalSecretOutputs ?? [])].sort()).toEqual(["appId", "secrets"]);
  });
});
