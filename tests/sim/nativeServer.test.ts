/**
 * The plugin's gRPC service (`pulumi-resource-pims`) in this process, called as the engine calls it, against the
 * simulator: every method, what the simulator holds after each step, which values come back secret, and which
 * message the user sees.
 */
import * as grpc from "@grpc/grpc-js";
import * as emptyproto from "google-protobuf/google/protobuf/empty_pb";
import * as enginerpc from "@pulumi/pulumi/proto/engine_grpc_pb";
import * as engineproto from "@pulumi/pulumi/proto/engine_pb";
import * as plugproto from "@pulumi/pulumi/proto/plugin_pb";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import { UNKNOWN } from "../../provider/checks";
import { sendLinesToEngine } from "../../provider/engineLog";
import type { PimsSimulator } from "../../simulator";
import {
  jsonOf,
  partialState,
  PluginUnderTest,
  startPluginWithSimulator,
  providerUrn,
  revealed,
  secretKeysOf,
  secretOf,
  struct,
  urnOf,
  type Json,
} from "../kit/plugin";
import { packageVersion } from "../../provider/plugin/tokens";
import { expectNoPlaintextSecrets } from "../kit/secrets";
import { rejectionOf } from "../kit/rejection";
import { recordWarnings } from "../kit/provider";

let sim: PimsSimulator;
let plugin: PluginUnderTest;
let stop: () => Promise<void>;
const seen: string[] = []; // every answer and message, scanned for plaintext secrets at the end

beforeAll(async () => {
  ({ sim, plugin, stop } = await startPluginWithSimulator());
});
afterAll(() => stop());
beforeEach(() => sim.clearFaults());
const warnings = recordWarnings(seen);

const saInputs = (projectId: string, name: string, extra: Json = {}): Json => ({
  projectId,
  name,
  grants: [projectId],
  expiresIn: 3600,
  ...extra,
});

describe("plugin information and configuration", () => {
  test("GetPluginInfo reports the package's version", async () => {
    const info = await plugin.call<plugproto.PluginInfo>("getPluginInfo", new emptyproto.Empty());
    expect(info.getVersion()).toBe(packageVersion());
  });

  test("CheckConfig returns the token as a secret and names a bad setting with its rule", async () => {
    const other = await PluginUnderTest.start();
    try {
      const ok = await other.configure({ token: "tok-plain-123", baseUrl: sim.baseUrl });
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
      .setOlds(struct({ token: secretOf("a"), baseUrl: sim.baseUrl }))
      .setOldInputs(struct({ token: secretOf("a"), baseUrl: sim.baseUrl }))
      .setNews(struct({ token: secretOf("b"), baseUrl: sim.baseUrl }));
    const d = await plugin.call<provproto.DiffResponse>("diffConfig", req);
    expect(d.getChanges()).toBe(provproto.DiffResponse.DiffChanges.DIFF_SOME);
    expect(d.getReplacesList()).toEqual([]);
    expect([...d.getDetaileddiffMap().keys()]).toEqual(["token"]);
    const same = await plugin.call<provproto.DiffResponse>("diffConfig", req.setNews(req.getOlds()));
    expect(same.getChanges()).toBe(provproto.DiffResponse.DiffChanges.DIFF_NONE);
  });

  test("a missing token is one clear error at the first call that needs the service", async () => {
    const bare = await PluginUnderTest.start();
    try {
      await bare.configure({ baseUrl: sim.baseUrl });
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
    process.env.PULUMI_CONFIG = JSON.stringify({ baseUrl: sim.baseUrl, token: "stack-token-unused" });
    const second = await PluginUnderTest.start();
    try {
      await second.configure({ token: sim.token }, providerUrn("second"));
      const created = await second.create("Project", { name: "from-stack-url" });
      expect(sim.project(created.getId())?.name).toBe("from-stack-url");
    } finally {
      delete process.env.PULUMI_CONFIG;
      await second.stop();
    }
  });

  test("a refused token is named as the plugin's users write it; Invoke keeps the settings of Configure", async () => {
    process.env.PULUMI_CONFIG = JSON.stringify({ baseUrl: sim.baseUrl });
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
        seen.push(said);
      }
    } finally {
      delete process.env.PULUMI_CONFIG;
      await wrong.stop();
    }
  });

  test("GetSchema returns the package schema at the package's version; another schema version is refused", async () => {
    const r = await plugin.call<provproto.GetSchemaResponse>("getSchema", new provproto.GetSchemaRequest());
    const schema = JSON.parse(r.getSchema()) as { name: string; version: string; resources: Record<string, unknown> };
    expect(schema).toEqual(require("../../provider/schema.json")); // the committed file `npm run schema` writes
    expect(schema.name).toBe("pims");
    expect(schema.version).toBe(packageVersion());
    expect(Object.keys(schema.resources).sort()).toEqual([
      "pims:index:AppSecrets",
      "pims:index:Project",
      "pims:index:ServiceAccount",
      "pims:index:VolumeSize",
    ]);
    const err = await rejectionOf(plugin.call("getSchema", new provproto.GetSchemaRequest().setVersion(1)), Error);
    expect((err as grpc.ServiceError).details).toBe("pulumi-pims: unsupported schema version 1");
  });

  test("Cancel, Attach and GetMappings answer; Parameterize, Call and Construct are UNIMPLEMENTED", async () => {
    await plugin.call("cancel", new emptyproto.Empty());
    await plugin.call("attach", new plugproto.PluginAttach().setAddress("127.0.0.1:1"));
    const ms = await plugin.call<provproto.GetMappingsResponse>("getMappings", new provproto.GetMappingsRequest());
    expect(ms.getProvidersList()).toEqual([]);
    for (const [method, req] of [
      ["parameterize", new provproto.ParameterizeRequest()],
      ["call", new provproto.CallRequest()],
      ["construct", new provproto.ConstructRequest()],
    ] as const) {
      const err = await rejectionOf(plugin.call(method, req), Error);
      expect((err as grpc.ServiceError).code).toBe(grpc.status.UNIMPLEMENTED);
    }
  });

  test("GetMapping answers an empty mapping; Handshake and Construct are UNIMPLEMENTED", async () => {
    const m = await plugin.call<provproto.GetMappingResponse>(
      "getMapping",
      new provproto.GetMappingRequest().setKey("tf"),
    );
    expect(m.getProvider()).toBe("");
    const err = await rejectionOf(plugin.call("handshake", new provproto.ProviderHandshakeRequest()), Error);
    expect((err as grpc.ServiceError).code).toBe(12); // UNIMPLEMENTED: the engine falls back to Configure
  });
});

