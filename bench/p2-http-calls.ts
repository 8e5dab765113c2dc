/**
 * P2: HTTP calls per provider operation, counted in the simulator's request log around each operation of a provider
 * configured as the provider host configures it, against the minimum: a no-change preview (check + diff) 0, a create,
 * an update and a delete 1 where the service has the operation. A ServiceAccount's refresh reads the project's
 * API-key listing, once per project for the whole run (several accounts in one project share it), and its delete
 * looks at that listing too (accounts no state holds): 1 and 1 + 1. Each step is a run of its own, as each engine
 * operation is a provider process of its own.
 */
import type * as pulumi from "@pulumi/pulumi";
import { configuredProvider, KINDS, log, round, type Kind, type Row } from "./harness";
import { PimsSimulator } from "../simulator";

interface Step {
  op: string;
  /** The minimum; null where the service has no such operation (then 0 calls are expected). */
  goal: number | null;
  note?: string;
  /** Before the count (not counted). */
  setup?: () => Promise<unknown>;
  run: () => Promise<unknown>;
}

interface Inputs {
  inputs: Record<string, unknown>;
  /** Inputs that update in place; undefined where every change replaces. */
  changed?: Record<string, unknown>;
  hasDelete: boolean;
  /** Calls of a refresh: 0 where the service has no read; a ServiceAccount reads the project's listing. */
  refreshGoal: number;
}

function inputsOf(projectId: string, appId: string): Record<Kind, Inputs> {
  const volume = { projectId, volumeId: "default-us-east-1", sizeGb: 100 };
  const secrets = { projectId, appId, secrets: { API_KEY: "bench-value-1" } };
  return {
    Project: { inputs: { name: "bench-project" }, hasDelete: false, refreshGoal: 0 },
    ServiceAccount: {
      inputs: { projectId, name: "bench-sa", description: "", grants: [projectId], expiresIn: 3600 },
      hasDelete: true,
      refreshGoal: 1,
    },
    VolumeSize: { inputs: volume, changed: { ...volume, sizeGb: 200 }, hasDelete: false, refreshGoal: 0 },
    AppSecrets: {
      inputs: secrets,
      changed: { ...secrets, secrets: { API_KEY: "bench-value-2" } },
      hasDelete: false,
      refreshGoal: 0,
    },
  };
}

/**
 * create, no-change preview, refresh, update, delete of one resource, in that order (each step uses the last outputs).
 */
function stepsOf(
  kind: Kind,
  provider: pulumi.dynamic.ResourceProvider,
  { inputs, changed, hasDelete, refreshGoal }: Inputs,
): Step[] {
  let id = "";
  let outs: Record<string, unknown> = {};
  const update: Step = changed
    ? {
        op: "update",
        goal: 1,
        run: async () => {
          const d = await provider.diff!(id, outs, changed);
          if (!d.changes || (d.replaces ?? []).length > 0) throw new Error(`${kind}: expected an in-place update`);
          outs = (await provider.update!(id, outs, changed)).outs as Record<string, unknown>;
        },
      }
    : {
        op: "update",
        goal: null,
        note: "every change replaces (the service has no update)",
        run: async () => undefined,
      };
  return [
    {
      op: "check + create",
      goal: 1,
      run: async () => {
        const r = await provider.create((await provider.check!({}, inputs)).inputs);
        id = r.id;
        outs = r.outs as Record<string, unknown>;
      },
    },
    {
      op: "no-change preview (check + diff)",
      goal: 0,
      run: async () => {
        const d = await provider.diff!(id, outs, (await provider.check!(inputs, inputs)).inputs);
        if (d.changes) throw new Error(`${kind}: diff with equal inputs reports changes`);
      },
    },
    {
      op: "refresh (read)",
      goal: refreshGoal,
      note: refreshGoal > 0 ? "one listing per project per run" : undefined,
      run: () => provider.read!(id, outs),
    },
    ...(kind === "ServiceAccount" ? [sharedRefresh(provider, inputs)] : []),
    update,
    {
      op: hasDelete ? "delete (the DELETE + the run's one listing of the project)" : "delete",
      goal: hasDelete ? 2 : null,
      note: hasDelete ? undefined : "the service has no delete operation: removes from the stack only",
      run: () => provider.delete!(id, outs),
    },
  ];
}

/** A refresh of five ServiceAccounts of one project at once (as the engine refreshes): they share one listing. */
function sharedRefresh(provider: pulumi.dynamic.ResourceProvider, inputs: Record<string, unknown>): Step {
  const accounts: Array<{ id: string; outs?: unknown }> = [];
  return {
    op: "refresh (read) of 5 accounts in one project, at once",
    goal: 1,
    setup: async () => {
      for (let i = 0; i < 5; i++) accounts.push(await provider.create({ ...inputs, name: `bench-sa-${i}` }));
    },
    run: () => Promise.all(accounts.map((a) => provider.read!(a.id, a.outs))),
  };
}

/** Starts a new run in the compiled package: each step is an engine operation, a provider process of its own. */
const newRun = (): unknown =>
  (require("pulumi-pims/bin/provider/serviceAccount/run") as typeof import("../provider/serviceAccount/run")).newRun();

async function countCalls(sim: PimsSimulator, kind: Kind, step: Step): Promise<Row> {
  await step.setup?.();
  newRun();
  const before = sim.requests.length;
  await step.run();
  const calls = sim.requests.length - before;
  const na = step.goal === null;
  const goal = step.goal ?? 0;
  const ok = calls <= goal;
  return {
    id: "P2",
    measure: `HTTP calls: ${kind} ${step.op}`,
    ours: String(calls),
    baseline: na ? "—" : `${goal} (minimum)`,
    ratio: na || goal === 0 ? null : round(calls / goal),
    goal: na ? "N/A" : `${goal}`,
    status: na ? "N/A" : ok ? "OK" : "MISSED",
    reason: na ? `${step.note}; ${calls} calls` : ok ? undefined : `${calls} calls instead of ${goal}`,
    raw: { calls, requests: sim.requests.slice(before).map((r) => `${r.method} ${r.path} ${r.status}`) },
  };
}

export async function p2(): Promise<Row[]> {
  log("P2: HTTP calls per operation");
  const sim = await PimsSimulator.start();
  const project = sim.addProject({ id: "p-bench0001" });
  sim.addVolume(project.id, { id: "default-us-east-1", sizeGb: 50 });
  const app = sim.addApp(project.id, "web");
  const warn = console.warn;
  console.warn = () => undefined; // the delete warnings of resources the service cannot delete
  const rows: Row[] = [];
  try {
    const inputs = inputsOf(project.id, app.id);
    for (const kind of KINDS) {
      const provider = await configuredProvider(kind, sim.baseUrl, sim.token);
      for (const step of stepsOf(kind, provider, inputs[kind])) rows.push(await countCalls(sim, kind, step));
    }
  } finally {
    console.warn = warn;
    await sim.stop();
  }
  return rows;
}
