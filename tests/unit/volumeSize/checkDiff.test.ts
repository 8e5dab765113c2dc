/**
 * VolumeSize without a network: check and diff tables, and the SDK class under pulumi mocks.
 * The lifecycle against the simulator is in tests/sim/volumeSize/lifecycle.test.ts.
 */
import * as pulumi from "@pulumi/pulumi";
import { UNKNOWN } from "../../../provider/checks";
import { VolumeSizeProvider, type VolumeSizeInputs, type VolumeSizeOutputs } from "../../../provider/volumeSize";
import { VolumeSize } from "../../../sdk/nodejs/volumeSize";
import { captureRegistrations, outputValue } from "../../kit/provider/mocks";

type Loose = Record<string, unknown>;
const asInputs = (o: Loose): VolumeSizeInputs => o as unknown as VolumeSizeInputs;
const V = { projectId: "p-1", volumeId: "default-us-east-1" };

// ---- check ---------------------------------------------------------------------------------------------

describe("VolumeSize check", () => {
  const provider = new VolumeSizeProvider();
  const cases: Array<[string, Loose, Loose, Array<[string, string]>]> = [
    ["50 GB (the minimum)", {}, { ...V, sizeGb: 50 }, []],
    ["100 GB", {}, { ...V, sizeGb: 100 }, []],
    ["above 1024 GB (the service decides)", {}, { ...V, sizeGb: 5000 }, []],
    ["49 GB", {}, { ...V, sizeGb: 49 }, [["sizeGb", "sizeGb must be at least 50 (got 49)"]]],
    ["0 GB", {}, { ...V, sizeGb: 0 }, [["sizeGb", "sizeGb must be at least 50 (got 0)"]]],
    ["a fraction", {}, { ...V, sizeGb: 100.5 }, [["sizeGb", "sizeGb must be an integer (got 100.5)"]]],
    ["a numeric string", {}, { ...V, sizeGb: "100" }, [["sizeGb", 'sizeGb must be an integer (got "100")']]],
    ["no size", {}, { ...V }, [["sizeGb", "sizeGb is required"]]],
    ["no projectId", {}, { volumeId: "v", sizeGb: 100 }, [["projectId", "projectId is required"]]],
    ["no volumeId", {}, { projectId: "p", sizeGb: 100 }, [["volumeId", "volumeId is required"]]],
    ["an empty projectId", {}, { ...V, projectId: " ", sizeGb: 100 }, [["projectId", "projectId must not be empty"]]],
    [
      "a numeric volumeId",
      {},
      { ...V, volumeId: 3, sizeGb: 100 },
      [["volumeId", "volumeId must be a string (got number)"]],
    ],
    [
      "nothing at all",
      {},
      {},
      [
        ["projectId", "projectId is required"],
        ["volumeId", "volumeId is required"],
        ["sizeGb", "sizeGb is required"],
      ],
    ],
    ["unknowns at preview", {}, { projectId: UNKNOWN, volumeId: UNKNOWN, sizeGb: UNKNOWN }, []],
    // growth rule: olds are the previous inputs
    ["growing", { ...V, sizeGb: 100 }, { ...V, sizeGb: 200 }, []],
    ["same size", { ...V, sizeGb: 100 }, { ...V, sizeGb: 100 }, []],
    [
      "shrinking",
      { ...V, sizeGb: 100 },
      { ...V, sizeGb: 80 },
      [["sizeGb", "sizeGb cannot shrink from 100 to 80: volumes only grow"]],
    ],
    [
      "shrinking below 50 reports the minimum",
      { ...V, sizeGb: 100 },
      { ...V, sizeGb: 20 },
      [["sizeGb", "sizeGb must be at least 50 (got 20)"]],
    ],
    [
      "a smaller size for another volume (a replacement)",
      { ...V, sizeGb: 100 },
      { ...V, volumeId: "vol-2", sizeGb: 80 },
      [],
    ],
    [
      "a smaller size in another project (a replacement)",
      { ...V, sizeGb: 100 },
      { ...V, projectId: "p-2", sizeGb: 80 },
      [],
    ],
    ["a volume unknown at preview", { ...V, sizeGb: 100 }, { ...V, volumeId: UNKNOWN, sizeGb: 80 }, []],
    ["a previous size unknown", { ...V, sizeGb: UNKNOWN }, { ...V, sizeGb: 80 }, []],
  ];

  test.each(cases)("%s", async (_label, olds, news, expected) => {
    const result = await provider.check(asInputs(olds), asInputs(news));
    expect((result.failures ?? []).map((f) => [f.property, f.reason])).toEqual(expected);
    expect(result.inputs).toEqual(news);
  });
});

// ---- diff ----------------------------------------------------------------------------------------------

describe("VolumeSize diff", () => {
  const provider = new VolumeSizeProvider();
  const olds: VolumeSizeOutputs = { ...V, sizeGb: 100 };
  const cases: Array<[string, Loose, pulumi.dynamic.DiffResult]> = [
    ["nothing changed", { ...V, sizeGb: 100 }, { changes: false }],
    ["a new size", { ...V, sizeGb: 200 }, { changes: true }],
    ["a size unknown at preview", { ...V, sizeGb: UNKNOWN }, { changes: true }],
    [
      "another volume",
      { ...V, volumeId: "vol-2", sizeGb: 100 },
      { changes: true, replaces: ["volumeId"], deleteBeforeReplace: false },
    ],
    [
      "another project",
      { ...V, projectId: "p-2", sizeGb: 100 },
      { changes: true, replaces: ["projectId"], deleteBeforeReplace: false },
    ],
    [
      "both, and a new size",
      { projectId: "p-2", volumeId: "v-2", sizeGb: 300 },
      { changes: true, replaces: ["projectId", "volumeId"], deleteBeforeReplace: false },
    ],
    [
      "a volume unknown at preview",
      { ...V, volumeId: UNKNOWN, sizeGb: 100 },
      { changes: true, replaces: ["volumeId"], deleteBeforeReplace: false },
    ],
  ];
  test.each(cases)("%s", async (_label, news, expected) => {
    expect(await provider.diff("p-1/default-us-east-1", olds, asInputs(news))).toEqual(expected);
  });
});

// ---- the SDK class under mocks -------------------------------------------------------------------------

describe("VolumeSize SDK class", () => {
  const registered = captureRegistrations({
    newResource: (args) => ({ id: `${args.name}-id`, state: args.inputs }),
    call: (args) => args.inputs,
  });

  test("registers pulumi-nodejs:dynamic/pims:VolumeSize with its inputs and exposes its outputs", async () => {
    const vs = new VolumeSize("data", { projectId: "p-1", volumeId: "default-us-east-1", sizeGb: pulumi.output(200) });
    expect(await outputValue(vs.urn)).toBe("urn:pulumi:stack::proj::pulumi-nodejs:dynamic/pims:VolumeSize::data");
    expect(await outputValue(vs.projectId)).toBe("p-1");
    expect(await outputValue(vs.volumeId)).toBe("default-us-east-1");
    expect(await outputValue(vs.sizeGb)).toBe(200);
    const reg = registered.find((r) => r.name === "data");
    expect(reg?.type).toBe("pulumi-nodejs:dynamic/pims:VolumeSize");
    expect(reg?.additionalSecretOutputs).toEqual([]);
    expect(reg?.object).toMatchObject({ projectId: "p-1", volumeId: "default-us-east-1", sizeGb: 200 });
  });
});
