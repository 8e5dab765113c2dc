/**
 * getAppLogs (and its Output form) against the simulator: filters under the service's query names, paging,
 * limits, argument checks before any request.
 */
import * as pulumi from "@pulumi/pulumi";
import { DEFAULT_LOG_LIMIT, getAppLogs, getAppLogsOutput, type GetAppLogsArgs } from "../../../sdk/nodejs/functions";
import { useFunctionsSuite } from "../../kit/sim/functions";
import { rejectionOf } from "../../kit/rejection";
import { outputValue } from "../../kit/provider/mocks";

const { opts, sim } = useFunctionsSuite();

const LOGS_PATH = /\/logs$/;
const logRequests = (): number => sim.countRequests({ method: "GET", path: LOGS_PATH });

// ---- app logs ----------------------------------------------------------------------------------------------

describe("getAppLogs", () => {
  let p: string;
  let app: string;

  beforeEach(() => {
    p = sim.addProject().id;
    app = sim.addApp(p, "web").id;
  });

  /** Six lines, one second apart, differing in container, run, stream and text. */
  function seedSix(): void {
    const t = (s: number): string => `2024-05-01T12:00:0${s}.000Z`;
    sim.addLogs(p, app, [
      { timestamp: t(0), logLine: "boot web", containerName: "web", runId: "run-a", stream: "stdout" },
      { timestamp: t(1), logLine: "boot worker", containerName: "worker", runId: "run-a", stream: "stdout" },
      { timestamp: t(2), logLine: "ERROR disk full", containerName: "web", runId: "run-a", stream: "stderr" },
      { timestamp: t(3), logLine: "request ok", containerName: "web", runId: "run-b", stream: "stdout" },
      { timestamp: t(4), logLine: "ERROR timeout", containerName: "worker", runId: "run-b", stream: "stderr" },
      { timestamp: t(5), logLine: "shutdown", containerName: "web", runId: "run-b", stream: "stdout" },
    ]);
  }

  const texts = (r: { lines: Array<{ logLine: string }> }): string[] => r.lines.map((l) => l.logLine);
  const lastQuery = (): Record<string, string> => sim.requests[sim.requests.length - 1].query;

  it("without filters returns every line, newest first (the service's default direction)", async () => {
    seedSix();
    const r = await getAppLogs({ projectId: p, appId: app }, opts());
    expect(texts(r)).toEqual(["shutdown", "ERROR timeout", "request ok", "ERROR disk full", "boot worker", "boot web"]);
    expect(r.truncated).toBe(false);
    expect(lastQuery()).toEqual({ pageSize: String(DEFAULT_LOG_LIMIT) });
  });

  // Each filter under the service's query name (a Date is sent as RFC 3339), and the lines it keeps.
  it.each([
    [
      "before → beforeDate",
      { before: "2024-05-01T12:00:02Z" },
      ["boot worker", "boot web"],
      { beforeDate: "2024-05-01T12:00:02Z" },
    ],
    [
      "after → afterDate (a Date is sent as RFC 3339)",
      { after: new Date("2024-05-01T12:00:03Z") },
      ["shutdown", "ERROR timeout"],
      { afterDate: "2024-05-01T12:00:03.000Z" },
    ],
    ["runId", { runId: "run-a" }, ["ERROR disk full", "boot worker", "boot web"], { runId: "run-a" }],
    ["search", { search: "ERROR" }, ["ERROR timeout", "ERROR disk full"], { search: "ERROR" }],
  ])("%s", async (_title, filter: Partial<GetAppLogsArgs>, expected: string[], query: Record<string, string>) => {
    seedSix();
    const r = await getAppLogs({ projectId: p, appId: app, ...filter }, opts());
    expect(texts(r)).toEqual(expected);
    expect(lastQuery()).toMatchObject(query);
  });

  it("containerId → container (by id or name)", async () => {
    seedSix();
    const byName = await getAppLogs({ projectId: p, appId: app, containerId: "worker" }, opts());
    expect(texts(byName)).toEqual(["ERROR timeout", "boot worker"]);
    expect(lastQuery().container).toBe("worker");
    const workerId = byName.lines[0].containerId;
    const byId = await getAppLogs({ projectId: p, appId: app, containerId: workerId }, opts());
    expect(texts(byId)).toEqual(["ERROR timeout", "boot worker"]);
  });

  it("stream", async () => {
    seedSix();
    const r = await getAppLogs({ projectId: p, appId: app, stream: "stderr" }, opts());
    expect(r.lines.every((l) => l.stream === "stderr")).toBe(true);
    expect(texts(r)).toEqual(["ERROR timeout", "ERROR disk full"]);
    expect(lastQuery().stream).toBe("stderr");
  });

  it("direction forward returns oldest first", async () => {
    seedSix();
    const r = await getAppLogs({ projectId: p, appId: app, direction: "forward", limit: 2 }, opts());
    expect(texts(r)).toEqual(["boot web", "boot worker"]);
    expect(r.truncated).toBe(true);
    expect(lastQuery().direction).toBe("forward");
  });

  it("filters combine", async () => {
    seedSix();
    const r = await getAppLogs(
      { projectId: p, appId: app, runId: "run-b", stream: "stdout", containerId: "web", direction: "forward" },
      opts(),
    );
    expect(texts(r)).toEqual(["request ok", "shutdown"]);
  });

  it("follows nextToken across pages: 2500 lines at pageSize 200 take 13 requests, no line twice", async () => {
    sim.generateLogs(p, app, 2500);
    sim.clearRequests();
    const r = await getAppLogs({ projectId: p, appId: app, pageSize: 200, limit: 10_000 }, opts());

    expect(r.lines).toHaveLength(2500);
    expect(r.truncated).toBe(false);
    expect(new Set(r.lines.map((l) => l.logId)).size).toBe(2500);
    const times = r.lines.map((l) => Date.parse(l.timestamp));
    expect(times.every((t, i) => i === 0 || t <= times[i - 1])).toBe(true); // newest first throughout
    expect(logRequests()).toBe(13);
    const tokens = sim.requests.map((q) => q.query.nextToken);
    expect(tokens[0]).toBeUndefined();
    expect(tokens.slice(1).every((t) => typeof t === "string" && t.length > 0)).toBe(true);
    expect(new Set(tokens.slice(1)).size).toBe(12);
  });

  it("stops at limit: 500 of 2500 lines take 3 requests and report truncated", async () => {
    sim.generateLogs(p, app, 2500);
    sim.clearRequests();
    const r = await getAppLogs({ projectId: p, appId: app, pageSize: 200, limit: 500 }, opts());
    expect(r.lines).toHaveLength(500);
    expect(r.truncated).toBe(true);
    expect(logRequests()).toBe(3);
    expect(r.lines[0].logLine).toMatch(/\b2499\b/); // the newest line
    expect(r.lines[499].logLine).toMatch(/\b2000\b/);
  });

  it("a limit equal to the number of lines is not truncated", async () => {
    sim.generateLogs(p, app, 400);
    const r = await getAppLogs({ projectId: p, appId: app, pageSize: 200, limit: 400 }, opts());
    expect(r.lines).toHaveLength(400);
    expect(r.truncated).toBe(false);
  });

  it("without pageSize asks for min(limit, 1000) lines per request", async () => {
    sim.generateLogs(p, app, 2500);
    sim.clearRequests();
    const r = await getAppLogs({ projectId: p, appId: app, limit: 2500 }, opts());
    expect(r.lines).toHaveLength(2500);
    expect(sim.requests.map((q) => q.query.pageSize)).toEqual(["1000", "1000", "1000"]);
    sim.clearRequests();
    await getAppLogs({ projectId: p, appId: app, limit: 30 }, opts());
    expect(sim.requests.map((q) => q.query.pageSize)).toEqual(["30"]);
  });

  it("an app without logs (204) gives an empty result", async () => {
    const r = await getAppLogs({ projectId: p, appId: app }, opts());
    expect(r).toEqual({ lines: [], truncated: false });
    expect(sim.requests.map((q) => q.status)).toEqual([204]);
  });

  it.each([
    [{ pageSize: 0 }, "pageSize must be an integer from 1 to 1000 (got 0)"],
    [{ pageSize: 1001 }, "pageSize must be an integer from 1 to 1000 (got 1001)"],
    [{ pageSize: 2.5 }, "pageSize must be an integer from 1 to 1000"],
    [{ stream: "stdin" }, 'stream must be one of stdout, stderr (got "stdin")'],
    [{ direction: "sideways" }, 'direction must be one of forward, backward (got "sideways")'],
    [{ limit: 0 }, "limit must be an integer from 1 to 100000 (got 0)"],
    [{ limit: 100_001 }, "limit must be an integer from 1 to 100000"],
    [{ before: "yesterday" }, 'before must be an RFC 3339 timestamp such as 2024-05-01T12:00:00Z (got "yesterday")'],
    [{ after: new Date(NaN) }, "after must be a valid Date"],
    [{ appId: "" }, "appId must not be empty"],
    [{ appId: undefined }, "appId is required"],
  ])("rejects %j before any request", async (bad, message) => {
    const err = await rejectionOf(getAppLogs({ projectId: p, appId: app, ...(bad as object) }, opts()));
    expect(err.message).toContain(message);
    expect(err).toMatchObject({ kind: "argument" });
    expect(sim.requests).toHaveLength(0);
  });

  it("the Output form resolves with the same lines", async () => {
    seedSix();
    const out = getAppLogsOutput(
      { projectId: pulumi.output(p), appId: app, search: pulumi.output("ERROR"), limit: 1 },
      opts(),
    );
    const v = await outputValue(out);
    expect(v).toMatchObject({ truncated: true, lines: [{ logLine: "ERROR timeout" }] });
  });

  it("the Output form takes Dates like the Promise form: plain, in a Promise or in an Output", async () => {
    seedSix();
    const after = new Date("2024-05-01T12:00:00.500Z");
    const out = getAppLogsOutput(
      {
        projectId: p,
        appId: app,
        after,
        before: pulumi.output("x").apply(() => new Date("2024-05-01T12:00:04Z")),
        direction: Promise.resolve("forward" as const),
      },
      opts(),
    );
    expect(texts(await outputValue(out))).toEqual(["boot worker", "ERROR disk full", "request ok"]);
    expect(lastQuery()).toMatchObject({
      afterDate: "2024-05-01T12:00:00.500Z",
      beforeDate: "2024-05-01T12:00:04.000Z",
      direction: "forward",
    });
    const promised = getAppLogsOutput(
      { projectId: p, appId: app, before: Promise.resolve(new Date("2024-05-01T12:00:01Z")) },
      opts(),
    );
    expect(texts(await outputValue(promised))).toEqual(["boot web"]);
  });

  it("a secret input makes the Output secret", async () => {
    seedSix();
    const out = getAppLogsOutput({ projectId: p, appId: app, search: pulumi.secret("disk") }, opts());
    expect(await pulumi.isSecret(out)).toBe(true);
    expect((await outputValue(out)).lines.map((l) => l.logLine)).toEqual(["ERROR disk full"]);
  });
});
