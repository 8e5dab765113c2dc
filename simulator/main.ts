/**
 * `npm run simulator [-- --port N] [--profile default|quirky] [--token-layout L] [--rate R --burst B]
 * [--retry-after seconds|date] [--delay '[METHOD ]PATH=MS' ...]`: starts the simulator with a seeded demo project and
 * prints, one per line, PIMS_BASE_URL=..., PIMS_TOKEN=... (and the demo ids as PIMS_PROJECT_ID=..., etc.), then runs
 * until SIGINT or SIGTERM. The port comes from --port, else the env PIMS_SIM_PORT, else a free one; the profile from
 * --profile, else PIMS_SIM_PROFILE, else "default". --rate alone gives a burst of the same size.
 */
import { isSimulatorProfile, SIMULATOR_PROFILES } from "./dialect";
import type { FaultRule } from "./options";
import type { RateLimit } from "./rateLimit";
import { PimsSimulator, type SimulatorOptions } from "./server";
import { isTokenLayoutMode } from "./tokenLayouts";

const FLAGS = ["port", "profile", "token-layout", "rate", "burst", "retry-after", "delay"] as const;
type Flag = (typeof FLAGS)[number];

function parseArgs(argv: string[]): Partial<Record<Flag, string>> & { delays: string[] } {
  const out: Partial<Record<Flag, string>> & { delays: string[] } = { delays: [] };
  for (let i = 0; i < argv.length; i++) {
    const [name, inline] = argv[i].startsWith("--") ? argv[i].slice(2).split(/=(.*)/s, 2) : [undefined, undefined];
    const flag = FLAGS.find((f) => f === name);
    if (!flag) throw new Error(`unknown argument ${argv[i]} (known: ${FLAGS.map((f) => `--${f}`).join(", ")})`);
    const value = inline ?? argv[++i];
    if (value === undefined) throw new Error(`--${flag} needs a value`);
    if (flag === "delay")
      out.delays.push(value); // repeatable: one delay rule per route
    else out[flag] = value;
  }
  return out;
}

function parsePort(raw: string | undefined): number {
  if (raw === undefined || raw === "") return 0;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid port: ${raw}`);
  return port;
}

function parseNumber(flag: string, raw: string): number {
  const n = Number(raw);
  if (raw.trim() === "" || !Number.isFinite(n)) throw new Error(`--${flag} must be a number, got ${raw}`);
  return n;
}

// `--delay '[METHOD ]PATH=MS'` (repeatable): a `delay` fault on every matching request. The handler runs after MS ms
// even when the client has gone, so the change commits late: a service slower than its clients' timeout. In PATH a
// `*` stands for one path segment, e.g. 'POST /v2/projects/*/service-accounts=8000'.
function delayRule(spec: string): FaultRule {
  const m = /^\s*(?:([A-Za-z]+)\s+)?(\/\S*)=(\d+)\s*$/.exec(spec);
  if (!m)
    throw new Error(
      `--delay must be '[METHOD ]PATH=MS' (e.g. 'POST /v2/projects/*/service-accounts=8000'), got ${spec}`,
    );
  const [, method, pattern, ms] = m;
  const escaped = pattern.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"));
  return {
    kind: "delay",
    method: method?.toUpperCase(),
    path: new RegExp(`^${escaped.join("[^/]+")}$`),
    delayMs: Number(ms),
  };
}

type MainOptions = SimulatorOptions & { delays: Array<{ spec: string; rule: FaultRule }> };

function options(argv: string[]): MainOptions {
  const args = parseArgs(argv);
  const delays = args.delays.map((spec) => ({ spec: spec.trim(), rule: delayRule(spec) }));
  const opts: MainOptions = { port: parsePort(args.port ?? process.env.PIMS_SIM_PORT), delays };
  if (args.profile !== undefined) {
    if (!isSimulatorProfile(args.profile))
      throw new Error(`--profile must be one of ${SIMULATOR_PROFILES.join(", ")}, got ${args.profile}`);
    opts.profile = args.profile;
  }
  if (args["token-layout"] !== undefined) {
    if (!isTokenLayoutMode(args["token-layout"]))
      throw new Error(`--token-layout is not a token layout: ${args["token-layout"]}`);
    opts.tokenLayout = args["token-layout"];
  }
  if (args.rate !== undefined || args.burst !== undefined) {
    if (args.rate === undefined) throw new Error("--burst needs --rate");
    const rate = parseNumber("rate", args.rate);
    const retryAfter = args["retry-after"] ?? "seconds";
    if (retryAfter !== "seconds" && retryAfter !== "date")
      throw new Error(`--retry-after must be seconds or date, got ${retryAfter}`);
    const limit: RateLimit = {
      rate,
      burst: args.burst === undefined ? Math.max(1, rate) : parseNumber("burst", args.burst),
      retryAfter,
    };
    opts.rateLimit = limit;
  }
  return opts;
}

function seedDemo(sim: PimsSimulator): Record<string, string> {
  const project = sim.addProject({ name: "demo" });
  const app = sim.addApp(project.id, "web");
  const volume = sim.addVolume(project.id, { sizeGb: 100 });
  const run = sim.addRun(project.id, app.id);
  sim.generateLogs(project.id, app.id, 500, { containers: ["web", "worker"], runIds: [run.id] });
  sim.addLogs(project.id, app.id, [
    { logLine: "server listening on :8080", runId: run.id },
    { logLine: "warning: cache is cold", stream: "stderr", runId: run.id },
  ]);
  const build = sim.addBuild(project.id, app.id, {
    status: "success",
    logs: [{ log: "Step 1/3: installing dependencies" }, { log: "Step 2/3: compiling" }, { log: "Step 3/3: done" }],
  });
  const invoice = sim.addInvoice(project.id);
  return {
    PIMS_PROJECT_ID: project.id,
    PIMS_APP_ID: app.id,
    PIMS_VOLUME_ID: volume.id,
    PIMS_RUN_ID: run.id,
    PIMS_BUILD_ID: build.id,
    PIMS_INVOICE_ID: invoice.id,
  };
}

async function main(): Promise<void> {
  const { delays, ...opts } = options(process.argv.slice(2));
  const sim = await PimsSimulator.start(opts);
  for (const d of delays) sim.addFault(d.rule);
  const ids = seedDemo(sim);
  const lines = [`PIMS_BASE_URL=${sim.baseUrl}`, `PIMS_TOKEN=${sim.token}`, `PIMS_SIM_PROFILE=${sim.profile}`];
  const limit = sim.rateLimit();
  if (limit) lines.push(`PIMS_SIM_RATE=${limit.rate}`, `PIMS_SIM_BURST=${limit.burst}`);
  for (const d of delays) lines.push(`PIMS_SIM_DELAY=${d.spec}`);
  for (const [name, value] of Object.entries(ids)) lines.push(`${name}=${value}`);
  process.stdout.write(lines.join("\n") + "\n");

  const shutdown = (): void => {
    void sim.stop().then(() => process.exit(0));
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
}

main().catch((err: unknown) => {
  process.stderr.write(`simulator failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
