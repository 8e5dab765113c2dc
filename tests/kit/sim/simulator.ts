/**
 * The simulators: one per suite, on loopback, with the profile PIMS_SIM_PROFILE names. What a suite seeds and reads
 * back goes through the simulator's own methods (`addProject`, `requests`, `clearFaults`, …).
 */
import { PimsSimulator, profileFromEnv, type SimulatorOptions } from "../../../simulator";
import { testClient } from "./client";

/**
 * A simulator for one suite. The profile is the option, else PIMS_SIM_PROFILE (`default` or `quirky`), else
 * "default": set `PIMS_SIM_PROFILE=quirky` to run a simulator-backed suite against the quirky profile.
 */
export async function startSimulator(opts: SimulatorOptions = {}): Promise<PimsSimulator> {
  return PimsSimulator.start({ ...opts, profile: opts.profile ?? profileFromEnv() });
}

/** An account made as the web console does (POST through a client): no stack's state holds it. */
export async function consoleAccount(
  sim: PimsSimulator,
  projectId: string,
  name: string,
  expiresIn = 7_776_000,
): Promise<{ id: string; token: string }> {
  const a = await testClient(sim).createServiceAccount(projectId, {
    name,
    description: "made in the console",
    grants: [projectId],
    expiresIn,
  });
  return { id: a.id, token: a.token.secret };
}

/** The ids of the accounts live in `projectId`, sorted. */
export const liveIds = (sim: PimsSimulator, projectId: string): string[] =>
  sim
    .serviceAccounts(projectId)
    .map((a) => a.id)
    .sort();

/** Every request that changed something, as `METHOD /path`, in order. */
export const writesOf = (sim: PimsSimulator): string[] =>
  sim.requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);

/**
 * The handle a per-test suite hook (useCliSuite, useFunctionsSuite, useProviderSuite) returns as `sim`: every
 * property read or written goes to the simulator `current()` gives at that moment (the current test's), so a suite
 * destructures `const { sim } = useXSuite()` once at the top and uses `sim` in its tests, instead of copying it into a
 * variable of its own before each test. Touched outside a test or hook, it throws, naming `hook`.
 */
export function currentSimulator(current: () => PimsSimulator | undefined, hook: string): PimsSimulator {
  const live = (): PimsSimulator => {
    const sim = current();
    if (!sim) throw new Error(`${hook}: the simulator exists only inside tests and hooks`);
    return sim;
  };
  return new Proxy({} as PimsSimulator, {
    get(_handle, key) {
      const sim = live();
      const value: unknown = Reflect.get(sim, key, sim);
      // Methods run on the simulator itself (its private fields are not on the handle).
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(sim) : value;
    },
    set: (_handle, key, value) => Reflect.set(live(), key, value),
    has: (_handle, key) => Reflect.has(live(), key),
    getPrototypeOf: () => PimsSimulator.prototype,
  });
}
