/**
 * `pims build-logs` (with --follow and its exit codes) and `pims runs cancel` against the simulator.
 */
import { lines, useCliSuite, waitFor } from "../../kit/sim/cli";

const { pims, seedApp, sim } = useCliSuite();

// ---- build-logs --------------------------------------------------------------------------------------------

describe("pims build-logs", () => {
  it("prints entries and the status; exit 0 for success, 1 for a failed build", async () => {
    const { p, app } = seedApp();
    const ok = sim.addBuild(p, app, {
      status: "success",
      logs: [
        { log: "compiling", createdAt: "2024-05-01T12:00:00Z" },
        { log: "done", createdAt: "2024-05-01T12:00:05Z" },
      ],
    });
    const r = await pims(["build-logs", p, app, ok.id]);
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toEqual(["2024-05-01T12:00:00Z compiling", "2024-05-01T12:00:05Z done"]);
    expect(r.stderr.trim()).toBe(`build ${ok.id}: success`);

    const bad = sim.addBuild(p, app, { status: "build_failure", logs: [{ log: "error TS2304" }] });
    const f = await pims(["build-logs", p, app, bad.id]);
    expect(f.code).toBe(1);
    expect(f.stderr.trim()).toBe(`build ${bad.id}: build_failure`);

    const j = await pims(["build-logs", p, app, bad.id, "--json"]);
    expect(j.code).toBe(1);
    expect(JSON.parse(j.stdout)).toMatchObject({
      buildId: bad.id,
      status: "build_failure",
      finished: true,
      succeeded: false,
      logs: [{ log: "error TS2304" }],
    });
  });

  it("--follow prints only new entries and exits 0 when the build reaches success", async () => {
    const { p, app } = seedApp();
    const b = sim.addBuild(p, app, { status: "building", logs: [{ log: "step 1" }] });
    let stage = 0;
    const r = await pims(["build-logs", p, app, b.id, "--follow", "--interval", "100"], {
      onStdout: (out) => {
        if (stage === 0 && out.includes("step 1")) {
          stage = 1;
          sim.setBuildStatus(p, app, b.id, "building", ["step 2"]);
        } else if (stage === 1 && out.includes("step 2")) {
          stage = 2;
          sim.setBuildStatus(p, app, b.id, "success", ["step 3"]);
        }
      },
    });
    expect(r.code).toBe(0);
    expect(lines(r.stdout).map((l) => l.replace(/^\S+ /, ""))).toEqual(["step 1", "step 2", "step 3"]);
    expect(r.stderr.trim()).toBe(`build ${b.id}: success`);
    expect(sim.countRequests({ method: "GET" })).toBeGreaterThanOrEqual(3);
  });

  it("--follow exits 1 when the build fails", async () => {
    const { p, app } = seedApp();
    const b = sim.addBuild(p, app, { status: "pending" });
    const run = pims(["build-logs", p, app, b.id, "--follow", "--interval", "50", "--json"]);
    await waitFor(() => sim.countRequests({ method: "GET" }) >= 2, "two polls");
    sim.setBuildStatus(p, app, b.id, "init_failure", ["no such image"]);
    const r = await run;
    expect(r.code).toBe(1);
    const objs = lines(r.stdout).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(objs).toEqual([
      expect.objectContaining({ log: "no such image" }),
      { buildId: b.id, status: "init_failure", finished: true, succeeded: false },
    ]);
  });

  it("--follow on an already finished build returns at once", async () => {
    const { p, app } = seedApp();
    const b = sim.addBuild(p, app, { status: "ready", logs: [{ log: "all good" }] });
    const r = await pims(["build-logs", p, app, b.id, "--follow", "--interval", "5000"]);
    expect(r.code).toBe(0);
    expect(sim.countRequests({ method: "GET" })).toBe(1);
    expect(r.stdout).toContain("all good");
  });

  it("--follow --max-polls exits 3 when the build is still running", async () => {
    const { p, app } = seedApp();
    const b = sim.addBuild(p, app, { status: "building" });
    const r = await pims(["build-logs", p, app, b.id, "--follow", "--interval", "20", "--max-polls", "3"]);
    expect(r.code).toBe(3);
    expect(r.stderr.trim()).toBe(`build ${b.id} is still building after 3 polls`);
    expect(sim.countRequests({ method: "GET" })).toBe(3);
  });

  it("--follow interrupted by Ctrl-C while the build runs exits 3", async () => {
    const { p, app } = seedApp();
    const b = sim.addBuild(p, app, { status: "building", logs: [{ log: "step 1" }] });
    let signalled = false;
    const r = await pims(["build-logs", p, app, b.id, "--follow", "--interval", "60000"], {
      timeoutMs: 10_000,
      onStdout: (out, child) => {
        if (!signalled && out.includes("step 1")) {
          signalled = true;
          child.kill("SIGINT");
        }
      },
    });
    expect(r.code).toBe(3);
    expect(r.stderr.trim()).toBe(`build ${b.id} is still building when interrupted`);
  });

  it("an unknown build exits 1 with the service's message", async () => {
    const { p, app } = seedApp();
    const r = await pims(["build-logs", p, app, "build-nope", "--follow"]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(
      `reading logs of build build-nope of app ${app} in project ${p}: 404 build build-nope not found (GET ` +
        `${sim.baseUrl}/v2/projects/${p}/apps/${app}/builds/build-nope/logs)`,
    );
  });
});

// ---- runs cancel -------------------------------------------------------------------------------------------

describe("pims runs cancel", () => {
  it("cancels a running run: prints the message, exit 0", async () => {
    const { p, app } = seedApp();
    const run = sim.addRun(p, app, { status: "running" });
    const r = await pims(["runs", "cancel", p, app, run.id]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(`run ${run.id} cancelled`);
    expect(sim.runs().find((x) => x.id === run.id)?.status).toBe("cancelled");
  });

  it("a finished run: the service's message on stderr, exit 1, run unchanged", async () => {
    const { p, app } = seedApp();
    const run = sim.addRun(p, app, { status: "finished" });
    const r = await pims(["runs", "cancel", p, app, run.id]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(
      `cancelling run ${run.id} of app ${app} in project ${p}: ` +
        `409 run ${run.id} has already finished (status: finished)`,
    );
    expect(sim.runs().find((x) => x.id === run.id)?.status).toBe("finished");
  });

  it("an unknown run: exit 1", async () => {
    const { p, app } = seedApp();
    const r = await pims(["runs", "cancel", p, app, "run-nope"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("404 run run-nope not found");
  });

  it("`pims runs` without a subcommand is a usage error", async () => {
    const r = await pims(["runs"]);
    expect(r.code).toBe(2);
  });
});
