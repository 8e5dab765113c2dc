/**
 * The plugin's gRPC service in this process, called as the engine calls it, against the simulator: the resources'
 * methods (check, diff, create, read, update, delete), what the simulator holds after each step, which values come
 * back secret, and the progress and warning lines the engine receives.
 */
import * as grpc from "@grpc/grpc-js";
import * as emptyproto from "google-protobuf/google/protobuf/empty_pb";
import * as enginerpc from "@pulumi/pulumi/proto/engine_grpc_pb";
import * as engineproto from "@pulumi/pulumi/proto/engine_pb";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import { UNKNOWN } from "../../../provider/checks";
import { sendLinesToEngine } from "../../../provider/engineLog";
import { rejectionOf } from "../../kit/rejection";
import {
  jsonOf,
  partialState,
  revealed,
  secretKeysOf,
  secretOf,
  urnOf,
  usePluginSuite,
  type Json,
} from "../../kit/provider/plugin";

const suite = usePluginSuite();

const saInputs = (projectId: string, name: string, extra: Json = {}): Json => ({
  projectId,
  name,
  grants: [projectId],
  expiresIn: 3600,
  ...extra,
});

describe("resources", () => {
  test("Check: the dynamic host's failures, naming the property and the rule; unknowns skipped", async () => {
    const project = suite.sim.addProject();
    suite.sim.clearRequests();
    const bad = await suite.plugin.check("ServiceAccount", saInputs(project.id, "", { expiresIn: -1 }));
    expect(bad.getFailuresList().map((f) => f.getProperty())).toEqual(["name", "expiresIn"]);
    expect(bad.getFailuresList()[1].getReason()).toMatch(/^expiresIn must be an integer number of seconds from 0/);
    const unknown = await suite.plugin.check("ServiceAccount", saInputs(UNKNOWN, "svc", { grants: [UNKNOWN] }));
    expect(unknown.getFailuresList()).toEqual([]);
    expect(jsonOf(unknown.getInputs())).toMatchObject({ projectId: UNKNOWN, description: "" });
    expect(suite.sim.requests).toEqual([]); // no call at check
  });

  test("Check keeps secret inputs secret; AppSecrets' map is always secret", async () => {
    const r = await suite.plugin.check("AppSecrets", { projectId: "p-1", appId: "p-1-web", secrets: { A: "plain-a" } });
    expect(secretKeysOf(jsonOf(r.getInputs()))).toEqual(["secrets"]);
    const sa = await suite.plugin.check("ServiceAccount", saInputs("p-1", "x", { description: secretOf("hidden") }));
    expect(secretKeysOf(jsonOf(sa.getInputs()))).toEqual(["description"]);
  });

  test("ServiceAccount: preview, create, diff, read, update, delete; the token secret in every answer", async () => {
    const project = suite.sim.addProject();
    const ins = jsonOf((await suite.plugin.check("ServiceAccount", saInputs(project.id, "ci"))).getInputs());
    suite.sim.clearRequests();
    const preview = jsonOf((await suite.plugin.create("ServiceAccount", ins, true)).getProperties());
    expect(revealed(preview)).toMatchObject({ name: "ci", serviceAccountId: UNKNOWN, token: UNKNOWN });
    expect(secretKeysOf(preview)).toEqual(["token"]);
    expect(suite.sim.requests).toEqual([]);

    const created = await suite.plugin.create("ServiceAccount", ins);
    const outs = jsonOf(created.getProperties());
    expect(secretKeysOf(outs)).toEqual(["token"]);
    const live = suite.sim.serviceAccounts(project.id);
    expect(live.map((a) => a.id)).toEqual([created.getId()]);
    expect(suite.sim.issuedSecrets()).toContain(revealed(outs).token);
    expect(outs).not.toHaveProperty("__provider");

    const same = await suite.plugin.diff("ServiceAccount", created.getId(), outs, ins, ins);
    expect(same.getChanges()).toBe(provproto.DiffResponse.DiffChanges.DIFF_NONE);
    const renamed = await suite.plugin.diff("ServiceAccount", created.getId(), outs, { ...ins, name: "ci-2" }, ins);
    expect(renamed.getReplacesList()).toEqual(["name"]);
    expect(renamed.getDetaileddiffMap().get("name")?.getKind()).toBe(provproto.PropertyDiff.Kind.UPDATE_REPLACE);
    const window = await suite.plugin.diff(
      "ServiceAccount",
      created.getId(),
      outs,
      { ...ins, rotateBeforeExpiry: 60 },
      ins,
    );
    expect(window.getReplacesList()).toEqual([]);
    expect(window.getDetaileddiffMap().get("rotateBeforeExpiry")?.getKind()).toBe(provproto.PropertyDiff.Kind.ADD);

    const read = await suite.plugin.read("ServiceAccount", created.getId(), outs, ins);
    expect(jsonOf(read.getProperties())).toEqual(outs);
    expect(jsonOf(read.getInputs())).toEqual(ins);

    suite.sim.clearRequests();
    const previewed = jsonOf(
      (
        await suite.plugin.update("ServiceAccount", created.getId(), outs, { ...ins, rotationTrigger: "r2" }, true)
      ).getProperties(),
    );
    expect(revealed(previewed)).toMatchObject({ rotationTrigger: "r2", serviceAccountId: UNKNOWN, token: UNKNOWN });
    expect(secretKeysOf(previewed)).toEqual(["previousToken", "token"]);
    const updated = jsonOf(
      (
        await suite.plugin.update("ServiceAccount", created.getId(), outs, { ...ins, rotateBeforeExpiry: 60 })
      ).getProperties(),
    );
    expect(suite.sim.requests).toEqual([]); // a local option: no call, same token
    expect(revealed(updated)).toMatchObject({ rotateBeforeExpiry: 60, token: revealed(outs).token });
    expect(secretKeysOf(updated)).toEqual(["token"]);

    await suite.plugin.delete("ServiceAccount", created.getId(), updated);
    expect(suite.sim.serviceAccounts(project.id)).toEqual([]);
    suite.seen.push(JSON.stringify([preview, outs, updated, jsonOf(read.getProperties())]));
  });

  test("an update that created an account but failed a delete stores the partial state, secret", async () => {
    const project = suite.sim.addProject();
    const ins = saInputs(project.id, "overlap", { expiresIn: 3600, rotateBeforeExpiry: 1800, keepPreviousToken: true });
    const created = await suite.plugin.create("ServiceAccount", ins);
    const first = jsonOf(created.getProperties());
    const rotated = jsonOf(
      (
        await suite.plugin.update("ServiceAccount", created.getId(), first, { ...ins, rotationTrigger: "1" })
      ).getProperties(),
    );
    expect(secretKeysOf(rotated)).toEqual(["previousToken", "token"]);
    suite.sim.addFault({ method: "DELETE", path: /\/service-accounts\//, kind: "status", status: 500, times: 20 });
    const err = (await rejectionOf(
      suite.plugin.update("ServiceAccount", created.getId(), rotated, { ...ins, rotationTrigger: "2" }),
      Error,
    )) as grpc.ServiceError;
    expect(err.details).toMatch(/the rotation created account \S+ \(its token is stored in the state\) but deleting/);
    const partial = partialState(err);
    expect(partial?.id).toBe(created.getId());
    expect(partial?.properties).not.toHaveProperty("__provider");
    expect(secretKeysOf(partial?.properties ?? {})).toEqual(["previousToken", "token"]);
    const state = revealed(partial?.properties ?? {});
    expect(state.retiredServiceAccountIds).toEqual([revealed(first).serviceAccountId]);
    expect(suite.sim.issuedSecrets()).toContain(state.token);
    suite.seen.push(err.details, JSON.stringify(partial?.properties));
    suite.sim.clearFaults();
    await suite.plugin.delete("ServiceAccount", created.getId(), state);
    expect(suite.sim.serviceAccounts(project.id)).toEqual([]);
  });

  test("Project, VolumeSize and AppSecrets through the suite.plugin, with their warnings", async () => {
    const project = await suite.plugin.create("Project", { name: "yaml-project" });
    expect(suite.sim.project(project.getId())?.name).toBe("yaml-project");
    const projectId = project.getId();
    suite.sim.addVolume(projectId, { id: "default-us-east-1", sizeGb: 50 });
    suite.sim.addApp(projectId, "web");
    const vol = await suite.plugin.create("VolumeSize", { projectId, volumeId: "default-us-east-1", sizeGb: 100 });
    expect(suite.sim.volume(projectId, "default-us-east-1")?.sizeGb).toBe(100);
    const grown = await suite.plugin.update("VolumeSize", vol.getId(), jsonOf(vol.getProperties()), {
      projectId,
      volumeId: "default-us-east-1",
      sizeGb: 200,
    });
    expect(jsonOf(grown.getProperties()).sizeGb).toBe(200);
    const shrink = await suite.plugin.check(
      "VolumeSize",
      { projectId, volumeId: "default-us-east-1", sizeGb: 60 },
      { projectId, volumeId: "default-us-east-1", sizeGb: 200 },
    );
    expect(shrink.getFailuresList()[0].getReason()).toBe("sizeGb cannot shrink from 200 to 60: volumes only grow");
    const secrets = await suite.plugin.create("AppSecrets", {
      projectId,
      appId: `${projectId}-web`,
      secrets: secretOf({ DB_PASSWORD: "pw-123-secret" }),
    });
    const outs = jsonOf(secrets.getProperties());
    expect(secretKeysOf(outs)).toEqual(["secrets"]);
    expect(outs.secretNames).toEqual(["DB_PASSWORD"]);
    expect(suite.sim.appSecrets(projectId, `${projectId}-web`)).toEqual({ DB_PASSWORD: "pw-123-secret" });
    await suite.plugin.delete("AppSecrets", secrets.getId(), revealed(outs));
    await suite.plugin.delete("Project", projectId, jsonOf(project.getProperties()));
    expect(suite.warnings().mock.calls.map((c: unknown[]) => String(c[0]))).toEqual([
      expect.stringContaining(`AppSecrets of app ${projectId}-web in project ${projectId} was removed from the stack`),
      expect.stringContaining(`project ${projectId} ("yaml-project") was removed from the stack`),
    ]);
    suite.seen.push(JSON.stringify(outs));
  });

  test("an import of a kind the service cannot read is refused with what to write; unknown types named", async () => {
    const err = (await rejectionOf(suite.plugin.read("VolumeSize", "p-1/v-1", {}), Error)) as grpc.ServiceError;
    expect(err.details).toMatch(/^pulumi-pims: volume size p-1\/v-1 cannot be imported: .*Declare a VolumeSize/);
    const bad = (await rejectionOf(suite.plugin.check("Nope", {}), Error)) as grpc.ServiceError;
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
      const project = await suite.plugin.create("Project", { name: "logged" });
      // A planned rotation is progress: INFO (the CLI shows it without "warning:").
      const ins = saInputs(project.getId(), "logged-sa", { keepPreviousToken: true });
      const created = await suite.plugin.create("ServiceAccount", ins);
      const first = jsonOf(created.getProperties());
      await suite.plugin.update("ServiceAccount", created.getId(), first, { ...ins, rotationTrigger: "1" });
      // Something left in the service is a warning: WARNING.
      await suite.plugin.delete("Project", project.getId(), jsonOf(project.getProperties()));
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
      expect(suite.warnings()).not.toHaveBeenCalled(); // not on stderr as well
    } finally {
      restore();
      engine.forceShutdown();
    }
  });
});

test("no answer, error or warning carried a token or secret value outside a secret", () => {
  suite.expectNoSecretsSeen(["pw-123-secret", ...suite.sim.issuedSecrets()]);
});
