/**
 * docs/yaml.md followed literally, as a newcomer would: from an empty project directory holding this platform's plugin
 * archive from the release (tests/engine/distKit.ts; the page says to download it), the guide's `Pulumi.yaml` written
 * as it is printed (block `<!-- guide:file Pulumi.yaml -->`) and the guide's commands run in order (block
 * `<!-- guide:shell -->`), with the real engine and the official YAML host. The machine is a user's: an empty plugin
 * cache, no plugin on PATH, no `plugins.providers`, a `node` first on PATH that fails if called. Then a no-change
 * preview and destroy.
 *
 * Substitutions, all about this test's sandbox: `pulumi login --local` logs in to a temporary `file://` backend; the
 * example ids and address in `pulumi config set` are the simulator's; `pulumi up` gets `--yes`. The token reaches
 * the commands as `PIMS_TOKEN`, as the guide says.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { REPO_ROOT, tempDir } from "../../scripts/engine";
import type { PimsSimulator } from "../../simulator";
import { expectNoPlaintextSecrets, startSimulator } from "../helpers";
import { distEnv, ensureDist, installedPlugins, stubNode, VERSION } from "./distKit";
import { ENGINE_SETUP_TIMEOUT_MS, expectNoSecretsInFiles } from "./harness";

jest.setTimeout(15 * 60_000);

const DOC = path.join(REPO_ROOT, "docs", "yaml.md");

/** The guide's files and commands (comments after `#` and blank lines dropped), in order. */
function readGuide(text: string): { files: Array<{ name: string; text: string }>; commands: string[] } {
  const files: Array<{ name: string; text: string }> = [];
  const commands: string[] = [];
  const block = /<!-- guide:(file ([^\s]+)|shell) -->\s*\n```[a-z]*\n([\s\S]*?)```/g;
  for (let m = block.exec(text); m !== null; m = block.exec(text)) {
    if (m[2] !== undefined) files.push({ name: m[2], text: m[3] });
    else
      commands.push(
        ...m[3]
          .split("\n")
          .map((l) => l.replace(/\s+#.*$/, "").trim())
          .filter(Boolean),
      );
  }
  return { files, commands };
}

let sim: PimsSimulator;
let scratch: string;
let dir: string;
let env: NodeJS.ProcessEnv;
let printed = "";
let node: ReturnType<typeof stubNode>;
const seeded = { projectId: "", appId: "", volumeId: "" };

/** Runs one command in the project; its output joins `printed` (scanned for tokens) unless `record` is false. */
function sh(command: string, record = true): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", command], { cwd: dir, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      if (record) printed += out;
      if (code === 0) resolve(out);
      else reject(new Error(`\`${command}\` exited ${code}:\n${out.slice(-4000)}`));
    });
  });
}

