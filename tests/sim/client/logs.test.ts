/** The typed client against the simulator: app log paging (`iterateAppLogs`) and filter checks. */
import { ArgumentError, validateLogsQuery, type AppLogLine, type AppLogsQuery } from "../../../provider/client";
import { PimsSimulator } from "../../../simulator";
import { collectLines, seedApp, useClientSuite } from "../../kit/sim/client";
import { rejectionOf } from "../../kit/rejection";

const suite = useClientSuite();

const seed = (opts: { protected?: boolean; id?: string } = {}) => seedApp(suite.sim, opts);

describe("app log paging", () => {
  /** An app with `count` generated log lines, and `collect(query, limit)`: its lines for a query, at most `limit`. */
  function seedLogs(count: number, opts: Parameters<PimsSimulator["generateLogs"]>[3] = {}) {
    const ids = seed();
    suite.sim.generateLogs(ids.projectId, ids.appId, count, { containers: ["web", "worker"], ...opts });
    const collect = (query: AppLogsQuery, limit: number): Promise<AppLogLine[]> =>
      collectLines(suite.client, ids.projectId, ids.appId, query, limit);
    return { ...ids, collect };
  }

  it("1000 lines, two containers, container filter, pageSize 100: 5 GETs, 500 lines, newest first, once", async () => {
    const { projectId, appId } = seedLogs(1000);
    const lines = [];
    for await (const line of suite.client.iterateAppLogs(projectId, appId, { container: "web", pageSize: 100 }))
      lines.push(line);

    expect(lines).toHaveLength(500);
    expect(new Set(lines.map((l) => l.logId)).size).toBe(500);
    expect(lines.every((l) => l.containerName === "web")).toBe(true);
    const ts = lines.map((l) => Date.parse(l.timestamp));
    expect(ts.every((t, i) => i === 0 || t < ts[i - 1])).toBe(true);
    // generateLogs: web has the even line numbers; newest first: line 998 down to line 0
    expect(lines[0].logLine).toContain("(line 998)");
    expect(lines[499].logLine).toContain("(line 0)");

    expect(suite.sim.countRequests({ method: "GET", path: `/v2/projects/${projectId}/apps/${appId}/logs` })).toBe(5);
    expect(suite.sim.requests).toHaveLength(5);
    expect(suite.sim.requests[0].query).toEqual({ container: "web", pageSize: "100" });
    for (const r of suite.sim.requests.slice(1))
      expect(r.query).toEqual({ container: "web", pageSize: "100", nextToken: expect.any(String) });
    expect(new Set(suite.sim.requests.map((r) => r.query.nextToken)).size).toBe(5);
    expect(suite.sim.requests.every((r) => r.status === 200)).toBe(true);
  });

  it("forward returns the same lines as backward, oldest first", async () => {
    const { collect } = seedLogs(1000);
    const backward = await collect({ container: "worker", pageSize: 100 }, 10_000);
    suite.sim.clearRequests();
    const forward = await collect({ container: "worker", pageSize: 100, direction: "forward" }, 10_000);
    expect(forward).toHaveLength(500);
    expect(forward).toEqual([...backward].reverse());
    expect(forward[0].logLine).toContain("(line 1)");
    expect(suite.sim.requests).toHaveLength(5);
    expect(suite.sim.requests.every((r) => r.query.direction === "forward")).toBe(true);
  });

  it("combined filters: worker + stderr, pageSize 30 → 100 lines in 4 GETs", async () => {
    const { collect } = seedLogs(1000);
    const lines = await collect({ container: "worker", stream: "stderr", pageSize: 30 }, 10_000);
    expect(lines).toHaveLength(100);
    expect(lines.every((l) => l.stream === "stderr" && l.containerName === "worker")).toBe(true);
    expect(suite.sim.requests).toHaveLength(4);

    suite.sim.clearRequests();
    const web = await collect({ container: "web", stream: "stderr" }, 10);
    expect(web).toEqual([]); // web holds even lines only, stderr lines are the odd ones ending in 9
    expect(suite.sim.requests.map((r) => r.status)).toEqual([204]);
  });

  it("runId and date filters", async () => {
    const start = new Date("2024-05-01T00:00:00.000Z");
    const { collect } = seedLogs(400, { runIds: ["run-a", "run-b"], startTime: start, stepMs: 1000 });
    const runB = await collect({ runId: "run-b", pageSize: 50, direction: "forward" }, 1000);
    expect(runB).toHaveLength(200);
    expect(runB[0].logLine).toContain("(line 200)");
    expect(suite.sim.requests).toHaveLength(4);

    suite.sim.clearRequests();
    const window = await collect(
      { afterDate: "2024-05-01T00:00:10Z", beforeDate: "2024-05-01T00:00:20Z", direction: "forward" },
      1000,
    );
    expect(window.map((l) => l.timestamp)).toEqual(
      Array.from({ length: 9 }, (_, i) => `2024-05-01T00:00:${11 + i}.000Z`),
    );
    expect(suite.sim.requests).toHaveLength(1);
  });

  it("the iterator stops at the limit: only the pages it needs are fetched", async () => {
    const { collect } = seedLogs(1000);
    const first250 = await collect({ pageSize: 100 }, 250);
    expect(first250).toHaveLength(250);
    expect(suite.sim.requests).toHaveLength(3);

    suite.sim.clearRequests();
    const all = await collect({ pageSize: 250 }, 250);
    expect(all).toEqual(first250);
    expect(suite.sim.requests).toHaveLength(1);
    expect(suite.sim.requests[0].query.pageSize).toBe("250");

    suite.sim.clearRequests();
    expect(await collect({ pageSize: 1000 }, 1)).toHaveLength(1);
    expect(suite.sim.requests).toHaveLength(1);
  });

  it("an exact multiple of the page size ends without an extra request", async () => {
    const { collect } = seedLogs(300, { containers: ["web"] });
    const lines = await collect({ pageSize: 100 }, 1000);
    expect(lines).toHaveLength(300);
    expect(suite.sim.requests).toHaveLength(3);
  });

  it("204 (no lines) → an empty last page and an empty iterator, one request each", async () => {
    const { projectId, appId } = seed();
    expect(await suite.client.getAppLogsPage(projectId, appId)).toEqual({ hasMore: false, logs: [] });
    const seen = [];
    for await (const line of suite.client.iterateAppLogs(projectId, appId, { search: "nothing" })) seen.push(line);
    expect(seen).toEqual([]);
    expect(suite.sim.requests.map((r) => r.status)).toEqual([204, 204]);
  });

  const badQueries: Array<[string, AppLogsQuery, RegExp]> = [
    ["pageSize 0", { pageSize: 0 }, /^pageSize must be an integer from 1 to 1000 \(got 0\)$/],
    ["pageSize 1001", { pageSize: 1001 }, /^pageSize must be an integer from 1 to 1000 \(got 1001\)$/],
    ["pageSize 1.5", { pageSize: 1.5 }, /^pageSize must be an integer from 1 to 1000 \(got 1.5\)$/],
    ["pageSize NaN", { pageSize: Number.NaN }, /^pageSize must be/],
    ["stream", { stream: "stdin" as never }, /^stream must be one of stdout, stderr \(got "stdin"\)$/],
    [
      "direction",
      { direction: "sideways" as never },
      /^direction must be one of forward, backward \(got "sideways"\)$/,
    ],
    [
      "beforeDate garbage",
      { beforeDate: "yesterday" },
      /^beforeDate must be an RFC 3339 timestamp such as 2024-05-01T12:00:00Z \(got "yesterday"\)$/,
    ],
    ["afterDate not RFC 3339", { afterDate: "05/01/2024" }, /^afterDate must be an RFC 3339 timestamp/],
    ["afterDate without a time", { afterDate: "2024-05-01" }, /^afterDate must be an RFC 3339 timestamp/],
    ["afterDate without a zone", { afterDate: "2024-05-01T10:00:00" }, /^afterDate must be an RFC 3339 timestamp/],
    ["afterDate impossible", { afterDate: "2024-13-40T10:00:00Z" }, /^afterDate must be an RFC 3339 timestamp/],
    ["afterDate on February 30", { afterDate: "2024-02-30T10:00:00Z" }, /^afterDate must be an RFC 3339 timestamp/],
    ["beforeDate at hour 24", { beforeDate: "2024-05-01T24:00:00Z" }, /^beforeDate must be an RFC 3339 timestamp/],
    ["beforeDate as epoch milliseconds", { beforeDate: "1714557600000" }, /^beforeDate must be an RFC 3339 timestamp/],
  ];

  it.each(badQueries)("validateLogsQuery rejects %s with zero requests", async (_name, query, rule) => {
    const { projectId, appId } = seed();
    expect(() => validateLogsQuery(query)).toThrow(ArgumentError);
    const err = await rejectionOf(suite.client.getAppLogsPage(projectId, appId, query), ArgumentError);
    expect(`${err.field} ${err.rule}`).toMatch(rule);
    expect(err.toString()).toBe(`checking app log filters: ${err.field} ${err.rule}`);
    expect(err).not.toHaveProperty("status"); // not an answer of the service
    await rejectionOf(collectLines(suite.client, projectId, appId, query, 10), ArgumentError);
    await rejectionOf(suite.client.iterateAppLogs(projectId, appId, query).next(), ArgumentError);
    expect(suite.sim.requests).toHaveLength(0);
  });

  it("validateLogsQuery accepts the valid forms", () => {
    for (const q of [
      {},
      { pageSize: 1 },
      { pageSize: 1000 },
      { stream: "stdout" as const, direction: "forward" as const },
      { beforeDate: "2024-05-01T10:00:00Z", afterDate: "2024-05-01T10:00:00.123456789+02:00" },
      { afterDate: "2024-05-01t10:00:00z" },
      { afterDate: "2024-05-01 10:00:00-05:00" },
      { beforeDate: "2024-02-29T23:59:59Z" },
    ]) {
      expect(() => validateLogsQuery(q)).not.toThrow();
    }
  });
});
