/**
 * AppSecrets against the simulator: a lifecycle under both "merge" and "replace" behaviours of
 * PATCH /v2/projects/{project_id}/apps/{app_id}/secrets, and value scrubbing of errors. Every error message and
 * warning is scanned for the secret values. Check and diff tables and the SDK class are in
 * tests/unit/appSecrets/checkDiff.test.ts.
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { AppSecretsProvider, type AppSecretsOutputs } from "../../../provider/appSecrets";
import type { SecretsMode } from "../../../simulator";
import { APP_SECRET_VALUES, appSecretsInputs, configureRequest, useProviderSuite } from "../../kit/provider/provider";
import { expectNoPlaintextSecrets } from "../../kit/secrets/secrets";

const VAL = APP_SECRET_VALUES;
const ALL_VALUES = Object.values(VAL);

// ---- against the simulator -----------------------------------------------------------------------------

describe("AppSecrets against the simulator", () => {
  const errors: string[] = [];
  const ctx = useProviderSuite(AppSecretsProvider, {
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
    for (const news of [
      {},
      { projectId: "p", appId: "a", secrets: {} },
      { projectId: "p", appId: "a", secrets: { "1x": VAL.db1 } },
      { projectId: "p", appId: "a", secrets: { A: 5 } },
    ]) {
      const r = await ctx.provider.check(appSecretsInputs({}), appSecretsInputs(news));
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
      const created = await ctx.provider.create({
        projectId,
        appId,
        secrets: { DATABASE_URL: VAL.db1, API_KEY: VAL.api },
      });
      expect(created.id).toBe(`${projectId}/${appId}`);
      expect(created.outs).toEqual({
        projectId,
        appId,
        secrets: { DATABASE_URL: VAL.db1, API_KEY: VAL.api },
        secretNames: ["API_KEY", "DATABASE_URL"],
      });
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
      // the diff's one progress line names the secrets, never a value
      expect(ctx.warn.mock.calls.map((c: unknown[]) => String(c[0]))).toEqual([
        `pulumi-pims: AppSecrets of app ${appId} in project ${projectId}: secret(s) "HMAC_KEY" added; ` +
          '"DATABASE_URL" changed (values not shown)',
      ]);
      ctx.warn.mockClear();
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
            "but the API has no operation to delete a secret: " +
            "if the service merges updates they remain in the app with their " +
            "last values; remove them in the web console if they should go.",
        ],
      ]);
      outs = u2.outs as AppSecretsOutputs;
      ctx.warn.mockClear();

      // another app replaces: the new app gets the map first, then the old resource is deleted (nothing sent)
      const moved = { projectId, appId: app2, secrets: shrunk.secrets };
      expect(await ctx.provider.diff(created.id, outs, moved)).toEqual({
        changes: true,
        replaces: ["appId"],
        deleteBeforeReplace: false,
      });
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
          `pulumi-pims: AppSecrets of app ${appId} in project ${projectId} was removed from the stack but secret(s) ` +
            `"DATABASE_URL", "HMAC_KEY" remain in the app: ` +
            "the service has no delete operation for secrets; remove them in the web console if they should go.",
        ],
      ]);
    });

    test("a secret set outside the resource: kept by a merging service, dropped by a replacing one", async () => {
      const other = ctx.sim.addApp(projectId, `ext-${mode}`).id;
      await ctx.provider.create({ projectId, appId: other, secrets: { OUTSIDE: VAL.num } });
      await ctx.provider.create({ projectId, appId: other, secrets: { MANAGED: VAL.key } });
      expect(ctx.sim.appSecrets(projectId, other)).toEqual(
        mode === "merge" ? { OUTSIDE: VAL.num, MANAGED: VAL.key } : { MANAGED: VAL.key },
      );
    });
  });

  test("an app that does not exist: the error names the app, not the values", async () => {
    const projectId = ctx.sim.addProject().id;
    const e = await failure(
      ctx.provider.create({ projectId, appId: `${projectId}-ghost`, secrets: { A: VAL.db1, B: VAL.api } }),
    );
    expect(e.message).toMatch(new RegExp(`^updating secrets of app ${projectId}-ghost in project ${projectId}: 404 `));
    expectNoPlaintextSecrets(`${e.message}\n${e.stack}`, ALL_VALUES, "error message");
  });

  test("a service refusal is passed on with the service's message", async () => {
    const projectId = ctx.sim.addProject().id;
    const appId = ctx.sim.addApp(projectId, "web").id;
    // check would stop this name; the service's own rule is shown when check is bypassed
    const e = await failure(ctx.provider.create({ projectId, appId, secrets: { "bad-name": VAL.db1 } }));
    expect(e.message).toBe(
      `updating secrets of app ${appId} in project ${projectId}: 422 secret name "bad-name" must match ` +
        `^[A-Za-z_][A-Za-z0-9_]*$`,
    );
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
      await p.configure(
        configureRequest({ "pims:token": "echo-token-123456", "pims:baseUrl": `http://127.0.0.1:${port}` }),
      );
      const e = await failure(
        p.create({ projectId: "p-1", appId: "p-1-web", secrets: { DATABASE_URL: VAL.db1, API_KEY: VAL.api } }),
      );
      expect(e.message).toBe(
        "updating secrets of app p-1-web in project p-1: 422 rejected " +
          '{"DATABASE_URL":"[REDACTED]","API_KEY":"[REDACTED]"}',
      );
      expectNoPlaintextSecrets(`${e.message}\n${e.stack}`, ALL_VALUES, "error message");
    } finally {
      echo.closeAllConnections();
      await new Promise<void>((resolve) => echo.close(() => resolve()));
    }
  });

  test("import (read with no state) is refused with what to do instead", async () => {
    await expect(ctx.provider.read("p-1/p-1-web")).rejects.toThrow(
      /cannot be imported: the service has no operation to read secrets/,
    );
    expect(ctx.sim.requests).toHaveLength(0);
  });
});
