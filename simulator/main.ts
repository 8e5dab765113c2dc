/**
 * `npm run simulator [-- --port N]`: starts the simulator with a seeded demo project and prints, one per line,
 * PIMS_BASE_URL=..., PIMS_TOKEN=... (and the demo ids as PIMS_PROJECT_ID=..., etc.), then runs until
 * SIGINT or SIGTERM. The port comes from --port, else the env PIMS_SIM_PORT, else a free one.
 */
import { PimsSimulator } from "./server";

function portFromArgs(argv: string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--port") return argv[i + 1];
    if (argv[i].startsWith("--port=")) return argv[i].slice("--port=".length);
  }
  return undefined;
}

function parsePort(raw: string | undefined): number {
  if (raw === undefined || raw === "") return 0;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid port: ${raw}`);
  return port;
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
  const port = parsePort(portFromArgs(process.argv.slice(2)) ?? process.env.PIMS_SIM_PORT);
  const sim = await PimsSimulator.start({ port });
  const ids = seedDemo(sim);
  const lines = [`PIMS_BASE_URL=${sim.baseUrl}`, `PIMS_TOKEN=${sim.token}`];
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
