/**
 * ServiceAccount refresh and the orphan notice against the simulator (issue 25). Each test plays one or more engine
 * operations; each operation is a run of its own (`newRun()`), as each is a provider process of its own:
 *
 * - refresh with nothing changed: one listing per project, the outputs exactly as stored (tokens included), right
 *   after a create too, even when the listing lags behind the create;
 * - an account deleted outside the stack: the resource leaves the state (previous and retired accounts are dropped
 *   from the outputs); a gone current account whose previous one is live keeps the resource, marked, and the next
 *   update creates a new current account and keeps the previous one;
 * - a listing that fails, answers 401/403/404 or cannot be read keeps everything, with why; a listing that shows none
 *   of the run's accounts (a credential that cannot see) keeps every account whose token still works;
 * - the notice names accounts with the resource's name that no state of the run holds, with their delete command,
 *   on refresh, rotation and delete, and never one another resource of the run holds;
 * - concurrent refreshes share one listing per project.
 * Every line and error is scanned for secrets at the end.
 */
import { newRun } from "../../../provider/serviceAccount/run";
import { ServiceAccountProvider, type ServiceAccountOutputs } from "../../../provider/serviceAccount";
import { inputsFor, loose, type Props } from "../../kit/provider/serviceAccount";
import { configureRequest, useProviderSuite } from "../../kit/provider/provider";
import { expectNoPlaintextSecrets } from "../../kit/secrets/secrets";
import { testClient } from "../../kit/sim/client";

const texts: string[] = [];
const suite = useProviderSuite(ServiceAccountProvider, {
  afterEachTest: (warn) => texts.push(...warn.mock.calls.map((a: unknown[]) => a.map(String).join(" "))),
});
const SHIM = "serialized-shim";
const saved = { ...process.env };
beforeAll(() => {
  process.env.PIMS_LISTING_LAG_MS = "0"; // the accounts here are seconds old; the lag test sets its own window
  process.env.PIMS_RETRY_MIN_DELAY_MS = "5";
});
afterAll(() => {
  for (const k of ["PIMS_LISTING_LAG_MS", "PIMS_RETRY_MIN_DELAY_MS"]) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
  expectNoPlaintextSecrets(texts.join("\n"), suite.sim.issuedSecrets(), "refresh lines and errors");
});
beforeEach(() => newRun());

const p = () => loose(suite.provider);
const asState = (o: ServiceAccountOutputs): Props => ({ ...o, __provider: SHIM });
const lines = (): string[] => suite.warn.mock.calls.map((a: unknown[]) => String(a[0]));
/** The simulator's log: `METHOD path status by`, where `by` is `admin` or the account whose token was used. */
const log = (): string[] =>
  suite.sim.requests.map((r) => `${r.method} ${r.path} ${r.status} ${r.principal ?? "nobody"}`);
const keys = (projectId: string): string => `GET /v2/projects/${projectId}/api-keys`;
const deleteOutside = (projectId: string, id: string) => testClient(suite.sim).deleteServiceAccount(projectId, id);

/**
 * A created account, its creation time 10 s in the past (the simulator clock set back for the create): a `Date`
 * header has whole seconds, so an account created in the same second as a listing may always look fresh.
 */
async function backdated<T>(fn: () => Promise<T>): Promise<T> {
  suite.sim.advanceClock(-10_000);
  try {
    return await fn();
  } finally {
    suite.sim.advanceClock(10_000);
  }
}
async function created(projectId: string, name: string, extra: Props = {}): Promise<{ id: string; state: Props }> {
  const { id, outs } = await backdated(() => p().create(inputsFor(projectId, name, extra)));
  return { id, state: asState(outs) };
}

/** A keepPreviousToken account rotated once: a current and a previous account. */
async function rotated(projectId: string, name: string): Promise<{ id: string; state: Props; news: Props }> {
  const on = inputsFor(projectId, name, { keepPreviousToken: true, rotationTrigger: "1" });
  const { id, state } = await created(projectId, name, on);
  const news = { ...on, rotationTrigger: "2" };
  const outs = await backdated(() => p().update(id, state, news));
  return { id, state: asState(outs), news };
}

