/**
 * The read-only functions and cancelRun against the simulator (a real HTTP server): what they send, what they
 * return, which errors the user sees, and the Output forms.
 */
import * as pulumi from "@pulumi/pulumi";
import {
  DEFAULT_LOG_LIMIT,
  cancelRun,
  currencyDigits,
  getApiKeys,
  getApiKeysOutput,
  getAppLogs,
  getAppLogsOutput,
  getBuildLogs,
  getBuildLogsOutput,
  getInvoices,
  getInvoicesOutput,
  toMajorUnits,
  type PimsCallOptions,
} from "../../sdk/functions";
import { MissingCredentialsError } from "../../provider/credentials";
import type { PimsSimulator } from "../../simulator";
import { expectNoPlaintextSecrets, startSimulator } from "../helpers";

let sim: PimsSimulator;

/** Explicit credentials plus fast retries (tests must not sleep). */
const opts = (extra: PimsCallOptions = {}): PimsCallOptions => ({
  baseUrl: sim.baseUrl,
  token: sim.token,
  minDelayMs: 5,
  maxDelayMs: 20,
  maxRetryAfterMs: 50,
  timeoutMs: 5000,
  ...extra,
});

const LOGS_PATH = /\/logs$/;
const logRequests = (): number => sim.countRequests({ method: "GET", path: LOGS_PATH });

/** Resolves an Output's value outside a Pulumi program. */
function valueOf<T>(o: pulumi.Output<T>): Promise<T> {
  return new Promise((resolve) => o.apply((v) => { resolve(v); return v; }));
}

/** The error a promise rejects with (fails the test when it resolves). */
async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error("expected the call to fail, it succeeded");
}

const savedEnv = { token: process.env.PIMS_TOKEN, baseUrl: process.env.PIMS_BASE_URL };

beforeEach(async () => {
  sim = await startSimulator();
  delete process.env.PIMS_TOKEN;
  delete process.env.PIMS_BASE_URL;
  pulumi.runtime.setAllConfig({});
});

afterEach(async () => {
  await sim.stop();
  pulumi.runtime.setAllConfig({});
});

afterAll(() => {
  if (savedEnv.token !== undefined) process.env.PIMS_TOKEN = savedEnv.token;
  if (savedEnv.baseUrl !== undefined) process.env.PIMS_BASE_URL = savedEnv.baseUrl;
});

// ---- API keys ----------------------------------------------------------------------------------------------

describe("getApiKeys", () => {
  it("returns the keys in the service's order, never last, with expiry as Date and epoch ms", async () => {
    const p = sim.addProject().id;
    sim.addApiKey(p, { name: "forever", expiresAt: "never", apiKey: "pims_live_forever_0000000001" });
    sim.addApiKey(p, { name: "late", expiresAt: "2031-01-01T00:00:00Z" });
    sim.addApiKey(p, { name: "soon", expiresAt: "2030-01-01T00:00:00Z", principalId: "sa-1" });

    const { keys } = await getApiKeys({ projectId: p }, opts());

    expect(keys.map((k) => k.name)).toEqual(["soon", "late", "forever"]);
    expect(keys[0]).toMatchObject({ expiresAt: "2030-01-01T00:00:00Z", neverExpires: false, expiresAtEpochMs: Date.UTC(2030, 0, 1), principalId: "sa-1" });
    expect(keys[0].expiresAtDate?.toISOString()).toBe("2030-01-01T00:00:00.000Z");
    expect(keys[2]).toMatchObject({ expiresAt: "never", neverExpires: true, expiresAtEpochMs: null, expiresAtDate: null, apiKey: "pims_live_forever_0000000001" });
    expect(sim.countRequests({ method: "GET", path: `/v2/projects/${p}/api-keys` })).toBe(1);
  });

  it("returns an empty list for a project without keys", async () => {
    const p = sim.addProject().id;
    expect(await getApiKeys({ projectId: p }, opts())).toEqual({ keys: [] });
  });

  it("the Output form resolves to the same keys (without Dates) and is secret", async () => {
    const p = sim.addProject().id;
    sim.addApiKey(p, { name: "k1", expiresAt: "2030-01-01T00:00:00Z", apiKey: "pims_live_secret_value_000001" });
    const out = getApiKeysOutput({ projectId: pulumi.output(p) }, opts());

    expect(await pulumi.isSecret(out)).toBe(true);
    const value = await valueOf(out);
    expect(value.keys).toHaveLength(1);
    expect(value.keys[0]).toMatchObject({ name: "k1", apiKey: "pims_live_secret_value_000001", expiresAtEpochMs: Date.UTC(2030, 0, 1) });
    expect("expiresAtDate" in value.keys[0]).toBe(false);
    // Derived values stay secret.
    expect(await pulumi.isSecret(out.apply((r) => r.keys.map((k) => k.name)))).toBe(true);
  });
});

