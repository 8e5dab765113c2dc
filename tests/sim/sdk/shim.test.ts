/**
 * The path the dynamic-provider host takes: the `__provider` text Pulumi stores in state is evaluated with
 * require-from-string (as @pulumi/pulumi/cmd/dynamic-provider does), `configure` runs first, loads the
 * installed package (bin/, via the node_modules/pulumi-pims link) and the real methods then talk to the
 * simulator. That the stored text is small and holds no credential is in tests/unit/sdk/shim.test.ts.
 */
import * as pulumi from "@pulumi/pulumi";
import { RESOURCE_KINDS } from "../../../provider/kinds";
import { providerShim, type ResourceKind } from "../../../sdk/nodejs/shim";
import type { PimsSimulator } from "../../../simulator";
import { configureRequest, simConfig } from "../../kit/provider/provider";
import { startSimulator } from "../../kit/sim/simulator";

// What dynamic.Resource stores: serializeFunction(() => provider), provider being the shim object.
async function storedProviderText(kind: ResourceKind): Promise<string> {
  const shim = providerShim(kind);
  const sf = await pulumi.runtime.serializeFunction(() => shim, { allowSecrets: true });
  return sf.text;
}

const requireFromString: (code: string) => {
  handler(): pulumi.dynamic.ResourceProvider;
} = require("require-from-string");

const KINDS = RESOURCE_KINDS;

describe("serialized provider shim", () => {
  let sim: PimsSimulator;
  const savedEnv = { ...process.env };

  beforeAll(async () => {
    sim = await startSimulator();
  });
  afterAll(async () => {
    process.env = savedEnv;
    await sim.stop();
  });

  test("the deserialized shim loads the installed package on configure and runs the real lifecycle", async () => {
    delete process.env.PIMS_TOKEN;
    delete process.env.PIMS_BASE_URL;
    const project = sim.addProject({ name: "shim" });
    sim.addVolume(project.id, { id: "vol-shim", sizeGb: 50 });
    const provider = requireFromString(await storedProviderText("VolumeSize")).handler();
    expect(provider.create).toBeUndefined(); // nothing but configure is stored
    await provider.configure!(configureRequest(simConfig(sim)));
    const checked = await provider.check!({}, { projectId: project.id, volumeId: "vol-shim", sizeGb: 80 });
    expect(checked.failures ?? []).toEqual([]);
    const created = await provider.create(checked.inputs);
    expect(created.id).toBe(`${project.id}/vol-shim`);
    expect(sim.volume(project.id, "vol-shim")?.sizeGb).toBe(80);
  });

  test("the stored shim of each kind resolves to that kind's provider", async () => {
    for (const kind of KINDS) {
      const provider = requireFromString(await storedProviderText(kind)).handler();
      await provider.configure!(configureRequest(simConfig(sim)));
      expect(typeof provider.create).toBe("function");
      expect(typeof provider.diff).toBe("function");
      expect(typeof provider.delete).toBe("function");
    }
    sim.clearRequests();
    const sa = requireFromString(await storedProviderText("ServiceAccount")).handler();
    await sa.configure!(configureRequest(simConfig(sim)));
    const res = await sa.check!({}, { projectId: "p-x", name: "", grants: [], expiresIn: -1 });
    expect((res.failures ?? []).map((f) => f.property).sort()).toEqual(["expiresIn", "grants", "name"]);
    expect(sim.requests.length).toBe(0);
  });

  test("without configuration the first call names both ways to set each missing setting", async () => {
    delete process.env.PIMS_TOKEN;
    delete process.env.PIMS_BASE_URL;
    const provider = requireFromString(await storedProviderText("Project")).handler();
    await provider.configure!(configureRequest({}));
    await expect(provider.create({ name: "needs-creds" })).rejects.toThrow(
      /pims:token.*PIMS_TOKEN.*pims:baseUrl.*PIMS_BASE_URL/s,
    );
  });
});
