/**
 * P11: a refresh's reads stay flat in the number of accounts of one project. The compiled ServiceAccount provider's
 * `read` of every account of one project, as one refresh makes them (a new run's memory, all at once), against a
 * simulator in its own process: CPU time of this process (the provider's own work; the simulator's is in its
 * process) per account at N = 1,000 ÷ the same at N = 100, median of 5 rounds after a warm-up. Each read looks the
 * account up in the project's one listing (GET /v2/projects/{project_id}/api-keys, taken once per run); up to
 * 0.7.0 included, each read worked the whole listing out again (quadratic: the ratio grew with N). Goal: ≤ 1.25.
 */
import * as path from "node:path";
import {
  configuredProvider,
  log,
  median,
  okOrMissed,
  REPO,
  round,
  startSimProcess,
  type BenchOptions,
  type Row,
} from "./harness";

type RunModule = typeof import("../provider/serviceAccount/run");

const SIZES = [100, 1000] as const;

export async function p11(o: BenchOptions): Promise<Row[]> {
  const rounds = o.quick ? 3 : 5;
  const { newRun } = require(path.join(REPO, "bin", "provider", "serviceAccount", "run")) as RunModule;
  const perAccount: number[] = [];
  for (const n of SIZES) {
    const projectId = `p-bench11${String(n).padStart(4, "0")}`;
    const sim = await startSimProcess({ projects: [projectId] });
    const original = { warn: console.warn, log: console.log, error: console.error };
    try {
      const maker = await configuredProvider("ServiceAccount", sim.baseUrl, sim.token);
      const states: Array<{ id: string; outs: unknown }> = [];
      for (let i = 0; i < n; i++) {
        const inputs = { projectId, name: `sa-${i}`, description: "", grants: [projectId], expiresIn: 2_592_000 };
        const r = await maker.create(inputs);
        states.push({ id: r.id, outs: r.outs });
      }
      // The provider's lines go to the engine in a host; here they would only flood the bench's output.
      console.warn = console.log = console.error = () => undefined;
      const cpu: number[] = [];
      for (let r = 0; r <= rounds; r++) {
        newRun();
        const provider = await configuredProvider("ServiceAccount", sim.baseUrl, sim.token);
        const c0 = process.cpuUsage();
        const read = provider.read;
        if (!read) throw new Error("the ServiceAccount provider has no read");
        const out = await Promise.all(states.map((s) => read.call(provider, s.id, s.outs)));
        const c = process.cpuUsage(c0);
        if (out.some((x, i) => x.id !== states[i].id)) throw new Error("a read dropped a live account");
        if (r > 0) cpu.push((c.user + c.system) / 1000 / n); // round 0 warms up
      }
      perAccount.push(median(cpu));
      const each = cpu.map((x) => x.toFixed(3)).join(" ");
      log(`P11: N=${n}: ${median(cpu).toFixed(3)} ms of CPU per account's read (rounds: ${each})`);
    } finally {
      Object.assign(console, original);
      await sim.stop();
    }
  }
  const [small, large] = perAccount;
  const ratio = round(large / small);
  return [
    {
      id: "P11",
      measure: `a refresh's reads of one project's ${SIZES[1]} ServiceAccounts: CPU ms per account ÷ at ${SIZES[0]}`,
      ours: `${large.toFixed(3)} ms`,
      baseline: `${small.toFixed(3)} ms`,
      ratio,
      goal: "≤ 1.25 (flat in N)",
      status: okOrMissed(ratio <= 1.25),
      raw: { perAccountMs: Object.fromEntries(SIZES.map((n, i) => [n, perAccount[i]])) },
    },
  ];
}
