/**
 * A TypeScript program's unit test, as Pulumi's testing guide writes it: `pulumi.runtime.setMocks({ newResource, call
 * })` mocks the resources and the functions, the functions by the plugin's tokens (`pims:index:getApiKeys`, ...), and
 * no service runs. Without mocks, the functions go to the service as before (here: none configured).
 */
import * as pulumi from "@pulumi/pulumi";
import * as pims from "../../../sdk/nodejs";
import { outputValue } from "../../kit/provider/mocks";
import { useEnv } from "../../kit/env";

const calls: pulumi.runtime.MockCallArgs[] = [];

/** What each mocked function answers, by the plugin's token. */
const ANSWERS: Record<string, Record<string, unknown>> = {
  "pims:index:getApiKeys": {
    keys: [
      { id: "k-1", name: "deploy", apiKey: "ak-mocked", neverExpires: false, expiresAtEpochMs: 1_800_000_000_000 },
    ],
  },
  "pims:index:getInvoices": { invoices: [{ id: "inv-1", amountDue: 1999, currency: "usd", amountDueMajor: 19.99 }] },
  "pims:index:getAppLogs": { lines: [{ logLine: "hello" }], truncated: false },
  "pims:index:getBuildLogs": { status: "success", finished: true, succeeded: true, logs: [] },
  "pims:index:cancelRun": { message: "run r-1 cancelled" },
};

useEnv("all", { PIMS_TOKEN: undefined });

test("without mocks, a function goes to the service: here none is configured", async () => {
  await expect(pims.getApiKeys({ projectId: "p-1" })).rejects.toThrow(/not configured/);
  expect(calls).toEqual([]);
});

describe("under setMocks", () => {
  beforeAll(() =>
    pulumi.runtime.setMocks(
      {
        newResource: (args) => ({ id: `${args.name}-id`, state: { ...args.inputs, projectId: "p-mocked" } }),
        call: (args) => {
          calls.push(args);
          return ANSWERS[args.token] ?? {};
        },
      },
      "proj",
      "test",
      false,
    ),
  );

  test("a mocked stack exports a mocked function's result, by the plugin's token, arguments resolved", async () => {
    // The program under test: a project and the names of its API keys.
    const project = new pims.Project("project", { name: "my-project" });
    const keyNames = pims.getApiKeysOutput({ projectId: project.projectId }).apply((r) => r.keys.map((k) => k.name));

    expect(await outputValue(keyNames)).toEqual(["deploy"]);
    expect(calls.map((c) => [c.token, c.inputs])).toEqual([["pims:index:getApiKeys", { projectId: "p-mocked" }]]);
    // The Promise form is mocked too, and still adds the expiry as a Date.
    const { keys } = await pims.getApiKeys({ projectId: "p-1" });
    expect(keys[0].expiresAtDate).toEqual(new Date(1_800_000_000_000));
  });

  test("every function answers from the mocks' call, by the token the plugin gives it", async () => {
    calls.length = 0;
    const ids = { projectId: "p-1", appId: "p-1-web" };
    expect((await pims.getInvoices({ projectId: "p-1" })).invoices[0].amountDueMajor).toBe(19.99);
    expect((await outputValue(pims.getAppLogsOutput({ ...ids, after: new Date(0) }))).lines).toEqual([
      { logLine: "hello" },
    ]);
    expect((await pims.getBuildLogs({ ...ids, buildId: "b-1" })).status).toBe("success");
    expect(await outputValue(pims.cancelRunOutput({ ...ids, runId: "r-1" }))).toEqual({ message: "run r-1 cancelled" });
    expect(calls.map((c) => c.token)).toEqual([
      "pims:index:getInvoices",
      "pims:index:getAppLogs",
      "pims:index:getBuildLogs",
      "pims:index:cancelRun",
    ]);
    // A Date argument reaches the mock as the RFC 3339 text the plugin receives.
    expect(calls[1].inputs).toEqual({ ...ids, after: "1970-01-01T00:00:00.000Z" });
  });
});
