/**
 * Shared test helpers: a simulator per suite, configured providers, awaited rejections, pulumi mocks that record
 * registrations, and the plaintext-secret scanner.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { MockMonitor } from "@pulumi/pulumi/runtime/mocks";
import { PimsSimulator, profileFromEnv, type SimulatorOptions } from "../../simulator";
import { PimsClient, type ClientOptions } from "../../provider/client";
import { Scheduler } from "../../provider/client/scheduler";
import type { PimsProviderBase } from "../../provider/providerBase";

/**
 * A simulator for one suite. The profile is the option, else PIMS_SIM_PROFILE (`default` or `quirky`), else
 * "default": set `PIMS_SIM_PROFILE=quirky` to run a simulator-backed suite against the quirky profile.
 */
export async function startSimulator(opts: SimulatorOptions = {}): Promise<PimsSimulator> {
  return PimsSimulator.start({ ...opts, profile: opts.profile ?? profileFromEnv() });
}

/**
 * A client against the simulator with fast retries (tests must not sleep for seconds) and a request scheduler of its
 * own, silent: the pace a 429 taught one test must not slow the next.
 */
export function testClient(sim: PimsSimulator, extra: Partial<ClientOptions> = {}): PimsClient {
  const scheduler = new Scheduler({ onProgress: () => undefined });
  return new PimsClient({
    baseUrl: sim.baseUrl,
    token: sim.token,
    minDelayMs: 5,
    maxDelayMs: 20,
    maxRetryAfterMs: 50,
    timeoutMs: 5000,
    scheduler,
    ...extra,
  });
}

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
 * The suite's simulator and, per test, a configured provider and a silenced console.warn (see useSimulatorProvider).
 */
export interface SimulatorProviderSuite<P> {
  /** The simulator, started once for the enclosing describe block. */
  readonly sim: PimsSimulator;
  /** A new provider for each test, configured for `sim`. */
  readonly provider: P;
  /** console.warn of the current test: silenced, its calls recorded. */
  readonly warn: jest.SpyInstance;
}

/** Optional steps of useSimulatorProvider, at the points a suite needs them. */
export interface SimulatorProviderHooks {
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
export function useSimulatorProvider<P extends PimsProviderBase>(
  Provider: new () => P,
  hooks: SimulatorProviderHooks = {},
): SimulatorProviderSuite<P> {
  let sim: PimsSimulator | undefined;
  let provider: P | undefined;
  let warn: jest.SpyInstance | undefined;
  const ready = <T>(v: T | undefined, what: string): T => {
    if (v === undefined) throw new Error(`useSimulatorProvider: ${what} exists only inside tests and hooks`);
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
    get sim() {
      return ready(sim, "the simulator");
    },
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

/** The rejection of `p`, which must be an instance of `cls` (fails the test when `p` resolves). */
export async function rejectionOf<T extends Error>(
  p: Promise<unknown>,
  cls: abstract new (...args: never[]) => T,
): Promise<T> {
  const outcome = await p.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  if (outcome.ok) throw new Error(`expected a ${cls.name}, got a result: ${JSON.stringify(outcome.value)}`);
  expect(outcome.error).toBeInstanceOf(cls);
  return outcome.error as T;
}

/** One RegisterResourceRequest as the SDK sent it to the (mock) resource monitor. */
export interface Registration {
  /** The type token, e.g. `pulumi-nodejs:dynamic/pims:Project`. */
  type: string;
  /** The resource name. */
  name: string;
  /** The resource option as the engine sees it (the SDK's own entries merged with the user's). */
  additionalSecretOutputs: string[];
  /** The inputs as sent, secrets still wrapped (`{<sig>: <secret>, value}`), with `__provider`. */
  object: Record<string, unknown>;
}

/**
 * Installs pulumi mocks for the enclosing describe block (project "proj", stack "stack", not a preview) and records
 * every resource registration sent to the mock monitor; returns the list it fills. The mocks' newResource does not
 * receive resource options: the request to the monitor carries them (additionalSecretOutputs) as the engine sees
 * them. The recording stops after the block.
 */
export function captureRegistrations(mocks: pulumi.runtime.Mocks): Registration[] {
  const registered: Registration[] = [];
  let spy: jest.SpyInstance | undefined;
  interface RegisterRequest {
    getType(): string;
    getName(): string;
    getAdditionalsecretoutputsList(): string[];
    getObject(): { toJavaScript(): Record<string, unknown> };
  }

  beforeAll(async () => {
    // loaded here, not at the top: most users of this file never need the pulumi runtime
    const { runtime } = await import("@pulumi/pulumi");
    const { MockMonitor: Monitor } = await import("@pulumi/pulumi/runtime/mocks");
    const original = Monitor.prototype.registerResource;
    spy = jest.spyOn(Monitor.prototype, "registerResource").mockImplementation(function (
      this: MockMonitor,
      req: RegisterRequest,
      cb: (err: unknown, res: unknown) => void,
    ) {
      registered.push({
        type: req.getType(),
        name: req.getName(),
        additionalSecretOutputs: req.getAdditionalsecretoutputsList(),
        object: req.getObject().toJavaScript(),
      });
      return original.call(this, req, cb);
    });
    await runtime.setMocks(mocks, "proj", "stack", false);
  });
  afterAll(() => spy?.mockRestore());
  return registered;
}

/** The value of an output, once it resolves. */
export function outputValue<T>(o: pulumi.Output<T>): Promise<T> {
  return new Promise((resolve) => o.apply(resolve));
}

/**
 * Every secret in `secrets` that occurs in `text` (empty = clean). Secrets shorter than 8 characters are
 * ignored (they would match by chance).
 */
export function findPlaintextSecrets(text: string, secrets: Iterable<string>): string[] {
  const hits: string[] = [];
  for (const s of secrets) if (s && s.length >= 8 && text.includes(s)) hits.push(s);
  return hits;
}

/** Fails the test, without printing the secret itself, when any secret occurs in `text`. */
export function expectNoPlaintextSecrets(text: string, secrets: Iterable<string>, where: string): void {
  const hits = findPlaintextSecrets(text, secrets);
  if (hits.length > 0) {
    throw new Error(
      `${hits.length} secret value(s) found in plaintext in ${where} (first begins ` +
        `${JSON.stringify(hits[0].slice(0, 6))}…)`,
    );
  }
}

/**
 * Runs `fn` with these environment variables set (undefined removes one), then restores their previous values: for
 * settings the provider reads at call time (PIMS_TIMEOUT_MS, PIMS_MAX_RETRIES, …).
 */
export async function withEnv<T>(vars: Record<string, string | undefined>, fn: () => Promise<T>): Promise<T> {
  const before = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const apply = (v: Record<string, string | undefined>): void => {
    for (const [k, x] of Object.entries(v))
      if (x === undefined) delete process.env[k];
      else process.env[k] = x;
  };
  apply(vars);
  try {
    return await fn();
  } finally {
    apply(before);
  }
}
