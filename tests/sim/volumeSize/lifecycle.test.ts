/**
 * VolumeSize against the simulator: a lifecycle (create → grow → read → replace → delete), the 1024 GB rule on
 * unprotected and protected projects, and the service's refusals. Check and diff tables and the SDK class are in
 * tests/unit/volumeSize/checkDiff.test.ts.
 */
import { VolumeSizeProvider, type VolumeSizeInputs, type VolumeSizeOutputs } from "../../../provider/volumeSize";
import { useProviderSuite } from "../../kit/provider/provider";

type Loose = Record<string, unknown>;
const asInputs = (o: Loose): VolumeSizeInputs => o as unknown as VolumeSizeInputs;

// ---- against the simulator -----------------------------------------------------------------------------

describe("VolumeSize against the simulator", () => {
  const ctx = useProviderSuite(VolumeSizeProvider, {
    seed: (sim) => {
      sim.addProject({ id: "p-open0001" });
      sim.addProject({ id: "p-prot0001", protected: true });
      sim.addVolume("p-open0001", { id: "default-us-east-1", sizeGb: 50 });
      sim.addVolume("p-open0001", { id: "vol-2-us-east-1", sizeGb: 50 });
      sim.addVolume("p-open0001", { id: "vol-3-us-east-1", sizeGb: 500 });
      sim.addVolume("p-open0001", { id: "vol-4-us-east-1", sizeGb: 500 });
      sim.addVolume("p-prot0001", { id: "default-us-east-1", sizeGb: 1000 });
    },
  });

  test("check never calls the service, even with bad input", async () => {
    const bad: Array<[Loose, Loose]> = [
      [{}, {}],
      [{}, { projectId: "p-open0001", volumeId: "default-us-east-1", sizeGb: 10 }],
      [{}, { projectId: "p-open0001", volumeId: "default-us-east-1", sizeGb: 60.5 }],
      [
        { projectId: "p-open0001", volumeId: "default-us-east-1", sizeGb: 100 },
        { projectId: "p-open0001", volumeId: "default-us-east-1", sizeGb: 80 },
      ],
    ];
    for (const [olds, news] of bad) {
      const r = await ctx.provider.check(asInputs(olds), asInputs(news));
      expect(r.failures?.length).toBeGreaterThan(0);
    }
    expect(ctx.sim.requests).toHaveLength(0);
  });

  test("create → grow → read → shrink refused → replace → delete", async () => {
    const vol = { projectId: "p-open0001", volumeId: "default-us-east-1" };

    // create resizes the existing volume
    const created = await ctx.provider.create({ ...vol, sizeGb: 100 });
    expect(created).toEqual({ id: "p-open0001/default-us-east-1", outs: { ...vol, sizeGb: 100 } });
    expect(ctx.sim.volume(vol.projectId, vol.volumeId)?.sizeGb).toBe(100);
    expect(ctx.sim.requests.map((r) => [r.method, r.path, r.body, r.status])).toEqual([
      ["PATCH", "/v2/projects/p-open0001/volumes/default-us-east-1/resize", { newSizeGb: 100 }, 200],
    ]);
    let outs = created.outs as VolumeSizeOutputs;

    // grow
    const grow = { ...vol, sizeGb: 200 };
    expect((await ctx.provider.check(outs, grow)).failures).toEqual([]);
    expect(await ctx.provider.diff(created.id, outs, grow)).toEqual({ changes: true });
    const updated = await ctx.provider.update(created.id, outs, grow);
    expect(updated.outs).toEqual(grow);
    expect(ctx.sim.volume(vol.projectId, vol.volumeId)?.sizeGb).toBe(200);
    outs = updated.outs as VolumeSizeOutputs;

    // read: no read endpoint, state unchanged, no call
    ctx.sim.clearRequests();
    expect(await ctx.provider.read(created.id, outs)).toEqual({ id: created.id, props: outs });

    // shrinking is refused at preview, with no call
    expect((await ctx.provider.check(outs, { ...vol, sizeGb: 150 })).failures).toEqual([
      { property: "sizeGb", reason: "sizeGb cannot shrink from 200 to 150: volumes only grow" },
    ]);
    expect(ctx.sim.requests).toHaveLength(0);

    // another volume replaces: the new one is sized first, then the old one is "deleted" (left as it is)
    const other = { projectId: "p-open0001", volumeId: "vol-2-us-east-1", sizeGb: 60 };
    expect(await ctx.provider.diff(created.id, outs, other)).toEqual({
      changes: true,
      replaces: ["volumeId"],
      deleteBeforeReplace: false,
    });
    const replacement = await ctx.provider.create(other);
    expect(replacement.id).toBe("p-open0001/vol-2-us-east-1");
    expect(ctx.sim.volume("p-open0001", "vol-2-us-east-1")?.sizeGb).toBe(60);

    ctx.sim.clearRequests();
    await ctx.provider.delete(created.id, outs);
    expect(ctx.sim.requests).toHaveLength(0);
    expect(ctx.sim.volume(vol.projectId, vol.volumeId)?.sizeGb).toBe(200);
    expect(ctx.warn.mock.calls).toEqual([
      [
        "pulumi-pims: volume default-us-east-1 in project p-open0001 was removed from the stack and stays at 200 GB: " +
          "volumes cannot shrink and the service has no delete operation for volumes.",
      ],
    ]);
  });

  test("above 1024 GB in an unprotected project: refused; the error names the volume and the rule", async () => {
    const vol = { projectId: "p-open0001", volumeId: "vol-3-us-east-1" };
    const olds = { ...vol, sizeGb: 500 };
    expect((await ctx.provider.check(olds, { ...vol, sizeGb: 2048 })).failures).toEqual([]);
    const err = await ctx.provider
      .update("p-open0001/vol-3-us-east-1", olds, { ...vol, sizeGb: 2048 })
      .catch((e: unknown) => e as Error);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toBe(
      "resizing volume vol-3-us-east-1 in project p-open0001 to 2048 GB: " +
        "403 volumes above 1024 GB require a protected project",
    );
    expect(ctx.sim.volume(vol.projectId, vol.volumeId)?.sizeGb).toBe(500);
    expect((err as Error).message.includes(ctx.sim.token)).toBe(false);
  });

  // A bare 403 (no message of the service's) from the resize: the rule is added only where it can be the cause.
  test.each([
    [
      "a bare 403 above 1024 GB gets the rule added to the message",
      1500,
      {
        message:
          "resizing volume vol-3-us-east-1 in project p-open0001 to 1500 GB: 403 injected fault (sizes above 1024 GB " +
          "are allowed only in a protected project)",
      },
    ],
    [
      "a 403 at or below 1024 GB is passed on unchanged",
      600,
      { message: "resizing volume vol-3-us-east-1 in project p-open0001 to 600 GB: 403 injected fault", kind: "auth" },
    ],
  ])("%s", async (_title, sizeGb, expected: { message: string; kind?: string }) => {
    ctx.sim.addFault({
      method: "PATCH",
      path: "/v2/projects/p-open0001/volumes/vol-3-us-east-1/resize",
      kind: "status",
      status: 403,
      times: 1,
    });
    const err = await ctx.provider
      .create({ projectId: "p-open0001", volumeId: "vol-3-us-east-1", sizeGb })
      .catch((e: unknown) => e as Error);
    expect(err).toBeInstanceOf(Error);
    expect(err).toMatchObject(expected);
  });

  test("above 1024 GB in a protected project: accepted", async () => {
    const created = await ctx.provider.create({ projectId: "p-prot0001", volumeId: "default-us-east-1", sizeGb: 2048 });
    expect(created.id).toBe("p-prot0001/default-us-east-1");
    expect(ctx.sim.volume("p-prot0001", "default-us-east-1")?.sizeGb).toBe(2048);
  });

  test("a volume grown outside Pulumi: a smaller update is refused by the service, naming the volume", async () => {
    const vol = { projectId: "p-open0001", volumeId: "vol-4-us-east-1" };
    const live = ctx.sim.volume(vol.projectId, vol.volumeId);
    if (!live) throw new Error("seeded volume missing");
    live.sizeGb = 700; // someone resized it in the web console
    const olds = { ...vol, sizeGb: 500 };
    const err = await ctx.provider
      .update("p-open0001/vol-4-us-east-1", olds, { ...vol, sizeGb: 600 })
      .catch((e: unknown) => e as Error);
    expect((err as Error).message).toBe(
      "resizing volume vol-4-us-east-1 in project p-open0001 to 600 GB: 422 newSizeGb must not be smaller than the " +
        "current size (700 GB)",
    );
    expect(ctx.sim.volume(vol.projectId, vol.volumeId)?.sizeGb).toBe(700);
  });

  test("a volume that does not exist: 404 naming it", async () => {
    await expect(ctx.provider.create({ projectId: "p-open0001", volumeId: "nope", sizeGb: 100 })).rejects.toThrow(
      /^resizing volume nope in project p-open0001 to 100 GB: 404 /,
    );
  });

  test("import (read with no state) is refused with what to do instead", async () => {
    await expect(ctx.provider.read("p-open0001/default-us-east-1")).rejects.toThrow(
      /cannot be imported: the service has no operation to read a volume/,
    );
    expect(ctx.sim.requests).toHaveLength(0);
  });
});
