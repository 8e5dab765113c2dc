/**
 * ServiceAccount builds every client through its base class (provider/providerBase.ts), as the other kinds do: through
 * the plugin's gRPC service against the simulator, a refused token is named as the plugin's users write it, and every
 * retry is a progress line, including the retry of a call made with an account's own token (the proof that a token
 * taken from the API-key listing works), which used to be built around the base and retried silently.
 */
import type * as grpc from "@grpc/grpc-js";
import { newRun } from "../../../provider/serviceAccount/run";
import type { PimsSimulator } from "../../../simulator";
import { jsonOf, PluginUnderTest, revealed, startPluginWithSimulator } from "../../kit/provider/plugin";
import { expectNoPlaintextSecrets } from "../../kit/secrets/secrets";
import { recordWarnings } from "../../kit/provider/provider";
import { rejectionOf } from "../../kit/rejection";
import { testClient } from "../../kit/sim/client";

const PLUGIN_TOKEN_WORDING =
  "pims:token (the stack config), or the token argument of the explicit provider (pulumi:providers:pims)";

let sim: PimsSimulator;
let plugin: PluginUnderTest;
let stop: () => Promise<void>;
const seen: string[] = []; // every error and line: scanned for plaintext tokens at the end
const warnings = recordWarnings(seen);
const lines = (): string[] => warnings().mock.calls.map((c: unknown[]) => c.map(String).join(" "));
const retryLineOf = (method: string, path: string): RegExp =>
  new RegExp(`^pulumi-pims: ${method} ${path}: HTTP 503; retry 1 of \\d+ in \\d+ms$`);

beforeAll(async () => {
  ({ sim, plugin, stop } = await startPluginWithSimulator());
});
afterAll(() => stop());
beforeEach(() => {
  newRun(); // each test is one engine operation
  sim.clearRequests();
});

async function refusal(p: Promise<unknown>): Promise<string> {
  const details = ((await rejectionOf(p, Error)) as grpc.ServiceError).details;
  seen.push(details);
  return details;
}

test("a refused token is named as the plugin's users write it, for a ServiceAccount as for a Project", async () => {
  const projectId = sim.addProject({ name: "wording" }).id;
  const held = await testClient(sim).createServiceAccount(projectId, {
    name: "held",
    description: "",
    grants: [projectId],
    expiresIn: 0,
  });
  const wrong = await PluginUnderTest.start();
  try {
    await wrong.configure({ token: "wrong-token-0123456789", baseUrl: sim.baseUrl });
    const project = await refusal(wrong.create("Project", { name: "refused" }));
    const account = { projectId, name: "refused", grants: [projectId], expiresIn: 0 };
    const created = await refusal(wrong.create("ServiceAccount", account));
    const props = { ...account, serviceAccountId: held.id, token: "not-this-one", tokenHeld: true };
    const deleted = await refusal(wrong.delete("ServiceAccount", held.id, props));
    for (const said of [project, created, deleted]) {
      expect(said).toContain(`the token set in ${PLUGIN_TOKEN_WORDING} was refused`);
      expect(said).not.toContain("pims.Provider");
    }
  } finally {
    await wrong.stop();
  }
  // nothing was created, and the account the refused delete named is still there
  expect(sim.serviceAccounts(projectId).map((a) => a.id)).toEqual([held.id]);
});

test("a retry is a progress line for a ServiceAccount's delete as for a VolumeSize's resize", async () => {
  const projectId = sim.addProject({ name: "retries" }).id;
  sim.addVolume(projectId, { id: "vol-retry", sizeGb: 50 });
  const a = await testClient(sim).createServiceAccount(projectId, {
    name: "to-delete",
    description: "",
    grants: [projectId],
    expiresIn: 0,
  });
  sim.addFault({ method: "PATCH", path: /\/resize$/, kind: "status", status: 503, times: 1 });
  sim.addFault({ method: "DELETE", path: /\/service-accounts\//, kind: "status", status: 503, times: 1 });
  await plugin.create("VolumeSize", { projectId, volumeId: "vol-retry", sizeGb: 75 });
  const props = { projectId, name: "to-delete", grants: [projectId], expiresIn: 0, serviceAccountId: a.id };
  await plugin.delete("ServiceAccount", a.id, props);
  expect(sim.volume(projectId, "vol-retry")?.sizeGb).toBe(75);
  expect(sim.serviceAccounts(projectId)).toEqual([]);
  expect(lines()).toEqual(
    expect.arrayContaining([
      expect.stringMatching(retryLineOf("PATCH", `/v2/projects/${projectId}/volumes/vol-retry/resize`)),
      expect.stringMatching(retryLineOf("DELETE", `/v2/projects/${projectId}/service-accounts/${a.id}`)),
    ]),
  );
});

test("a retry of the call made with an account's own token (an import's proof) is a progress line", async () => {
  const projectId = sim.addProject({ name: "probe-retry" }).id;
  sim.setApiKeyValues("full");
  try {
    const made = await Promise.all(
      ["first", "second"].map((name) =>
        testClient(sim).createServiceAccount(projectId, { name, description: "", grants: [projectId], expiresIn: 0 }),
      ),
    );
    // The first import takes the run's one listing of the project and proves the first token.
    const first = await plugin.read("ServiceAccount", `${projectId}/${made[0].id}`, {});
    expect(revealed(jsonOf(first.getProperties()))).toMatchObject({ tokenHeld: true, token: made[0].token.secret });
    expect(lines()).toEqual([expect.stringContaining("imported")]);
    // The second reuses that listing: its one request is the proof of its token, which meets a 503 once.
    sim.clearRequests();
    sim.addFault({ method: "GET", path: /\/api-keys$/, kind: "status", status: 503, times: 1 });
    const second = await plugin.read("ServiceAccount", `${projectId}/${made[1].id}`, {});
    expect(sim.requests.map((r) => `${r.method} ${r.status}`)).toEqual(["GET 503", "GET 200"]);
    expect(revealed(jsonOf(second.getProperties()))).toMatchObject({ tokenHeld: true, token: made[1].token.secret });
    const retries = lines().filter((l) => / retry \d+ of /.test(l));
    expect(retries).toEqual([expect.stringMatching(retryLineOf("GET", `/v2/projects/${projectId}/api-keys`))]);
    seen.push(...made.map((m) => m.id));
    expectNoPlaintextSecrets(
      lines().join("\n"),
      made.map((m) => m.token.secret),
      "progress lines",
    );
  } finally {
    sim.setApiKeyValues("masked");
  }
});

test("no error or line carried a token in plaintext", () => {
  expect(seen.length).toBeGreaterThan(0);
  expectNoPlaintextSecrets(seen.join("\n"), [sim.token, "wrong-token-0123456789"], "errors and progress lines");
});
