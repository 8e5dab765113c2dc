/**
 * P7's fairness against the simulator, without timings: the baseline's create (bench/naive.ts,
 * `naiveServiceAccountProviderAllOutputs`) stores the same output keys as pulumi-pims' create of the same account,
 * so both write states of the same shape. The declared keys are checked in tests/unit/tooling/bench.test.ts.
 */
import { loadNaive } from "../../../bench/harness";
import { inputs } from "../../../bench/p7-scale";
import { ServiceAccountProvider } from "../../../provider/serviceAccount";
import { useProviderSuite } from "../../kit/provider/provider";

const { sim, provider } = (() => {
  const ctx = useProviderSuite(ServiceAccountProvider, {
    seed: (s) => ["p-bench0701", "p-bench0702"].forEach((id) => s.addProject({ id })),
  });
  return { sim: ctx.sim, provider: () => ctx.provider };
})();

test("the baseline's create stores the output keys pulumi-pims' create stores", async () => {
  const naive = loadNaive(sim.baseUrl, sim.token);
  const theirs = await naive.naiveServiceAccountProviderAllOutputs.create(inputs(0));
  const ours = await provider().create(inputs(1));
  expect(Object.keys(theirs.outs as object).sort()).toEqual(Object.keys(ours.outs ?? {}).sort());
  expect(sim.serviceAccounts("p-bench0701")).toHaveLength(1);
});
