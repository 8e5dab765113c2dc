/** Raw HTTP calls to a simulator for its own tests (no client in between: what the wire carries is the subject). */
import type { PimsSimulator } from "../../../simulator";
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
