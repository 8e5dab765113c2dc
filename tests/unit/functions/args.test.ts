/**
 * SDK function arguments checked before any request (no credentials, no network): the shared required-id rule, the
 * app-log query rules, the Output forms' argument types, and the build-status predicates.
 */
import { Failures } from "../../../provider/checks";
import {
  BUILD_SUCCESS_STATUSES,
  cancelRun,
  getAppLogs,
  getBuildLogs,
  getInvoices,
  isBuildFinished,
  isBuildSuccessful,
  type GetAppLogsArgs,
  type GetAppLogsOutputArgs,
  type GetBuildLogsOutputArgs,
} from "../../../sdk/nodejs/functions";
import { ArgumentError, PimsError } from "../../../provider/client";
import { rejectionOf } from "../../kit/rejection";
import { useEnv } from "../../kit/env";

useEnv("each", { PIMS_TOKEN: undefined, PIMS_BASE_URL: undefined });

describe("argument checks before any request", () => {
  it("bad arguments are reported even without credentials", async () => {
    const err = await rejectionOf(getAppLogs({ projectId: "p-1", appId: "p-1-web", pageSize: 5000 }), ArgumentError);
    expect(err.message).toContain("pageSize must be an integer from 1 to 1000");
  });

  it.each([
    [undefined, "is required"],
    [null, "is required"],
    [42, "must be a string (got number)"],
    ["", "must not be empty"],
    ["   ", "must not be empty"],
  ])("an id of %j is refused with the providers' wording: %s", async (bad, rule) => {
    const failures = new Failures();
    failures.requiredId("projectId", bad);
    expect(failures.list).toEqual([{ property: "projectId", reason: `projectId ${rule}` }]);
    const calls: Array<[string, Promise<unknown>]> = [
      ["getInvoices", getInvoices({ projectId: bad as string })],
      ["getBuildLogs", getBuildLogs({ projectId: bad as string, appId: "a", buildId: "b" })],
      ["cancelRun", cancelRun({ projectId: bad as string, appId: "a", runId: "r" })],
      ["getAppLogs", getAppLogs({ projectId: bad as string, appId: "a" })],
    ];
    for (const [fn, call] of calls) {
      const err = await rejectionOf(call, ArgumentError);
      expect(err.message).toBe(`checking ${fn} arguments: projectId ${rule}`);
    }
  });

  it("names the failing id among several", async () => {
    const err = await rejectionOf(cancelRun({ projectId: "p-1", appId: "p-1-web", runId: "" }), ArgumentError);
    expect(err.message).toBe("checking cancelRun arguments: runId must not be empty");
  });

  it("an argument error is its own type, not dressed as a service answer (no status, method or path)", async () => {
    const err = await rejectionOf(getInvoices({ projectId: " " }), ArgumentError);
    expect(err).not.toBeInstanceOf(PimsError);
    expect({ ...err, name: err.name }).toEqual({
      name: "ArgumentError",
      kind: "argument",
      action: "checking getInvoices arguments",
      field: "projectId",
      rule: "must not be empty",
    });
    expect(String(err)).toBe("checking getInvoices arguments: projectId must not be empty");
  });
});

describe("argument types", () => {
  it("the Output forms take the same members as Inputs, Dates included", () => {
    const at = new Date("2024-05-01T12:00:00Z");
    const plain: GetAppLogsArgs = {
      projectId: "p",
      appId: "a",
      after: at,
      before: "2024-05-02T00:00:00Z",
      stream: "stderr",
      limit: 5,
    };
    const asInputs: GetAppLogsOutputArgs = { ...plain, after: Promise.resolve(at), limit: Promise.resolve(5) };
    const build: GetBuildLogsOutputArgs = { projectId: "p", appId: Promise.resolve("a"), buildId: "b" };
    expect([asInputs.projectId, build.buildId]).toEqual(["p", "b"]);
  });
});

describe("build status predicates", () => {
  it.each([
    ["success", true, true],
    ["READY", true, true],
    ["build_failure", true, false],
    ["init_timeout", true, false],
    ["cancelled", true, false],
    ["building", false, false],
    ["pending", false, false],
    ["unknown", false, false],
  ])("%s: finished %s, succeeded %s", (status, finished, succeeded) => {
    expect([isBuildFinished(status), isBuildSuccessful(status)]).toEqual([finished, succeeded]);
  });

  it("success statuses are final", () => {
    expect(BUILD_SUCCESS_STATUSES.every(isBuildFinished)).toBe(true);
  });
});
