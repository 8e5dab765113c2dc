/**
 * A service slower than the client's timeout (issue 20), against the simulator: its `delay` fault answers late and
 * commits after the client has gone, as the independent implementation of the issue did. A create whose answer was
 * lost (POST /v2/projects/{project_id}/service-accounts timed out) is never sent again; the provider watches
 * GET /v2/projects/{project_id}/api-keys for the late account and names it with the command that deletes it, or says
 * that none appeared (or that the listing could not be asked) and how to check later. A project create that timed out
 * (POST /v2/projects) is not sent again either, and the error says a project with that name may exist.
 */
import { TimeoutError } from "../../../provider/client";
import { ProjectProvider } from "../../../provider/project";
import { ServiceAccountProvider } from "../../../provider/serviceAccount";
import { UncertainCreateError } from "../../../provider/serviceAccount/create";
import { waitFor } from "../../kit/sim/cli";
import { inputsFor, loose } from "../../kit/provider/serviceAccount";
import { configureRequest, simConfig, useProviderSuite } from "../../kit/provider/provider";
import { expectNoPlaintextSecrets } from "../../kit/secrets/secrets";
import { rejectionOf } from "../../kit/rejection";
import { withEnv } from "../../kit/env";

const POST_SA = /^\/v2\/projects\/[^/]+\/service-accounts$/;
const API_KEYS = /\/api-keys$/;
/** Every create is slower than the client's timeout (300 ms): the service commits 600 ms after the client gave up. */
const TIMEOUT_MS = 300;
const SLOW_MS = 900;
const savedEnv = { ...process.env };
/** Errors and progress lines, scanned for secrets at the end. */
const texts: string[] = [];

beforeAll(() => {
  // Read by the provider at call time: the client's per-attempt timeout, the watch after a lost answer, the pauses.
  Object.assign(process.env, {
    PIMS_TIMEOUT_MS: String(TIMEOUT_MS),
    PIMS_LOST_CREATE_WATCH_MS: "2000",
    PIMS_RETRY_MIN_DELAY_MS: "5",
  });
});
afterAll(() => {
  process.env = savedEnv;
});
const suite = useProviderSuite(ServiceAccountProvider, {
  afterEachTest: (warn) => texts.push(...warn.mock.calls.map((c: unknown[]) => c.map(String).join(" "))),
  beforeStop: (sim) =>
    expectNoPlaintextSecrets(texts.join("\n"), [...sim.issuedSecrets(), sim.token], "create errors and progress lines"),
});
const { sim } = suite;
const serviceAccounts = (): ReturnType<typeof loose> => loose(suite.provider);

async function uncertain(p: Promise<unknown>): Promise<UncertainCreateError> {
  const err = await rejectionOf(p, UncertainCreateError);
  texts.push(err.message, String(err.stack));
  return err;
}
const posts = (projectId: string): number =>
  sim.countRequests({ method: "POST", path: `/v2/projects/${projectId}/service-accounts` });

