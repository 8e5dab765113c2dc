/**
 * Shared wiring of the SDK function suites: a simulator per test, explicit fast-retry credentials, no PIMS_* variables
 * or stack config leaking in from outside (restored afterwards).
 */
import * as pulumi from "@pulumi/pulumi";
import type { PimsCallOptions } from "../../sdk/nodejs/functions";
import type { PimsSimulator, SimulatorOptions } from "../../simulator";
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
  const savedEnv = { token: process.env.PIMS_TOKEN, baseUrl: process.env.PIMS_BASE_URL };

  beforeEach(async () => {
    current = await startSimulator(simOptions);
    delete process.env.PIMS_TOKEN;
    delete process.env.PIMS_BASE_URL;
    pulumi.runtime.setAllConfig({});
  });
  afterEach(async () => {
    await sim().stop();
    current = undefined;
    pulumi.runtime.setAllConfig({});
  });
  afterAll(() => {
    if (savedEnv.token !== undefined) process.env.PIMS_TOKEN = savedEnv.token;
    if (savedEnv.baseUrl !== undefined) process.env.PIMS_BASE_URL = savedEnv.baseUrl;
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
