/**
 * getBuildLogs and cancelRun against the simulator: status predicates, the service's refusals.
 */
import * as pulumi from "@pulumi/pulumi";
import { cancelRun, getBuildLogs, getBuildLogsOutput } from "../../../sdk/nodejs/functions";
import { useFunctionsSuite } from "../../kit/sim/functions";
import { rejectionOf } from "../../kit/rejection";
import { outputValue } from "../../kit/provider/mocks";

const { opts, sim } = useFunctionsSuite();

// ---- build logs --------------------------------------------------------------------------------------------

describe("getBuildLogs", () => {
  it("returns entries and status, with finished/succeeded", async () => {
    const p = sim.addProject().id;
    const app = sim.addApp(p, "web").id;
    const b = sim.addBuild(p, app, { status: "building", logs: [{ log: "step 1" }, { log: "step 2" }] });

    const first = await getBuildLogs({ projectId: p, appId: app, buildId: b.id }, opts());
    expect(first).toMatchObject({
      projectId: p,
      appId: app,
      buildId: b.id,
      status: "building",
      finished: false,
      succeeded: false,
    });
    expect(first.logs.map((e) => e.log)).toEqual(["step 1", "step 2"]);
    expect(first.logs[0].id).toBeTruthy();

    sim.setBuildStatus(p, app, b.id, "build_failure", ["boom"]);
    const failed = await getBuildLogs({ projectId: p, appId: app, buildId: b.id }, opts());
    expect(failed).toMatchObject({ status: "build_failure", finished: true, succeeded: false });
    expect(failed.logs.map((e) => e.log)).toEqual(["step 1", "step 2", "boom"]);

    sim.setBuildStatus(p, app, b.id, "ready");
    const out = getBuildLogsOutput({ projectId: p, appId: app, buildId: pulumi.output(b.id) }, opts());
    expect(await outputValue(out)).toMatchObject({ status: "ready", finished: true, succeeded: true });
  });

  it("an unknown build is a NotFoundError with the service's message", async () => {
    const p = sim.addProject().id;
    const app = sim.addApp(p, "web").id;
    const err = await rejectionOf(getBuildLogs({ projectId: p, appId: app, buildId: "build-nope" }, opts()));
    expect(err).toMatchObject({ kind: "not_found", status: 404 });
    expect(err.message).toBe(
      `reading logs of build build-nope of app ${app} in project ${p}: 404 build build-nope not found (GET ` +
        `${sim.baseUrl}/v2/projects/${p}/apps/${app}/builds/build-nope/logs)`,
    );
  });
});

// ---- cancel a run ------------------------------------------------------------------------------------------

describe("cancelRun", () => {
  let p: string;
  let app: string;
  beforeEach(() => {
    p = sim.addProject().id;
    app = sim.addApp(p, "web").id;
  });

  it("cancels a running run and returns the service's message", async () => {
    const run = sim.addRun(p, app, { status: "running" });
    const r = await cancelRun({ projectId: p, appId: app, runId: run.id }, opts());
    expect(r).toEqual({ message: `run ${run.id} cancelled` });
    expect(sim.runs().find((x) => x.id === run.id)?.status).toBe("cancelled");
    expect(sim.countRequests({ method: "DELETE" })).toBe(1);
  });

  it("a finished run is refused with a ConflictError carrying the message, and stays finished", async () => {
    const run = sim.addRun(p, app, { status: "finished" });
    const err = await rejectionOf(cancelRun({ projectId: p, appId: app, runId: run.id }, opts()));
    expect(err).toMatchObject({ kind: "conflict", status: 409 });
    expect(err.message).toContain(`409 run ${run.id} has already finished (status: finished)`);
    expect(sim.runs().find((x) => x.id === run.id)?.status).toBe("finished");
  });

  it("an unknown run is a NotFoundError", async () => {
    const err = await rejectionOf(cancelRun({ projectId: p, appId: app, runId: "run-nope" }, opts()));
    expect(err).toMatchObject({ kind: "not_found" });
    expect(err.message).toContain("404 run run-nope not found");
  });
});