/** A refresh as its own run. */
async function refresh(id: string, state: Props) {
  newRun();
  suite.sim.clearRequests();
  return p().read(id, state);
}

describe("refresh", () => {
  test("nothing changed: one listing, the outputs exactly as stored, tokens included", async () => {
    const { id: projectId } = suite.sim.addProject();
    const { id, state } = await created(projectId, "kept");
    const r = await refresh(id, state);
    expect(r).toEqual({ id, props: state });
    expect(log()).toEqual([`${keys(projectId)} 200 admin`]);
    expect(lines()).toEqual([]);
  });

  test("right after a create, with a listing that lags behind it: kept unchanged, saying why", async () => {
    const { id: projectId } = suite.sim.addProject();
    suite.sim.setListingLag(60_000);
    try {
      process.env.PIMS_LISTING_LAG_MS = "120000";
      const { id, state } = await created(projectId, "fresh");
      expect(await refresh(id, state)).toEqual({ id, props: state });
      expect(log()).toEqual([`${keys(projectId)} 200 admin`]); // no probe: a fresh account is kept as it is
      expect(lines().join("\n")).toContain("(a listing may lag behind a create): kept");
    } finally {
      suite.sim.setListingLag(0);
      process.env.PIMS_LISTING_LAG_MS = "0";
    }
  });

  test("deleted outside, another account of the run listed: removed from the state, no probe", async () => {
    const { id: projectId } = suite.sim.addProject();
    const stays = await created(projectId, "stays");
    const gone = await created(projectId, "gone");
    await deleteOutside(projectId, gone.id);
    newRun();
    suite.sim.clearRequests();
    expect(await p().read(stays.id, stays.state)).toEqual({ id: stays.id, props: stays.state });
    expect(await p().read(gone.id, gone.state)).toEqual({ id: "" });
    expect(log()).toEqual([`${keys(projectId)} 200 admin`]);
    expect(lines().join("\n")).toContain(
      `service account "gone" (${gone.id}) in project ${projectId}: GET ${suite.sim.baseUrl}/v2/projects/` +
        `${projectId}/api-keys no longer shows it: deleted outside the stack. Removed from the state`,
    );
  });

  test("the project's only account deleted: the listing shows none, its token answers 401: removed", async () => {
    const { id: projectId } = suite.sim.addProject();
    const only = await created(projectId, "only");
    await deleteOutside(projectId, only.id);
    expect(await refresh(only.id, only.state)).toEqual({ id: "" });
    expect(log()).toEqual([`${keys(projectId)} 200 admin`, `${keys(projectId)} 401 nobody`]);
    expect(lines().join("\n")).toContain("shows none of the 1 account(s) this run holds");
  });

  test("a credential that sees nothing (the listing answers []): all kept, one probe per project", async () => {
    const { id: projectId } = suite.sim.addProject();
    const a = await rotated(projectId, "blind-a");
    const b = await created(projectId, "blind-b");
    newRun();
    suite.sim.clearRequests();
    suite.sim.addFault({
      method: "GET",
      path: `/v2/projects/${projectId}/api-keys`,
      kind: "status",
      status: 200,
      body: [],
    });
    expect(await p().read(a.id, a.state)).toEqual({ id: a.id, props: a.state });
    expect(await p().read(b.id, b.state)).toEqual({ id: b.id, props: b.state });
    // The listing, then one token asked (it works: the listing is blind), then nothing more.
    expect(log()).toEqual([`${keys(projectId)} 200 nobody`, `${keys(projectId)} 200 nobody`]); // (faults log no caller)
    expect(lines().join("\n")).toContain("the credential cannot see this project's keys");
  });

  test.each([
    ["503", { kind: "status" as const, status: 503 }, "it failed"],
    ["403", { kind: "status" as const, status: 403 }, "the credential may not list the project's keys (403)"],
    ["an unreadable body", { kind: "status" as const, status: 200, body: { not: "a list" } }, "it failed"],
  ])("a listing that answers %s: kept unchanged, saying why", async (_what, fault, why) => {
    const { id: projectId } = suite.sim.addProject();
    const { id, state } = await created(projectId, "failing");
    await deleteOutside(projectId, id); // even gone: a listing that cannot be read concludes nothing
    suite.sim.addFault({ method: "GET", path: `/v2/projects/${projectId}/api-keys`, ...fault });
    expect(await refresh(id, state)).toEqual({ id, props: state });
    expect(lines().join("\n")).toContain(
      `kept in the state unchanged: GET ${suite.sim.baseUrl}/v2/projects/${projectId}/api-keys ${why}`,
    );
  });

  test("a project deleted outside Pulumi (the listing answers 404): kept, saying why", async () => {
    const { id: projectId } = suite.sim.addProject();
    const { id, state } = await created(projectId, "project-gone");
    suite.sim.removeProject(projectId);
    expect(await refresh(id, state)).toEqual({ id, props: state });
    expect(lines().join("\n")).toContain("it answered 404 (the project was deleted outside Pulumi");
  });

  test("no credentials at all: kept unchanged, saying why", async () => {
    const { id: projectId } = suite.sim.addProject();
    const { id, state } = await created(projectId, "no-credentials");
    const bare = new ServiceAccountProvider();
    await bare.configure(configureRequest({}));
    newRun();
    const saved = [process.env.PIMS_TOKEN, process.env.PIMS_BASE_URL];
    delete process.env.PIMS_TOKEN;
    delete process.env.PIMS_BASE_URL;
    try {
      expect(await loose(bare).read(id, state)).toEqual({ id, props: state });
    } finally {
      if (saved[0] !== undefined) process.env.PIMS_TOKEN = saved[0];
      if (saved[1] !== undefined) process.env.PIMS_BASE_URL = saved[1];
    }
    expect(lines().join("\n")).toContain("kept in the state unchanged");
  });

  test("keepPreviousToken: a previous account deleted outside is dropped from the outputs", async () => {
    const { id: projectId } = suite.sim.addProject();
    const { id, state } = await rotated(projectId, "prev-gone");
    await deleteOutside(projectId, String(state.previousServiceAccountId));
    const r = await refresh(id, state);
    const { previousServiceAccountId, previousToken, previousTokenId, previousTokenExpiresAt, ...rest } = state;
    expect([previousServiceAccountId, previousToken, previousTokenId, previousTokenExpiresAt]).not.toContain(undefined);
    expect(r).toEqual({ id, props: rest });
  });

  test("keepPreviousToken: current gone, previous live: kept, marked; the next up makes a new one", async () => {
    const { id: projectId } = suite.sim.addProject();
    const { id, state, news } = await rotated(projectId, "cur-gone");
    const current = String(state.serviceAccountId);
    await deleteOutside(projectId, current);
    const r = await refresh(id, state);
    expect(r.id).toBe(id);
    // The previous account's outputs as they were, the current one marked retired.
    expect(r.props).toEqual({ ...state, retiredServiceAccountIds: [current] });
    const marked = r.props as unknown as Props;
    expect(await p().diff(id, marked, news)).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    newRun();
    const outs = await p().update(id, marked, news);
    expect(outs.serviceAccountId).not.toBe(current);
    expect(outs.previousServiceAccountId).toBe(state.previousServiceAccountId); // still the previous one, still live
    expect(outs.previousToken).toBe(state.previousToken);
    expect(outs.retiredServiceAccountIds).toBeUndefined(); // the DELETE answered 404, confirmed by a listing
    const live = suite.sim.serviceAccounts(projectId).map((a) => a.id);
    expect(live.sort()).toEqual([outs.serviceAccountId, String(state.previousServiceAccountId)].sort());
    await expect(
      testClient(suite.sim, { token: outs.token, retries: 0 }).listApiKeys(projectId),
    ).resolves.toBeDefined();
  });

  test("keepPreviousToken: both accounts gone: the resource leaves the state", async () => {
    const { id: projectId } = suite.sim.addProject();
    const other = await created(projectId, "witness"); // the listing can see: it shows this one
    const { id, state } = await rotated(projectId, "both-gone");
    await deleteOutside(projectId, String(state.serviceAccountId));
    await deleteOutside(projectId, String(state.previousServiceAccountId));
    newRun();
    await p().read(other.id, other.state);
    expect(await p().read(id, state)).toEqual({ id: "" });
  });

  test("concurrent refreshes of five accounts in two projects: one listing per project", async () => {
    const [x, y] = [suite.sim.addProject().id, suite.sim.addProject().id];
    const all = await Promise.all([
      ...["x1", "x2", "x3"].map((n) => created(x, n)),
      ...["y1", "y2"].map((n) => created(y, n)),
    ]);
    newRun();
    suite.sim.clearRequests();
    const results = await Promise.all(all.map((a) => p().read(a.id, a.state)));
    expect(results).toEqual(all.map((a) => ({ id: a.id, props: a.state })));
    expect(log().sort()).toEqual([`${keys(x)} 200 admin`, `${keys(y)} 200 admin`].sort());
  });
});

