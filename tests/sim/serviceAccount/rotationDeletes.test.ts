/**
 * ServiceAccount overlapping rotation (`keepPreviousToken`, issue 18) against the simulator, where deletes are
 * refused or final: a refused DELETE of the old previous account, finished by the next update; destroy with a retired
 * account still stored; destroy that cannot delete one account. Every error and log line is scanned for secrets.
 */
import { newRun } from "../../../provider/serviceAccount/run";
import { type ServiceAccountOutputs } from "../../../provider/serviceAccount";
import { type Props } from "../../kit/provider/serviceAccount";
import { SHIM, useRotationSuite } from "../../kit/provider/rotation";

const rotation = useRotationSuite();

describe("overlapping rotation (keepPreviousToken): refused deletes and destroy", () => {
  test("a refused DELETE of the old previous: update fails, new token in state; next update deletes it", async () => {
    const { sim } = rotation.suite;
    const { projectId, id, on, outs, second } = await rotation.rotatedOnce("refused");
    const third = { ...on, rotationTrigger: "3" };

    // 409 is final: the client does not repeat it.
    sim.addFault({ method: "DELETE", path: rotation.accountPath(projectId, id), kind: "status", status: 409 });
    sim.clearRequests();
    newRun(); // each step is an engine operation of its own: a provider process, a run
    const err = await rotation.rejection(rotation.provider().update(id, rotation.asState(second), third));
    expect(rotation.calls()).toEqual([
      `POST ${rotation.accountPath(projectId)}`,
      `GET /v2/projects/${projectId}/api-keys`,
      `DELETE ${rotation.accountPath(projectId, id)}`,
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
    expect(rotation.liveIds(projectId)).toEqual([id, second.serviceAccountId, partial.serviceAccountId].sort());
    for (const token of [partial.token, partial.previousToken])
      expect(await rotation.works(projectId, token)).toBe(true);
    expect(err.message).toContain(partial.serviceAccountId);

    // The next up: an update (the retired account), one DELETE and no new account.
    sim.clearFaults();
    const state = partial as unknown as Props;
    expect(await rotation.provider().diff(id, state, third)).toEqual({
      changes: true,
      replaces: [],
      deleteBeforeReplace: false,
    });
    sim.clearRequests();
    newRun(); // each step is an engine operation of its own: a provider process, a run
    const finished = await rotation.provider().update(id, state, third);
    expect(rotation.calls()).toEqual([
      `GET /v2/projects/${projectId}/api-keys`,
      `DELETE ${rotation.accountPath(projectId, id)}`,
    ]);
    const { retiredServiceAccountIds, __provider, ...rest } = partial;
    expect([retiredServiceAccountIds, __provider]).not.toContain(undefined);
    expect(finished).toEqual(rest);
    expect(rotation.liveIds(projectId)).toEqual([second.serviceAccountId, partial.serviceAccountId].sort());
    expect(await rotation.works(projectId, outs.token)).toBe(false);
  });

  test("destroy with a retired account still stored deletes it too, oldest first", async () => {
    const { sim } = rotation.suite;
    const { projectId, id, on, second } = await rotation.rotatedOnce("retired-destroy");
    sim.addFault({
      method: "DELETE",
      path: rotation.accountPath(projectId, id),
      kind: "status",
      status: 409,
      times: 1,
    });
    const err = await rotation.rejection(
      rotation.provider().update(id, rotation.asState(second), { ...on, rotationTrigger: "3" }),
    );
    const partial = err.properties as unknown as ServiceAccountOutputs;
    expect(rotation.liveIds(projectId)).toHaveLength(3);

    sim.clearRequests();
    newRun(); // each step is an engine operation of its own: a provider process, a run
    await rotation.provider().delete(id, partial);
    expect(rotation.calls()).toEqual([
      `GET /v2/projects/${projectId}/api-keys`,
      ...[id, second.serviceAccountId, partial.serviceAccountId].map(
        (a) => `DELETE ${rotation.accountPath(projectId, a)}`,
      ),
    ]);
    expect(rotation.liveIds(projectId)).toEqual([]);
  });

  test("destroy that cannot delete one account fails naming it, and keeps the others' outcome", async () => {
    const { sim } = rotation.suite;
    const { projectId, id, second } = await rotation.rotatedOnce("destroy-refused");
    sim.addFault({
      method: "DELETE",
      path: rotation.accountPath(projectId, id),
      kind: "status",
      status: 403,
      times: 1,
    });
    const err = await rotation.rejection(rotation.provider().delete(id, rotation.asState(second)));
    // One account refused: the delete's own error, naming the refused account and the service's answer.
    expect(err.message).toBe(
      `deleting service account ${id} in project ${projectId}: 403 injected fault (the token set in pims:token (the ` +
        "stack config, or the pims.Provider's token) is valid but not allowed to do this: check the grants of its " +
        "service account, or the service's reason above)",
    );
    expect(rotation.liveIds(projectId)).toEqual([id]);
    // The engine keeps the resource: the next destroy deletes the one left and confirms the other gone (404, listing).
    sim.clearRequests();
    newRun(); // each step is an engine operation of its own: a provider process, a run
    await rotation.provider().delete(id, rotation.asState(second));
    expect(rotation.liveIds(projectId)).toEqual([]);
    expect(rotation.calls()).toEqual([
      `GET /v2/projects/${projectId}/api-keys`,
      `DELETE ${rotation.accountPath(projectId, id)}`,
      `DELETE ${rotation.accountPath(projectId, second.serviceAccountId)}`,
      `GET /v2/projects/${projectId}/api-keys`, // the 404's own confirmation, taken after it
    ]);
  });
});

// ---- secret scan (last: it reads what every test above produced) --------------------------------------------

describe("secret scan", () => {
  test("no issued secret or admin token in any error message or progress line", () => {
    rotation.expectNoSecretsSeen(4);
  });
});
