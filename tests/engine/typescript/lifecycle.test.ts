/**
 * The real Pulumi engine, end to end, against an in-process simulator: one stack with all four resources and the
 * four functions goes through up → preview → refresh → manual rotation → expiry-window rotation → destroy, and
 * each step is checked against what the simulator holds. Then the state, the backend's files and every line the
 * engine printed are scanned for every secret that was issued.
 *
 * Needs the pulumi CLI: `ensureEngine()` finds it or builds it (several minutes the first time); without it this
 * suite fails, it never skips.
 */
import * as pulumi from "@pulumi/pulumi";
import type { Stack } from "@pulumi/pulumi/automation";
import * as fs from "node:fs";
import * as pims from "pulumi-pims";
import { createPimsStack, ensureEngine, randomSecret, tempDir } from "../../../scripts/engine";
import type { PimsSimulator } from "../../../simulator";
import {
  E2E_TIMEOUT_MS,
  ENGINE_SETUP_TIMEOUT_MS,
  EngineOutput,
  exportEncrypted,
  isEncryptedSecret,
  resource,
  resources,
  revealed,
  sleep,
} from "../../kit/engine";
import { expectNoPlaintextSecrets, expectNoSecretsInOutputOrFiles } from "../../kit/secrets";
import { startSimulator } from "../../kit/simulator";
import { testClient } from "../../kit/client";
import { tearDown } from "../../kit/teardown";

jest.setTimeout(E2E_TIMEOUT_MS);

/** What the program declares; the test changes it between operations. */
const settings = { rotationTrigger: "1", shortLived: false };

let sim: PimsSimulator;
let stack: Stack;
let scratch: string;
let engine = new EngineOutput();
const databaseUrl = randomSecret("postgres://app:pw-");
/** The seeded "existing" project with an app, a volume, logs, a build and an invoice. */
let home: {
  projectId: string;
  appId: string;
  volumeId: string;
  buildId: string;
  invoiceId: string;
  logLines: string[];
};

function program(): pulumi.Output<unknown> | Record<string, unknown> {
  const cfg = new pulumi.Config();
  const project = new pims.Project("project", { name: "e2e-project" });
  const deployer = new pims.ServiceAccount("deployer", {
    projectId: project.projectId,
    name: "e2e-deployer",
    description: "e2e",
    grants: [project.projectId, home.projectId],
    expiresIn: 3600,
    rotationTrigger: settings.rotationTrigger,
  });
  const volume = new pims.VolumeSize("data", { projectId: home.projectId, volumeId: home.volumeId, sizeGb: 200 });
  const appSecrets = new pims.AppSecrets("app-secrets", {
    projectId: home.projectId,
    appId: home.appId,
    secrets: { PIMS_TOKEN: deployer.token, DATABASE_URL: cfg.requireSecret("databaseUrl") },
  });
  const out: Record<string, unknown> = {
    projectId: project.projectId,
    serviceAccountId: deployer.serviceAccountId,
    token: deployer.token,
    volumeSizeGb: volume.sizeGb,
    secretNames: appSecrets.secretNames,
    // deployer.projectId resolves once the account exists, so its key is listed.
    apiKeyPrincipals: pims
      .getApiKeysOutput({ projectId: deployer.projectId })
      .apply((r) => r.keys.map((k) => k.principalId ?? null)),
    invoiceIds: pims.getInvoicesOutput({ projectId: home.projectId }).apply((r) => r.invoices.map((i) => i.id)),
    logLines: pims
      .getAppLogsOutput({ projectId: home.projectId, appId: home.appId, limit: 5 })
      .apply((r) => r.lines.map((l) => l.logLine)),
    buildStatus: pims
      .getBuildLogsOutput({ projectId: home.projectId, appId: home.appId, buildId: home.buildId })
      .apply((b) => `${b.status}:${b.logs.length}`),
  };
  if (settings.shortLived) {
    // Rotation due 1 s after creation: expires in 30 s, rotated when fewer than 29 s are left.
    const short = new pims.ServiceAccount("short", {
      projectId: project.projectId,
      name: "e2e-short",
      grants: [project.projectId],
      expiresIn: 30,
      rotateBeforeExpiry: 29,
    });
    out.shortId = short.serviceAccountId;
  }
  return out;
}

/** Does this token authenticate with the simulator? */
async function tokenWorks(token: string): Promise<boolean> {
  try {
    await testClient(sim, { token, retries: 0 }).listInvoices(home.projectId);
    return true;
  } catch {
    return false;
  }
}

