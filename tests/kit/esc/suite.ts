/**
 * An ESC adapter suite's set-up, written once for its tables (./table: rotations, ./openTable: opens and what both
 * routes share): one simulator, one caller (./caller) and one adapter per suite, a fresh project per test (so its own
 * series), a consumer that uses a token as an app would, and after each test the adapter's log scanned for every
 * issued token in every encoding. `another()` starts one more instance of the same host (a second process, or the
 * same one after a restart: nothing it remembers in memory is shared).
 */
import { AuthError, PimsClient } from "../../../provider/client";
import type { PimsSimulator } from "../../../simulator";
import { expectNoPlaintextSecrets } from "../secrets/secrets";
import { startSimulator } from "../sim/simulator";
import { EscCaller, type EscRequest } from "./caller";

/** One host of the adapter, started for a suite. */
export interface EscTarget {
  send(r: EscRequest): Promise<{ status: number; body: Record<string, unknown>; headers: Record<string, string> }>;
  /** Everything the adapter logged so far. */
  logs(): string;
  /** Its address, for a host served over the wire. */
  url?: string;
  close(): Promise<void>;
}

/** The adapter's bounds in these suites: short leases and few of them, so the limits are reached quickly. */
export const BOUNDS = { maxTtl: 600, maxLeases: 5 } as const;

/** What a host is started with: the simulator, the caller (its JWKS, issuer, audiences), the allow-list, the bounds. */
export interface EscTargetSetup {
  sim: PimsSimulator;
  caller: EscCaller;
  allow: string[];
  bounds: typeof BOUNDS;
}

/** How a suite starts its host. */
export type StartTarget = (s: EscTargetSetup) => Promise<EscTarget>;

export interface EscSuite {
  readonly sim: PimsSimulator;
  readonly caller: EscCaller;
  readonly target: EscTarget;
  /** This test's project. */
  readonly p: string;
  /** One more instance of the host (closed with the suite). */
  another(): Promise<EscTarget>;
  /** A call with `token`, as an app holding it makes one; true when the service took it (not 401). */
  consumerWorks(token: string): Promise<boolean>;
  /** Requests to the simulator that write (anything but GET) since `clearRequests`. */
  writes(): number;
}

/** Registers the suite's hooks inside the caller's `describe`; the returned object is valid inside tests. */
export function useEscSuite(start: StartTarget): EscSuite {
  let sim: PimsSimulator;
  let caller: EscCaller;
  let target: EscTarget;
  let p: string;
  const extra: EscTarget[] = [];
  const setup = (): EscTargetSetup => ({ sim, caller, allow: ["acme/app/prod", "other-org"], bounds: BOUNDS });
  beforeAll(async () => {
    sim = await startSimulator();
    caller = await EscCaller.start();
    target = await start(setup());
  });
  afterAll(async () => {
    for (const t of extra) await t.close();
    await target?.close();
    await caller?.close();
    await sim?.stop();
  });
  beforeEach(() => {
    p = sim.addProject().id;
    sim.clearFaults();
    sim.setRateLimit(undefined);
  });
  afterEach(() => {
    // Nothing any instance logged holds an issued token, in any encoding.
    for (const t of [target, ...extra]) expectNoPlaintextSecrets(t.logs(), sim.issuedSecrets(), "the adapter's log");
  });
  return {
    get sim() {
      return sim;
    },
    get caller() {
      return caller;
    },
    get target() {
      return target;
    },
    get p() {
      return p;
    },
    async another() {
      const t = await start(setup());
      extra.push(t);
      return t;
    },
    async consumerWorks(token) {
      const c = new PimsClient({ baseUrl: sim.baseUrl, token, retries: 0, minDelayMs: 5, maxDelayMs: 10 });
      try {
        await c.listApiKeys(p);
        return true;
      } catch (e) {
        if (e instanceof AuthError) return false;
        throw e;
      }
    },
    writes: () => sim.requests.filter((r) => r.method !== "GET").length,
  };
}
