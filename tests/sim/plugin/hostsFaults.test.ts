/**
 * One table of fault cases run through both hosts of the same lifecycle code, with the same expectations: the dynamic
 * provider object TypeScript programs get (`newProvider(kind)`, as the shim loads it) and the plugin's gRPC service
 * YAML and the other languages get. For each case: what the simulator received and holds, and what the user reads.
 */
import type * as grpc from "@grpc/grpc-js";
import { newProvider } from "../../../provider";
import type { PimsSimulator } from "../../../simulator";
import { jsonOf, PluginUnderTest, revealed, type Json } from "../../kit/provider/plugin";
import { configureRequest, recordWarnings, simConfig } from "../../kit/provider/provider";
import { expectNoPlaintextSecrets } from "../../kit/secrets/secrets";
import { startSimulator } from "../../kit/sim/simulator";
import { testClient } from "../../kit/sim/client";

type Kind = "Project" | "ServiceAccount";

/** A host as a test sees it: plain JSON in and out, an Error whose message is what the user reads. */
interface Host {
  check(kind: Kind, news: Json): Promise<{ failures: Array<{ property: string; reason: string }> }>;
  create(kind: Kind, inputs: Json): Promise<{ id: string; outs: Json }>;
  delete(kind: Kind, id: string, props: Json): Promise<void>;
}

/** The dynamic host: the provider objects `newProvider(kind)` gives the shim, configured from stack config. */
async function dynamicHost(sim: PimsSimulator): Promise<Host> {
  const providers = new Map<Kind, ReturnType<typeof newProvider>>();
  const provider = async (kind: Kind): Promise<ReturnType<typeof newProvider>> => {
    let p = providers.get(kind);
    if (p === undefined) {
      p = newProvider(kind);
      await p.configure?.(configureRequest(simConfig(sim)));
      providers.set(kind, p);
    }
    return p;
  };
  return {
    async check(kind, news) {
      const r = await (await provider(kind)).check?.({}, news);
      return { failures: r?.failures ?? [] };
    },
    async create(kind, inputs) {
      const r = await (await provider(kind)).create(inputs);
      return { id: r.id, outs: r.outs as Json };
    },
    async delete(kind, id, props) {
      await (await provider(kind)).delete?.(id, props);
    },
  };
}

/** The plugin: its gRPC service, configured as the engine configures the default provider. */
async function pluginHost(sim: PimsSimulator, plugin: PluginUnderTest): Promise<Host> {
  await plugin.configure({ token: sim.token, baseUrl: sim.baseUrl });
  const plainError = (e: unknown): Error => new Error((e as grpc.ServiceError).details);
  return {
    async check(kind, news) {
      const r = await plugin.check(kind, news);
      return { failures: r.getFailuresList().map((f) => ({ property: f.getProperty(), reason: f.getReason() })) };
    },
    async create(kind, inputs) {
      const r = await plugin.create(kind, inputs).catch((e: unknown) => Promise.reject(plainError(e)));
      return { id: r.getId(), outs: revealed(jsonOf(r.getProperties())) };
    },
    async delete(kind, id, props) {
      await plugin.delete(kind, id, props).catch((e: unknown) => Promise.reject(plainError(e)));
    },
  };
}

const savedEnv = { ...process.env };
let sim: PimsSimulator;
let plugin: PluginUnderTest;
const texts: string[] = [];
const hosts: Record<string, () => Promise<Host>> = {
  "dynamic provider": () => dynamicHost(sim),
  "plugin (gRPC)": () => pluginHost(sim, plugin),
};

beforeAll(async () => {
  process.env.PIMS_RETRY_MIN_DELAY_MS = "5";
  process.env.PIMS_LOST_CREATE_WATCH_MS = "300";
  sim = await startSimulator();
  plugin = await PluginUnderTest.start();
});
afterAll(async () => {
  process.env = savedEnv;
  expectNoPlaintextSecrets(texts.join("\n"), [sim.token, ...sim.issuedSecrets()], "errors and warnings of both hosts");
  await plugin.stop();
  await sim.stop();
});
beforeEach(() => sim.clearFaults());
const warnings = recordWarnings(texts);

/** `METHOD <last path segment> STATUS` of every request since the last clearRequests(). */
const log = (): string[] => sim.requests.map((r) => `${r.method} ${r.path.split("/").pop() ?? ""} ${r.status}`);
const account = (projectId: string, name: string): Json => ({ projectId, name, grants: [projectId], expiresIn: 3600 });
const POST_SA = /\/service-accounts$/;

/** A fault case: its setup, the step through the host, and what must hold afterwards (the same for both hosts). */
interface FaultCase {
  name: string;
  run(host: Host, projectId: string): Promise<void>;
}

