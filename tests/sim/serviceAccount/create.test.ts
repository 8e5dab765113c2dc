/**
 * ServiceAccount creates that fail, against the simulator: an answered failure (5xx) is followed by one listing of the
 * project's API keys, which decides between sending the create again (nothing was created) and reporting the possible
 * orphans; a lost answer (timeout, dropped connection) is never sent again, and the listing is watched to name the
 * account if it appears (an account with that name appeared since the create started, other
 * than the stack's own); a create answer whose token cannot be read (quirky profile, forced layouts) makes the
 * provider delete that account at once. Every readable token layout of the quirky profile leaves no live account
 * nobody holds after create, replace and delete.
 */
import { ServerError, TimeoutError, ValidationError } from "../../../provider/client";
import { UncertainCreateError } from "../../../provider/serviceAccount/create";
import { ServiceAccountProvider } from "../../../provider/serviceAccount";
import {
  READABLE_TOKEN_LAYOUT_NAMES,
  UNREADABLE_TOKEN_LAYOUT_NAMES,
  type FaultRule,
  type PimsSimulator,
} from "../../../simulator";
import { inputsFor, loose, type LooseServiceAccountProvider } from "../../kit/provider/serviceAccount";
import { configureRequest, recordWarnings, simConfig } from "../../kit/provider/provider";
import { expectNoPlaintextSecrets } from "../../kit/secrets/secrets";
import { rejectionOf } from "../../kit/rejection";
import { startSimulator } from "../../kit/sim/simulator";
import { testClient } from "../../kit/sim/client";
import { withEnv } from "../../kit/env";

const POST_SA = /\/service-accounts$/;
const API_KEYS = /\/api-keys$/;
const savedEnv = { ...process.env };
let sim: PimsSimulator;
const texts: string[] = [];

beforeAll(async () => {
  process.env.PIMS_RETRY_MIN_DELAY_MS = "5"; // backoff between create attempts, read by the provider at call time
  process.env.PIMS_LOST_CREATE_WATCH_MS = "400"; // how long a create whose answer was lost is watched for
  sim = await startSimulator();
});
afterAll(async () => {
  process.env = savedEnv;
  expectNoPlaintextSecrets(texts.join("\n"), [...sim.issuedSecrets(), sim.token], "create errors and progress lines");
  await sim.stop();
});
beforeEach(() => sim.clearFaults());
const warnings = recordWarnings(texts);

async function configured(s: PimsSimulator = sim): Promise<LooseServiceAccountProvider> {
  const p = new ServiceAccountProvider();
  await p.configure(configureRequest(simConfig(s)));
  return loose(p);
}
async function failure<T extends Error>(p: Promise<unknown>, cls: abstract new (...args: never[]) => T): Promise<T> {
  const err = await rejectionOf(p, cls);
  texts.push(err.message, String(err.stack));
  return err;
}
/**
 * A create of the account `name` in a new project under these faults, the request log cleared first: the project's id
 * and the error the create fails with (of class `cls`).
 */
async function failedCreate<T extends Error>(
  name: string,
  faults: FaultRule[],
  cls: abstract new (...args: never[]) => T,
): Promise<{ projectId: string; err: T }> {
  const project = sim.addProject();
  const provider = await configured();
  for (const f of faults) sim.addFault(f);
  sim.clearRequests();
  return { projectId: project.id, err: await failure(provider.create(inputsFor(project.id, name)), cls) };
}
/** An account named `name` created outside this provider `ms` ago (simulator clock set back, then forward again). */
async function createdAgo(projectId: string, name: string, ms: number): Promise<{ id: string }> {
  sim.advanceClock(-ms);
  try {
    return await testClient(sim).createServiceAccount(projectId, { name, grants: [projectId], expiresIn: 0 });
  } finally {
    sim.advanceClock(ms);
  }
}
/** `METHOD <last path segment> STATUS` of every request since the last clearRequests(). */
const log = (s: PimsSimulator = sim): string[] =>
  s.requests.map((r) => `${r.method} ${r.path.split("/").pop() ?? ""} ${r.status}`);