// ---- invoices ----------------------------------------------------------------------------------------------

describe("getInvoices", () => {
  it("adds the amount in major units from the currency's ISO 4217 digits", async () => {
    const p = sim.addProject().id;
    sim.addInvoice(p, { id: "in_usd", amountDue: 1999, currency: "usd" });
    sim.addInvoice(p, { id: "in_jpy", amountDue: 500, currency: "JPY" });
    sim.addInvoice(p, { id: "in_kwd", amountDue: 1234, currency: "kwd" });
    sim.addInvoice(p, { id: "in_huf", amountDue: 12345, currency: "HUF" });
    sim.addInvoice(p, { id: "in_odd", amountDue: 1050, currency: "not-a-currency" });

    const { invoices } = await getInvoices({ projectId: p }, opts());

    const major = Object.fromEntries(invoices.map((i) => [i.id, [i.amountDueMajor, i.currencyDigits]]));
    expect(major).toEqual({
      in_usd: [19.99, 2],
      in_jpy: [500, 0],
      in_kwd: [1.234, 3],
      in_huf: [123.45, 2], // ISO 4217 says 2, although Intl displays HUF with 0 digits
      in_odd: [10.5, 2],
    });
    expect(invoices[0]).toMatchObject({ amountDue: 1999, currency: "usd", paymentStatus: "paid", fileUrl: "https://invoices.example.com/in_usd.pdf" });
  });

  it("currency helpers", () => {
    expect([currencyDigits("jpy"), currencyDigits("BHD"), currencyDigits("EUR"), currencyDigits("CLF"), currencyDigits("")]).toEqual([0, 3, 2, 4, 2]);
    expect(toMajorUnits(10, "usd")).toBe(0.1);
    expect(toMajorUnits(-250, "EUR")).toBe(-2.5);
  });

  it("the Output form resolves and is not secret", async () => {
    const p = sim.addProject().id;
    sim.addInvoice(p, { id: "in_1", amountDue: 100, currency: "eur" });
    const out = getInvoicesOutput({ projectId: p }, opts());
    expect(await pulumi.isSecret(out)).toBe(false);
    expect((await valueOf(out)).invoices.map((i) => [i.id, i.amountDueMajor])).toEqual([["in_1", 1]]);
  });

  it("retries a 503 and reports each retry through onRetry", async () => {
    const p = sim.addProject().id;
    sim.addInvoice(p, { id: "in_1" });
    sim.addFault({ method: "GET", path: `/v2/projects/${p}/invoices`, kind: "status", status: 503, times: 2 });
    const retries: string[] = [];
    const { invoices } = await getInvoices({ projectId: p }, opts({ onRetry: (r) => retries.push(r.reason) }));
    expect(invoices).toHaveLength(1);
    expect(retries).toEqual(["HTTP 503", "HTTP 503"]);
    expect(sim.countRequests({ path: `/v2/projects/${p}/invoices` })).toBe(3);
  });
});

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

  it("before → beforeDate", async () => {
    seedSix();
    const r = await getAppLogs({ projectId: p, appId: app, before: "2024-05-01T12:00:02Z" }, opts());
    expect(texts(r)).toEqual(["boot worker", "boot web"]);
    expect(lastQuery().beforeDate).toBe("2024-05-01T12:00:02Z");
  });

  it("after → afterDate (a Date is sent as RFC 3339)", async () => {
    seedSix();
    const r = await getAppLogs({ projectId: p, appId: app, after: new Date("2024-05-01T12:00:03Z") }, opts());
    expect(texts(r)).toEqual(["shutdown", "ERROR timeout"]);
    expect(lastQuery().afterDate).toBe("2024-05-01T12:00:03.000Z");
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

  it("runId", async () => {
    seedSix();
    const r = await getAppLogs({ projectId: p, appId: app, runId: "run-a" }, opts());
    expect(texts(r)).toEqual(["ERROR disk full", "boot worker", "boot web"]);
    expect(lastQuery().runId).toBe("run-a");
  });

  it("search", async () => {
    seedSix();
    const r = await getAppLogs({ projectId: p, appId: app, search: "ERROR" }, opts());
    expect(texts(r)).toEqual(["ERROR timeout", "ERROR disk full"]);
    expect(lastQuery().search).toBe("ERROR");
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
    const r = await getAppLogs({ projectId: p, appId: app, runId: "run-b", stream: "stdout", containerId: "web", direction: "forward" }, opts());
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
    [{ appId: "" }, "appId is required"],
  ])("rejects %j before any request", async (bad, message) => {
    const err = await rejection(getAppLogs({ projectId: p, appId: app, ...(bad as object) }, opts()));
    expect(err.message).toContain(message);
    expect(err).toMatchObject({ kind: "validation" });
    expect(sim.requests).toHaveLength(0);
  });

  it("bad arguments are reported even without credentials", async () => {
    const err = await rejection(getAppLogs({ projectId: p, appId: app, pageSize: 5000 }));
    expect(err.message).toContain("pageSize must be an integer from 1 to 1000");
  });

  it("the Output form resolves with the same lines", async () => {
    seedSix();
    const out = getAppLogsOutput({ projectId: pulumi.output(p), appId: app, search: pulumi.output("ERROR"), limit: 1 }, opts());
    const v = await valueOf(out);
    expect(v).toMatchObject({ truncated: true, lines: [{ logLine: "ERROR timeout" }] });
  });

  it("a secret input makes the Output secret", async () => {
    seedSix();
    const out = getAppLogsOutput({ projectId: p, appId: app, search: pulumi.secret("disk") }, opts());
    expect(await pulumi.isSecret(out)).toBe(true);
    expect((await valueOf(out)).lines.map((l) => l.logLine)).toEqual(["ERROR disk full"]);
  });
});

