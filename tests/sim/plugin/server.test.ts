/**
 * The plugin's gRPC service (`pulumi-resource-pims`) in this process, called as the engine calls it, against the
 * simulator: plugin information, configuration, the schema, the methods it refuses, and functions (Invoke). The
 * resources' methods are in resources.test.ts.
 */
import * as grpc from "@grpc/grpc-js";
import * as emptyproto from "google-protobuf/google/protobuf/empty_pb";
import * as plugproto from "@pulumi/pulumi/proto/plugin_pb";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import { packageVersion } from "../../../provider/identity";
import { rejectionOf } from "../../kit/rejection";
import {
  jsonOf,
  masked,
  PluginUnderTest,
  providerUrn,
  revealed,
  secretKeysOf,
  secretOf,
  struct,
  usePluginSuite,
  type Json,
} from "../../kit/provider/plugin";

const suite = usePluginSuite();

describe("plugin information and configuration", () => {
  test("GetPluginInfo reports the package's version", async () => {
    const info = await suite.plugin.call<plugproto.PluginInfo>("getPluginInfo", new emptyproto.Empty());
    expect(info.getVersion()).toBe(packageVersion());
  });

  test("CheckConfig returns the token as a secret and names a bad setting with its rule", async () => {
    const other = await PluginUnderTest.start();
    try {
      const ok = await other.configure({ token: "tok-plain-123", baseUrl: suite.sim.baseUrl });
      const inputs = jsonOf(ok.getInputs());
      expect(secretKeysOf(inputs)).toEqual(["token"]);
      expect(ok.getFailuresList()).toEqual([]);
      const bad = await other.call<provproto.CheckResponse>(
        "checkConfig",
        new provproto.CheckRequest()
          .setUrn(providerUrn())
          .setNews(struct({ baseUrl: "ftp://x", maxConcurrency: "0", token: secretOf("t") })),
      );
      expect(bad.getFailuresList().map((f) => [f.getProperty(), f.getReason()])).toEqual([
        ["baseUrl", expect.stringMatching(/^pims:baseUrl must be an absolute http\(s\) URL .*the scheme is ftp/)],
        ["maxConcurrency", 'pims:maxConcurrency must be a whole number >= 1 (got "0")'],
      ]);
      const explicit = await other.call<provproto.CheckResponse>(
        "checkConfig",
        new provproto.CheckRequest().setUrn(providerUrn("second")).setNews(struct({ rateLimitTimeoutMs: -1 })),
      );
      expect(explicit.getFailuresList()[0].getReason()).toBe(
        "rateLimitTimeoutMs must be a whole number of milliseconds (got -1)",
      );
    } finally {
      await other.stop();
    }
  });

  test("DiffConfig: a new token is an update of the provider alone, never a replacement", async () => {
    const req = new provproto.DiffRequest()
      .setUrn(providerUrn())
      .setOlds(struct({ token: secretOf("a"), baseUrl: suite.sim.baseUrl }))
      .setOldInputs(struct({ token: secretOf("a"), baseUrl: suite.sim.baseUrl }))
      .setNews(struct({ token: secretOf("b"), baseUrl: suite.sim.baseUrl }));
    const d = await suite.plugin.call<provproto.DiffResponse>("diffConfig", req);
    expect(d.getChanges()).toBe(provproto.DiffResponse.DiffChanges.DIFF_SOME);
    expect(d.getReplacesList()).toEqual([]);
    expect([...d.getDetaileddiffMap().keys()]).toEqual(["token"]);
    const same = await suite.plugin.call<provproto.DiffResponse>("diffConfig", req.setNews(req.getOlds()));
    expect(same.getChanges()).toBe(provproto.DiffResponse.DiffChanges.DIFF_NONE);
  });

  test("a missing token is one clear error at the first call that needs the service", async () => {
    const bare = await PluginUnderTest.start();
    try {
      await bare.configure({ baseUrl: suite.sim.baseUrl });
      const err = await rejectionOf(bare.create("Project", { name: "no-token" }), Error);
      expect((err as grpc.ServiceError).details).toBe(
        "pulumi-pims is not configured: set the service-account token with " +
          "`pulumi config set --secret pims:token <token>` " +
          "or the PIMS_TOKEN environment variable.",
      );
    } finally {
      await bare.stop();
    }
  });

  test("an explicit provider without a baseUrl takes the stack's (PULUMI_CONFIG), as pims.Provider does", async () => {
    process.env.PULUMI_CONFIG = JSON.stringify({ baseUrl: suite.sim.baseUrl, token: "stack-token-unused" });
    const second = await PluginUnderTest.start();
    try {
      await second.configure({ token: suite.sim.token }, providerUrn("second"));
      const created = await second.create("Project", { name: "from-stack-url" });
      expect(suite.sim.project(created.getId())?.name).toBe("from-stack-url");
    } finally {
      delete process.env.PULUMI_CONFIG;
      await second.stop();
    }
  });

  test("a refused token is named as the plugin's users write it; Invoke keeps the settings of Configure", async () => {
    process.env.PULUMI_CONFIG = JSON.stringify({ baseUrl: suite.sim.baseUrl });
    const wrong = await PluginUnderTest.start();
    try {
      await wrong.configure({ token: "wrong-token-0123456789" });
      delete process.env.PULUMI_CONFIG; // read once, at Configure: no later call looks at it again
      const created = await rejectionOf(wrong.create("Project", { name: "refused" }), Error);
      const invoked = await rejectionOf(wrong.invoke("pims:index:getInvoices", { projectId: "p-1" }), Error);
      for (const err of [created, invoked]) {
        const said = (err as grpc.ServiceError).details;
        expect(said).toContain(
          "pims:token (the stack config), or the token argument of the explicit provider (pulumi:providers:pims)",
        );
        expect(said).not.toContain("pims.Provider");
        suite.seen.push(said);
      }
    } finally {
      delete process.env.PULUMI_CONFIG;
      await wrong.stop();
    }
  });

  test("GetSchema returns the package schema at the package's version; another schema version is refused", async () => {
    const r = await suite.plugin.call<provproto.GetSchemaResponse>("getSchema", new provproto.GetSchemaRequest());
    const schema = JSON.parse(r.getSchema()) as { name: string; version: string; resources: Record<string, unknown> };
    expect(schema).toEqual(require("../../../provider/schema.json")); // the committed file `npm run schema` writes
    expect(schema.name).toBe("pims");
    expect(schema.version).toBe(packageVersion());
    expect(Object.keys(schema.resources).sort()).toEqual([
      "pims:index:AppSecrets",
      "pims:index:Project",
      "pims:index:ServiceAccount",
      "pims:index:VolumeSize",
    ]);
    const err = await rejectionOf(
      suite.plugin.call("getSchema", new provproto.GetSchemaRequest().setVersion(1)),
      Error,
    );
    expect((err as grpc.ServiceError).details).toBe("pulumi-pims: unsupported schema version 1");
  });

  test("Cancel, Attach and GetMappings answer; Parameterize, Call and Construct are UNIMPLEMENTED", async () => {
    await suite.plugin.call("cancel", new emptyproto.Empty());
    await suite.plugin.call("attach", new plugproto.PluginAttach().setAddress("127.0.0.1:1"));
    const ms = await suite.plugin.call<provproto.GetMappingsResponse>(
      "getMappings",
      new provproto.GetMappingsRequest(),
    );
    expect(ms.getProvidersList()).toEqual([]);
    for (const [method, req] of [
      ["parameterize", new provproto.ParameterizeRequest()],
      ["call", new provproto.CallRequest()],
      ["construct", new provproto.ConstructRequest()],
    ] as const) {
      const err = await rejectionOf(suite.plugin.call(method, req), Error);
      expect((err as grpc.ServiceError).code).toBe(grpc.status.UNIMPLEMENTED);
    }
  });

  test("GetMapping answers an empty mapping; Handshake and Construct are UNIMPLEMENTED", async () => {
    const m = await suite.plugin.call<provproto.GetMappingResponse>(
      "getMapping",
      new provproto.GetMappingRequest().setKey("tf"),
    );
    expect(m.getProvider()).toBe("");
    const err = await rejectionOf(suite.plugin.call("handshake", new provproto.ProviderHandshakeRequest()), Error);
    expect((err as grpc.ServiceError).code).toBe(12); // UNIMPLEMENTED: the engine falls back to Configure
  });
});

