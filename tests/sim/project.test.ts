/**
 * Project: check and diff tables (pure), a lifecycle against the simulator (create → replace → read → delete),
 * and the SDK class under pulumi mocks (type token, outputs).
 */
import * as pulumi from "@pulumi/pulumi";
import { UNKNOWN } from "../../provider/common";
import { ProjectProvider, type ProjectInputs, type ProjectOutputs } from "../../provider/project";
import { Project } from "../../sdk/project";
import { captureRegistrations, configureRequest, outputValue, useSimulatorProvider } from "../helpers";

type Loose = Record<string, unknown>;
const asInputs = (o: Loose): ProjectInputs => o as unknown as ProjectInputs;
const asOutputs = (o: Loose): ProjectOutputs => o as unknown as ProjectOutputs;

// ---- check ---------------------------------------------------------------------------------------------

describe("Project check", () => {
  const provider = new ProjectProvider();
  const cases: Array<[string, Loose, Array<{ property: string; reason: string | RegExp }>]> = [
    ["a 2-character name", { name: "ab" }, []],
    ["a 50-character name", { name: "x".repeat(50) }, []],
    ["50 emoji (100 UTF-16 units, 50 characters)", { name: "😀".repeat(50) }, []],
    ["2 emoji", { name: "😀😀" }, []],
    ["a name unknown at preview", { name: UNKNOWN }, []],
    ["a 1-character name", { name: "a" }, [{ property: "name", reason: 'name must be 2 to 50 characters (got 1: "a")' }]],
    ["1 emoji (2 UTF-16 units, 1 character)", { name: "😀" }, [{ property: "name", reason: /must be 2 to 50 characters \(got 1:/ }]],
    ["a 51-character name", { name: "y".repeat(51) }, [{ property: "name", reason: `name must be 2 to 50 characters (got 51: "${"y".repeat(51)}")` }]],
    ["an empty name", { name: "" }, [{ property: "name", reason: 'name must be 2 to 50 characters (got 0: "")' }]],
    ["no name", {}, [{ property: "name", reason: "name is required" }]],
    ["a null name", { name: null }, [{ property: "name", reason: "name is required" }]],
    ["a number", { name: 42 }, [{ property: "name", reason: "name must be a string (got number)" }]],
  ];

  test.each(cases)("%s", async (_label, news, expected) => {
    const result = await provider.check(asInputs({}), asInputs(news));
    expect(result.failures).toHaveLength(expected.length);
    expected.forEach((e, i) => {
      expect(result.failures?.[i].property).toBe(e.property);
      if (typeof e.reason === "string") expect(result.failures?.[i].reason).toBe(e.reason);
      else expect(result.failures?.[i].reason).toMatch(e.reason);
    });
    expect(result.inputs).toEqual(news);
  });

  test("a very long name is shortened in the reason", async () => {
    const result = await provider.check(asInputs({}), asInputs({ name: "z".repeat(500) }));
    const reason = result.failures?.[0].reason ?? "";
    expect(reason).toContain("got 500");
    expect(reason.length).toBeLessThan(150);
  });
});

// ---- diff ----------------------------------------------------------------------------------------------

describe("Project diff", () => {
  const provider = new ProjectProvider();
  const olds = asOutputs({ name: "shop", projectId: "p-1" });
  const cases: Array<[string, Loose, pulumi.dynamic.DiffResult]> = [
    ["same name", { name: "shop" }, { changes: false }],
    ["new name", { name: "shop-2" }, { changes: true, replaces: ["name"], deleteBeforeReplace: false }],
    ["name unknown at preview", { name: UNKNOWN }, { changes: true, replaces: ["name"], deleteBeforeReplace: false }],
  ];
  test.each(cases)("%s", async (_label, news, expected) => {
    expect(await provider.diff("p-1", olds, asInputs(news))).toEqual(expected);
  });
});

// ---- against the simulator -----------------------------------------------------------------------------

describe("Project against the simulator", () => {
  const ctx = useSimulatorProvider(ProjectProvider);

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
    expect(await ctx.provider.diff(first.id, outs, { name: "shop-production" })).toEqual({ changes: true, replaces: ["name"], deleteBeforeReplace: false });
    const second = await ctx.provider.create({ name: "shop-production" });
    expect(second.id).not.toBe(first.id);
    expect(ctx.sim.project(second.id)?.name).toBe("shop-production");
    expect(ctx.sim.projects()).toHaveLength(before + 2);

    // read (refresh): no read endpoint, state unchanged, no call
    ctx.sim.clearRequests();
    const read = await ctx.provider.read(second.id, second.outs as ProjectOutputs);
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

  test("update is never needed (every change replaces) but keeps the outputs if the engine calls it", async () => {
    const olds = { name: "keep", projectId: "p-00000001" };
    expect(await ctx.provider.update("p-00000001", olds, { name: "keep" })).toEqual({ outs: olds });
    await expect(ctx.provider.update("p-00000001", olds, { name: "other" })).rejects.toThrow(/cannot be renamed in place/);
    expect(ctx.sim.requests).toHaveLength(0);
  });

  test("import (read with no state) is refused with what to do instead", async () => {
    await expect(ctx.provider.read("p-12345678")).rejects.toThrow(/project p-12345678 cannot be imported: the service has no operation to read a project/);
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

// ---- the SDK class under mocks -------------------------------------------------------------------------

describe("Project SDK class", () => {
  const registered = captureRegistrations({
    newResource: (args) => ({ id: `${args.name}-id`, state: { ...args.inputs, projectId: "p-0000abcd" } }),
    call: (args) => args.inputs,
  });

  test("registers pulumi-nodejs:dynamic/pims:Project with its inputs and exposes its outputs", async () => {
    const project = new Project("shop", { name: "shop-prod" });
    expect(await outputValue(project.urn)).toBe("urn:pulumi:stack::proj::pulumi-nodejs:dynamic/pims:Project::shop");
    expect(await outputValue(project.name)).toBe("shop-prod");
    expect(await outputValue(project.projectId)).toBe("p-0000abcd");
    const reg = registered.find((r) => r.name === "shop");
    expect(reg?.type).toBe("pulumi-nodejs:dynamic/pims:Project");
    expect(reg?.additionalSecretOutputs).toEqual([]);
    expect(reg?.object.name).toBe("shop-prod");
    expect(typeof reg?.object.__provider).toBe("string");
    expect(reg?.object.__provider).toContain('kind: "Project"');
  });
});