beforeAll(async () => {
  const dist = ensureDist();
  sim = await startSimulator();
  const project = sim.addProject({ name: "existing" });
  const app = sim.addApp(project.id, "web");
  const volume = sim.addVolume(project.id, { sizeGb: 50 });
  sim.addApiKey(project.id, { name: "ci-key" });
  sim.addInvoice(project.id, { amountDue: 1250, currency: "eur" });
  sim.addLogs(project.id, app.id, [{ logLine: "boom", stream: "stderr" }]);
  Object.assign(seeded, { projectId: project.id, appId: app.id, volumeId: volume.id });
  scratch = tempDir("pims-yaml-guide-");
  dir = path.join(scratch, "project");
  const backend = path.join(scratch, "backend");
  fs.mkdirSync(dir);
  fs.copyFileSync(dist.archive, path.join(dir, path.basename(dist.archive)));
  node = stubNode(path.join(scratch, "stub"));
  // A user's machine: the pulumi CLI with the YAML host beside it, nothing of this repository, no Node.js.
  env = {
    ...distEnv({ home: path.join(scratch, "home"), backend, stubDir: node.dir, override: "" }),
    PIMS_TOKEN: sim.token,
  };
  delete env.PULUMI_BACKEND_URL; // the guide logs in itself
  const guide = readGuide(fs.readFileSync(DOC, "utf8"));
  for (const f of guide.files) fs.writeFileSync(path.join(dir, f.name), f.text);
  for (const command of guide.commands) {
    await sh(
      command
        .replace(/^pulumi login --local$/, `pulumi login file://${backend}`)
        .replace(/^pulumi config set pims:baseUrl \S+$/, `pulumi config set pims:baseUrl ${sim.baseUrl}`)
        .replace(/^pulumi config set appProjectId \S+$/, `pulumi config set appProjectId ${seeded.projectId}`)
        .replace(/^pulumi config set appId \S+$/, `pulumi config set appId ${seeded.appId}`)
        .replace(/^pulumi config set volumeId \S+$/, `pulumi config set volumeId ${seeded.volumeId}`)
        .replace(/^pulumi up$/, "pulumi up --yes --non-interactive"),
    );
  }
}, ENGINE_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await sim?.stop();
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

test("the guide has the program and the commands this test runs", () => {
  const guide = readGuide(fs.readFileSync(DOC, "utf8"));
  expect(guide.files.map((f) => f.name)).toEqual(["Pulumi.yaml"]);
  expect(guide.files[0].text).not.toContain("plugins:");
  expect(guide.files[0].text).toContain(`version: ${VERSION}`);
  expect(guide.commands[0]).toBe(
    `pulumi plugin install resource pims ${VERSION} --file pulumi-resource-pims-v${VERSION}-linux-amd64.tar.gz`,
  );
  expect(guide.commands).toContain('pulumi config set --secret pims:token "$PIMS_TOKEN"');
  expect(guide.commands.at(-1)).toBe("pulumi up");
});

test("up created what the program declares, as the right accounts, with the token a secret output", async () => {
  expect(installedPlugins(env.PULUMI_HOME ?? "")).toEqual([`resource-pims-v${VERSION}`]);
  const outputs = JSON.parse(await sh("pulumi stack output --json")) as Record<string, unknown>;
  const projectId = outputs.projectId as string;
  expect(sim.project(projectId)?.name).toBe("team-a");
  const accounts = sim.serviceAccounts(projectId);
  expect(accounts.map((a) => a.name).sort()).toEqual(["team-a-deployer", "team-a-worker"]);
  expect(outputs.deployerToken).toBe("[secret]");
  expect(outputs.apiKeys).toBe("[secret]");
  // The test's own look at the values: not part of what a user's commands printed.
  const revealed = JSON.parse(await sh("pulumi stack output --json --show-secrets", false)) as Record<string, unknown>;
  const deployer = accounts.find((a) => a.name === "team-a-deployer");
  expect(sim.issuedSecrets()).toContain(revealed.deployerToken);
  expect(sim.appSecrets(seeded.projectId, seeded.appId)).toEqual({
    PIMS_TOKEN: revealed.deployerToken,
    LOG_LEVEL: "info",
  });
  expect(outputs.secretNames).toEqual(["LOG_LEVEL", "PIMS_TOKEN"]);
  expect(sim.volume(seeded.projectId, seeded.volumeId)?.sizeGb).toBe(100);
  // The resize went through the explicit provider: as the deployer account, not the stack's token.
  const resize = sim.requests.find((r) => r.method === "PATCH" && r.path.endsWith("/resize"));
  expect(resize?.principal).toBe(deployer?.id);
  expect(outputs.invoices).toEqual([expect.objectContaining({ amountDue: 1250, amountDueMajor: 12.5 })]);
  expect(outputs.recentErrors).toEqual([expect.objectContaining({ logLine: "boom", stream: "stderr" })]);
});

test("a no-change preview calls nothing but the three functions; destroy deletes both accounts", async () => {
  sim.clearRequests();
  await sh("pulumi preview --expect-no-changes --non-interactive");
  expect([...new Set(sim.requests.map((r) => `${r.method} ${r.path.split("/").pop() ?? ""}`))].sort()).toEqual([
    "GET api-keys",
    "GET invoices",
    "GET logs",
  ]);
  const projectId = JSON.parse(await sh("pulumi stack output projectId --json")) as string;
  const ids = sim.serviceAccounts(projectId).map((a) => a.id);
  const out = await sh("pulumi destroy --yes --non-interactive");
  expect(sim.serviceAccounts(projectId)).toEqual([]);
  for (const id of ids) expect(sim.deletedServiceAccounts()).toContain(id);
  expect(out).toContain(`project ${projectId} ("team-a") was removed from the stack but still exists in the service`);
  expect(out).toMatch(/volume \S+ in project \S+ was removed from the stack and stays at 100 GB/);
  expect(node.calls()).toEqual([]);
});

test("no token in plaintext in anything the commands printed, in the backend or in the stack's config", () => {
  expect(printed.length).toBeGreaterThan(500);
  const secrets = [sim.token, ...sim.issuedSecrets()];
  expectNoPlaintextSecrets(printed, secrets, "the output of the guide's commands");
  expect(expectNoSecretsInFiles(path.join(scratch, "backend"), secrets)).toBeGreaterThan(3);
  const config = fs.readFileSync(path.join(dir, "Pulumi.dev.yaml"), "utf8");
  expect(config).toContain("pims:token:\n    secure:");
  expectNoPlaintextSecrets(config, secrets, "Pulumi.dev.yaml");
});
