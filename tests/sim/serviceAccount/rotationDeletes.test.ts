/**
 * ServiceAccount overlapping rotation (`keepPreviousToken`, issue 18) against the simulator, where deletes are
 * refused or final: a refused DELETE of the old previous account, finished by the next update; destroy with a retired
 * account still stored; destroy that cannot delete one account. Every error and log line is scanned for secrets.
 */
import { newRun } from "../../../provider/serviceAccount/run";
import { type ServiceAccountOutputs } from "../../../provider/serviceAccount";
import { type Props } from "../../kit/serviceAccount";
import { SHIM, useRotationSuite } from "../../kit/rotation";

const { suite, provider, liveIds, works, calls, accountPath, asState, rejection, rotatedOnce, expectNoSecretsSeen } =
  useRotationSuite();

describe("overlapping rotation (keepPreviousToken): refused deletes and destroy", () => {
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
    expectNoSecretsSeen(4);
  });
});