// ---- build logs --------------------------------------------------------------------------------------------

describe("getBuildLogs", () => {
  it("returns entries and status, with finished/succeeded", async () => {
    const p = sim.addProject().id;
    const app = sim.addApp(p, "web").id;
    const b = sim.addBuild(p, app, { status: "building", logs: [{ log: "step 1" }, { log: "step 2" }] });

    const first = await getBuildLogs({ projectId: p, appId: app, buildId: b.id }, opts());
    expect(first).toMatchObject({ projectId: p, appId: app, buildId: b.id, status: "building", finished: false, succeeded: false });
    expect(first.logs.map((e) => e.log)).toEqual(["step 1", "step 2"]);
    expect(first.logs[0].id).toBeTruthy();

    sim.setBuildStatus(p, app, b.id, "build_failure", ["boom"]);
    const failed = await getBuildLogs({ projectId: p, appId: app, buildId: b.id }, opts());
    expect(failed).toMatchObject({ status: "build_failure", finished: true, succeeded: false });
    expect(failed.logs.map((e) => e.log)).toEqual(["step 1", "step 2", "boom"]);

    sim.setBuildStatus(p, app, b.id, "ready");
    const out = getBuildLogsOutput({ projectId: p, appId: app, buildId: pulumi.output(b.id) }, opts());
    expect(await valueOf(out)).toMatchObject({ status: "ready", finished: true, succeeded: true });
  });

  it("an unknown build is a NotFoundError with the service's message", async () => {
    const p = sim.addProject().id;
    const app = sim.addApp(p, "web").id;
    const err = await rejection(getBuildLogs({ projectId: p, appId: app, buildId: "build-nope" }, opts()));
    expect(err).toMatchObject({ kind: "not_found", status: 404 });
    expect(err.message).toBe(`reading logs of build build-nope of app ${app} in project ${p}: 404 build build-nope not found`);
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
    const err = await rejection(cancelRun({ projectId: p, appId: app, runId: run.id }, opts()));
    expect(err).toMatchObject({ kind: "conflict", status: 409 });
    expect(err.message).toContain(`409 run ${run.id} has already finished (status: finished)`);
    expect(sim.runs().find((x) => x.id === run.id)?.status).toBe("finished");
  });

  it("an unknown run is a NotFoundError", async () => {
    const err = await rejection(cancelRun({ projectId: p, appId: app, runId: "run-nope" }, opts()));
    expect(err).toMatchObject({ kind: "not_found" });
    expect(err.message).toContain("404 run run-nope not found");
  });
});

