/**
 * Project against the simulator: a lifecycle (create → replace → read → delete), the service's refusals, and a
 * provider without credentials. Check and diff tables and the SDK class are in tests/unit/project/checkDiff.test.ts.
 */
import type * as pulumi from "@pulumi/pulumi";
import { ProjectProvider, type ProjectInputs, type ProjectOutputs } from "../../../provider/project";
import { configureRequest, useProviderSuite } from "../../kit/provider/provider";

type Loose = Record<string, unknown>;
const asInputs = (o: Loose): ProjectInputs => o as unknown as ProjectInputs;

// ---- against the simulator -----------------------------------------------------------------------------

describe("Project against the simulator", () => {
  const ctx = useProviderSuite(ProjectProvider);

  test("check never calls the service, even with bad input", async () => {
    for (const news of [{}, { name: "a" }, { name: "b".repeat(51) }, { name: 7 }, { name: "fine" }]) {
      await ctx.provider.check(asInputs({}), asInputs(news));
    }
    expect(ctx.sim.requests).toHaveLength(0);
  });

  test("create → replace on rename → read → delete", async () => {
    const before = ctx.sim.projects().length;

    // create
    const first = await ctx.provider.create({ name: "shop-prod" });
    expect(first.id).toMatch(/^p-[0-9a-f]{8}$/);
    expect(first.outs).toEqual({ name: "shop-prod", projectId: first.id });
    expect(ctx.sim.project(first.id)).toMatchObject({ id: first.id, name: "shop-prod" });
    expect(ctx.sim.countRequests({ method: "POST", path: "/v2/projects" })).toBe(1);
    expect(ctx.sim.requests[0].body).toEqual({ name: "shop-prod" });

    // a rename replaces: the new project is created first, the old one is left in the service
    const outs = first.outs as ProjectOutputs;
    expect(await ctx.provider.diff(first.id, outs, { name: "shop-production" })).toEqual({
      changes: true,
      replaces: ["name"],
      deleteBeforeReplace: false,
    });
    const second = await ctx.provider.create({ name: "shop-production" });
    expect(second.id).not.toBe(first.id);
    expect(ctx.sim.project(second.id)?.name).toBe("shop-production");
    expect(ctx.sim.projects()).toHaveLength(before + 2);

    // read (refresh): no read endpoint, state unchanged, no call
    ctx.sim.clearRequests();
    const read = await ctx.provider.read(second.id, second.outs);
    expect(read).toEqual({ id: second.id, props: second.outs });
    expect(ctx.sim.requests).toHaveLength(0);

    // delete the old one: no call, the project is still there, one clear warning
    await ctx.provider.delete(first.id, outs);
    expect(ctx.sim.requests).toHaveLength(0);
    expect(ctx.sim.project(first.id)?.name).toBe("shop-prod");
    expect(ctx.warn).toHaveBeenCalledTimes(1);
    expect(ctx.warn.mock.calls[0]).toEqual([
      `pulumi-pims: project ${first.id} ("shop-prod") was removed from the stack but still exists in the service: ` +
        "the service has no delete operation for projects; remove it in the web console if it should go.",
    ]);
    expectTokenAbsent(ctx.warn.mock.calls.flat().join("\n"));
  });

  test("there is no update: every change replaces, so diff never answers an in-place change", async () => {
    const olds = { name: "keep", projectId: "p-00000001" };
    expect((ctx.provider as pulumi.dynamic.ResourceProvider).update).toBeUndefined();
    expect(await ctx.provider.diff("p-00000001", olds, { name: "keep" })).toEqual({ changes: false });
    expect(await ctx.provider.diff("p-00000001", olds, { name: "other" })).toEqual({
      changes: true,
      replaces: ["name"],
      deleteBeforeReplace: false,
    });
    expect(ctx.sim.requests).toHaveLength(0);
  });

  test("read with no state (the dynamic host's import) is refused with what to do instead", async () => {
    await expect(ctx.provider.read("p-12345678")).rejects.toThrow(
      /project p-12345678 cannot be read: no state to start from\. .*`pulumi import pims:index:Project .*the existing project's id directly/,
    );
    expect(ctx.sim.requests).toHaveLength(0);
  });

  test("a name the service refuses (check skipped) shows the service's rule and the name", async () => {
    const err = await ctx.provider.create({ name: "q".repeat(51) }).catch((e: unknown) => e as Error);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/^creating project "q{51}": 422 name must be 2 to 50 characters$/);
    expectTokenAbsent((err as Error).message);
  });

  test("without credentials, create says how to configure them", async () => {
    const bare = new ProjectProvider();
    await bare.configure(configureRequest({}));
    const saved = { t: process.env.PIMS_TOKEN, u: process.env.PIMS_BASE_URL };
    delete process.env.PIMS_TOKEN;
    delete process.env.PIMS_BASE_URL;
    try {
      await expect(bare.create({ name: "nope" })).rejects.toThrow(/pims:token/);
    } finally {
      if (saved.t !== undefined) process.env.PIMS_TOKEN = saved.t;
      if (saved.u !== undefined) process.env.PIMS_BASE_URL = saved.u;
    }
    expect(ctx.sim.requests).toHaveLength(0);
  });

  function expectTokenAbsent(text: string): void {
    expect(text.includes(ctx.sim.token)).toBe(false);
  }
});
