/**
 * ServiceAccount delete against the simulator: a 404 means "gone" only when the service confirms it is the account
 * that is missing. A wrong base address (every route 404s) never drops a live account from the state; a project
 * deleted outside Pulumi fails the delete until the user names it in `pims:goneProjects` (or PIMS_GONE_PROJECTS).
 * Runs under both simulator profiles (the quirky one words its 404s differently).
 */
import { NotFoundError } from "../../../provider/client";
import { ServiceAccountProvider } from "../../../provider/serviceAccount";
import type { PimsSimulator, SimulatorProfile } from "../../../simulator";
import { inputsFor, loose, type LooseServiceAccountProvider } from "../../kit/provider/serviceAccount";
import { configureRequest, simConfig } from "../../kit/provider/provider";
import { expectNoPlaintextSecrets } from "../../kit/secrets/secrets";
import { rejectionOf } from "../../kit/rejection";
import { startSimulator } from "../../kit/sim/simulator";
import { testClient } from "../../kit/sim/client";
import { restoreEnvAfter } from "../../kit/env";

describe.each<SimulatorProfile>(["default", "quirky"])("delete under the %s profile", (profile) => {
  let sim: PimsSimulator;
  let warn: jest.SpyInstance;
  const texts: string[] = [];

  beforeAll(async () => {
    sim = await startSimulator({ profile });
  });
  afterAll(async () => {
    expectNoPlaintextSecrets(texts.join("\n"), [...sim.issuedSecrets(), sim.token], "delete errors and warnings");
    await sim.stop();
  });
  beforeEach(() => {
    sim.clearFaults();
    warn = jest.spyOn(console, "warn").mockImplementation(() => undefined);
  });
  afterEach(() => {
    texts.push(...warn.mock.calls.map((c: unknown[]) => c.map(String).join(" ")));
    warn.mockRestore();
  });

  async function provider(config: Record<string, string> = {}): Promise<LooseServiceAccountProvider> {
    const p = new ServiceAccountProvider();
    await p.configure(configureRequest({ ...simConfig(sim), ...config }));
    return loose(p);
  }
  async function failure(p: Promise<unknown>): Promise<Error> {
    const err = await rejectionOf(p, Error);
    texts.push(err.message);
    return err;
  }
  const log = (): string[] => sim.requests.map((r) => `${r.method} ${r.path} ${r.status}`);

  test("a live account is deleted with one call, after the run's one look at the project's accounts", async () => {
    const project = sim.addProject();
    const p = await provider();
    const { id, outs } = await p.create(inputsFor(project.id, "plain"));
    sim.clearRequests();
    await p.delete(id, outs);
    expect(log()).toEqual([
      `GET /v2/projects/${project.id}/api-keys 200`, // accounts no state holds (provider/serviceAccount/audit.ts)
      `DELETE /v2/projects/${project.id}/service-accounts/${id} ${profile === "quirky" ? 204 : 200}`,
    ]);
    expect(sim.serviceAccounts(project.id)).toEqual([]);
  });

  test("an account deleted outside Pulumi: 404, the API keys confirm it is gone, the delete completes", async () => {
    const project = sim.addProject();
    const p = await provider();
    const { id, outs } = await p.create(inputsFor(project.id, "gone"));
    const other = await p.create(inputsFor(project.id, "stays"));
    await testClient(sim).deleteServiceAccount(project.id, id); // outside Pulumi
    sim.clearRequests();
    await p.delete(id, outs);
    expect(log()).toEqual([
      `GET /v2/projects/${project.id}/api-keys 200`, // the run's look, taken before the DELETE
      `DELETE /v2/projects/${project.id}/service-accounts/${id} 404`,
      `GET /v2/projects/${project.id}/api-keys 200`, // the 404 is confirmed by a listing taken after it
    ]);
    expect(sim.serviceAccounts(project.id).map((a) => a.id)).toEqual([other.id]);
    expect(warn).not.toHaveBeenCalled();
  });

  test("a 404 while the account's key is still listed: delete fails with the URL called; account stays", async () => {
    const project = sim.addProject();
    const p = await provider();
    const { id, outs } = await p.create(inputsFor(project.id, "still-live"));
    sim.addFault({
      method: "DELETE",
      path: `/v2/projects/${project.id}/service-accounts/${id}`,
      kind: "status",
      status: 404,
      times: 1,
    });
    const err = await failure(p.delete(id, outs));
    expect(err.message).toContain(
      `DELETE ${sim.baseUrl}/v2/projects/${project.id}/service-accounts/${id} answered 404`,
    );
    expect(err.message).toContain(
      `GET ${sim.baseUrl}/v2/projects/${project.id}/api-keys still shows an API key of this account: it is live`,
    );
    expect(sim.serviceAccounts(project.id).map((a) => a.id)).toEqual([id]);
    await p.delete(id, outs); // the next attempt deletes it
    expect(sim.serviceAccounts(project.id)).toEqual([]);
  });

  test("a wrong base address (all routes 404) never drops a live account: the error names both causes", async () => {
    const project = sim.addProject();
    const good = await provider();
    const { id, outs } = await good.create(inputsFor(project.id, "wrong-base"));
    const wrongBase = `${sim.baseUrl}/api`;
    const wrong = await provider({ "pims:baseUrl": wrongBase });
    sim.clearRequests();
    const err = await failure(wrong.delete(id, outs));
    expect(err.cause).toBeInstanceOf(NotFoundError);
    expect(log()).toEqual([
      `GET /api/v2/projects/${project.id}/api-keys 404`,
      `DELETE /api/v2/projects/${project.id}/service-accounts/${id} 404`,
      `GET /api/v2/projects/${project.id}/api-keys 404`,
    ]);
    expect(err.message).toContain(
      `DELETE ${wrongBase}/v2/projects/${project.id}/service-accounts/${id} answered 404, and so did GET ` +
        `${wrongBase}/v2/projects/${project.id}/api-keys`,
    );
    expect(err.message).toContain(`Either project ${project.id} was deleted outside Pulumi`);
    expect(err.message).toContain(`or pims:baseUrl (${wrongBase}) does not point at the service`);
    expect(err.message).toContain(`pulumi config set pims:goneProjects ${project.id}`);
    expect(sim.serviceAccounts(project.id).map((a) => a.id)).toEqual([id]); // still live, still in the state
    await good.delete(id, outs);
    expect(sim.serviceAccounts(project.id)).toEqual([]);
  });

  test("a base address ending in /v2 reaches the service: create and delete work", async () => {
    const project = sim.addProject();
    const p = await provider({ "pims:baseUrl": `${sim.baseUrl}/v2` });
    const { id, outs } = await p.create(inputsFor(project.id, "v2-base"));
    expect(sim.serviceAccounts(project.id).map((a) => a.id)).toEqual([id]);
    await p.delete(id, outs);
    expect(sim.serviceAccounts(project.id)).toEqual([]);
  });

  describe("a project deleted outside Pulumi", () => {
    restoreEnvAfter("each", ["PIMS_GONE_PROJECTS"]);

    test("fails without the setting; with pims:goneProjects completes, warning the account was dropped", async () => {
      const project = sim.addProject();
      const p = await provider();
      const { id, outs } = await p.create(inputsFor(project.id, "orphaned-by-project"));
      sim.removeProject(project.id);
      const err = await failure(p.delete(id, outs));
      expect(err.message).toMatch(
        /Either project .* was deleted outside Pulumi .*or pims:baseUrl .* does not point at the service/,
      );
      expect(err.message).toContain(
        "a JSON list or comma-separated project ids; or the PIMS_GONE_PROJECTS environment variable",
      );

      const accepting = await provider({ "pims:goneProjects": JSON.stringify(["p-other", project.id]) });
      sim.clearRequests();
      await accepting.delete(id, outs);
      expect(log()).toEqual([
        `DELETE /v2/projects/${project.id}/service-accounts/${id} 404`,
        `GET /v2/projects/${project.id}/api-keys 404`,
      ]);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0][0])).toContain(
        `service account ${id} was dropped from the state without a delete: project ${project.id} answers 404`,
      );
    });

    test("PIMS_GONE_PROJECTS (comma-separated) works as well; another project's name does not", async () => {
      const project = sim.addProject();
      const p = await provider();
      const { id, outs } = await p.create(inputsFor(project.id, "env-gone"));
      sim.removeProject(project.id);
      process.env.PIMS_GONE_PROJECTS = "p-something-else";
      await failure(p.delete(id, outs));
      process.env.PIMS_GONE_PROJECTS = `p-something-else, ${project.id}`;
      await expect(p.delete(id, outs)).resolves.toBeUndefined();
    });
  });

  test("a failure other than 404 fails the delete; the account stays until a delete succeeds", async () => {
    const project = sim.addProject();
    const p = await provider();
    const { id, outs } = await p.create(inputsFor(project.id, "kept"));
    sim.addFault({ method: "DELETE", path: "/v2/projects/*", kind: "status", status: 500, times: 1 });
    const err = await failure(p.delete(id, outs));
    expect(err.message).toMatch(new RegExp(`deleting service account ${id} in project ${project.id}: 500`));
    expect(sim.serviceAccounts(project.id).map((a) => a.id)).toEqual([id]);
    sim.clearFaults();
    await p.delete(id, outs);
    expect(sim.deletedServiceAccounts()).toContain(id);
  });
});