// ---- errors and credentials --------------------------------------------------------------------------------

describe("errors and credentials", () => {
  it("an unknown project is a 404 with the server's message", async () => {
    const err = await rejection(getInvoices({ projectId: "p-nope" }, opts()));
    expect(err).toMatchObject({ kind: "not_found", status: 404 });
    expect(err.message).toBe("listing invoices of project p-nope: 404 project p-nope not found");
    const logsErr = await rejection(getAppLogs({ projectId: "p-nope", appId: "p-nope-web" }, opts()));
    expect(logsErr.message).toContain("404 project p-nope not found");
  });

  it("a bad token is a 401 with the server's message, and the token is not in the error", async () => {
    const p = sim.addProject().id;
    const badToken = "pims_sa_definitely_not_a_valid_token_0001";
    const err = await rejection(getApiKeys({ projectId: p }, opts({ token: badToken })));
    expect(err).toMatchObject({ kind: "auth", status: 401 });
    expect(err.message).toBe(`listing API keys of project ${p}: 401 invalid or missing bearer token`);
    expectNoPlaintextSecrets(`${String(err)} ${JSON.stringify(err)} ${err.stack ?? ""}`, [badToken, sim.token], "the error");
  });

  it("missing credentials fail with the resources' MissingCredentialsError, before any request", async () => {
    const p = sim.addProject().id;
    const expected = new MissingCredentialsError(["token", "baseUrl"]).message;
    for (const call of [
      () => getApiKeys({ projectId: p }),
      () => getInvoices({ projectId: p }),
      () => getAppLogs({ projectId: p, appId: `${p}-web` }),
      () => getBuildLogs({ projectId: p, appId: `${p}-web`, buildId: "b" }),
      () => cancelRun({ projectId: p, appId: `${p}-web`, runId: "r" }),
    ]) {
      const err = await rejection(call());
      expect(err).toBeInstanceOf(MissingCredentialsError);
      expect(err.message).toBe(expected);
    }
    const onlyToken = await rejection(getInvoices({ projectId: p }, { token: sim.token }));
    expect(onlyToken.message).toBe(new MissingCredentialsError(["baseUrl"]).message);
    expect(sim.requests).toHaveLength(0);
  });

  it("reads PIMS_TOKEN / PIMS_BASE_URL at call time", async () => {
    const p = sim.addProject().id;
    sim.addInvoice(p, { id: "in_env" });
    process.env.PIMS_TOKEN = sim.token;
    process.env.PIMS_BASE_URL = sim.baseUrl;
    try {
      expect((await getInvoices({ projectId: p })).invoices.map((i) => i.id)).toEqual(["in_env"]);
    } finally {
      delete process.env.PIMS_TOKEN;
      delete process.env.PIMS_BASE_URL;
    }
  });

  it("reads pims:token / pims:baseUrl stack config, which wins over the environment", async () => {
    const p = sim.addProject().id;
    sim.addApiKey(p, { name: "from-config" });
    pulumi.runtime.setAllConfig({ "pims:token": sim.token, "pims:baseUrl": sim.baseUrl }, ["pims:token"]);
    process.env.PIMS_TOKEN = "pims_wrong_token_from_env_000000";
    process.env.PIMS_BASE_URL = "http://127.0.0.1:9"; // nothing listens there
    try {
      expect((await getApiKeys({ projectId: p })).keys.map((k) => k.name)).toEqual(["from-config"]);
      const out = getApiKeysOutput({ projectId: p });
      expect((await valueOf(out)).keys.map((k) => k.name)).toEqual(["from-config"]);
    } finally {
      delete process.env.PIMS_TOKEN;
      delete process.env.PIMS_BASE_URL;
    }
  });

  it("explicit options win over stack config", async () => {
    const p = sim.addProject().id;
    pulumi.runtime.setAllConfig({ "pims:token": "pims_wrong_token_from_config_0", "pims:baseUrl": "http://127.0.0.1:9" });
    expect(await getInvoices({ projectId: p }, opts())).toEqual({ invoices: [] });
  });

  it("a missing projectId is rejected naming the field", async () => {
    const err = await rejection(getInvoices({ projectId: "" }, opts()));
    expect(err.message).toBe('checking getInvoices arguments: projectId is required and must be a non-empty string (got "")');
    expect(sim.requests).toHaveLength(0);
  });
});