const requestLine = (r: { method: string; path: string }): string => `${r.method} ${r.path}`;

/**
 * Both simulator profiles: `default` (the shapes the client was first written for) and `quirky` (other token member
 * names and expiry forms, 200 for creates, nulls, extra fields, quoted text bodies, ...), which the client must
 * handle the same.
 */
describe.each(["default", "quirky"] as const)(
  "a stack with every resource and function, through the real engine (%s service)",
  (profile) => {
    beforeAll(async () => {
      ensureEngine(); // builds the engine if it is missing; throws (fails the suite) if it cannot
      settings.rotationTrigger = "1";
      settings.shortLived = false;
      engine = new EngineOutput();
      sim = await startSimulator({ profile });
      const p = sim.addProject({ name: "e2e-home" });
      const app = sim.addApp(p.id, "web");
      const volume = sim.addVolume(p.id, { sizeGb: 100 });
      const logLines = Array.from({ length: 8 }, (_, i) => `e2e log line ${i}`);
      sim.addLogs(
        p.id,
        app.id,
        logLines.map((logLine) => ({ logLine })),
      );
      const build = sim.addBuild(p.id, app.id, {
        status: "success",
        logs: [{ log: "step 1" }, { log: "step 2" }, { log: "done" }],
      });
      const invoice = sim.addInvoice(p.id, { amountDue: 1234, currency: "eur" });
      home = {
        projectId: p.id,
        appId: app.id,
        volumeId: volume.id,
        buildId: build.id,
        invoiceId: invoice.id,
        logLines,
      };

      scratch = tempDir(`pims-e2e-lifecycle-${profile}-`);
      stack = await createPimsStack({
        stackName: "e2e",
        projectName: "pims-e2e",
        workDir: scratch,
        program: async () => program(),
        backendDir: `${scratch}/backend`,
        // The quirky service is addressed the way its docs print paths, with `/v2/` at the end: it must work the same.
        baseUrl: profile === "quirky" ? `${sim.baseUrl}/v2/` : sim.baseUrl,
        token: sim.token,
        config: { databaseUrl: { value: databaseUrl, secret: true } },
      });
    }, ENGINE_SETUP_TIMEOUT_MS);

    afterAll(() => tearDown([sim], scratch));

    // Carried from step to step.
    let projectId: string;
    let firstAccount: string;
    let firstToken: string;
    let secondAccount: string;
    let secondToken: string;
    let shortAccount: string;

    test("up creates all four resources in the simulator and exports the functions' results", async () => {
      const res = await stack.up(engine.opts);
      expect(res.summary.result).toBe("succeeded");
      expect(res.summary.resourceChanges).toEqual({ create: 5 }); // the stack + 4 resources

      const o = res.outputs;
      projectId = o.projectId.value as string;
      firstAccount = o.serviceAccountId.value as string;
      firstToken = o.token.value as string;

      // Project: created by the program.
      expect(sim.project(projectId)?.name).toBe("e2e-project");
      // ServiceAccount: live, with the declared grants; its token is the one the simulator issued, a secret output.
      const accounts = sim.serviceAccounts(projectId);
      expect(accounts.map((a) => a.id)).toEqual([firstAccount]);
      expect(accounts[0].grants).toEqual([projectId, home.projectId]);
      expect(o.token.secret).toBe(true);
      expect(sim.issuedSecrets()).toContain(firstToken);
      expect(await tokenWorks(firstToken)).toBe(true);
      // VolumeSize: resized from 100 to 200.
      expect(sim.volume(home.projectId, home.volumeId)?.sizeGb).toBe(200);
      expect(o.volumeSizeGb.value).toBe(200);
      // AppSecrets: the app holds the token and the database URL.
      expect(sim.appSecrets(home.projectId, home.appId)).toEqual({ PIMS_TOKEN: firstToken, DATABASE_URL: databaseUrl });
      expect(o.secretNames.value).toEqual(["DATABASE_URL", "PIMS_TOKEN"]);

      // Functions, evaluated in the program: API keys (the deployer's key; secret), invoices, app logs, build logs.
      expect(o.apiKeyPrincipals.secret).toBe(true);
      expect(o.apiKeyPrincipals.value).toEqual([firstAccount]);
      expect(o.invoiceIds.value).toEqual([home.invoiceId]);
      const lines = o.logLines.value as string[];
      expect(lines).toHaveLength(5);
      for (const l of lines) expect(home.logLines).toContain(l);
      expect(o.buildStatus.value).toBe("success:3");
    });

    test("preview shows no changes, and the resources make no call (only the four functions read)", async () => {
      sim.clearRequests();
      const res = await stack.preview(engine.opts);
      expect(res.changeSummary).toEqual({ same: 5 });
      // Functions are evaluated at preview too (their results feed the outputs); nothing else may reach the service:
      // check/diff of the four resources are pure.
      const calls = sim.requests.map(requestLine);
      expect(calls.filter((c) => !c.startsWith("GET "))).toEqual([]);
      const functionRead =
        /^GET \/v2\/projects\/[^/]+\/(api-keys|invoices|apps\/[^/]+\/logs|apps\/[^/]+\/builds\/[^/]+\/logs)$/;
      expect(calls.filter((c) => !functionRead.test(c))).toEqual([]);
      expect(calls.filter((c) => c.endsWith("/api-keys"))).toHaveLength(1);
      expect(calls.filter((c) => c.endsWith("/invoices"))).toHaveLength(1);
      expect(calls.filter((c) => /\/builds\/[^/]+\/logs$/.test(c))).toHaveLength(1);
    });

    test("refresh keeps every output, the one-time token included, and makes one call: the listing", async () => {
      sim.clearRequests();
      const before = await stack.exportStack(); // with --show-secrets
      const res = await stack.refresh(engine.opts);
      expect(res.summary.result).toBe("succeeded");
      // The ServiceAccount's project's API-key listing (the only read the service has), once; nothing else.
      const saProject = String(resource(before, "pims:ServiceAccount", "deployer").outputs?.projectId);
      expect(sim.requests.map(requestLine)).toEqual([`GET /v2/projects/${saProject}/api-keys`]);

      const after = await stack.exportStack();
      for (const [type, name] of [
        ["pims:Project", "project"],
        ["pims:ServiceAccount", "deployer"],
        ["pims:VolumeSize", "data"],
        ["pims:AppSecrets", "app-secrets"],
      ]) {
        expect(resource(after, type, name).outputs).toEqual(resource(before, type, name).outputs);
      }
      expect(revealed(resource(after, "pims:ServiceAccount", "deployer").outputs?.token)).toBe(firstToken);
      // Still a secret in the stored (encrypted) state.
      expect(
        isEncryptedSecret(resource(exportEncrypted(stack), "pims:ServiceAccount", "deployer").outputs?.token),
      ).toBe(true);
    });

    test("a new rotationTrigger replaces the account create-before-delete, with a new secret token", async () => {
      settings.rotationTrigger = "2";
      settings.shortLived = true; // also add the short-lived account used by the next test
      sim.clearRequests();
      const res = await stack.up(engine.opts);
      expect(res.summary.resourceChanges).toEqual({ replace: 1, create: 1, update: 1, same: 3 });

      secondAccount = res.outputs.serviceAccountId.value as string;
      secondToken = res.outputs.token.value as string;
      shortAccount = res.outputs.shortId.value as string;
      expect(secondAccount).not.toBe(firstAccount);
      expect(secondToken).not.toBe(firstToken);
      expect(res.outputs.token.secret).toBe(true);

      // Order of requests: the new account is created, the app gets its token, and only then the old one is deleted.
      const calls = sim.requests;
      const created = calls.findIndex(
        (r) =>
          r.method === "POST" &&
          r.path.endsWith("/service-accounts") &&
          (r.body as { name?: string })?.name === "e2e-deployer",
      );
      const patched = calls.findIndex((r) => r.method === "PATCH" && r.path.endsWith(`/apps/${home.appId}/secrets`));
      const deleted = calls.findIndex(
        (r) => r.method === "DELETE" && r.path.endsWith(`/service-accounts/${firstAccount}`),
      );
      expect(created).toBeGreaterThanOrEqual(0);
      expect(patched).toBeGreaterThan(created);
      expect(deleted).toBeGreaterThan(patched);

      expect(sim.deletedServiceAccounts()).toContain(firstAccount);
      expect(
        sim
          .serviceAccounts(projectId)
          .map((a) => a.id)
          .sort(),
      ).toEqual([secondAccount, shortAccount].sort());
      expect(sim.appSecrets(home.projectId, home.appId).PIMS_TOKEN).toBe(secondToken);
      expect(await tokenWorks(secondToken)).toBe(true);
      expect(await tokenWorks(firstToken)).toBe(false);
    });

    test("once inside its rotateBeforeExpiry window, the next up replaces the account", async () => {
      await sleep(1_500); // the short-lived account's window opened 1 s after its creation
      sim.clearRequests();
      const res = await stack.up(engine.opts);
      expect(res.summary.resourceChanges).toEqual({ replace: 1, same: 5 });

      const newShort = res.outputs.shortId.value as string;
      expect(newShort).not.toBe(shortAccount);
      expect(res.outputs.serviceAccountId.value).toBe(secondAccount); // the other account is untouched
      expect(sim.deletedServiceAccounts()).toContain(shortAccount);
      expect(
        sim
          .serviceAccounts(projectId)
          .map((a) => a.id)
          .sort(),
      ).toEqual([secondAccount, newShort].sort());
      const created = sim.requests.findIndex((r) => r.method === "POST" && r.path.endsWith("/service-accounts"));
      const deleted = sim.requests.findIndex(
        (r) => r.method === "DELETE" && r.path.endsWith(`/service-accounts/${shortAccount}`),
      );
      expect(created).toBeGreaterThanOrEqual(0);
      expect(deleted).toBeGreaterThan(created);
    });

    test("the state holds the tokens only as secrets, and a small __provider without credentials", async () => {
      const state = exportEncrypted(stack);
      const json = JSON.stringify(state);
      const secrets = [...sim.issuedSecrets(), databaseUrl];
      expectNoPlaintextSecrets(json, secrets, "the exported state");

      const deployer = resource(state, "pims:ServiceAccount", "deployer");
      expect(isEncryptedSecret(deployer.outputs?.token)).toBe(true);
      expect(isEncryptedSecret(resource(state, "pims:ServiceAccount", "short").outputs?.token)).toBe(true);
      expect(isEncryptedSecret(resource(state, "pims:AppSecrets", "app-secrets").outputs?.secrets)).toBe(true);
      // The default dynamic provider's inputs carry the stack's pims:* config: the token is encrypted there too.
      const defaultProvider = resources(state).find((r) => r.type === "pulumi:providers:pulumi-nodejs");
      expect(isEncryptedSecret(defaultProvider?.inputs?.["pims:token"])).toBe(true);
      const stackOutputs = resources(state).find((r) => r.type === "pulumi:pulumi:Stack")?.outputs ?? {};
      expect(isEncryptedSecret(stackOutputs.token)).toBe(true);

      const dynamic = resources(state).filter((r) => r.type.startsWith("pulumi-nodejs:dynamic/pims:"));
      expect(dynamic).toHaveLength(5);
      for (const r of dynamic) {
        const provider = r.inputs?.__provider;
        expect(typeof provider).toBe("string");
        expect((provider as string).length).toBeLessThan(2_000); // ~1 kB today: the shim, no module graph
        expectNoPlaintextSecrets(provider as string, secrets, `__provider of ${r.urn}`);
        expect(provider as string).not.toContain(sim.baseUrl);
      }
    });

    test("destroy deletes the accounts; project, volume size and app secrets stay (no delete operation)", async () => {
      const res = await stack.destroy(engine.opts);
      expect(res.summary.resourceChanges).toEqual({ delete: 6 });
      expect(sim.serviceAccounts(projectId)).toEqual([]);
      expect(sim.deletedServiceAccounts()).toEqual(expect.arrayContaining([firstAccount, secondAccount, shortAccount]));
      expect(sim.project(projectId)).toBeDefined();
      expect(sim.volume(home.projectId, home.volumeId)?.sizeGb).toBe(200);
      expect(Object.keys(sim.appSecrets(home.projectId, home.appId)).sort()).toEqual(["DATABASE_URL", "PIMS_TOKEN"]);
      // The engine relays the providers' warnings about what stays in the service, as warnings (the engine's Log).
      expect(engine.text()).toContain(
        `warning: pulumi-pims: project ${projectId} ("e2e-project") was removed from the stack but still exists`,
      );
    });

    test("no issued token or secret value appears in any engine output, state file or stack config file", () => {
      const secrets = [...sim.issuedSecrets(), databaseUrl];
      expect(secrets.length).toBeGreaterThanOrEqual(5); // admin token, 4 service-account tokens, the database URL
      expect(engine.text()).toContain("[secret]"); // the engine masked the token outputs
      // The backend (checkpoints, backups, history) and the workspace (Pulumi.e2e.yaml holds pims:token encrypted).
      expectNoSecretsInOutputOrFiles(engine, scratch, secrets);
      expect(fs.readFileSync(`${scratch}/Pulumi.e2e.yaml`, "utf8")).toMatch(/pims:token:\s*\n\s*secure: /);
    });
  },
);
