/**
 * The SDK functions given `{ provider }` (a `pims.Provider`), against simulators on loopback: each call goes to that
 * provider's service with that provider's token (the request log names whom the bearer token authenticated), an Output
 * form is secret when the provider's token is, and settings not known at preview fail the Promise form clearly.
 */
import * as pulumi from "@pulumi/pulumi";
import {
  cancelRun,
  getApiKeys,
  getApiKeysOutput,
  getAppLogs,
  getAppLogsOutput,
  getBuildLogs,
  getBuildLogsOutput,
  getInvoices,
  getInvoicesOutput,
  Provider,
  ServiceAccount,
} from "../../../sdk/nodejs";
import { PimsConfigurationError } from "../../../provider/configErrors";
import type { PimsSimulator } from "../../../simulator";
import { useFunctionsSuite } from "../../kit/sim/functions";
import { captureRegistrations, outputValue } from "../../kit/provider/mocks";
import { rejectionOf } from "../../kit/rejection";
import { startSimulator } from "../../kit/sim/simulator";

const { sim } = useFunctionsSuite();

captureRegistrations({
  // A ServiceAccount's token is left out of its state: under a preview it is then unknown, as before a create.
  newResource: (args) => ({ id: `${args.name}-id`, state: args.type.endsWith(":ServiceAccount") ? {} : args.inputs }),
  call: (args) => args.inputs,
});

/** A project with one of everything the functions read, and a project-scoped account whose token is returned. */
function seedProject(s: PimsSimulator): {
  projectId: string;
  appId: string;
  buildId: string;
  runId: string;
  accountId: string;
  secret: string;
} {
  const projectId = s.addProject().id;
  const appId = s.addApp(projectId, "web").id;
  s.addInvoice(projectId, { id: "in_1" });
  s.addLogs(projectId, appId, [{ logLine: "hello" }]);
  const buildId = s.addBuild(projectId, appId, { status: "success", logs: [{ log: "built" }] }).id;
  const runId = s.addRun(projectId, appId).id;
  const secret = `pims_sa_scoped_${projectId}_0123456789abcdef`;
  const accountId = s.addServiceAccount({ projectId, name: "scoped", tokenSecret: secret }).id;
  return { projectId, appId, buildId, runId, accountId, secret };
}

/** Whom each logged request's bearer token authenticated. */
const principals = (s: PimsSimulator): Array<string | undefined> => s.requests.map((r) => r.principal);

