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
import * as fs from "node:fs";
import * as pims from "pulumi-pims";
import { randomSecret } from "../../../scripts/engine";
import { exportEncrypted, isEncryptedSecret, resource, resources, revealed, sleep } from "../../kit/engine/engine";
import { useEngineStack } from "../../kit/engine/engineSuite";
import { expectNoPlaintextSecrets } from "../../kit/secrets/secrets";
import { liveIds } from "../../kit/sim/simulator";

/** What the program declares; the test changes it between operations. */
const settings = { rotationTrigger: "1", shortLived: false };

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

const requestLine = (r: { method: string; path: string }): string => `${r.method} ${r.path}`;

/**
 * Both simulator profiles: `default` (the shapes the client was first written for) and `quirky` (other token member
 * names and expiry forms, 200 for creates, nulls, extra fields, quoted text bodies, ...), which the client must
 * handle the same.
 */
describe.each(["default", "quirky"] as const)(
  "a stack with every resource and function, through the real engine (%s service)",
  (profile) => {
    const suite = useEngineStack({
      scratchPrefix: `pims-e2e-lifecycle-${profile}-`,
      profile,
      stack: ({ sim, scratch }) => {
        settings.rotationTrigger = "1";
        settings.shortLived = false;
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
        return {
          stackName: "e2e",
          projectName: "pims-e2e",
          workDir: scratch,
          program: async () => program(),
          // The quirky service is addressed as its docs print paths, with `/v2/` at the end: it must work the same.
          baseUrl: profile === "quirky" ? `${sim.baseUrl}/v2/` : sim.baseUrl,
          config: { databaseUrl: { value: databaseUrl, secret: true } },
        };
      },
    });
    const { engine } = suite;
    const tokenWorks = (token: string): Promise<boolean> => suite.tokenWorks(token, home.projectId);
    /** Where the first `method` request whose path ends with `pathEnd` (and whose body names `name`) is in the log. */
    const requestIndex = (method: string, pathEnd: string, name?: string): number =>
      suite.sim.requests.findIndex(
        (r) =>
          r.method === method &&
          r.path.endsWith(pathEnd) &&
          (name === undefined || (r.body as { name?: string } | undefined)?.name === name),
      );

    // Carried from step to step.
    let projectId: string;
    let firstAccount: string;
    let firstToken: string;
    let secondAccount: string;
    let secondToken: string;
    let shortAccount: string;

    test("up creates all four resources in the simulator and exports the functions' results", async () => {
      const o = await suite.up({ create: 5 }); // the stack + 4 resources
      projectId = o.projectId.value as string;
      firstAccount = o.serviceAccountId.value as string;
      firstToken = o.token.value as string;

      // Project: created by the program.
      expect(suite.sim.project(projectId)?.name).toBe("e2e-project");
      // ServiceAccount: live, with the declared grants; its token is the one the simulator issued, a secret output.
      const accounts = suite.sim.serviceAccounts(projectId);
      expect(accounts.map((a) => a.id)).toEqual([firstAccount]);
      expect(accounts[0].grants).toEqual([projectId, home.projectId]);
      expect(o.token.secret).toBe(true);
      expect(suite.sim.issuedSecrets()).toContain(firstToken);
      expect(await tokenWorks(firstToken)).toBe(true);
      // VolumeSize: resized from 100 to 200.
      expect(suite.sim.volume(home.projectId, home.volumeId)?.sizeGb).toBe(200);
      expect(o.volumeSizeGb.value).toBe(200);
      // AppSecrets: the app holds the token and the database URL.
      expect(suite.sim.appSecrets(home.projectId, home.appId)).toEqual({
        PIMS_TOKEN: firstToken,
        DATABASE_URL: databaseUrl,
      });
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
      suite.sim.clearRequests();
      const res = await suite.stack.preview(engine.opts);
      expect(res.changeSummary).toEqual({ same: 5 });
      // Functions are evaluated at preview too (their results feed the outputs); nothing else may reach the service:
      // check/diff of the four resources are pure.
      const calls = suite.sim.requests.map(requestLine);
      expect(calls.filter((c) => !c.startsWith("GET "))).toEqual([]);
      const functionRead =
        /^GET \/v2\/projects\/[^/]+\/(api-keys|invoices|apps\/[^/]+\/logs|apps\/[^/]+\/builds\/[^/]+\/logs)$/;
      expect(calls.filter((c) => !functionRead.test(c))).toEqual([]);
      expect(calls.filter((c) => c.endsWith("/api-keys"))).toHaveLength(1);
      expect(calls.filter((c) => c.endsWith("/invoices"))).toHaveLength(1);
      expect(calls.filter((c) => /\/builds\/[^/]+\/logs$/.test(c))).toHaveLength(1);
    });

    test("refresh keeps every output, the one-time token included, and makes one call: the listing", async () => {
      suite.sim.clearRequests();
      const before = await suite.stack.exportStack(); // with --show-secrets
      const res = await suite.stack.refresh(engine.opts);
      expect(res.summary.result).toBe("succeeded");
      // The ServiceAccount's project's API-key listing (the only read the service has), once; nothing else.
      const saProject = String(resource(before, "pims:ServiceAccount", "deployer").outputs?.projectId);
      expect(suite.sim.requests.map(requestLine)).toEqual([`GET /v2/projects/${saProject}/api-keys`]);

      const after = await suite.stack.exportStack();
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
        isEncryptedSecret(resource(exportEncrypted(suite.stack), "pims:ServiceAccount", "deployer").outputs?.token),
      ).toBe(true);
    });

    test("a new rotationTrigger replaces the account create-before-delete, with a new secret token", async () => {
      settings.rotationTrigger = "2";
      settings.shortLived = true; // also add the short-lived account used by the next test
      const rotated = await suite.upRotating(
        { replace: 1, create: 1, update: 1, same: 3 },
        { name: "deployer", idOutput: "serviceAccountId", id: firstAccount, token: firstToken },
      );
      ({ id: secondAccount, token: secondToken } = rotated);
      shortAccount = rotated.outputs.shortId.value as string;
      expect(rotated.outputs.token.value).toBe(secondToken);
      expect(rotated.outputs.token.secret).toBe(true);

      // Order of requests: the new account is created, the app gets its token, and only then the old one is deleted.
      const created = requestIndex("POST", "/service-accounts", "e2e-deployer");
      const patched = requestIndex("PATCH", `/apps/${home.appId}/secrets`);
      const deleted = requestIndex("DELETE", `/service-accounts/${firstAccount}`);
      expect(created).toBeGreaterThanOrEqual(0);
      expect(patched).toBeGreaterThan(created);
      expect(deleted).toBeGreaterThan(patched);

      expect(suite.sim.deletedServiceAccounts()).toContain(firstAccount);
      expect(liveIds(suite.sim, projectId)).toEqual([secondAccount, shortAccount].sort());
      expect(suite.sim.appSecrets(home.projectId, home.appId).PIMS_TOKEN).toBe(secondToken);
      expect(await tokenWorks(secondToken)).toBe(true);
      expect(await tokenWorks(firstToken)).toBe(false);
    });

    test("once inside its rotateBeforeExpiry window, the next up replaces the account", async () => {
      await sleep(1_500); // the short-lived account's window opened 1 s after its creation
      const outputs = await suite.up({ replace: 1, same: 5 });

      const newShort = outputs.shortId.value as string;
      expect(newShort).not.toBe(shortAccount);
      expect(outputs.serviceAccountId.value).toBe(secondAccount); // the other account is untouched
      expect(suite.sim.deletedServiceAccounts()).toContain(shortAccount);
      expect(liveIds(suite.sim, projectId)).toEqual([secondAccount, newShort].sort());
      const created = requestIndex("POST", "/service-accounts");
      const deleted = requestIndex("DELETE", `/service-accounts/${shortAccount}`);
      expect(created).toBeGreaterThanOrEqual(0);
      expect(deleted).toBeGreaterThan(created);
    });

    test("the state holds the tokens only as secrets, and a small __provider without credentials", async () => {
      const state = exportEncrypted(suite.stack);
      const json = JSON.stringify(state);
      const secrets = [...suite.sim.issuedSecrets(), databaseUrl];
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
        expect(provider as string).not.toContain(suite.sim.baseUrl);
      }
    });

    test("destroy deletes the accounts; project, volume size and app secrets stay (no delete operation)", async () => {
      const res = await suite.stack.destroy(engine.opts);
      expect(res.summary.resourceChanges).toEqual({ delete: 6 });
      expect(suite.sim.serviceAccounts(projectId)).toEqual([]);
      expect(suite.sim.deletedServiceAccounts()).toEqual(
        expect.arrayContaining([firstAccount, secondAccount, shortAccount]),
      );
      expect(suite.sim.project(projectId)).toBeDefined();
      expect(suite.sim.volume(home.projectId, home.volumeId)?.sizeGb).toBe(200);
      expect(Object.keys(suite.sim.appSecrets(home.projectId, home.appId)).sort()).toEqual([
        "DATABASE_URL",
        "PIMS_TOKEN",
      ]);
      // The engine relays the providers' warnings about what stays in the service, as warnings (the engine's Log).
      expect(engine.text()).toContain(
        `warning: pulumi-pims: project ${projectId} ("e2e-project") was removed from the stack but still exists`,
      );
    });

    test("no issued token or secret value appears in any engine output, state file or stack config file", () => {
      // The backend (checkpoints, backups, history) and the workspace (Pulumi.e2e.yaml holds pims:token encrypted).
      const secrets = suite.expectNoSecrets([databaseUrl]);
      expect(secrets.length).toBeGreaterThanOrEqual(5); // admin token, 4 service-account tokens, the database URL
      expect(engine.text()).toContain("[secret]"); // the engine masked the token outputs
      expect(fs.readFileSync(`${suite.scratch}/Pulumi.e2e.yaml`, "utf8")).toMatch(/pims:token:\s*\n\s*secure: /);
    });
  },
);
