/**
 * `npm run demo`: the quickstart example deployed for real by the Pulumi engine against a local PIMS simulator.
 *
 *   [1/6] start the simulator (in this process) and seed an existing app
 *   [2/6] make sure the pulumi CLI is there (builds it from the Go module proxy the first time: several minutes)
 *   [3/6] pulumi up examples/quickstart/typescript into a temporary file:// backend
 *   [4/6] print the outputs (the token masked) and what the simulator now holds
 *   [5/6] rotate the token: change the rotationTrigger config and pulumi up again (create-before-delete)
 *   [6/6] pulumi destroy, then stop the simulator
 *
 * Flags: `--quiet` hides the engine's own output. Exits non-zero on any failure. Nothing is written into the
 * repository: the example is copied into a temporary directory (its stack config is written there), and every
 * temporary directory is removed at the end.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import { PimsSimulator } from "../../simulator";
import { copyExample, createPimsStack, ensureEngine, REPO_ROOT, tempDir } from ".";
import { errorText } from "../../provider/client";

const STEPS = 6;
const quiet = process.argv.includes("--quiet");
const started = Date.now();

const secs = (ms: number): string => `${(ms / 1000).toFixed(1)}s`;
function step(n: number, text: string): void {
  process.stdout.write(`\n[${n}/${STEPS}] ${text}\n`);
}
function info(text: string): void {
  process.stdout.write(`      ${text}\n`);
}
/**
 * Receives the engine's output (which masks secrets itself; the demo checks that it did, see the end of main):
 * keeps all of it for that check and, unless --quiet, prints it indented line by line, without the
 * "@ updating...." progress dots.
 */
class EngineOutput {
  readonly captured: string[] = [];
  private pending = "";
  readonly write = (chunk: string): void => {
    this.captured.push(chunk);
    const lines = (this.pending + chunk).split("\n");
    this.pending = lines.pop() ?? "";
    for (const line of lines) this.print(line);
  };
  flush(): void {
    if (this.pending !== "") this.print(this.pending);
    this.pending = "";
  }
  private print(line: string): void {
    if (quiet || /^@ /.test(line)) return;
    process.stdout.write(`      │ ${line.trimEnd()}\n`.replace(/ \n$/, "\n"));
  }
}
/** A secret shown without its value. */
function masked(value: unknown): string {
  const s = String(value);
  return `[secret] (${s.length} characters, begins ${JSON.stringify(s.slice(0, 4))})`;
}

