/** The default profile: app logs (filters, paging, page sizes, 204 when nothing matches). */
import type { AppLogLine, AppLogPage } from "../../../simulator/types";
import { message, type CallResult, useSimulatorSuite } from "../../kit/sim/http";

const suite = useSimulatorSuite("default");
const { call, seedApp } = suite;

describe("GET /v2/projects/{project_id}/apps/{app_id}/logs", () => {
  const logsPath = (projectId: string, appId: string) => `/v2/projects/${projectId}/apps/${appId}/logs`;

  async function page(projectId: string, appId: string, query: Record<string, string>): Promise<CallResult> {
    return call("GET", logsPath(projectId, appId), { query });
  }

  async function all(projectId: string, appId: string, query: Record<string, string>): Promise<AppLogLine[]> {
    const lines: AppLogLine[] = [];
    let token: string | undefined;
    for (;;) {
      const r = await page(projectId, appId, token ? { ...query, nextToken: token } : query);
      if (r.status === 204) return lines;
      expect(r.status).toBe(200);
      const body = r.json as AppLogPage;
      lines.push(...body.logs);
      if (!body.hasMore) {
        expect(body).not.toHaveProperty("nextPageToken");
        return lines;
      }
      token = body.nextPageToken;
      expect(typeof token).toBe("string");
    }
  }

  it("answers 204 with an empty body when nothing matches", async () => {
    const { projectId, appId } = seedApp();
    const empty = await page(projectId, appId, {});
    expect(empty.status).toBe(204);
    expect(empty.text).toBe("");
    suite.sim.addLogs(projectId, appId, [{ logLine: "hello" }]);
    expect((await page(projectId, appId, { search: "absent" })).status).toBe(204);
    expect((await page(projectId, appId, { runId: "run-unknown" })).status).toBe(204);
  });

  it("fills defaults in addLogs and returns newest first by default", async () => {
    const { projectId, appId } = seedApp();
    const run = suite.sim.addRun(projectId, appId);
    const added = suite.sim.addLogs(projectId, appId, [{ logLine: "one" }, { logLine: "two", stream: "stderr" }]);
    expect(added[0]).toMatchObject({ appId, projectId, runId: run.id, stream: "stdout", containerName: "web" });
    expect(Date.parse(added[1].timestamp)).toBeGreaterThan(Date.parse(added[0].timestamp));
    expect(added[0].logId).not.toBe(added[1].logId);

    const r = await page(projectId, appId, {});
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ hasMore: false, logs: [added[1], added[0]] });
    const forward = await page(projectId, appId, { direction: "forward" });
    expect((forward.json as AppLogPage).logs).toEqual(added);
  });

  it("filters by container name or id, run, stream, search and dates", async () => {
    const { projectId, appId } = seedApp();
    const start = new Date("2030-01-01T00:00:00Z");
    suite.sim.generateLogs(projectId, appId, 100, {
      containers: ["web", "worker"],
      runIds: ["run-a", "run-b"],
      startTime: start,
      stepMs: 1000,
    });
    const byName = await all(projectId, appId, { container: "worker" });
    expect(byName).toHaveLength(50);
    expect(byName.every((l) => l.containerName === "worker")).toBe(true);
    const byId = await all(projectId, appId, { container: byName[0].containerId });
    expect(byId).toEqual(byName);

    const runB = await all(projectId, appId, { runId: "run-b" });
    expect(runB).toHaveLength(50);
    expect(runB.every((l) => l.runId === "run-b")).toBe(true);

    const stderr = await all(projectId, appId, { stream: "stderr" });
    expect(stderr).toHaveLength(10);
    expect(stderr.every((l) => l.stream === "stderr")).toBe(true);

    const search = await all(projectId, appId, { search: "failure #19" });
    expect(search.map((l) => l.logLine)).toEqual(["error: simulated failure #19"]);

    const window = await all(projectId, appId, {
      afterDate: "2030-01-01T00:00:10Z",
      beforeDate: "2030-01-01T00:00:20Z",
      direction: "forward",
    });
    expect(window.map((l) => l.timestamp)).toEqual(
      Array.from({ length: 9 }, (_, i) => new Date(start.getTime() + (11 + i) * 1000).toISOString()),
    );

    const combined = await all(projectId, appId, { container: "worker", stream: "stderr", runId: "run-a" });
    expect(combined.map((l) => l.logLine)).toEqual([49, 39, 29, 19, 9].map((i) => `error: simulated failure #${i}`));
    expect(combined.every((l) => l.containerName === "worker" && l.runId === "run-a")).toBe(true);
  });

  it("pages through 100k lines with nextToken in both directions", async () => {
    const { projectId, appId } = seedApp();
    suite.sim.generateLogs(projectId, appId, 100_000, { containers: ["a", "b", "c"] });

    const first = await page(projectId, appId, {});
    expect((first.json as AppLogPage).logs).toHaveLength(200);
    expect((first.json as AppLogPage).hasMore).toBe(true);

    const forward = await all(projectId, appId, { direction: "forward", pageSize: "1000" });
    expect(forward).toHaveLength(100_000);
    const stamps = forward.map((l) => Date.parse(l.timestamp));
    expect(stamps.every((t, i) => i === 0 || t > stamps[i - 1])).toBe(true);
    expect(new Set(forward.map((l) => l.logId)).size).toBe(100_000);

    const backwardC = await all(projectId, appId, { container: "c", pageSize: "777" });
    expect(backwardC).toHaveLength(33_333);
    const stampsC = backwardC.map((l) => Date.parse(l.timestamp));
    expect(stampsC.every((t, i) => i === 0 || t < stampsC[i - 1])).toBe(true);
  });

  it("keeps paging correct when lines are appended between pages", async () => {
    const { projectId, appId } = seedApp();
    suite.sim.generateLogs(projectId, appId, 10, { startTime: new Date("2030-01-01T00:00:00Z") });
    const p1 = (await page(projectId, appId, { pageSize: "4" })).json as AppLogPage;
    suite.sim.addLogs(projectId, appId, [{ logLine: "late arrival" }]);
    const p2 = (await page(projectId, appId, { pageSize: "4", nextToken: p1.nextPageToken! })).json as AppLogPage;
    expect(p2.logs.map((l) => l.logLine)).toEqual(
      [5, 4, 3, 2].map((i) => `GET /api/items/${i} 200 ${(i * 7) % 50}ms (line ${i})`),
    );
  });

  it("honours pageSize and the simulator's page size options", async () => {
    const { projectId, appId } = seedApp();
    suite.sim.generateLogs(projectId, appId, 30);
    const r = (await page(projectId, appId, { pageSize: "30" })).json as AppLogPage;
    expect(r.hasMore).toBe(false);
    expect(r.logs).toHaveLength(30);
    expect(r).not.toHaveProperty("nextPageToken");

    await suite.restart({ maxPageSize: 10, defaultPageSize: 4 });
    const small = seedApp();
    suite.sim.generateLogs(small.projectId, small.appId, 30);
    const def = (await page(small.projectId, small.appId, {})).json as AppLogPage;
    expect(def.logs).toHaveLength(4);
    expect((await page(small.projectId, small.appId, { pageSize: "11" })).status).toBe(400);
    expect((await page(small.projectId, small.appId, { pageSize: "10" })).status).toBe(200);
  });

  it.each([
    ["pageSize", "0"],
    ["pageSize", "1001"],
    ["pageSize", "ten"],
    ["pageSize", "2.5"],
    ["direction", "sideways"],
    ["stream", "stdin"],
    ["beforeDate", "yesterday"],
    ["afterDate", "2030-01-01"],
    ["nextToken", "garbage!"],
  ])("rejects %s=%s with 400", async (name, value) => {
    const { projectId, appId } = seedApp();
    suite.sim.addLogs(projectId, appId, [{ logLine: "x" }]);
    const r = await page(projectId, appId, { [name]: value });
    expect(r.status).toBe(400);
    expect(message(r)).toContain(name);
  });

  it("rejects a nextToken from the other direction", async () => {
    const { projectId, appId } = seedApp();
    suite.sim.generateLogs(projectId, appId, 10);
    const p1 = (await page(projectId, appId, { pageSize: "2" })).json as AppLogPage;
    const r = await page(projectId, appId, { pageSize: "2", direction: "forward", nextToken: p1.nextPageToken! });
    expect(r.status).toBe(400);
  });
});
