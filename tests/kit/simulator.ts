/**
 * The simulators: one per suite, on loopback, with the profile PIMS_SIM_PROFILE names. What a suite seeds and reads
 * back goes through the simulator's own methods (`addProject`, `requests`, `clearFaults`, …).
 */
import { PimsSimulator, profileFromEnv, type SimulatorOptions } from "../../simulator";

/**
 * A simulator for one suite. The profile is the option, else PIMS_SIM_PROFILE (`default` or `quirky`), else
 * "default": set `PIMS_SIM_PROFILE=quirky` to run a simulator-backed suite against the quirky profile.
 */
export async function startSimulator(opts: SimulatorOptions = {}): Promise<PimsSimulator> {
  return PimsSimulator.start({ ...opts, profile: opts.profile ?? profileFromEnv() });
}