describe("the orphan notice", () => {
  test("refresh, rotation and delete name a same-named account no state holds, never one the run holds", async () => {
    const { id: projectId } = suite.sim.addProject();
    const mine = await created(projectId, "ci", { keepPreviousToken: true, rotationTrigger: "1" });
    const sibling = await created(projectId, "ci"); // another resource of the stack with the same name
    const orphan = await testClient(suite.sim).createServiceAccount(projectId, {
      name: "ci",
      grants: [projectId],
      expiresIn: 0,
    });
    const command = `pims service-accounts delete ${projectId} ${orphan.id}`;

    newRun(); // a refresh reads every resource at once: both are seen before the listing answers
    await Promise.all([p().read(sibling.id, sibling.state), p().read(mine.id, mine.state)]);
    const notices = lines().filter((l) => l.includes("held by no state this run has seen"));
    expect(notices).toHaveLength(2); // one on each resource
    for (const n of notices) {
      expect(n).toContain(`  ${orphan.id} (created ${orphan.createdAt}): ${command}`);
      expect(n).not.toContain(sibling.id);
      expect(n).not.toContain(String(mine.state.serviceAccountId));
      expect(n).toContain("may manage an account with the same name");
    }

    // A rotation (its own run): the listing once, and the notice again.
    suite.warn.mockClear();
    newRun();
    await p().diff(sibling.id, sibling.state, inputsFor(projectId, "ci"));
    suite.sim.clearRequests();
    const outs = await p().update(mine.id, mine.state, {
      ...inputsFor(projectId, "ci"),
      keepPreviousToken: true,
      rotationTrigger: "2",
    });
    expect(log().map((l) => l.split(" ").slice(0, 2).join(" "))).toEqual([
      `POST /v2/projects/${projectId}/service-accounts`,
      keys(projectId),
    ]);
    expect(lines().filter((l) => l.includes(command))).toHaveLength(1);
    expect(lines().join("\n")).not.toContain(`${sibling.id} (created`);

    // destroy: named once per resource, and never deleted.
    suite.warn.mockClear();
    newRun();
    await p().delete(mine.id, asState(outs));
    await p().delete(sibling.id, sibling.state);
    expect(lines().filter((l) => l.includes(command))).toHaveLength(2);
    expect(suite.sim.serviceAccounts(projectId).map((a) => a.id)).toEqual([orphan.id]);
    expect(suite.sim.countRequests({ method: "GET", path: `/v2/projects/${projectId}/api-keys` })).toBeGreaterThan(0);
  });

  test("a listing that fails during a delete: one line, and the delete goes on", async () => {
    const { id: projectId } = suite.sim.addProject();
    const { id, state } = await created(projectId, "listing-down");
    newRun();
    suite.sim.addFault({ method: "GET", path: `/v2/projects/${projectId}/api-keys`, kind: "status", status: 403 });
    await p().delete(id, state);
    expect(suite.sim.serviceAccounts(projectId)).toEqual([]);
    expect(lines().join("\n")).toContain('could not look for accounts named "listing-down" that no state holds');
  });
});
