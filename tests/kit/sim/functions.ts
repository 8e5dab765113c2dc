/**
 * Shared wiring of the SDK function suites: a simulator per test, explicit fast-retry credentials, no PIMS_* variables
 * or stack config leaking in from outside (restored afterwards).
 */
import * as pulumi from "@pulumi/pulumi";
import type { PimsCallOptions } from "../../../sdk/nodejs/functions";
import type { PimsSimulator, SimulatorOptions } from "../../../simulator";
import { useEnv } from "../env";
import { currentSimulator, startSimulator } from "./simulator";

export interface FunctionsSuite {
  /** The current test's simulator (a handle that follows the current test: destructure it once, at the top). */
  readonly sim: PimsSimulator;
  /** Explicit credentials for `sim` plus fast retries (tests must not sleep). */
  opts(extra?: PimsCallOptions): PimsCallOptions;
}

/** Registers the suite's hooks and returns its handles. */
export function useFunctionsSuite(simOptions: SimulatorOptions = {}): FunctionsSuite {
  let current: PimsSimulator | undefined;
  const sim = (): PimsSimulator => {
    if (!current) throw new Error("useFunctionsSuite: the simulator exists only inside tests");
    return current;
  };
  useEnv("each", { PIMS_TOKEN: undefined, PIMS_BASE_URL: undefined });

  beforeEach(async () => {
    current = await startSimulator(simOptions);
    pulumi.runtime.setAllConfig({});
  });
  afterEach(async () => {
    await sim().stop();
    current = undefined;
    pulumi.runtime.setAllConfig({});
  });

  return {
    sim: currentSimulator(() => current, "useFunctionsSuite"),
    opts: (extra: PimsCallOptions = {}): PimsCallOptions => ({
      baseUrl: sim().baseUrl,
      token: sim().token,
      minDelayMs: 5,
      maxDelayMs: 20,
      maxRetryAfterMs: 50,
      timeoutMs: 5000,
      ...extra,
    }),
  };
}
