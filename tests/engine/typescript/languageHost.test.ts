/**
 * examples/quickstart/typescript as a real project directory, run by the plain `pulumi` CLI (`pulumi up`,
 * `pulumi destroy` as child processes, no Automation API): the CLI starts the Node language host
 * `pulumi-language-nodejs` for the project's `runtime: nodejs`, which runs index.ts. The official Go host cannot be
 * obtained here, so the host is this repository's `scripts/engine/language-host/pulumi-language-nodejs` (taken from
 * beside the CLI when scripts/toolchain/ensure-pulumi put it there, else from scripts/engine/language-host/ on PATH).
 * The simulator runs in this process, so every CLI call is asynchronous (a synchronous one would block the simulator).
 *
 * Needs the pulumi CLI: `ensureEngine()` finds it or builds it; without it this suite fails, it never skips.
 *
 * Set-up: its own, because it runs the plain `pulumi` CLI as child processes on a copied example, with no Automation
 * API stack.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { copyExample, engineEnv, ensureEngine, randomSecret, REPO_ROOT, tempDir } from "../../../scripts/engine";
import type { PimsSimulator } from "../../../simulator";
import { E2E_TIMEOUT_MS, ENGINE_SETUP_TIMEOUT_MS, isEncryptedSecret, resource } from "../../kit/engine/engine";
import type { Deployment } from "@pulumi/pulumi/automation";
import { expectNoPlaintextSecrets, expectNoSecretsInFiles } from "../../kit/secrets/secrets";
import { startSimulator } from "../../kit/sim/simulator";

jest.setTimeout(E2E_TIMEOUT_MS);

const HOST_DIR = path.join(REPO_ROOT, "scripts", "engine", "language-host");
const DAY_MS = 24 * 3600 * 1000;

let sim: PimsSimulator;
let scratch: string;
let workDir: string;
let env: NodeJS.ProcessEnv;
let traceFile: string;
let pulumiBin: string;
/** Everything the CLI printed, except `--show-secrets` output (scanned for secrets at the end). */
let printed = "";

interface CliResult {
  code: number | null;
  out: string;
}

/** Runs the CLI in the project copy; resolves with its exit code and combined stdout/stderr. */
function cli(args: string[], opts: { showsSecrets?: boolean } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(pulumiBin, [...args, "--non-interactive"], {
      cwd: workDir,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      if (!opts.showsSecrets) printed += out;
      resolve({ code, out });
    });
  });
}

/** Like {@link cli}, failing with the CLI's output when it exits non-zero. */
async function cliOk(args: string[], opts: { showsSecrets?: boolean } = {}): Promise<string> {
  const r = await cli(args, opts);
  if (r.code !== 0)
    throw new Error(`pulumi ${args.join(" ")} exited ${r.code}:\n${opts.showsSecrets ? "(output withheld)" : r.out}`);
  return r.out;
}

/** The RPC names the language host received since the last call (it appends one line per RPC to the trace file). */
function rpcsSinceLastCall(): string[] {
  const lines = fs.existsSync(traceFile) ? fs.readFileSync(traceFile, "utf8").split("\n").filter(Boolean) : [];
  fs.writeFileSync(traceFile, "");
  return lines.map((l) => l.replace(/^\S+ /, ""));
}

