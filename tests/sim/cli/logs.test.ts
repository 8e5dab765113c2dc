/**
 * `pims logs` against the simulator: filters, limits, paging, and --follow (no line lost or repeated).
 */
import { lines, useCliSuite, waitFor } from "../../kit/sim/cli";

const { pims, seedApp, sim } = useCliSuite();

// ---- logs --------------------------------------------------------------------------------------------------

describe("pims logs", () => {
  function seedThree(p: string, app: string): void {
    sim.addLogs(p, app, [
      { timestamp: "2024-05-01T12:00:00.000Z", logLine: "boot", containerName: "web", runId: "run-a" },
      {
        timestamp: "2024-05-01T12:00:01.000Z",
        logLine: "ERROR disk",
        containerName: "worker",
        runId: "run-a",
        stream: "stderr",
      },
      { timestamp: "2024-05-01T12:00:02.000Z", logLine: "ready", containerName: "web", runId: "run-b" },
    ]);
  }

  it("prints `timestamp [stream] container: line`, oldest first", async () => {
    const { p, app } = seedApp();
    seedThree(p, app);
    const r = await pims(["logs", p, app]);
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toEqual([
      "2024-05-01T12:00:00.000Z [stdout] web: boot",
      "2024-05-01T12:00:01.000Z [stderr] worker: ERROR disk",
      "2024-05-01T12:00:02.000Z [stdout] web: ready",
    ]);
    expect(r.stderr).toBe("");
  });

  it("passes every filter under the service's query names", async () => {
    const { p, app } = seedApp();
    seedThree(p, app);
    const r = await pims([
      "logs",
      p,
      app,
      "--before",
      "2024-05-01T13:00:00Z",
      "--after",
      "2024-05-01T11:00:00Z",
      "--container",
      "worker",
      "--run",
      "run-a",
      "--search",
      "ERROR",
      "--stream",
      "stderr",
      "--direction",
      "forward",
      "--page-size",
      "50",
      "--limit",
      "10",
    ]);
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toEqual(["2024-05-01T12:00:01.000Z [stderr] worker: ERROR disk"]);
    expect(sim.requests.map((q) => q.query)).toEqual([
      {
        beforeDate: "2024-05-01T13:00:00Z",
        afterDate: "2024-05-01T11:00:00Z",
        container: "worker",
        runId: "run-a",
        search: "ERROR",
        stream: "stderr",
        direction: "forward",
        pageSize: "50",
      },
    ]);
  });

  it("--after accepts a duration ago", async () => {
    const { p, app } = seedApp();
    sim.addLogs(p, app, [{ logLine: "just now" }]);
    const before = Date.now();
    const r = await pims(["logs", p, app, "--after", "15m"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("just now");
    const sent = Date.parse(sim.requests[0].query.afterDate);
    expect(Math.abs(sent - (before - 15 * 60_000))).toBeLessThan(10_000);
  });

  it("--limit cuts, says so on stderr, and --json gives {lines, truncated}", async () => {
    const { p, app } = seedApp();
    sim.generateLogs(p, app, 50);
    const r = await pims(["logs", p, app, "--limit", "5"]);
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toHaveLength(5);
    expect(lines(r.stdout)[0]).toContain("(line 45)"); // the newest five, oldest first
    expect(lines(r.stdout)[4]).toContain("#49");
    expect(r.stderr).toContain("showing the newest 5 lines; more exist");

    const j = await pims(["logs", p, app, "--limit", "3", "--json", "--direction", "forward"]);
    expect(j.code).toBe(0);
    const body = JSON.parse(j.stdout) as { lines: Array<{ logLine: string }>; truncated: boolean };
    expect(body.truncated).toBe(true);
    expect(body.lines.map((l) => l.logLine)).toEqual([
      expect.stringContaining("(line 0)"),
      expect.stringContaining("(line 1)"),
      expect.stringContaining("(line 2)"),
    ]);
  });

  it("pages through 2500 lines", async () => {
    const { p, app } = seedApp();
    sim.generateLogs(p, app, 2500);
    const r = await pims(["logs", p, app, "--page-size", "200", "--limit", "5000"]);
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toHaveLength(2500);
    expect(sim.countRequests({ method: "GET" })).toBe(13);
  });

  it("an app without logs prints nothing and exits 0; an unknown app exits 1", async () => {
    const { p, app } = seedApp();
    const empty = await pims(["logs", p, app]);
    expect(empty).toMatchObject({ code: 0, stdout: "" });
    const unknown = await pims(["logs", p, `${p}-nope`]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr.trim()).toBe(
      `reading logs of app ${p}-nope in project ${p}: 404 app ${p}-nope not found (GET ` +
        `${sim.baseUrl}/v2/projects/${p}/apps/${p}-nope/logs)`,
    );
  });

  it("--follow prints lines appended between polls exactly once, then stops after --max-polls", async () => {
    const { p, app } = seedApp();
    seedThree(p, app);
    let stage = 0;
    let newOne = "";
    const run = pims(["logs", p, app, "--follow", "--interval", "150", "--max-polls", "8"], {
      onStdout: (out) => {
        if (stage === 0 && lines(out).length >= 3) {
          stage = 1;
          newOne = sim.addLogs(p, app, [{ logLine: "new one" }])[0].timestamp;
        } else if (stage === 1 && out.includes("new one")) {
          stage = 2;
          // Appended after "new one" was printed, in the same millisecond: must be neither lost nor repeated.
          sim.addLogs(p, app, [{ logLine: "same millisecond", timestamp: newOne }]);
        } else if (stage === 2 && out.includes("same millisecond")) {
          stage = 3;
          sim.addLogs(p, app, [{ logLine: "later", stream: "stderr", containerName: "worker" }]);
        }
      },
    });
    const r = await run;
    expect(r.code).toBe(0);
    const printed = lines(r.stdout).map((l) => l.slice(l.indexOf(": ") + 2));
    expect(printed).toEqual(["boot", "ERROR disk", "ready", "new one", "same millisecond", "later"]);
    expect(lines(r.stdout)[5]).toMatch(/ \[stderr\] worker: later$/);
    // One initial read and exactly --max-polls polls, all forward from the newest line seen.
    expect(sim.countRequests({ method: "GET" })).toBe(9);
    const polls = sim.requests.slice(1);
    expect(polls.every((q) => q.query.direction === "forward" && typeof q.query.afterDate === "string")).toBe(true);
  });

  it("--follow --json prints one JSON object per line, no duplicates across polls", async () => {
    const { p, app } = seedApp();
    seedThree(p, app);
    const r = await pims(["logs", p, app, "--follow", "--json", "--interval", "50", "--max-polls", "3"]);
    expect(r.code).toBe(0);
    const objs = lines(r.stdout).map((l) => JSON.parse(l) as { logId: string; logLine: string });
    expect(objs.map((o) => o.logLine)).toEqual(["boot", "ERROR disk", "ready"]);
    expect(new Set(objs.map((o) => o.logId)).size).toBe(3);
    expect(sim.countRequests({ method: "GET" })).toBe(4); // the polls did read the newest line again
    expect(sim.requests.slice(1).every((q) => q.status === 200)).toBe(true);
  });

  it("--follow stops on Ctrl-C (SIGINT) and exits 0", async () => {
    const { p, app } = seedApp();
    seedThree(p, app);
    let signalled = false;
    const r = await pims(["logs", p, app, "--follow", "--interval", "60000"], {
      timeoutMs: 10_000,
      onStdout: (out, child) => {
        if (!signalled && lines(out).length >= 3) {
          signalled = true;
          child.kill("SIGINT");
        }
      },
    });
    expect(signalled).toBe(true);
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toHaveLength(3);
  });

  it("--follow on an empty app picks up the first lines", async () => {
    const { p, app } = seedApp();
    const run = pims(["logs", p, app, "--follow", "--interval", "100", "--max-polls", "5"]);
    await waitFor(() => sim.countRequests({ method: "GET" }) >= 2, "the first poll");
    sim.addLogs(p, app, [{ logLine: "first" }, { logLine: "second" }]);
    const r = await run;
    expect(r.code).toBe(0);
    expect(lines(r.stdout).map((l) => l.slice(l.indexOf(": ") + 2))).toEqual(["first", "second"]);
  });
});