describe("functions (Invoke)", () => {
  test("getApiKeys returns the keys as a secret; a bad argument is a failure naming it, with no request", async () => {
    const project = suite.sim.addProject();
    suite.sim.addApiKey(project.id, { name: "deploy", apiKey: "ak-secret-value-1" });
    const r = await suite.plugin.invoke("pims:index:getApiKeys", { projectId: project.id });
    const ret = jsonOf(r.getReturn());
    expect(secretKeysOf(ret)).toEqual(["keys"]);
    expect((revealed(ret).keys as Json[]).map((k) => k.name)).toEqual(["deploy"]);
    suite.sim.clearRequests();
    const bad = await suite.plugin.invoke("pims:index:getInvoices", { projectId: "" });
    expect(bad.getFailuresList().map((f) => [f.getProperty(), f.getReason()])).toEqual([
      ["projectId", "projectId must not be empty"],
    ]);
    const filter = await suite.plugin.invoke("pims:index:getAppLogs", {
      projectId: "p-1",
      appId: "p-1-web",
      pageSize: 5000,
    });
    expect(filter.getFailuresList().map((f) => f.getProperty())).toEqual(["pageSize"]);
    expect(suite.sim.requests).toEqual([]);
  });

  test("getInvoices, getAppLogs, getBuildLogs and cancelRun answer what the SDK functions answer", async () => {
    const project = suite.sim.addProject();
    const app = suite.sim.addApp(project.id, "api");
    suite.sim.addInvoice(project.id, { amountDue: 1999, currency: "usd" });
    suite.sim.addLogs(project.id, app.id, [{ logLine: "hello" }, { logLine: "world" }]);
    suite.sim.addBuild(project.id, app.id, { id: "b-1", status: "success", logs: [{ log: "built" }] });
    const run = suite.sim.addRun(project.id, app.id, { status: "running" });
    const inv = jsonOf((await suite.plugin.invoke("pims:index:getInvoices", { projectId: project.id })).getReturn());
    expect(inv.invoices).toEqual([
      expect.objectContaining({ amountDue: 1999, amountDueMajor: 19.99, currencyDigits: 2 }),
    ]);
    const logs = jsonOf(
      (
        await suite.plugin.invoke("pims:index:getAppLogs", { projectId: project.id, appId: app.id, limit: 1 })
      ).getReturn(),
    );
    expect(logs).toMatchObject({ truncated: true, lines: [expect.objectContaining({ logLine: expect.any(String) })] });
    const build = jsonOf(
      (
        await suite.plugin.invoke("pims:index:getBuildLogs", { projectId: project.id, appId: app.id, buildId: "b-1" })
      ).getReturn(),
    );
    expect(build).toMatchObject({ status: "success", finished: true, succeeded: true });
    const cancel = await suite.plugin.invoke("pims:index:cancelRun", {
      projectId: project.id,
      appId: app.id,
      runId: run.id,
    });
    expect(typeof jsonOf(cancel.getReturn()).message).toBe("string");
    expect(suite.sim.runs().find((x) => x.id === run.id)?.status).toBe("cancelled");
    const unknown = (await rejectionOf(suite.plugin.invoke("pims:index:getNothing", {}), Error)) as grpc.ServiceError;
    expect(unknown.details).toBe('pulumi-pims: unknown function "pims:index:getNothing"');
  });
});

test("no answer, error or warning carried a token or secret value outside a secret", () => {
  expect(masked(JSON.stringify({ a: secretOf("x"), b: secretOf({ K: "v" }) }))).toBe('{"a":[secret],"b":[secret]}');
  suite.expectNoSecretsSeen(["pw-123-secret", ...suite.sim.issuedSecrets()]);
});
