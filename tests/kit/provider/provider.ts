/**
 * A dynamic provider under test, configured against the simulator: the ConfigureRequest the host passes, the stack
 * config for a simulator, the per-suite hook `useProviderSuite`, the recording of the providers' progress lines, and
 * the secret values the AppSecrets suites scan for.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { PimsSimulator } from "../../../simulator";
import type { AppSecretsInputs } from "../../../provider/appSecrets";
import type { PimsProviderBase } from "../../../provider/providerBase";
import { currentSimulator, startSimulator } from "../sim/simulator";

/** The ConfigureRequest the dynamic-provider host would pass, from a plain stack-config map. */
export function configureRequest(config: Record<string, string | undefined>): pulumi.dynamic.ConfigureRequest {
  return {
    config: {
      get: (key: string) => config[key],
      require: (key: string) => {
        const v = config[key];
        if (v === undefined) throw new Error(`missing required configuration key ${key}`);
        return v;
      },
    },
  };
}

/** Config for a provider talking to `sim`. */
export function simConfig(sim: PimsSimulator): Record<string, string> {
  return { "pims:token": sim.token, "pims:baseUrl": sim.baseUrl };
}

/**
 * The suite's simulator and, per test, a configured provider and a silenced console.warn (see useProviderSuite).
 */
export interface ProviderSuite<P> {
  /** The simulator, started once for the enclosing describe block (a handle: destructure it once, at the top). */
  readonly sim: PimsSimulator;
  /** A new provider for each test, configured for `sim`. */
  readonly provider: P;
  /** console.warn of the current test: silenced, its calls recorded. */
  readonly warn: jest.SpyInstance;
}

/** Optional steps of useProviderSuite, at the points a suite needs them. */
export interface ProviderSuiteHooks {
  /** Once, right after the simulator starts (seeding). */
  seed?(sim: PimsSimulator): void;
  /** After each test, before console.warn is restored (its calls are still there to scan). */
  afterEachTest?(warn: jest.SpyInstance): void;
  /** Once, after the last test, before the simulator stops. */
  beforeStop?(sim: PimsSimulator): void;
}

/**
 * Jest wiring for a describe block that runs one provider against the simulator: starts the simulator before the
 * block and stops it after; before each test makes a new `Provider` configured for it (stack config
 * `pims:token`/`pims:baseUrl`), clears the simulator's request log and faults, and silences console.warn (restored
 * after the test). Read `sim`, `provider` and `warn` from the returned object inside tests and hooks.
 */
export function useProviderSuite<P extends PimsProviderBase>(
  Provider: new () => P,
  hooks: ProviderSuiteHooks = {},
): ProviderSuite<P> {
  let sim: PimsSimulator | undefined;
  let provider: P | undefined;
  let warn: jest.SpyInstance | undefined;
  const ready = <T>(v: T | undefined, what: string): T => {
    if (v === undefined) throw new Error(`useProviderSuite: ${what} exists only inside tests and hooks`);
    return v;
  };

  beforeAll(async () => {
    sim = await startSimulator();
    hooks.seed?.(sim);
  });
  afterAll(async () => {
    try {
      if (sim) hooks.beforeStop?.(sim);
    } finally {
      await sim?.stop();
    }
  });
  beforeEach(async () => {
    const s = ready(sim, "the simulator");
    provider = new Provider();
    await provider.configure(configureRequest(simConfig(s)));
    s.clearRequests();
    s.clearFaults();
    warn = jest.spyOn(console, "warn").mockImplementation(() => undefined);
  });
  afterEach(() => {
    const w = ready(warn, "the console.warn spy");
    try {
      hooks.afterEachTest?.(w);
    } finally {
      w.mockRestore();
      warn = undefined;
    }
  });

  return {
    sim: currentSimulator(() => sim, "useProviderSuite"),
    get provider() {
      return ready(provider, "the provider");
    },
    get warn() {
      return ready(warn, "the console.warn spy");
    },
  };
}

/**
 * Silences console.warn (the providers' progress lines) in each test of the enclosing block and appends its lines to
 * `lines` after the test, for a scan at the end. Returns the current test's spy.
 */
export function recordWarnings(lines: string[]): () => jest.SpyInstance {
  let warn: jest.SpyInstance | undefined;
  beforeEach(() => {
    warn = jest.spyOn(console, "warn").mockImplementation(() => undefined);
  });
  afterEach(() => {
    lines.push(...(warn?.mock.calls ?? []).map((c: unknown[]) => c.map(String).join(" ")));
    warn?.mockRestore();
    warn = undefined;
  });
  return () => {
    if (warn === undefined) throw new Error("recordWarnings: the spy exists only inside tests");
    return warn;
  };
}

/**
 * AppSecrets' secret values in its unit and simulator suites: long enough for the scanner (≥ 8 characters) and
 * unlikely anywhere else, so a scan for them finds only a leak.
 */
export const APP_SECRET_VALUES = {
  db1: "postgres://u:Pa55-db-one@db/x",
  db2: "postgres://u:Pa55-db-two@db/x",
  api: "sk_live_4f9a7c2e11b0d3",
  key: "hmac-9c1e77aa0b5d42f0",
  num: "98765432123456789",
};

/** Loose test inputs (invalid ones too) typed as AppSecrets' inputs. */
export const appSecretsInputs = (o: Record<string, unknown>): AppSecretsInputs => o as unknown as AppSecretsInputs;