describe("every service-account create slower than the client's timeout", () => {
  test("2 accounts: one POST each, never repeated; each late account is named with its delete command", async () => {
    const project = sim.addProject();
    sim.addFault({ method: "POST", path: POST_SA, kind: "delay", delayMs: SLOW_MS });
    const provider = serviceAccounts();
    const [a, b] = await Promise.all(
      ["slow-a", "slow-b"].map((name) => uncertain(provider.create(inputsFor(project.id, name)))),
    );

    const live = sim.serviceAccounts(project.id);
    expect(live.map((x) => x.name).sort()).toEqual(["slow-a", "slow-b"]); // one per declared account, no more
    expect(posts(project.id)).toBe(2);
    for (const [err, name] of [
      [a, "slow-a"],
      [b, "slow-b"],
    ] as const) {
      const account = live.find((x) => x.name === name);
      expect(err.original).toBeInstanceOf(TimeoutError);
      expect(err.look).toBe("found");
      expect(err.candidates.map((c) => c.id)).toEqual([account?.id]);
      expect(err.message).toContain(`pims service-accounts delete ${project.id} ${account?.id}`);
      expect(err.message).not.toContain("    at ");
    }
    // The progress line says the create is not sent again and what is watched.
    expect(suite.warn.mock.calls.map((c: unknown[]) => String(c[0]))).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `POST /v2/projects/${project.id}/service-accounts: timeout: .*; not sent again; watching GET ` +
            `/v2/projects/${project.id}/api-keys`,
        ),
      ),
    );
  });

  test("beyond the watch window: the error says none appeared, how to check; one POST; commits later", async () => {
    const project = sim.addProject();
    await withEnv({ PIMS_LOST_CREATE_WATCH_MS: "500" }, async () => {
      sim.addFault({ method: "POST", path: POST_SA, kind: "delay", delayMs: 2500, times: 1 });
      const err = await uncertain(serviceAccounts().create(inputsFor(project.id, "very-slow")));
      expect(err.look).toBe("none");
      expect(err.message).toMatch(/no account named "very-slow" appeared in project .* within/);
      expect(err.message).toContain("The create was not sent again, so at most one such account can appear.");
      expect(err.message).toContain(`pims service-accounts list ${project.id}`);
      expect(err.message).toContain(`pims service-accounts delete ${project.id} <id>`);
      expect(sim.serviceAccounts(project.id)).toEqual([]);
      // The service finishes the request the client gave up on: the one account the error warned about.
      await waitFor(() => sim.serviceAccounts(project.id).length > 0, "the late create to commit");
      expect(sim.serviceAccounts(project.id).map((x) => x.name)).toEqual(["very-slow"]);
      expect(posts(project.id)).toBe(1);
    });
  });

  test("the listing fails during the watch: 'could not be checked', with the command to check; one POST", async () => {
    const project = sim.addProject();
    await withEnv({ PIMS_MAX_RETRIES: "0" }, async () => {
      sim.addFault({ method: "POST", path: POST_SA, kind: "delay", delayMs: SLOW_MS, times: 1 });
      sim.addFault({ method: "GET", path: API_KEYS, kind: "status", status: 503 });
      const err = await uncertain(serviceAccounts().create(inputsFor(project.id, "blind")));
      expect(err.look).toBe("unchecked");
      expect(err.message).toMatch(
        /may have created the account anyway, and that could not be checked: GET \/v2\/projects\/.*\/api-keys failed/,
      );
      expect(err.message).toContain(`pims service-accounts list ${project.id}`);
      // looked again
      expect(sim.countRequests({ method: "GET", path: `/v2/projects/${project.id}/api-keys` })).toBeGreaterThan(1);
      await waitFor(() => sim.serviceAccounts(project.id).length > 0, "the late create to commit");
      expect(posts(project.id)).toBe(1);
    });
  });
});

test("a create just under the timeout succeeds: one POST, one account, no listing", async () => {
  const project = sim.addProject();
  await withEnv({ PIMS_TIMEOUT_MS: "3000" }, async () => {
    sim.addFault({ method: "POST", path: POST_SA, kind: "delay", delayMs: 2000, times: 1 });
    const { id, outs } = await serviceAccounts().create(inputsFor(project.id, "just-in-time"));
    expect(sim.serviceAccounts(project.id).map((x) => x.id)).toEqual([id]);
    expect(outs.serviceAccountId).toBe(id);
    expect(sim.requests.map((r) => `${r.method} ${r.path.split("/").pop() ?? ""} ${r.status}`)).toEqual([
      "POST service-accounts 201",
    ]);
  });
});

test("a project create slower than the timeout: not resent, one project, the error says it may exist", async () => {
  sim.addFault({ method: "POST", path: "/v2/projects", kind: "delay", delayMs: SLOW_MS, times: 1 });
  const provider = new ProjectProvider();
  await provider.configure(configureRequest(simConfig(sim)));
  const err = await rejectionOf(provider.create({ name: "slow-project" }), Error);
  texts.push(err.message);
  expect(err.message).toMatch(/^creating project "slow-project": timed out/);
  expect(err.message).toContain(
    'A project named "slow-project" may exist anyway: the service did not answer, and may still create it.',
  );
  expect(err.message).toContain("Before you run `pulumi up` again, check");
  await waitFor(() => sim.projects().some((p) => p.name === "slow-project"), "the late project create to commit");
  expect(sim.projects().filter((p) => p.name === "slow-project")).toHaveLength(1);
  expect(sim.countRequests({ method: "POST", path: "/v2/projects" })).toBe(1);
});