describe("resources", () => {
  test("Check: the dynamic host's failures, naming the property and the rule; unknowns skipped", async () => {
    const project = sim.addProject();
    sim.clearRequests();
    const bad = await plugin.check("ServiceAccount", saInputs(project.id, "", { expiresIn: -1 }));
    expect(bad.getFailuresList().map((f) => f.getProperty())).toEqual(["name", "expiresIn"]);
    expect(bad.getFailuresList()[1].getReason()).toMatch(/^expiresIn must be an integer number of seconds from 0/);
    const unknown = await plugin.check("ServiceAccount", saInputs(UNKNOWN, "svc", { grants: [UNKNOWN] }));
    expect(unknown.getFailuresList()).toEqual([]);
    expect(jsonOf(unknown.getInputs())).toMatchObject({ projectId: UNKNOWN, description: "" });
    expect(sim.requests).toEqual([]); // no call at check
  });

  test("Check keeps secret inputs secret; AppSecrets' map is always secret", async () => {
    const r = await plugin.check("AppSecrets", { projectId: "p-1", appId: "p-1-web", secrets: { A: "plain-a" } });
    expect(secretKeysOf(jsonOf(r.getInputs()))).toEqual(["secrets"]);
    const sa = await plugin.check("ServiceAccount", saInputs("p-1", "x", { description: secretOf("hidden") }));
    expect(secretKeysOf(jsonOf(sa.getInputs()))).toEqual(["description"]);
  });

  test("ServiceAccount: preview, create, diff, read, update, delete; the token secret in every answer", async () => {
    const project = sim.addProject();
    const ins = jsonOf((await plugin.check("ServiceAccount", saInputs(project.id, "ci"))).getInputs());
    sim.clearRequests();
    const preview = jsonOf((await plugin.create("ServiceAccount", ins, true)).getProperties());
    expect(revealed(preview)).toMatchObject({ name: "ci", serviceAccountId: UNKNOWN, token: UNKNOWN });
    expect(secretKeysOf(preview)).toEqual(["token"]);
    expect(sim.requests).toEqual([]);

    const created = await plugin.create("ServiceAccount", ins);
    const outs = jsonOf(created.getProperties());
    expect(secretKeysOf(outs)).toEqual(["token"]);
    const live = sim.serviceAccounts(project.id);
    expect(live.map((a) => a.id)).toEqual([created.getId()]);
    expect(sim.issuedSecrets()).toContain(revealed(outs).token);
    expect(outs).not.toHaveProperty("__provider");

    const same = await plugin.diff("ServiceAccount", created.getId(), outs, ins, ins);
    expect(same.getChanges()).toBe(provproto.DiffResponse.DiffChanges.DIFF_NONE);
    const renamed = await plugin.diff("ServiceAccount", created.getId(), outs, { ...ins, name: "ci-2" }, ins);
    expect(renamed.getReplacesList()).toEqual(["name"]);
    expect(renamed.getDetaileddiffMap().get("name")?.getKind()).toBe(provproto.PropertyDiff.Kind.UPDATE_REPLACE);
    const window = await plugin.diff("ServiceAccount", created.getId(), outs, { ...ins, rotateBeforeExpiry: 60 }, ins);
    expect(window.getReplacesList()).toEqual([]);
    expect(window.getDetaileddiffMap().get("rotateBeforeExpiry")?.getKind()).toBe(provproto.PropertyDiff.Kind.ADD);

    const read = await plugin.read("ServiceAccount", created.getId(), outs, ins);
    expect(jsonOf(read.getProperties())).toEqual(outs);
    expect(jsonOf(read.getInputs())).toEqual(ins);

    sim.clearRequests();
    const previewed = jsonOf(
      (
        await plugin.update("ServiceAccount", created.getId(), outs, { ...ins, rotationTrigger: "r2" }, true)
      ).getProperties(),
    );
    expect(revealed(previewed)).toMatchObject({ rotationTrigger: "r2", serviceAccountId: UNKNOWN, token: UNKNOWN });
    expect(secretKeysOf(previewed)).toEqual(["previousToken", "token"]);
    const updated = jsonOf(
      (
        await plugin.update("ServiceAccount", created.getId(), outs, { ...ins, rotateBeforeExpiry: 60 })
      ).getProperties(),
    );
    expect(sim.requests).toEqual([]); // a local option: no call, same token
    expect(revealed(updated)).toMatchObject({ rotateBeforeExpiry: 60, token: revealed(outs).token });
    expect(secretKeysOf(updated)).toEqual(["token"]);

    await plugin.delete("ServiceAccount", created.getId(), updated);
    expect(sim.serviceAccounts(project.id)).toEqual([]);
    seen.push(JSON.stringify([preview, outs, updated, jsonOf(read.getProperties())]));
  });

  test("an update that created an account but failed a delete stores the partial state, secret", async () => {
    const project = sim.addProject();
    const ins = saInputs(project.id, "overlap", { expiresIn: 3600, rotateBeforeExpiry: 1800, keepPreviousToken: true });
    const created = await plugin.create("ServiceAccount", ins);
    const first = jsonOf(created.getProperties());
    const rotated = jsonOf(
      (await plugin.update("ServiceAccount", created.getId(), first, { ...ins, rotationTrigger: "1" })).getProperties(),
    );
    expect(secretKeysOf(rotated)).toEqual(["previousToken", "token"]);
    sim.addFault({ method: "DELETE", path: /\/service-accounts\//, kind: "status", status: 500, times: 20 });
    const err = (await rejectionOf(
      plugin.update("ServiceAccount", created.getId(), rotated, { ...ins, rotationTrigger: "2" }),
      Error,
    )) as grpc.ServiceError;
    expect(err.details).toMatch(/the rotation created account \S+ \(its token is stored in the state\) but deleting/);
    const partial = partialState(err);
    expect(partial?.id).toBe(created.getId());
    expect(partial?.properties).not.toHaveProperty("__provider");
    expect(secretKeysOf(partial?.properties ?? {})).toEqual(["previousToken", "token"]);
    const state = revealed(partial?.properties ?? {});
    expect(state.retiredServiceAccountIds).toEqual([revealed(first).serviceAccountId]);
    expect(sim.issuedSecrets()).toContain(state.token);
    seen.push(err.details, JSON.stringify(partial?.properties));
    sim.clearFaults();
    await plugin.delete("ServiceAccount", created.getId(), state);
    expect(sim.serviceAccounts(project.id)).toEqual([]);
  });

  test("Project, VolumeSize and AppSecrets through the plugin, with their warnings", async () => {
    const project = await plugin.create("Project", { name: "yaml-project" });
    expect(sim.project(project.getId())?.name).toBe("yaml-project");
    const projectId = project.getId();
    sim.addVolume(projectId, { id: "default-us-east-1", sizeGb: 50 });
    sim.addApp(projectId, "web");
    const vol = await plugin.create("VolumeSize", { projectId, volumeId: "default-us-east-1", sizeGb: 100 });
    expect(sim.volume(projectId, "default-us-east-1")?.sizeGb).toBe(100);
    const grown = await plugin.update("VolumeSize", vol.getId(), jsonOf(vol.getProperties()), {
      projectId,
      volumeId: "default-us-east-1",
      sizeGb: 200,
    });
    expect(jsonOf(grown.getProperties()).sizeGb).toBe(200);
    const shrink = await plugin.check(
      "VolumeSize",
      { projectId, volumeId: "default-us-east-1", sizeGb: 60 },
      { projectId, volumeId: "default-us-east-1", sizeGb: 200 },
    );
    expect(shrink.getFailuresList()[0].getReason()).toBe("sizeGb cannot shrink from 200 to 60: volumes only grow");
    const secrets = await plugin.create("AppSecrets", {
      projectId,
      appId: `${projectId}-web`,
      secrets: secretOf({ DB_PASSWORD: "pw-123-secret" }),
    });
    const outs = jsonOf(secrets.getProperties());
    expect(secretKeysOf(outs)).toEqual(["secrets"]);
    expect(outs.secretNames).toEqual(["DB_PASSWORD"]);
    expect(sim.appSecrets(projectId, `${projectId}-web`)).toEqual({ DB_PASSWORD: "pw-123-secret" });
    await plugin.delete("AppSecrets", secrets.getId(), revealed(outs));
    await plugin.delete("Project", projectId, jsonOf(project.getProperties()));
    expect(warnings().mock.calls.map((c: unknown[]) => String(c[0]))).toEqual([
      expect.stringContaining(`AppSecrets of app ${projectId}-web in project ${projectId} was removed from the stack`),
      expect.stringContaining(`project ${projectId} ("yaml-project") was removed from the stack`),
    ]);
    seen.push(JSON.stringify(outs));
  });

  test("an import of a kind the service cannot read is refused with what to write; unknown types named", async () => {
    const err = (await rejectionOf(plugin.read("VolumeSize", "p-1/v-1", {}), Error)) as grpc.ServiceError;
    expect(err.details).toMatch(/^pulumi-pims: volume size p-1\/v-1 cannot be imported: .*Declare a VolumeSize/);
    const bad = (await rejectionOf(plugin.check("Nope", {}), Error)) as grpc.ServiceError;
    expect(bad.details).toBe('pulumi-pims: unknown resource type "pims:index:Nope"');
  });
});

describe("progress and warning lines", () => {
  test("reach the engine's Log on the resource's URN before it answers: rotation INFO, warning WARNING", async () => {
    const logs: engineproto.LogRequest[] = [];
    const engine = new grpc.Server();
    engine.addService(enginerpc.EngineService, {
      log: (
        call: grpc.ServerUnaryCall<engineproto.LogRequest, emptyproto.Empty>,
        cb: grpc.sendUnaryData<emptyproto.Empty>,
      ) => {
        logs.push(call.request);
        cb(null, new emptyproto.Empty());
      },
    });
    const port = await new Promise<number>((resolve, reject) =>
      engine.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
    );
    const restore = sendLinesToEngine(`127.0.0.1:${port}`);
    try {
      const project = await plugin.create("Project", { name: "logged" });
      // A planned rotation is progress: INFO (the CLI shows it without "warning:").
      const ins = saInputs(project.getId(), "logged-sa", { keepPreviousToken: true });
      const created = await plugin.create("ServiceAccount", ins);
      const first = jsonOf(created.getProperties());
      await plugin.update("ServiceAccount", created.getId(), first, { ...ins, rotationTrigger: "1" });
      // Something left in the service is a warning: WARNING.
      await plugin.delete("Project", project.getId(), jsonOf(project.getProperties()));
      expect(logs.map((l) => [l.getSeverity(), l.getUrn(), l.getMessage()])).toEqual([
        [
          engineproto.LogSeverity.INFO,
          urnOf("ServiceAccount", "r"),
          expect.stringMatching(/service account "logged-sa" in project \S+: rotated \(rotationTrigger\): new account/),
        ],
        [
          engineproto.LogSeverity.WARNING,
          urnOf("Project", "r"),
          expect.stringContaining(`project ${project.getId()} ("logged") was removed from the stack`),
        ],
      ]);
      expect(warnings()).not.toHaveBeenCalled(); // not on stderr as well
    } finally {
      restore();
      engine.forceShutdown();
    }
  });
});

describe("functions (Invoke)", () => {
  test("getApiKeys returns the keys as a secret; a bad argument is a failure naming it, with no request", async () => {
    const project = sim.addProject();
    sim.addApiKey(project.id, { name: "deploy", apiKey: "ak-secret-value-1" });
    const r = await plugin.invoke("pims:index:getApiKeys", { projectId: project.id });
    const ret = jsonOf(r.getReturn());
    expect(secretKeysOf(ret)).toEqual(["keys"]);
    expect((revealed(ret).keys as Json[]).map((k) => k.name)).toEqual(["deploy"]);
    sim.clearRequests();
    const bad = await plugin.invoke("pims:index:getInvoices", { projectId: "" });
    expect(bad.getFailuresList().map((f) => [f.getProperty(), f.getReason()])).toEqual([
      ["projectId", "projectId must not be empty"],
    ]);
    const filter = await plugin.invoke("pims:index:getAppLogs", { projectId: "p-1", appId: "p-1-web", pageSize: 5000 });
    expect(filter.getFailuresList().map((f) => f.getProperty())).toEqual(["pageSize"]);
    expect(sim.requests).toEqual([]);
  });

  test("getInvoices, getAppLogs, getBuildLogs and cancelRun answer what the SDK functions answer", async () => {
    const project = sim.addProject();
    const app = sim.addApp(project.id, "api");
    sim.addInvoice(project.id, { amountDue: 1999, currency: "usd" });
    sim.addLogs(project.id, app.id, [{ logLine: "hello" }, { logLine: "world" }]);
    sim.addBuild(project.id, app.id, { id: "b-1", status: "success", logs: [{ log: "built" }] });
    const run = sim.addRun(project.id, app.id, { status: "running" });
    const inv = jsonOf((await plugin.invoke("pims:index:getInvoices", { projectId: project.id })).getReturn());
    expect(inv.invoices).toEqual([
      expect.objectContaining({ amountDue: 1999, amountDueMajor: 19.99, currencyDigits: 2 }),
    ]);
    const logs = jsonOf(
      (await plugin.invoke("pims:index:getAppLogs", { projectId: project.id, appId: app.id, limit: 1 })).getReturn(),
    );
    expect(logs).toMatchObject({ truncated: true, lines: [expect.objectContaining({ logLine: expect.any(String) })] });
    const build = jsonOf(
      (
        await plugin.invoke("pims:index:getBuildLogs", { projectId: project.id, appId: app.id, buildId: "b-1" })
      ).getReturn(),
    );
    expect(build).toMatchObject({ status: "success", finished: true, succeeded: true });
    const cancel = await plugin.invoke("pims:index:cancelRun", { projectId: project.id, appId: app.id, runId: run.id });
    expect(typeof jsonOf(cancel.getReturn()).message).toBe("string");
    expect(sim.runs().find((x) => x.id === run.id)?.status).toBe("cancelled");
    const unknown = (await rejectionOf(plugin.invoke("pims:index:getNothing", {}), Error)) as grpc.ServiceError;
    expect(unknown.details).toBe('pulumi-pims: unknown function "pims:index:getNothing"');
  });
});

/** The text with every secret envelope's value masked: what the engine stores encrypted is not plaintext. */
const masked = (text: string): string =>
  text.replace(
    /\{"4dabf18193072939515e22adb298388d":"1b47061264138c4ac30d75fd1eb44270","value":("(?:[^"\\]|\\.)*"|\{[^}]*\})\}/g,
    "[secret]",
  );

test("no answer, error or warning carried a token or secret value outside a secret", () => {
  expect(masked(JSON.stringify({ a: secretOf("x"), b: secretOf({ K: "v" }) }))).toBe('{"a":[secret],"b":[secret]}');
  expectNoPlaintextSecrets(
    seen.map(masked).join("\n"),
    [sim.token, "pw-123-secret", ...sim.issuedSecrets()],
    "answers",
  );
});
