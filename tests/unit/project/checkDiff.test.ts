/**
 * Project without a network: check and diff tables, and the SDK class under pulumi mocks (type token, outputs).
 * The lifecycle against the simulator is in tests/sim/project/lifecycle.test.ts.
 */
import * as pulumi from "@pulumi/pulumi";
import { UNKNOWN } from "../../../provider/checks";
import { ProjectProvider, type ProjectInputs, type ProjectOutputs } from "../../../provider/project";
import { Project } from "../../../sdk/nodejs/project";
import { captureRegistrations, outputValue } from "../../kit/provider/mocks";

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
    [
      "a 1-character name",
      { name: "a" },
      [{ property: "name", reason: 'name must be 2 to 50 characters (got 1: "a")' }],
    ],
    [
      "1 emoji (2 UTF-16 units, 1 character)",
      { name: "😀" },
      [{ property: "name", reason: /must be 2 to 50 characters \(got 1:/ }],
    ],
    [
      "a 51-character name",
      { name: "y".repeat(51) },
      [{ property: "name", reason: `name must be 2 to 50 characters (got 51: "${"y".repeat(51)}")` }],
    ],
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
