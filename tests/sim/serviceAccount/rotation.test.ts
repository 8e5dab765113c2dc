/**
 * ServiceAccount overlapping rotation (`keepPreviousToken`, issue 18) against the simulator: five rotations with short
 * expiries (a new rotationTrigger and the rotateBeforeExpiry window reached, both clocks advanced), each checked
 * against what the simulator holds (two live accounts, the right one deleted, both output tokens working, the deleted
 * one refused); switching the option on and off; the option off unchanged (a replacement); refresh; destroy; a refused
 * DELETE of the old previous account, finished by the next update. Every error and log line is scanned for secrets.
 */
import { AuthError } from "../../../provider/client";
import { newRun } from "../../../provider/serviceAccount/run";
import { ROTATION_REASON, ServiceAccountProvider, type ServiceAccountOutputs } from "../../../provider/serviceAccount";
import { inputsFor, isPlainJson, loose, type LooseServiceAccountProvider, type Props } from "../../kit/serviceAccount";
import { expectNoPlaintextSecrets } from "../../kit/secrets";
import { testClient } from "../../kit/client";
import { useProviderSuite } from "../../kit/provider";

/** The provider's rotation window follows the simulator clock, as token expiry on the service side does. */
class SimClockProvider extends ServiceAccountProvider {
  constructor() {
    super({ now: () => suite.sim.now().getTime() });
  }
}

/** Every console.warn line (the progress lines) and error text of the file: scanned for secrets at the end. */
const texts: string[] = [];
const suite = useProviderSuite(SimClockProvider, {
  afterEachTest: (warn) => texts.push(...warn.mock.calls.map((args: unknown[]) => args.map(String).join(" "))),
});
const SHIM = "serialized-shim";
/** A period of 20 s: a token is current for 20 s (expiresIn − window), then previous for 20 s, and valid for 60 s. */
const LIFETIME = { expiresIn: 60, rotateBeforeExpiry: 40 };

const provider = (): LooseServiceAccountProvider => loose(suite.provider);
const liveIds = (projectId: string): string[] =>
  suite.sim
    .serviceAccounts(projectId)
    .map((a) => a.id)
    .sort();
/** Does GET /v2/projects/{project_id}/api-keys with this bearer token answer (true) or 401 (false)? */
async function works(projectId: string, token: string | undefined): Promise<boolean> {
  if (token === undefined) throw new Error("no token");
  try {
    await testClient(suite.sim, { token, retries: 0 }).listApiKeys(projectId);
    return true;
  } catch (e) {
    if (e instanceof AuthError) return false;
    throw e;
  }
}
/** The simulator's request log as `METHOD path` lines. */
const calls = (): string[] => suite.sim.requests.map((r) => `${r.method} ${r.path}`);
const accountPath = (projectId: string, id?: string): string =>
  `/v2/projects/${projectId}/service-accounts${id ? `/${id}` : ""}`;
const asState = (outs: ServiceAccountOutputs): Props => ({ ...outs, __provider: SHIM });

/** Checked inputs, as the engine passes them to diff and update. */
async function checked(news: Props): Promise<Props> {
  const r = await provider().check({}, news);
  expect(r.failures).toEqual([]);
  return { ...(r.inputs as Props | undefined), __provider: SHIM };
}

/** The error of a rejected promise; its message and stack join the secret scan. */
async function rejection(p: Promise<unknown>): Promise<Error & { id?: string; properties?: Props }> {
  const outcome = await p.then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  if (!outcome) throw new Error("expected the promise to reject");
  texts.push(outcome.message, String(outcome.stack ?? ""));
  return outcome;
}

/**
 * One rotation with the option on: diff says update (never replace), update makes exactly one POST and, when there
 * was a previous account, exactly one DELETE (of it, two rotations old). Afterwards the simulator holds exactly the
 * new and the former current account, the outputs point at their tokens, and the deleted account's token is refused.
 */
