/** Shared by the retry suites: a fully seeded project, the ten operations, and "nothing changed" in the simulator. */
import type { PimsClient } from "../../../provider/client";
import type { PimsSimulator } from "../../../simulator";
import { testClient } from "./client";

export interface Ids {
  projectId: string;
  appId: string;
  volumeId: string;
  runId: string;
  buildId: string;
  accountId: string;
}

/** A project with an app, a volume of 100 GB, a running run, a build and a service account. */
export async function seed(sim: PimsSimulator): Promise<Ids> {
  const projectId = sim.addProject().id;
  const appId = sim.addApp(projectId, "web").id;
  const volumeId = sim.addVolume(projectId, { sizeGb: 100 }).id;
  const runId = sim.addRun(projectId, appId).id;
  const buildId = sim.addBuild(projectId, appId, { status: "success", logs: [{ log: "ok" }] }).id;
  const accountId = (
    await testClient(sim).createServiceAccount(projectId, { name: "seed", grants: [projectId], expiresIn: 0 })
  ).id;
  sim.addLogs(projectId, appId, [{ logLine: "hello" }]);
  sim.clearRequests();
  return { projectId, appId, volumeId, runId, buildId, accountId };
}

export interface Op {
  name: string;
  method: "GET" | "POST" | "PATCH" | "DELETE";
  run: (c: PimsClient, ids: Ids) => Promise<unknown>;
}

export const OPS: Op[] = [
  { name: "listApiKeys", method: "GET", run: (c, i) => c.listApiKeys(i.projectId) },
  {
    name: "createServiceAccount",
    method: "POST",
    run: (c, i) => c.createServiceAccount(i.projectId, { name: "ci", grants: [i.projectId], expiresIn: 60 }),
  },
  { name: "deleteServiceAccount", method: "DELETE", run: (c, i) => c.deleteServiceAccount(i.projectId, i.accountId) },
  { name: "resizeVolume", method: "PATCH", run: (c, i) => c.resizeVolume(i.projectId, i.volumeId, 200) },
  { name: "createProject", method: "POST", run: (c) => c.createProject({ name: "new-project" }) },
  { name: "listInvoices", method: "GET", run: (c, i) => c.listInvoices(i.projectId) },
  { name: "getAppLogsPage", method: "GET", run: (c, i) => c.getAppLogsPage(i.projectId, i.appId) },
  { name: "getBuildLogs", method: "GET", run: (c, i) => c.getBuildLogs(i.projectId, i.appId, i.buildId) },
  { name: "updateAppSecrets", method: "PATCH", run: (c, i) => c.updateAppSecrets(i.projectId, i.appId, { A: "b" }) },
  { name: "cancelRun", method: "DELETE", run: (c, i) => c.cancelRun(i.projectId, i.appId, i.runId) },
];

/** The operation left no trace in the simulator (the seeded state is intact). */
export function expectUnchanged(sim: PimsSimulator, ids: Ids, projectsBefore: number): void {
  expect(sim.projects()).toHaveLength(projectsBefore);
  expect(sim.serviceAccounts(ids.projectId).map((s) => s.id)).toEqual([ids.accountId]);
  expect(sim.volume(ids.projectId, ids.volumeId)?.sizeGb).toBe(100);
  expect(sim.appSecrets(ids.projectId, ids.appId)).toEqual({});
  expect(sim.runs().find((r) => r.id === ids.runId)?.status).toBe("running");
}