async function main(): Promise<void> {
  const scratch = tempDir("pims-demo-");
  let sim: PimsSimulator | undefined;
  const engine = new EngineOutput();
  const engineOpts = { onOutput: engine.write, onError: engine.write };
  /** Runs one engine operation, then prints the rest of its output. */
  const op = async <T>(run: Promise<T>): Promise<T> => {
    try {
      return await run;
    } finally {
      engine.flush();
    }
  };
  try {
    // 1. simulator
    sim = await PimsSimulator.start();
    step(1, `starting simulator at ${sim.baseUrl}`);
    const appProject = sim.addProject({ name: "demo-apps" });
    const app = sim.addApp(appProject.id, "web");
    info(
      `seeded an existing project ${appProject.id} with the app ${app.id} ` +
        `(the quickstart puts the token into its secrets)`,
    );

    // 2. engine
    step(2, "making sure the pulumi CLI is available (the first time it is built from source: several minutes)");
    let t = Date.now();
    const engineDir = ensureEngine();
    info(`engine: ${path.join(engineDir, "pulumi")} (${secs(Date.now() - t)})`);

    // 3. up
    const workDir = copyExample("quickstart", scratch);
    const backendDir = path.join(scratch, "backend");
    step(3, `pulumi up: examples/quickstart/typescript, stack "dev", backend file://${backendDir}`);
    info(`(the example is copied to ${workDir} so its stack config is not written into the repository)`);
    const stack: Stack = await createPimsStack({
      stackName: "dev",
      workDir,
      backendDir,
      baseUrl: sim.baseUrl,
      token: sim.token,
      engineDir,
      config: { appProjectId: appProject.id, appName: "web", rotationTrigger: "1" },
    });
    t = Date.now();
    const up = await op(stack.up(engineOpts));
    info(`done in ${secs(Date.now() - t)}: ${summary(up.summary.resourceChanges)}`);

    // 4. outputs
    step(4, "stack outputs (secrets masked) and what the simulator holds");
    const outs = up.outputs;
    for (const [name, o] of Object.entries(outs))
      info(`${name.padEnd(18)} ${o.secret ? masked(o.value) : JSON.stringify(o.value)}`);
    const firstAccount = String(outs.serviceAccountId?.value);
    const firstToken = String(outs.token?.value);
    const projectId = String(outs.projectId?.value);
    must(outs.token?.secret === true, "the token output is not a secret");
    must(sim.project(projectId) !== undefined, `the simulator has no project ${projectId}`);
    must(
      sim.serviceAccounts(projectId).some((a) => a.id === firstAccount),
      `the simulator has no service account ${firstAccount}`,
    );
    must(
      sim.appSecrets(appProject.id, app.id).PIMS_TOKEN === firstToken,
      "the app's PIMS_TOKEN secret is not the new token",
    );
    info(
      `simulator: project ${projectId}, live service account ${firstAccount}, app ${app.id} holds PIMS_TOKEN (= the ` +
        `token) and PIMS_PROJECT_ID`,
    );

    // 5. rotation
    step(5, "rotating the token: pulumi config set rotationTrigger 2, then pulumi up");
    await stack.setConfig("rotationTrigger", { value: "2" });
    sim.clearRequests();
    t = Date.now();
    const rotated = await op(stack.up(engineOpts));
    info(`done in ${secs(Date.now() - t)}: ${summary(rotated.summary.resourceChanges)}`);
    const secondAccount = String(rotated.outputs.serviceAccountId?.value);
    const secondToken = String(rotated.outputs.token?.value);
    must(secondAccount !== firstAccount, "the service account was not replaced");
    must(secondToken !== firstToken, "the token did not change");
    must(rotated.outputs.token?.secret === true, "the new token output is not a secret");
    const order = sim.requests.map((r) => `${r.method} ${r.path}`);
    const created = order.findIndex((r) => r.startsWith("POST ") && r.endsWith("/service-accounts"));
    const deleted = order.findIndex((r) => r.startsWith("DELETE ") && r.endsWith(`/service-accounts/${firstAccount}`));
    const patched = order.findIndex((r) => r.startsWith("PATCH ") && r.endsWith(`/apps/${app.id}/secrets`));
    must(created >= 0 && deleted > created, "the new account was not created before the old one was deleted");
    must(
      patched > created && patched < deleted,
      "the app did not get the new token before the old account was deleted",
    );
    must(sim.deletedServiceAccounts().includes(firstAccount), `the old account ${firstAccount} was not deleted`);
    must(sim.appSecrets(appProject.id, app.id).PIMS_TOKEN === secondToken, "the app did not get the new token");
    info(`replaced ${firstAccount} → ${secondAccount}; new token ${masked(secondToken)}`);
    info(`simulator requests, in order: ${order.join(", ")}`);
    info("create-before-delete: the new account existed (and the app had its token) before the old one was deleted");

    // 6. destroy
    step(6, "pulumi destroy, then stopping the simulator");
    t = Date.now();
    const destroyed = await op(stack.destroy(engineOpts));
    info(`done in ${secs(Date.now() - t)}: ${summary(destroyed.summary.resourceChanges)}`);
    must(sim.serviceAccounts(projectId).length === 0, "service accounts are left in the simulator");
    info(
      `simulator: no service account left; project ${projectId} and the app's secrets remain ` +
        `(the service cannot delete them)`,
    );

    // Self-check: no token the simulator issued, in any engine output or file of the backend.
    const secrets = sim.issuedSecrets();
    const leaks = scan([engine.captured.join(""), ...readAll(backendDir), ...readAll(workDir)], secrets);
    must(leaks === 0, `${leaks} plaintext secret value(s) found in the engine output or the state`);
    info(
      `checked: none of the ${secrets.length} tokens the simulator issued (its admin token included) appears in the ` +
        `engine output, the state or the stack config`,
    );
  } finally {
    await sim?.stop();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  process.stdout.write(`\ndemo finished in ${secs(Date.now() - started)}\n`);
  process.stdout.write(
    "more: examples/ (quickstart, environments, rotation, multi-account; each in TypeScript, YAML, Python, Go and " +
      "Java, a README each) and tests/engine/, which runs them\n",
  );
}

function summary(changes: Record<string, number> | undefined): string {
  const parts = Object.entries(changes ?? {}).map(([op, n]) => `${n} ${op}`);
  return parts.length ? parts.join(", ") : "no changes";
}

function must(ok: boolean, message: string): asserts ok {
  if (!ok) throw new Error(message);
}

/** Every regular file's text under `dir`, node_modules excluded. */
function readAll(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.name === "node_modules") continue;
    if (entry.isDirectory()) out.push(...readAll(p));
    else if (entry.isFile()) out.push(fs.readFileSync(p, "utf8"));
  }
  return out;
}

function scan(texts: string[], secrets: string[]): number {
  return secrets.filter((s) => s.length >= 8 && texts.some((t) => t.includes(s))).length;
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    const message = errorText(e);
    // ensure-pulumi's messages were already shown as they came: keep the first line only.
    process.stderr.write(
      `\ndemo FAILED: ${message.includes("\n[ensure-pulumi]") ? message.split("\n")[0] : message}\n`,
    );
    process.stderr.write(`(run from ${REPO_ROOT}; see CONTRIBUTING.md "The demo")\n`);
    process.exit(1);
  },
);