async function rotate(
  projectId: string,
  id: string,
  state: Props,
  news: Props,
  reasons: string[],
): Promise<ServiceAccountOutputs> {
  const p = provider();
  const before = state as unknown as ServiceAccountOutputs;
  expect(await p.diff(id, state, news)).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
  suite.sim.clearRequests();
  newRun(); // each step is an engine operation of its own: a provider process, a run
  const outs = await p.update(id, state, news);

  const old = before.previousServiceAccountId;
  expect(calls()).toEqual([
    `POST ${accountPath(projectId)}`,
    `GET /v2/projects/${projectId}/api-keys`, // the run's look for accounts no state holds
    ...(old ? [`DELETE ${accountPath(projectId, old)}`] : []),
  ]);
  expect(isPlainJson(outs)).toBe(true);
  expect(outs.serviceAccountId).not.toBe(before.serviceAccountId);
  expect(outs).toMatchObject({
    previousServiceAccountId: before.serviceAccountId,
    previousTokenId: before.tokenId,
    previousTokenExpiresAt: before.tokenExpiresAt,
    previousToken: before.token,
    keepPreviousToken: true,
  });
  expect(outs.retiredServiceAccountIds).toBeUndefined();
  expect(liveIds(projectId)).toEqual([outs.serviceAccountId, before.serviceAccountId].sort());
  const current = suite.sim.serviceAccounts(projectId).find((a) => a.id === outs.serviceAccountId);
  expect(outs.tokenId).toBe(current?.tokenId);
  // The quirky profile's epoch-seconds layouts drop the milliseconds of the expiry.
  expect(Math.abs(Date.parse(outs.tokenExpiresAt) - Date.parse(String(current?.tokenExpiresAt)))).toBeLessThan(1000);
  expect(suite.sim.issuedSecrets()).toContain(outs.token);
  expect(await works(projectId, outs.token)).toBe(true);
  expect(await works(projectId, outs.previousToken)).toBe(true);
  if (old) {
    expect(suite.sim.deletedServiceAccounts()).toContain(old);
    expect(await works(projectId, before.previousToken)).toBe(false);
  }
  // The progress line names the accounts, never a token.
  const line = suite.warn.mock.calls
    .map((a: unknown[]) => String(a[0]))
    .find((l) => l.includes(`new account ${outs.serviceAccountId}`));
  expect(line).toBe(
    `pulumi-pims: service account ${JSON.stringify(outs.name)} in project ${projectId}: rotated ` +
      `(${reasons.join(", ")}): new account ${outs.serviceAccountId}; ` +
      `previous account ${before.serviceAccountId} kept until the next rotation${old ? `, ${old} deleted` : ""}`,
  );
  // Right after the rotation nothing is due: the next up changes nothing.
  expect(await p.diff(id, asState(outs), news)).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
  return outs;
}

/** An account with the option on, created and rotated once by a new rotationTrigger: it has a previous account. */
async function rotatedOnce(
  name: string,
): Promise<{ projectId: string; id: string; on: Props; outs: ServiceAccountOutputs; second: ServiceAccountOutputs }> {
  const projectId = suite.sim.addProject().id;
  const on = await checked(inputsFor(projectId, name, { ...LIFETIME, keepPreviousToken: true }));
  const { id, outs } = await provider().create(on);
  const second = await rotate(projectId, id, asState(outs), { ...on, rotationTrigger: "2" }, ["rotationTrigger"]);
  return { projectId, id, on, outs, second };
}

