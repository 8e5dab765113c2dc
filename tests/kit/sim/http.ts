/**
 * Raw HTTP calls to a simulator, for its own suites (no client in between: what the wire carries is the subject), and
 * their hook `useSimulatorSuite`: a new simulator of one profile for each test.
 */
import { PimsSimulator, type SimulatorOptions, type SimulatorProfile } from "../../../simulator";
import type { ServiceAccount } from "../../../simulator/types";

export interface CallOptions {
  body?: unknown;
  /** Sent verbatim instead of JSON.stringify(body). */
  rawBody?: string;
  /** null = no Authorization header; default the admin token. */
  token?: string | null;
  query?: Record<string, string>;
}

export interface CallResult {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

export const message = (r: CallResult): string => (r.json as { message: string }).message;

/** Helpers bound to the current simulator of a test file (`current` is read at each call). */
export function simCalls(current: () => PimsSimulator) {
  async function call(method: string, path: string, opts: CallOptions = {}): Promise<CallResult> {
    const sim = current();
    const url = new URL(sim.baseUrl + path);
    for (const [k, v] of Object.entries(opts.query ?? {})) url.searchParams.set(k, v);
    const headers: Record<string, string> = { "Content-Type": "application/json" };
    const token = opts.token === undefined ? sim.token : opts.token;
    if (token !== null) headers.Authorization = `Bearer ${token}`;
    const body = opts.rawBody ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
    const res = await fetch(url, { method, headers, body });
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json };
  }

  /** A project with an app; returns their ids. */
  function seedApp(appName = "web"): { projectId: string; appId: string } {
    const sim = current();
    const projectId = sim.addProject().id;
    return { projectId, appId: sim.addApp(projectId, appName).id };
  }

  /** Creates a service account over HTTP in the default profile (201 and the default token layout). */
  async function createServiceAccount(projectId: string, body: Record<string, unknown> = {}): Promise<ServiceAccount> {
    const r = await call("POST", `/v2/projects/${projectId}/service-accounts`, {
      body: { name: "ci", grants: [projectId], expiresIn: 3600, ...body },
    });
    expect(r.status).toBe(201);
    return r.json as ServiceAccount;
  }

  return { call, seedApp, createServiceAccount };
}

/** A simulator of one profile, new for each test, and the raw calls bound to it (see useSimulatorSuite). */
export interface SimulatorSuite extends ReturnType<typeof simCalls> {
  /** The current test's simulator. */
  readonly sim: PimsSimulator;
  /** Stops the current simulator and starts one of the same profile with these options, for the rest of the test. */
  restart(options: Omit<SimulatorOptions, "profile">): Promise<void>;
}

/** Jest hooks of the simulator's own suites: a new simulator of `profile` for each test, stopped after it. */
export function useSimulatorSuite(profile: SimulatorProfile): SimulatorSuite {
  let current: PimsSimulator | undefined;
  const sim = (): PimsSimulator => {
    if (!current) throw new Error("useSimulatorSuite: the simulator exists only inside tests");
    return current;
  };
  beforeEach(async () => {
    current = await PimsSimulator.start({ profile });
  });
  afterEach(async () => {
    await current?.stop();
    current = undefined;
  });
  return {
    ...simCalls(sim),
    get sim() {
      return sim();
    },
    async restart(options) {
      await sim().stop();
      current = await PimsSimulator.start({ ...options, profile });
    },
  };
}