beforeAll(async () => {
  const engineDir = ensureEngine(); // builds the engine if it is missing; throws (fails the suite) if it cannot
  pulumiBin = path.join(engineDir, "pulumi");
  sim = await startSimulator();
  scratch = tempDir("pims-e2e-langhost-");
  workDir = copyExample("quickstart", scratch);
  traceFile = path.join(scratch, "language-host.trace");
  const base = engineEnv(path.join(scratch, "backend"), engineDir);
  const hostBesideCli = fs.existsSync(path.join(engineDir, "pulumi-language-nodejs"));
  env = {
    ...process.env,
    ...base,
    PATH: hostBesideCli ? base.PATH : `${HOST_DIR}${path.delimiter}${base.PATH}`,
    PULUMI_CONFIG_PASSPHRASE: randomSecret("passphrase-"),
    PIMS_LANGUAGE_HOST_TRACE: traceFile,
  };
}, ENGINE_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await sim?.stop();
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

describe("examples/quickstart/typescript with `pulumi up` through the Node language host", () => {
  let projectId: string;
  let accountId: string;
  let existingId: string;
  let appId: string;

  test("stack init and config with the CLI; up creates the project, the account and the app's secrets", async () => {
    const existing = sim.addProject({ name: "apps" });
    const app = sim.addApp(existing.id, "web");
    existingId = existing.id;
    appId = app.id;
    await cliOk(["stack", "init", "dev"]);
    await cliOk(["config", "set", "pims:baseUrl", sim.baseUrl]);
    await cliOk(["config", "set", "--secret", "pims:token", sim.token]);
    await cliOk(["config", "set", "appProjectId", existing.id]);
    expect(fs.readFileSync(path.join(workDir, "Pulumi.dev.yaml"), "utf8")).toMatch(/pims:token:\s*\n\s*secure: /);
    rpcsSinceLastCall();

    const up = await cliOk(["up", "--yes", "--skip-preview"]);
    expect(up).toMatch(/\+ 4 created/);
    expect(up).toMatch(/token\s*: \[secret\]/);
    // The program ran in the language host: the CLI asked it for the packages, then to run the program.
    const rpcs = rpcsSinceLastCall();
    expect(rpcs).toEqual(expect.arrayContaining(["GetRequiredPackages", "Run"]));
    expect(rpcs.some((r) => r.startsWith("Run: the program exited (code 0)"))).toBe(true);

    const outputs = JSON.parse(
      await cliOk(["stack", "output", "--json", "--show-secrets"], { showsSecrets: true }),
    ) as Record<string, unknown>;
    projectId = outputs.projectId as string;
    accountId = outputs.serviceAccountId as string;
    expect(sim.project(projectId)?.name).toBe("quickstart-dev");
    const [account, ...others] = sim.serviceAccounts(projectId);
    expect(others).toEqual([]);
    expect(account).toMatchObject({ id: accountId, name: "quickstart-deployer", grants: [projectId, existing.id] });
    expect(sim.issuedSecrets()).toContain(outputs.token);
    expect(sim.appSecrets(existing.id, app.id)).toEqual({ PIMS_TOKEN: outputs.token, PIMS_PROJECT_ID: projectId });
    expect(outputs.appSecretNames).toEqual(["PIMS_PROJECT_ID", "PIMS_TOKEN"]);
    expect(Date.parse(outputs.tokenExpiresAt as string) - Date.parse(account.createdAt)).toBe(30 * DAY_MS);

    // The state keeps the token encrypted.
    const state = JSON.parse(await cliOk(["stack", "export"])) as Deployment;
    expect(isEncryptedSecret(resource(state, "pims:ServiceAccount", "deployer").outputs?.token)).toBe(true);
  });

  test("a second up (with preview) changes nothing and calls no write endpoint", async () => {
    sim.clearRequests();
    const up = await cliOk(["up", "--yes"]);
    expect(up).toMatch(/4 unchanged/);
    expect(rpcsSinceLastCall().filter((r) => r.startsWith("Run"))).toEqual([
      "Run (preview)",
      "Run: the program exited (code 0)",
      "Run",
      "Run: the program exited (code 0)",
    ]);
    expect(sim.requests.filter((r) => r.method !== "GET")).toEqual([]);
    expect(sim.serviceAccounts(projectId).map((a) => a.id)).toEqual([accountId]);
  });

  test("a program error reaches the CLI's output through the host, and up fails", async () => {
    await cliOk(["stack", "init", "broken"]);
    await cliOk(["config", "set", "pims:baseUrl", sim.baseUrl]);
    await cliOk(["config", "set", "--secret", "pims:token", sim.token]); // appProjectId missing
    const r = await cli(["up", "--yes", "--skip-preview"]);
    expect(r.code).not.toBe(0);
    expect(r.out).toMatch(/Missing required configuration variable 'pims-quickstart:appProjectId'/);
    expect(rpcsSinceLastCall()).toContain("Run: the program exited (code 32)");
    await cliOk(["stack", "select", "dev"]);
  });

  test("destroy deletes the account; the project and app secrets stay in the service, with a warning", async () => {
    const down = await cliOk(["destroy", "--yes", "--skip-preview"]);
    expect(down).toMatch(/- 4 deleted/);
    expect(sim.serviceAccounts(projectId)).toEqual([]);
    expect(sim.deletedServiceAccounts()).toContain(accountId);
    expect(sim.project(projectId)?.name).toBe("quickstart-dev"); // the service cannot delete projects
    // The service cannot delete secrets: they remain, and the provider says so in the CLI's output.
    expect(Object.keys(sim.appSecrets(existingId, appId)).sort()).toEqual(["PIMS_PROJECT_ID", "PIMS_TOKEN"]);
    expect(down.replace(/\s+/g, " ")).toContain(
      `AppSecrets of app ${appId} in project ${existingId} was removed from the stack`,
    );
  });

  test("no token appears in the CLI's output, the backend's files or the stack's config", () => {
    const secrets = [sim.token, ...sim.issuedSecrets()];
    expect(secrets.length).toBeGreaterThanOrEqual(2);
    expect(printed.length).toBeGreaterThan(500);
    expectNoPlaintextSecrets(printed, secrets, "the CLI's output");
    expect(expectNoSecretsInFiles(scratch, secrets)).toBeGreaterThan(5);
  });
});