describe("creates that fail", () => {
  test("the happy path makes exactly one call (the POST)", async () => {
    const project = sim.addProject();
    const provider = await configured();
    sim.clearRequests();
    await provider.create(inputsFor(project.id, "happy"));
    expect(log()).toEqual(["POST service-accounts 201"]);
  });

  test("a failure that proves nothing was created (422) is rethrown without any listing", async () => {
    const project = sim.addProject();
    const provider = await configured();
    sim.clearRequests();
    const err = await failure(
      provider.create({ ...inputsFor(project.id, "bad"), grants: ["p-doesnotexist"] }),
      ValidationError,
    );
    expect(err.message).toMatch(/creating service account "bad" in project .*: 422 .*grants\[0\].*p-doesnotexist/);
    expect(log()).toEqual(["POST service-accounts 422"]);
    expect(sim.serviceAccounts(project.id)).toEqual([]);
  });

  test("a 503 before anything was created: the listing shows none new; the create is resent and succeeds", async () => {
    const project = sim.addProject();
    const provider = await configured();
    sim.addFault({ method: "POST", path: POST_SA, kind: "status", status: 503, times: 1 });
    sim.clearRequests();
    const { id, outs } = await provider.create(inputsFor(project.id, "retried"));
    expect(log()).toEqual(["POST service-accounts 503", "GET api-keys 200", "POST service-accounts 201"]);
    expect(sim.serviceAccounts(project.id).map((a) => a.id)).toEqual([id]); // one account, the one in the state
    expect(sim.issuedSecrets()).toContain(outs.token);
    expect(warnings()).toHaveBeenCalledTimes(1);
    expect(String(warnings().mock.calls[0][0])).toMatch(
      /^pulumi-pims: POST \/v2\/projects\/.*\/service-accounts: 503, and GET \/v2\/projects\/.*\/api-keys shows no new account named "retried"; create retry 1 of 7 in \d+ms$/,
    );
  });

  test("a POST dropped without an answer: never resent; the listing watched; the error says how to check", async () => {
    const { projectId, err } = await failedCreate(
      "dropped",
      [{ method: "POST", path: POST_SA, kind: "drop", times: 1 }],
      UncertainCreateError,
    );
    expect(err.look).toBe("none");
    expect(log()[0]).toBe("POST service-accounts 0");
    expect(sim.countRequests({ method: "POST", path: POST_SA })).toBe(1); // at most one unknown account
    expect(
      log()
        .slice(1)
        .every((l) => l === "GET api-keys 200"),
    ).toBe(true);
    expect(log().length).toBeGreaterThan(2); // looked again, not only once right after the failure
    expect(err.message).toMatch(
      /The service did not answer, so it may still create the account: no account named "dropped" appeared/,
    );
    expect(err.message).toContain(`pims service-accounts list ${projectId}`);
    expect(sim.serviceAccounts(projectId)).toEqual([]);
    const watching = warnings().mock.calls.map((c: unknown[]) => String(c[0]));
    expect(watching).toEqual([
      expect.stringMatching(
        /^pulumi-pims: POST \/v2\/projects\/.*\/service-accounts: .*may still create the account; not sent again; watching/,
      ),
    ]);
  });

  test("a same-named account older than the request (another stack's, or the replaced one) is left alone", async () => {
    const project = sim.addProject();
    const provider = await configured();
    const older = await createdAgo(project.id, "shared", 60_000);
    sim.addFault({ method: "POST", path: POST_SA, kind: "status", status: 500, times: 1 });
    sim.clearRequests();
    const { id } = await provider.create(inputsFor(project.id, "shared"));
    expect(log()).toEqual(["POST service-accounts 500", "GET api-keys 200", "POST service-accounts 201"]);
    expect(
      sim
        .serviceAccounts(project.id)
        .map((a) => a.id)
        .sort(),
    ).toEqual([older.id, id].sort());
  });

  test("commit then 503: the account made is named, without its token; nothing is retried or deleted", async () => {
    const { projectId, err } = await failedCreate(
      "committed",
      [{ method: "POST", path: POST_SA, kind: "status", status: 503, afterCommit: true, times: 1 }],
      UncertainCreateError,
    );
    const live = sim.serviceAccounts(projectId);
    expect(live).toHaveLength(1);
    expect(err.original).toBeInstanceOf(ServerError);
    expect(err.candidates).toEqual([{ id: live[0].id, createdAt: live[0].createdAt }]);
    const lines = err.message.split("\n");
    expect(lines[0]).toBe(`creating service account "committed" in project ${projectId}: 503 injected fault`);
    expect(err.message).toContain(`${live[0].id} (created ${live[0].createdAt})`);
    expect(err.message).toContain(`pims service-accounts delete ${projectId} <id>`);
    expect(log()).toEqual(["POST service-accounts 503", "GET api-keys 200"]);
  });

  test("service clock an hour behind ours: commit then 503 still names the account (its Date header)", async () => {
    const project = sim.addProject();
    const provider = await configured();
    sim.advanceClock(-3_600_000);
    try {
      sim.addFault({ method: "POST", path: POST_SA, kind: "status", status: 503, afterCommit: true, times: 1 });
      sim.clearRequests();
      const err = await failure(provider.create(inputsFor(project.id, "slow-clock")), UncertainCreateError);
      const live = sim.serviceAccounts(project.id);
      expect(live).toHaveLength(1); // not sent again: by our clock the account looks an hour older than the request
      expect(err.candidates).toEqual([{ id: live[0].id, createdAt: live[0].createdAt }]);
      expect(log()).toEqual(["POST service-accounts 503", "GET api-keys 200"]);
    } finally {
      sim.advanceClock(3_600_000);
    }
  });

  test("commit then 503 next to the stack's own same-named accounts: only the orphan is named", async () => {
    const project = sim.addProject();
    const provider = await configured();
    // The stack's own: one created long before (in state, or being replaced), one created by this process just now.
    const inState = await createdAgo(project.id, "fleet", 60_000);
    const sibling = await provider.create(inputsFor(project.id, "fleet"));
    sim.addFault({ method: "POST", path: POST_SA, kind: "status", status: 503, afterCommit: true, times: 1 });
    const err = await failure(provider.create(inputsFor(project.id, "fleet")), UncertainCreateError);
    const orphan = sim.serviceAccounts(project.id).filter((a) => a.id !== inState.id && a.id !== sibling.id);
    expect(orphan).toHaveLength(1);
    expect(err.candidates.map((c) => c.id)).toEqual([orphan[0].id]);
    expect(err.message).not.toContain(inState.id);
    expect(err.message).not.toContain(sibling.id);
  });

  test("created but the response was lost (client timeout): named as a possible orphan, not retried", async () => {
    // PIMS_TIMEOUT_MS is read by the provider's client at call time.
    await withEnv({ PIMS_TIMEOUT_MS: "1000" }, async () => {
      // The POST is handled 1.3 s after it arrives, after the client gave up at 1 s; the listing sent at ~1 s is
      // answered at ~1.6 s, so it sees the account the POST created meanwhile.
      const { projectId, err } = await failedCreate(
        "slow-ci",
        [
          { method: "POST", path: POST_SA, kind: "delay", delayMs: 1300, times: 1 },
          { method: "GET", path: API_KEYS, kind: "delay", delayMs: 600, times: 1 },
        ],
        UncertainCreateError,
      );
      const live = sim.serviceAccounts(projectId);
      expect(live).toHaveLength(1); // created, and not deleted by the provider
      expect(err.original).toBeInstanceOf(TimeoutError);
      expect(err.candidates).toEqual([{ id: live[0].id, createdAt: live[0].createdAt }]);
      expect(err.message.split("\n")[0]).toBe(
        `creating service account "slow-ci" in project ${projectId}: timed out waiting for the service`,
      );
      expect(err.message).toContain("Their tokens are unknown to Pulumi");
      expect(err.look).toBe("found");
      // no retry of the POST; named at the first look
      expect(log()).toEqual(["POST service-accounts 201", "GET api-keys 200"]);
    });
  });

  test("the listing fails too: the error says it may exist, unchecked, with the command; no resend", async () => {
    await withEnv({ PIMS_MAX_RETRIES: "1" }, async () => {
      const { projectId, err } = await failedCreate(
        "blind",
        [
          { method: "POST", path: POST_SA, kind: "status", status: 500, times: 1 },
          { method: "GET", path: API_KEYS, kind: "status", status: 503 },
        ],
        UncertainCreateError,
      );
      expect(err.original).toBeInstanceOf(ServerError);
      expect(err.look).toBe("unchecked");
      const [first, second] = err.message.split("\n");
      expect(first).toBe(`creating service account "blind" in project ${projectId}: 500 injected fault`);
      expect(second).toMatch(
        /may have created the account anyway, and that could not be checked: GET \/v2\/projects\/.*\/api-keys failed \(.*503/,
      );
      expect(second).toContain(`\`pims service-accounts list ${projectId}\``);
      expect(log()).toEqual(["POST service-accounts 500", "GET api-keys 503", "GET api-keys 503"]);
      expect(sim.serviceAccounts(projectId)).toEqual([]);
    });
  });

  test("retries are bounded: always 503 means 8 attempts, then the error; nothing created", async () => {
    const { projectId, err } = await failedCreate(
      "never",
      [{ method: "POST", path: POST_SA, kind: "status", status: 503 }],
      ServerError,
    );
    expect(err.message).toBe(`creating service account "never" in project ${projectId}: 503 injected fault`);
    expect(sim.countRequests({ method: "POST", path: POST_SA })).toBe(8);
    expect(sim.countRequests({ method: "GET", path: API_KEYS })).toBe(8);
    expect(sim.serviceAccounts(projectId)).toEqual([]);
  });
});

describe("quirky profile: token layouts", () => {
  let quirky: PimsSimulator;
  beforeAll(async () => {
    quirky = await startSimulator({ profile: "quirky" });
  });
  afterAll(async () => {
    expectNoPlaintextSecrets(
      texts.join("\n"),
      [...quirky.issuedSecrets(), quirky.token],
      "errors of the quirky profile",
    );
    await quirky.stop();
  });

  test.each([...READABLE_TOKEN_LAYOUT_NAMES])(
    "layout %s: create, replace and delete leave no account nobody holds; the token works",
    async (layout) => {
      quirky.setTokenLayout(layout);
      const project = quirky.addProject();
      const provider = await configured(quirky);
      const first = await provider.create(inputsFor(project.id, `layout-${layout}`));
      await expect(testClient(quirky, { token: first.outs.token }).listApiKeys(project.id)).resolves.toBeDefined();
      expect(first.outs.tokenExpiresAt === "never" || !Number.isNaN(Date.parse(first.outs.tokenExpiresAt))).toBe(true);
      const second = await provider.create(inputsFor(project.id, `layout-${layout}`, { rotationTrigger: "r2" }));
      await provider.delete(first.id, first.outs);
      expect(quirky.serviceAccounts(project.id).map((a) => a.id)).toEqual([second.id]);
      await provider.delete(second.id, second.outs);
      expect(quirky.serviceAccounts(project.id)).toEqual([]);
    },
  );

  test.each([...UNREADABLE_TOKEN_LAYOUT_NAMES])(
    "layout %s (no identifiable secret): the account is deleted at once and the error names the members",
    async (layout) => {
      quirky.setTokenLayout(layout);
      const project = quirky.addProject();
      const provider = await configured(quirky);
      quirky.clearRequests();
      const err = await failure(provider.create(inputsFor(project.id, `unreadable-${layout}`)), Error);
      expect(quirky.serviceAccounts(project.id)).toEqual([]); // nothing live that the stack does not hold
      const [deleted] = quirky.deletedServiceAccounts().slice(-1);
      expect(log(quirky)).toEqual([
        `POST service-accounts ${quirky.requests[0].status}`,
        `DELETE ${deleted} ${quirky.requests[1].status}`,
      ]);
      expect(err.message).toMatch(
        /its token object has no member pulumi-pims can identify as the secret \(members seen: ".+"/,
      );
      expect(err.message).toContain(`The account (${deleted}) was deleted at once, so nothing is left behind.`);
      expect(err.message).toContain(
        "open an issue for pulumi-pims quoting the member names above (names only, never their values)",
      );
    },
  );

  test("unreadable token and the delete fails: the error says the account is live and how to delete it", async () => {
    quirky.setTokenLayout("hashOnly");
    const project = quirky.addProject();
    const provider = await configured(quirky);
    quirky.addFault({ method: "DELETE", path: "/v2/projects/*", kind: "status", status: 500 });
    try {
      const err = await failure(provider.create(inputsFor(project.id, "unreadable-kept")), Error);
      const live = quirky.serviceAccounts(project.id);
      expect(live).toHaveLength(1);
      expect(err.message).toContain(
        `account ${live[0].id} is live in project ${project.id} and nobody holds its token`,
      );
      expect(err.message).toContain(`pims service-accounts delete ${project.id} ${live[0].id}`);
    } finally {
      quirky.clearFaults();
    }
  });
});