describe("overlapping rotation (keepPreviousToken)", () => {
  test("five rotations (trigger and window, short expiries): two live accounts each time; oldest deleted", async () => {
    const { sim } = suite;
    const project = sim.addProject();
    let news = await checked(
      inputsFor(project.id, "overlap", { ...LIFETIME, keepPreviousToken: true, rotationTrigger: "1" }),
    );
    const { id, outs: first } = await provider().create(news);
    expect(liveIds(project.id)).toEqual([id]);
    expect(first).not.toHaveProperty("previousToken");
    let outs = first;

    const steps: Array<{ trigger?: string; advanceS?: number; reasons: string[] }> = [
      { trigger: "2", reasons: ["rotationTrigger"] },
      { advanceS: 20, reasons: [ROTATION_REASON] }, // the current token has 40 s left: its window is reached
      { trigger: "3", advanceS: 10, reasons: ["rotationTrigger"] },
      { advanceS: 20, reasons: [ROTATION_REASON] },
      { trigger: "4", advanceS: 20, reasons: ["rotationTrigger", ROTATION_REASON] }, // both at once: still one account
    ];
    for (const step of steps) {
      if (step.advanceS) {
        sim.advanceClock(step.advanceS * 1000);
        // The previous token is still valid when its successor is rotated: consumers of either keep working.
        expect(await works(project.id, outs.token)).toBe(true);
        if (outs.previousToken) expect(await works(project.id, outs.previousToken)).toBe(true);
      }
      if (step.trigger) news = { ...news, rotationTrigger: step.trigger };
      outs = await rotate(project.id, id, asState(outs), news, step.reasons);
    }
    // One account per rotation, three deleted (the first three), and the resource still addressed by its first id.
    expect(sim.deletedServiceAccounts()).toEqual(expect.arrayContaining([id]));
    expect(sim.serviceAccounts(project.id).filter((a) => a.id === id)).toEqual([]);

    // refresh: the stored properties unchanged, both tokens included; one listing
    sim.clearRequests();
    newRun(); // each step is an engine operation of its own: a provider process, a run
    const state = asState(outs);
    expect(await provider().read(id, state)).toEqual({ id, props: state });
    expect(calls()).toEqual([`GET /v2/projects/${project.id}/api-keys`]);
    newRun();
    sim.clearRequests();

    // destroy: the previous and the current account deleted, none left live
    await provider().delete(id, state);
    expect(calls()).toEqual([
      `GET /v2/projects/${project.id}/api-keys`,
      `DELETE ${accountPath(project.id, outs.previousServiceAccountId)}`,
      `DELETE ${accountPath(project.id, outs.serviceAccountId)}`,
    ]);
    expect(liveIds(project.id)).toEqual([]);
    expect(await works(project.id, outs.token)).toBe(false);
  });

  test("turned on: mints no token, makes no call; the next rotation keeps the first account as previous", async () => {
    const project = suite.sim.addProject();
    const plain = await checked(inputsFor(project.id, "switch-on", LIFETIME));
    const { id, outs } = await provider().create(plain);
    const on = await checked({ ...plain, keepPreviousToken: true });
    expect(await provider().diff(id, asState(outs), on)).toEqual({
      changes: true,
      replaces: [],
      deleteBeforeReplace: false,
    });
    suite.sim.clearRequests();
    newRun(); // each step is an engine operation of its own: a provider process, a run
    const switched = await provider().update(id, asState(outs), on);
    expect(suite.sim.requests).toEqual([]);
    expect(switched).toEqual({ ...outs, keepPreviousToken: true });
    expect(liveIds(project.id)).toEqual([id]);

    const rotated = await rotate(project.id, id, asState(switched), { ...on, rotationTrigger: "2" }, [
      "rotationTrigger",
    ]);
    expect(rotated.previousServiceAccountId).toBe(id);
  });

  test("switching off deletes the previous account and keeps the newest, its token unchanged", async () => {
    const { projectId, id, on, second: rotated } = await rotatedOnce("switch-off");
    const off = await checked({ ...on, rotationTrigger: "2", keepPreviousToken: false });
    expect(await provider().diff(id, asState(rotated), off)).toEqual({
      changes: true,
      replaces: [],
      deleteBeforeReplace: false,
    });

    suite.sim.clearRequests();
    newRun(); // each step is an engine operation of its own: a provider process, a run
    const after = await provider().update(id, asState(rotated), off);
    expect(calls()).toEqual([`GET /v2/projects/${projectId}/api-keys`, `DELETE ${accountPath(projectId, id)}`]);
    expect(liveIds(projectId)).toEqual([rotated.serviceAccountId]);
    const {
      previousServiceAccountId,
      previousTokenId,
      previousTokenExpiresAt,
      previousToken,
      keepPreviousToken,
      ...current
    } = rotated;
    expect([
      previousServiceAccountId,
      previousTokenId,
      previousTokenExpiresAt,
      previousToken,
      keepPreviousToken,
    ]).not.toContain(undefined);
    expect(after).toEqual(current);
    expect(await works(projectId, after.token)).toBe(true);
    expect(await works(projectId, rotated.previousToken)).toBe(false);
    // Off again: a later rotation is a replacement, as before the option existed.
    expect(await provider().diff(id, asState(after), { ...off, rotationTrigger: "3" })).toEqual({
      changes: true,
      replaces: ["rotationTrigger"],
      deleteBeforeReplace: false,
    });
  });

  test("without the option nothing changed: a trigger or reached window replaces; update makes no call", async () => {
    const { sim } = suite;
    const project = sim.addProject();
    const plain = await checked(inputsFor(project.id, "plain", LIFETIME));
    const { id, outs } = await provider().create(plain);
    const next = { ...plain, rotationTrigger: "2" };
    expect(await provider().diff(id, asState(outs), next)).toEqual({
      changes: true,
      replaces: ["rotationTrigger"],
      deleteBeforeReplace: false,
    });
    sim.advanceClock(20_000);
    expect(await provider().diff(id, asState(outs), plain)).toEqual({
      changes: true,
      replaces: [ROTATION_REASON],
      deleteBeforeReplace: false,
    });
    sim.clearRequests();
    newRun(); // each step is an engine operation of its own: a provider process, a run
    expect(await provider().update(id, asState(outs), next)).toEqual(outs);
    expect(sim.requests).toEqual([]);
    expect(
      Object.keys(outs).filter(
        (k) => k.startsWith("previous") || k === "retiredServiceAccountIds" || k === "keepPreviousToken",
      ),
    ).toEqual([]);
  });

  test("a new project still replaces, with the option on", async () => {
    const project = suite.sim.addProject();
    const other = suite.sim.addProject();
    const on = await checked(inputsFor(project.id, "moving", { ...LIFETIME, keepPreviousToken: true }));
    const { id, outs } = await provider().create(on);
    const moved = await checked({ ...on, projectId: other.id, grants: [other.id] });
    expect(await provider().diff(id, asState(outs), moved)).toEqual({
      changes: true,
      replaces: ["projectId"],
      deleteBeforeReplace: false,
    });
  });

  test("a refused DELETE of the old previous: update fails, new token in state; next update deletes it", async () => {
    const { sim } = suite;
    const { projectId, id, on, outs, second } = await rotatedOnce("refused");
    const third = { ...on, rotationTrigger: "3" };

    // 409 is final: the client does not repeat it.
    sim.addFault({ method: "DELETE", path: accountPath(projectId, id), kind: "status", status: 409 });
    sim.clearRequests();
    newRun(); // each step is an engine operation of its own: a provider process, a run
    const err = await rejection(provider().update(id, asState(second), third));
    expect(calls()).toEqual([
      `POST ${accountPath(projectId)}`,
      `GET /v2/projects/${projectId}/api-keys`,
      `DELETE ${accountPath(projectId, id)}`,
    ]);
    expect(err.message).toMatch(
      new RegExp(
        `^pulumi-pims: service account "refused" in project ${projectId}: the rotation created account \\S+ ` +
          `\\(its token is stored in the state\\) but deleting the retired account\\(s\\) failed ` +
          `\\(${id}: .*409.*\\)\\. .*the next \`pulumi up\` deletes them`,
      ),
    );
    // What the dynamic-provider host stores as the resource's new state: every live account, the new token first.
    expect(err.id).toBe(id);
    const partial = err.properties as unknown as ServiceAccountOutputs & { __provider?: unknown };
    expect(partial.__provider).toBe(SHIM);
    expect(partial.retiredServiceAccountIds).toEqual([id]);
    expect(partial.previousServiceAccountId).toBe(second.serviceAccountId);
    expect(partial.previousToken).toBe(second.token);
    expect(sim.issuedSecrets()).toContain(partial.token);
    expect(partial.token).not.toBe(second.token);
    expect(liveIds(projectId)).toEqual([id, second.serviceAccountId, partial.serviceAccountId].sort());
    for (const token of [partial.token, partial.previousToken]) expect(await works(projectId, token)).toBe(true);
    expect(err.message).toContain(partial.serviceAccountId);

    // The next up: an update (the retired account), one DELETE and no new account.
    sim.clearFaults();
    const state = partial as unknown as Props;
    expect(await provider().diff(id, state, third)).toEqual({
      changes: true,
      replaces: [],
      deleteBeforeReplace: false,
    });
    sim.clearRequests();
    newRun(); // each step is an engine operation of its own: a provider process, a run
    const finished = await provider().update(id, state, third);
    expect(calls()).toEqual([`GET /v2/projects/${projectId}/api-keys`, `DELETE ${accountPath(projectId, id)}`]);
    const { retiredServiceAccountIds, __provider, ...rest } = partial;
    expect([retiredServiceAccountIds, __provider]).not.toContain(undefined);
    expect(finished).toEqual(rest);
    expect(liveIds(projectId)).toEqual([second.serviceAccountId, partial.serviceAccountId].sort());
    expect(await works(projectId, outs.token)).toBe(false);
  });

  test("destroy with a retired account still stored deletes it too, oldest first", async () => {
    const { sim } = suite;
    const { projectId, id, on, second } = await rotatedOnce("retired-destroy");
    sim.addFault({ method: "DELETE", path: accountPath(projectId, id), kind: "status", status: 409, times: 1 });
    const err = await rejection(provider().update(id, asState(second), { ...on, rotationTrigger: "3" }));
    const partial = err.properties as unknown as ServiceAccountOutputs;
    expect(liveIds(projectId)).toHaveLength(3);

    sim.clearRequests();
    newRun(); // each step is an engine operation of its own: a provider process, a run
    await provider().delete(id, partial);
    expect(calls()).toEqual([
      `GET /v2/projects/${projectId}/api-keys`,
      ...[id, second.serviceAccountId, partial.serviceAccountId].map((a) => `DELETE ${accountPath(projectId, a)}`),
    ]);
    expect(liveIds(projectId)).toEqual([]);
  });

  test("destroy that cannot delete one account fails naming it, and keeps the others' outcome", async () => {
    const { sim } = suite;
    const { projectId, id, second } = await rotatedOnce("destroy-refused");
    sim.addFault({ method: "DELETE", path: accountPath(projectId, id), kind: "status", status: 403, times: 1 });
    const err = await rejection(provider().delete(id, asState(second)));
    // One account refused: the delete's own error, naming the refused account and the service's answer.
    expect(err.message).toBe(
      `deleting service account ${id} in project ${projectId}: 403 injected fault (the token set in pims:token (the ` +
        "stack config, or the pims.Provider's token) is valid but not allowed to do this: check the grants of its " +
        "service account, or the service's reason above)",
    );
    expect(liveIds(projectId)).toEqual([id]);
    // The engine keeps the resource: the next destroy deletes the one left and confirms the other gone (404, listing).
    sim.clearRequests();
    newRun(); // each step is an engine operation of its own: a provider process, a run
    await provider().delete(id, asState(second));
    expect(liveIds(projectId)).toEqual([]);
    expect(calls()).toEqual([
      `GET /v2/projects/${projectId}/api-keys`,
      `DELETE ${accountPath(projectId, id)}`,
      `DELETE ${accountPath(projectId, second.serviceAccountId)}`,
      `GET /v2/projects/${projectId}/api-keys`, // the 404's own confirmation, taken after it
    ]);
  });
});

// ---- secret scan (last: it reads what every test above produced) --------------------------------------------

describe("secret scan", () => {
  test("no issued secret or admin token in any error message or progress line", () => {
    const secrets = suite.sim.issuedSecrets();
    expect(secrets.length).toBeGreaterThan(15);
    expect(texts.filter((t) => t.includes(": rotated ("))).not.toHaveLength(0);
    expectNoPlaintextSecrets(texts.join("\n"), secrets, "error messages and progress lines");
  });
});