describe("every function and cancelRun with { provider }", () => {
  test("use the provider's token and base address, not the stack config's", async () => {
    const seeded = seedProject(sim);
    const { projectId, appId, buildId, runId } = seeded;
    // The stack's own credentials are the admin token: every call must show the scoped account instead.
    pulumi.runtime.setAllConfig({ "pims:token": sim.token, "pims:baseUrl": sim.baseUrl }, ["pims:token"]);
    const provider = new Provider("scoped", { token: seeded.secret, baseUrl: sim.baseUrl });
    const opts = { provider };

    expect((await getApiKeys({ projectId }, opts)).keys.map((k) => k.name)).toEqual(["scoped"]);
    expect((await getInvoices({ projectId }, opts)).invoices.map((i) => i.id)).toEqual(["in_1"]);
    expect((await getAppLogs({ projectId, appId }, opts)).lines.map((l) => l.logLine)).toEqual(["hello"]);
    expect((await getBuildLogs({ projectId, appId, buildId }, opts)).status).toBe("success");
    expect((await outputValue(getApiKeysOutput({ projectId }, opts))).keys.map((k) => k.name)).toEqual(["scoped"]);
    expect((await outputValue(getInvoicesOutput({ projectId }, opts))).invoices).toHaveLength(1);
    expect((await outputValue(getAppLogsOutput({ projectId, appId }, opts))).lines).toHaveLength(1);
    expect((await outputValue(getBuildLogsOutput({ projectId, appId, buildId }, opts))).logs.map((l) => l.log)).toEqual(
      ["built"],
    );
    expect((await cancelRun({ projectId, appId, runId }, opts)).message).toContain(runId);

    expect(sim.requests.map((r) => r.status)).toEqual(Array(9).fill(200));
    expect(principals(sim)).toEqual(Array(9).fill(seeded.accountId));
  });

  test("two providers, two services: each call goes to its provider's service with its token", async () => {
    const other = await startSimulator();
    try {
      const a = seedProject(sim);
      const b = seedProject(other);
      const pa = new Provider("a", { token: a.secret, baseUrl: sim.baseUrl });
      const pb = new Provider("b", { token: pulumi.output(b.secret), baseUrl: pulumi.output(other.baseUrl) });
      const [ka, kb] = await Promise.all([
        getInvoices({ projectId: a.projectId }, { provider: pa }),
        outputValue(getApiKeysOutput({ projectId: b.projectId }, { provider: pb })),
      ]);
      expect(ka.invoices.map((i) => i.id)).toEqual(["in_1"]);
      expect(kb.keys.map((k) => k.principalId)).toEqual([b.accountId]);
      expect(sim.requests.map((r) => [r.method, r.path, r.principal])).toEqual([
        ["GET", `/v2/projects/${a.projectId}/invoices`, a.accountId],
      ]);
      expect(other.requests.map((r) => [r.method, r.path, r.principal])).toEqual([
        ["GET", `/v2/projects/${b.projectId}/api-keys`, b.accountId],
      ]);
      // A provider's token is not valid on the other service.
      const wrong = new Provider("crossed", { token: a.secret, baseUrl: other.baseUrl });
      await expect(getInvoices({ projectId: b.projectId }, { provider: wrong })).rejects.toMatchObject({
        kind: "auth",
        status: 401,
      });
    } finally {
      await other.stop();
    }
  });

  test("explicit token and baseUrl options still win over the provider's", async () => {
    const seeded = seedProject(sim);
    const provider = new Provider("overridden", {
      token: "pims_sa_not_a_valid_token_000000",
      baseUrl: "http://127.0.0.1:9",
    });
    expect(
      await getInvoices({ projectId: seeded.projectId }, { provider, token: seeded.secret, baseUrl: sim.baseUrl }),
    ).toMatchObject({
      invoices: [{ id: "in_1" }],
    });
    expect(principals(sim)).toEqual([seeded.accountId]);
  });

  test("a provider without token or base address falls back to PIMS_TOKEN / PIMS_BASE_URL", async () => {
    const seeded = seedProject(sim);
    const provider = new Provider("bare");
    process.env.PIMS_TOKEN = seeded.secret;
    process.env.PIMS_BASE_URL = sim.baseUrl;
    try {
      expect((await getApiKeys({ projectId: seeded.projectId }, { provider })).keys).toHaveLength(1);
    } finally {
      delete process.env.PIMS_TOKEN;
      delete process.env.PIMS_BASE_URL;
    }
    expect(principals(sim)).toEqual([seeded.accountId]);
  });
});

describe("secrets", () => {
  test("an Output form is secret when its provider's token is (getInvoicesOutput is not, without one)", async () => {
    const seeded = seedProject(sim);
    const provider = new Provider("secretive", { token: seeded.secret, baseUrl: sim.baseUrl });
    const withProvider = getInvoicesOutput({ projectId: seeded.projectId }, { provider });
    const without = getInvoicesOutput({ projectId: seeded.projectId }, { token: seeded.secret, baseUrl: sim.baseUrl });
    expect(await pulumi.isSecret(withProvider)).toBe(true);
    expect(await pulumi.isSecret(without)).toBe(false);
    expect(await outputValue(withProvider)).toEqual(await outputValue(without));
  });
});

describe("settings not known at preview", () => {
  beforeAll(() =>
    pulumi.runtime.setMocks(
      { newResource: (args) => ({ id: `${args.name}-id`, state: {} }), call: (args) => args.inputs },
      "proj",
      "stack",
      true,
    ),
  );

  test("the Promise form fails pointing at the Output form, which stays unknown; nothing is sent", async () => {
    const seeded = seedProject(sim);
    const account = new ServiceAccount("deployer", {
      projectId: seeded.projectId,
      name: "deployer",
      grants: [seeded.projectId],
      expiresIn: 0,
    });
    const provider = new Provider("bootstrap", { token: account.token, baseUrl: sim.baseUrl });
    const err = await rejectionOf(getApiKeys({ projectId: seeded.projectId }, { provider }), PimsConfigurationError);
    expect(err.message).toBe(
      "the provider's token or base address is not known yet: they come from resources this update creates: use the " +
        "getXOutput form of the function, which waits for them",
    );
    const out = getApiKeysOutput({ projectId: seeded.projectId }, { provider });
    expect(await (out as unknown as { isKnown: Promise<boolean> }).isKnown).toBe(false);
    expect(sim.requests).toEqual([]);
  });
});
