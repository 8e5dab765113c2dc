/**
 * ServiceAccount overlapping rotation (`keepPreviousToken`, issue 18) against the simulator: five rotations with short
 * expiries (a new rotationTrigger and the rotateBeforeExpiry window reached, both clocks advanced), each checked
 * against what the simulator holds (two live accounts, the right one deleted, both output tokens working, the deleted
 * one refused); switching the option on and off; the option off unchanged (a replacement). Refused deletes and
 * destroy: rotationDeletes.test.ts. Every error and log line is scanned for secrets.
 */
import { newRun } from "../../../provider/serviceAccount/run";
import { ROTATION_REASON } from "../../../provider/serviceAccount";
import { inputsFor } from "../../kit/provider/serviceAccount";
import { LIFETIME, useRotationSuite } from "../../kit/provider/rotation";

const rotation = useRotationSuite();

describe("overlapping rotation (keepPreviousToken)", () => {
  test("five rotations (trigger and window, short expiries): two live accounts each time; oldest deleted", async () => {
    const { sim } = rotation.suite;
    const project = sim.addProject();
    let news = await rotation.checked(
      inputsFor(project.id, "overlap", { ...LIFETIME, keepPreviousToken: true, rotationTrigger: "1" }),
    );
    const { id, outs: first } = await rotation.provider().create(news);
    expect(rotation.liveIds(project.id)).toEqual([id]);
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
        expect(await rotation.works(project.id, outs.token)).toBe(true);
        if (outs.previousToken) expect(await rotation.works(project.id, outs.previousToken)).toBe(true);
      }
      if (step.trigger) news = { ...news, rotationTrigger: step.trigger };
      outs = await rotation.rotate(project.id, id, rotation.asState(outs), news, step.reasons);
    }
    // One account per rotation, three deleted (the first three), and the resource still addressed by its first id.
    expect(sim.deletedServiceAccounts()).toEqual(expect.arrayContaining([id]));
    expect(sim.serviceAccounts(project.id).filter((a) => a.id === id)).toEqual([]);

    // refresh: the stored properties unchanged, both tokens included; one listing
    sim.clearRequests();
    newRun(); // each step is an engine operation of its own: a provider process, a run
    const state = rotation.asState(outs);
    expect(await rotation.provider().read(id, state)).toEqual({ id, props: state });
    expect(rotation.calls()).toEqual([`GET /v2/projects/${project.id}/api-keys`]);
    newRun();
    sim.clearRequests();

    // destroy: the previous and the current account deleted, none left live
    await rotation.provider().delete(id, state);
    expect(rotation.calls()).toEqual([
      `GET /v2/projects/${project.id}/api-keys`,
      `DELETE ${rotation.accountPath(project.id, outs.previousServiceAccountId)}`,
      `DELETE ${rotation.accountPath(project.id, outs.serviceAccountId)}`,
    ]);
    expect(rotation.liveIds(project.id)).toEqual([]);
    expect(await rotation.works(project.id, outs.token)).toBe(false);
  });

  test("turned on: mints no token, makes no call; the next rotation keeps the first account as previous", async () => {
    const project = rotation.suite.sim.addProject();
    const plain = await rotation.checked(inputsFor(project.id, "switch-on", LIFETIME));
    const { id, outs } = await rotation.provider().create(plain);
    const on = await rotation.checked({ ...plain, keepPreviousToken: true });
    const switched = await rotation.updateInPlace(id, rotation.asState(outs), on);
    expect(rotation.suite.sim.requests).toEqual([]);
    expect(switched).toEqual({ ...outs, keepPreviousToken: true });
    expect(rotation.liveIds(project.id)).toEqual([id]);

    const rotated = await rotation.rotate(project.id, id, rotation.asState(switched), { ...on, rotationTrigger: "2" }, [
      "rotationTrigger",
    ]);
    expect(rotated.previousServiceAccountId).toBe(id);
  });

  test("switching off deletes the previous account and keeps the newest, its token unchanged", async () => {
    const { projectId, id, on, second: rotated } = await rotation.rotatedOnce("switch-off");
    const off = await rotation.checked({ ...on, rotationTrigger: "2", keepPreviousToken: false });
    const after = await rotation.updateInPlace(id, rotation.asState(rotated), off);
    expect(rotation.calls()).toEqual([
      `GET /v2/projects/${projectId}/api-keys`,
      `DELETE ${rotation.accountPath(projectId, id)}`,
    ]);
    expect(rotation.liveIds(projectId)).toEqual([rotated.serviceAccountId]);
    const {
      previousServiceAccountId,
      previousTokenId,
      previousTokenExpiresAt,
      previousToken,
      previousTokenFingerprint,
      keepPreviousToken,
      ...current
    } = rotated;
    expect([
      previousServiceAccountId,
      previousTokenId,
      previousTokenExpiresAt,
      previousToken,
      previousTokenFingerprint,
      keepPreviousToken,
    ]).not.toContain(undefined);
    expect(after).toEqual(current);
    expect(await rotation.works(projectId, after.token)).toBe(true);
    expect(await rotation.works(projectId, rotated.previousToken)).toBe(false);
    // Off again: a later rotation is a replacement, as before the option existed.
    expect(await rotation.provider().diff(id, rotation.asState(after), { ...off, rotationTrigger: "3" })).toEqual({
      changes: true,
      replaces: ["rotationTrigger"],
      deleteBeforeReplace: false,
    });
  });

  test("without the option nothing changed: a trigger or reached window replaces; update makes no call", async () => {
    const { sim } = rotation.suite;
    const project = sim.addProject();
    const plain = await rotation.checked(inputsFor(project.id, "plain", LIFETIME));
    const { id, outs } = await rotation.provider().create(plain);
    const next = { ...plain, rotationTrigger: "2" };
    expect(await rotation.provider().diff(id, rotation.asState(outs), next)).toEqual({
      changes: true,
      replaces: ["rotationTrigger"],
      deleteBeforeReplace: false,
    });
    sim.advanceClock(20_000);
    expect(await rotation.provider().diff(id, rotation.asState(outs), plain)).toEqual({
      changes: true,
      replaces: [ROTATION_REASON],
      deleteBeforeReplace: false,
    });
    sim.clearRequests();
    newRun(); // each step is an engine operation of its own: a provider process, a run
    expect(await rotation.provider().update(id, rotation.asState(outs), next)).toEqual(outs);
    expect(sim.requests).toEqual([]);
    expect(
      Object.keys(outs).filter(
        (k) => k.startsWith("previous") || k === "retiredServiceAccountIds" || k === "keepPreviousToken",
      ),
    ).toEqual([]);
  });

  test("a new project still replaces, with the option on", async () => {
    const project = rotation.suite.sim.addProject();
    const other = rotation.suite.sim.addProject();
    const on = await rotation.checked(inputsFor(project.id, "moving", { ...LIFETIME, keepPreviousToken: true }));
    const { id, outs } = await rotation.provider().create(on);
    const moved = await rotation.checked({ ...on, projectId: other.id, grants: [other.id] });
    expect(await rotation.provider().diff(id, rotation.asState(outs), moved)).toEqual({
      changes: true,
      replaces: ["projectId"],
      deleteBeforeReplace: false,
    });
  });
});

// ---- secret scan (last: it reads what every test above produced) --------------------------------------------

describe("secret scan", () => {
  test("no issued secret or admin token in any error message or progress line", () => {
    rotation.expectNoSecretsSeen(12);
  });
});