const CASES: FaultCase[] = [
  {
    name: "429 (rate limited): waited for and sent again; one project",
    async run(host, projectId) {
      sim.addFault({ method: "POST", path: "/v2/projects", kind: "rateLimit", retryAfter: "0", times: 1 });
      sim.clearRequests();
      const name = `throttled-${projectId}`; // one name per host: the simulator is shared
      const { id } = await host.create("Project", { name });
      expect(log()).toEqual(["POST projects 429", "POST projects 201"]);
      expect(
        sim
          .projects()
          .filter((p) => p.name === name)
          .map((p) => p.id),
      ).toEqual([id]);
    },
  },
  {
    name: "503 before the service committed: the listing shows nothing new, the create is sent again",
    async run(host, projectId) {
      sim.addFault({ method: "POST", path: POST_SA, kind: "status", status: 503, times: 1 });
      sim.clearRequests();
      const { id, outs } = await host.create("ServiceAccount", account(projectId, "retried"));
      expect(log()).toEqual(["POST service-accounts 503", "GET api-keys 200", "POST service-accounts 201"]);
      expect(sim.serviceAccounts(projectId).map((a) => a.id)).toEqual([id]);
      expect(sim.issuedSecrets()).toContain(outs.token);
      expect(warnings().mock.calls.map((c: unknown[]) => String(c[0]))).toEqual([
        expect.stringMatching(/shows no new account named "retried"; create retry 1 of 7 in \S+$/),
      ]);
    },
  },
  {
    name: "commit then 503: not sent again; the error names the account that may be an orphan, without its token",
    async run(host, projectId) {
      sim.addFault({ method: "POST", path: POST_SA, kind: "status", status: 503, afterCommit: true, times: 1 });
      sim.clearRequests();
      const err = await host.create("ServiceAccount", account(projectId, "committed")).then(
        () => Promise.reject(new Error("the create succeeded")),
        (e: Error) => e,
      );
      texts.push(err.message);
      const live = sim.serviceAccounts(projectId);
      expect(live).toHaveLength(1);
      expect(err.message.split("\n")[0]).toBe(
        `creating service account "committed" in project ${projectId}: 503 injected fault`,
      );
      expect(err.message).toContain(`${live[0].id} (created ${live[0].createdAt})`);
      expect(err.message).toContain(`pims service-accounts delete ${projectId} <id>`);
      expect(log()).toEqual(["POST service-accounts 503", "GET api-keys 200"]);
    },
  },
  {
    name: "a create whose answer is lost: never sent again, the listing watched, the error says how to check",
    async run(host, projectId) {
      sim.addFault({ method: "POST", path: POST_SA, kind: "drop", times: 1 });
      sim.clearRequests();
      const err = await host.create("ServiceAccount", account(projectId, "dropped")).then(
        () => Promise.reject(new Error("the create succeeded")),
        (e: Error) => e,
      );
      texts.push(err.message);
      expect(sim.countRequests({ method: "POST", path: POST_SA })).toBe(1);
      expect(
        log()
          .slice(1)
          .every((l) => l === "GET api-keys 200"),
      ).toBe(true);
      expect(err.message).toMatch(/The service did not answer, so it may still create the account/);
      expect(err.message).toContain(`pims service-accounts list ${projectId}`);
      expect(sim.serviceAccounts(projectId)).toEqual([]);
    },
  },
  {
    name: "a delete of an account already gone: the 404 is confirmed by the listing, the delete completes",
    async run(host, projectId) {
      const { id, outs } = await host.create("ServiceAccount", account(projectId, "gone"));
      await testClient(sim).deleteServiceAccount(projectId, id);
      sim.clearRequests();
      await host.delete("ServiceAccount", id, outs);
      // The run's one listing (the orphan notice) comes first; the 404 is confirmed by a listing taken after it.
      expect(log()).toEqual(["GET api-keys 200", "DELETE " + id + " 404", "GET api-keys 200"]);
      expect(sim.serviceAccounts(projectId)).toEqual([]);
    },
  },
  {
    name: "a bad input: the check fails naming each property and rule, and nothing is sent",
    async run(host, projectId) {
      sim.clearRequests();
      const { failures } = await host.check("ServiceAccount", {
        ...account(projectId, "x".repeat(101)),
        grants: [],
        expiresIn: 31_536_001,
      });
      expect(failures).toEqual([
        { property: "name", reason: "name must be 1 to 100 characters (got 101)" },
        { property: "grants", reason: "grants must have 1 to 50 entries (got 0)" },
        {
          property: "expiresIn",
          reason:
            "expiresIn must be an integer number of seconds from 0 to 31536000 (0 = never expires) (got 31536001)",
        },
      ]);
      expect(sim.requests).toEqual([]);
    },
  },
];

describe.each(Object.keys(hosts))("%s", (hostName) => {
  test.each(CASES.map((c) => [c.name, c] as const))("%s", async (_name, c) => {
    const host = await hosts[hostName]();
    const project = sim.addProject();
    await c.run(host, project.id);
  });
});
