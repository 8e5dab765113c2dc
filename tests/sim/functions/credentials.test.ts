/**
 * Errors and credentials of the SDK functions against the simulator: service errors, explicit options, stack
 * config, environment, missing credentials.
 */
import * as pulumi from "@pulumi/pulumi";
import {
  cancelRun,
  getApiKeys,
  getApiKeysOutput,
  getAppLogs,
  getBuildLogs,
  getInvoices,
} from "../../../sdk/nodejs/functions";
import { MissingCredentialsError } from "../../../provider/configErrors";
import { processScheduler } from "../../../provider/client/scheduler";
import { useFunctionsSuite } from "../../kit/sim/functions";
import { expectNoPlaintextSecrets } from "../../kit/secrets/secrets";
import { rejectionOf } from "../../kit/rejection";
import { outputValue } from "../../kit/provider/mocks";

const { opts, sim } = useFunctionsSuite();

// ---- errors and credentials --------------------------------------------------------------------------------

describe("errors and credentials", () => {
  it("an unknown project is a 404 with the server's message", async () => {
    const err = await rejectionOf(getInvoices({ projectId: "p-nope" }, opts()));
    expect(err).toMatchObject({ kind: "not_found", status: 404 });
    // A 404 names the URL that was called: a wrong base address shows at once.
    expect(err.message).toBe(
      `listing invoices of project p-nope: 404 project p-nope not found (GET ` +
        `${sim.baseUrl}/v2/projects/p-nope/invoices)`,
    );
    const logsErr = await rejectionOf(getAppLogs({ projectId: "p-nope", appId: "p-nope-web" }, opts()));
    expect(logsErr.message).toContain("404 project p-nope not found");
  });

  it("a bad token is a 401 with the server's message, and the token is not in the error", async () => {
    const p = sim.addProject().id;
    const badToken = "pims_sa_definitely_not_a_valid_token_0001";
    const err = await rejectionOf(getApiKeys({ projectId: p }, opts({ token: badToken })));
    expect(err).toMatchObject({ kind: "auth", status: 401 });
    // The service's message, then which credential was used and what to check (never the token itself).
    expect(err.message).toBe(
      `listing API keys of project ${p}: 401 invalid or missing bearer token (the token set in the token option of ` +
        "the call was refused: check that it is the whole token of a live service account of this service and that " +
        "it has not expired)",
    );
    expectNoPlaintextSecrets(
      `${String(err)} ${JSON.stringify(err)} ${err.stack ?? ""}`,
      [badToken, sim.token],
      "the error",
    );
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
      const err = await rejectionOf(call());
      expect(err).toBeInstanceOf(MissingCredentialsError);
      expect(err.message).toBe(expected);
    }
    const onlyToken = await rejectionOf(getInvoices({ projectId: p }, { token: sim.token }));
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
      expect((await outputValue(out)).keys.map((k) => k.name)).toEqual(["from-config"]);
    } finally {
      delete process.env.PIMS_TOKEN;
      delete process.env.PIMS_BASE_URL;
    }
  });

  it("explicit options win over stack config", async () => {
    const p = sim.addProject().id;
    pulumi.runtime.setAllConfig({
      "pims:token": "pims_wrong_token_from_config_0",
      "pims:baseUrl": "http://127.0.0.1:9",
    });
    expect(await getInvoices({ projectId: p }, opts())).toEqual({ invoices: [] });
  });

  it("the program's scheduler takes maxConcurrency / rateLimitTimeoutMs from config; bad ones fail first", async () => {
    const p = sim.addProject().id;
    const before = processScheduler().settings;
    try {
      pulumi.runtime.setAllConfig({ "pims:maxConcurrency": "3", "pims:rateLimitTimeoutMs": "45000" });
      expect(await getInvoices({ projectId: p }, opts())).toEqual({ invoices: [] });
      expect(processScheduler().settings).toMatchObject({ maxConcurrency: 3, rateLimitTimeoutMs: 45_000 });
      sim.clearRequests();
      pulumi.runtime.setAllConfig({ "pims:rateLimitTimeoutMs": "45s" });
      const err = await rejectionOf(getInvoices({ projectId: p }, opts()));
      expect(err.message).toBe(
        "pulumi-pims is not configured correctly: pims:rateLimitTimeoutMs must be a whole number of milliseconds " +
          '(got "45s")',
      );
      expect(sim.requests).toHaveLength(0);
    } finally {
      processScheduler().configure(before);
    }
  });

  it("a missing projectId is rejected naming the field", async () => {
    const err = await rejectionOf(getInvoices({ projectId: "" }, opts()));
    expect(err.message).toBe("checking getInvoices arguments: projectId must not be empty");
    expect(sim.requests).toHaveLength(0);
  });
});
