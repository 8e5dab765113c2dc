/**
 * Every other example scenario (rotation, environments, multi-account) in YAML and in one compiled language, Go, each
 * through Pulumi's ProgramTest sequence (tests/kit/languages/examples.ts): `up`, a second `up` that must change
 * nothing, `preview` and `refresh` that must find no changes, the example's edit step where it has one (rotation: an
 * overlapping rotation; multi-account: the project's account rotated, and with it the scoped provider's token),
 * `destroy`. After each step: what the simulators hold, the outputs every language has (YAML's documented exceptions
 * aside: ../../examples/<scenario>/README.md), 0 live accounts of the stack after destroy, no token in plaintext in the
 * state or the engine's output. (TypeScript runs these scenarios in examples.test.ts and multiAccount.test.ts; all five
 * languages run the quickstart in examples/quickstart.test.ts.) The functions example (getAppLogs, getBuildLogs) runs
 * in YAML against a simulator seeded with an app's logs and two builds; its edit reads the other build. The
 * sealed-token example (issue 47) runs in YAML, Go and Python with a recipient `age-keygen` made: each sealed token
 * opens with the `age` CLI, works and matches its fingerprint; its edit is an overlapping rotation.
 *
 * Needs the pulumi CLI, the YAML host, Go (the Go SDK's first build: minutes, cached after), Python and `age`.
 */
import { randomSecret } from "../../../scripts/engine";
import { useEngineScratch } from "../../kit/engine/engineSuite";
import { programTest } from "../../kit/languages/examples";
import { ageDecrypt, ageIdentity } from "../../kit/tools/ageCli";
import { fingerprintOf } from "../../kit/secrets/leakScan";
import { liveIds } from "../../kit/sim/simulator";

const LANGUAGES = ["yaml", "go"] as const;
const DAY_MS = 24 * 3600 * 1000;

/** Each test starts the simulators it needs (`suite.simulator()`), stopped after it. */
const suite = useEngineScratch({ scratchPrefix: "pims-e2e-scenarios-", simulators: 0, testTimeoutMs: 20 * 60_000 });

/** The outputs a stack shows with a value (an unset optional output is absent in some languages, null in others). */
const keys = (o: Record<string, unknown>): string[] =>
  Object.keys(o)
    .filter((k) => o[k] !== null && o[k] !== undefined)
    .sort();

test.each(LANGUAGES)("rotation in %s: overlapping rotation by trigger", async (language) => {
  const { sim, projectId, appId } = await suite.simulatorWithApp("rotation");
  const run = await suite.prepareExample(sim, {
    scenario: "rotation",
    language,
    stackName: "ci",
    config: { projectId },
  });
  await programTest(run, [sim], {
    afterUp: (o) => {
      expect(keys(o)).toEqual(
        [
          "serviceAccountId",
          "token",
          "tokenExpiresAt",
          "tokenId",
          ...(language === "yaml" ? [] : ["rotatesAfter"]),
        ].sort(),
      );
      expect(sim.serviceAccounts(projectId)).toEqual([
        expect.objectContaining({ id: o.serviceAccountId, name: "ci-deployer" }),
      ]);
      const expiresAt = Date.parse(o.tokenExpiresAt as string);
      expect(expiresAt - Date.parse(sim.serviceAccounts(projectId)[0].createdAt)).toBe(30 * DAY_MS);
      if (language !== "yaml") expect(Date.parse(o.rotatesAfter as string)).toBe(expiresAt - 20 * DAY_MS);
      expect(sim.appSecrets(projectId, appId)).toEqual({ PIMS_TOKEN: o.token });
    },
    edit: {
      config: { rotationTrigger: "2" },
      check: (before, after) => {
        // keepPreviousToken: a new account, the previous one kept live until the next rotation; the app follows.
        expect(after.serviceAccountId).not.toBe(before.serviceAccountId);
        expect(after.previousServiceAccountId).toBe(before.serviceAccountId);
        expect(after.previousToken).toBe(before.token);
        expect(liveIds(sim, projectId)).toEqual([after.serviceAccountId, before.serviceAccountId].sort());
        expect(sim.appSecrets(projectId, appId)).toEqual({ PIMS_TOKEN: after.token });
      },
    },
    afterDestroy: () => expect(sim.serviceAccounts(projectId)).toEqual([]),
  });
});

test.each([...LANGUAGES, "python"] as const)(
  "sealed-token in %s: the token sealed with age, never held",
  async (language) => {
    const { sim, projectId } = await suite.simulatorWithApp("sealed-token");
    const age = ageIdentity(suite.scratch);
    const run = await suite.prepareExample(sim, {
      scenario: "sealed-token",
      language,
      stackName: "ci",
      config: { projectId, ageRecipient: age.recipient },
    });
    /** The sealed token opened with the `age` CLI: it works, and it is the one the fingerprint names. */
    const opened = async (o: Record<string, unknown>, prefix = ""): Promise<string> => {
      const token = await ageDecrypt(o[`${prefix}${prefix ? "S" : "s"}ealedToken`] as string, age.identity);
      expect(fingerprintOf(token)).toBe(o[`${prefix}${prefix ? "T" : "t"}okenFingerprint`]);
      expect(await suite.tokenWorks(token, projectId, sim)).toBe(true);
      return token;
    };
    await programTest(run, [sim], {
      afterUp: async (o) => {
        expect(keys(o)).toEqual(
          [
            "sealedToken",
            "serviceAccountId",
            "tokenDeliveredTo",
            "tokenExpiresAt",
            "tokenFingerprint",
            "tokenId",
          ].sort(),
        );
        expect(o.tokenDeliveredTo).toBe(`age:1 recipient ${age.recipient.slice(0, 12)}…`);
        expect(sim.issuedSecrets().includes(await opened(o))).toBe(true);
        expect(liveIds(sim, projectId)).toEqual([o.serviceAccountId]);
      },
      edit: {
        config: { rotationTrigger: "2" },
        check: async (before, after) => {
          // keepPreviousToken: a new account and token, sealed; the previous one kept live with its ciphertext.
          expect(after.serviceAccountId).not.toBe(before.serviceAccountId);
          expect(after.previousServiceAccountId).toBe(before.serviceAccountId);
          expect(after.previousSealedToken).toBe(before.sealedToken);
          expect(await opened(after, "previous")).toBe(await opened(before));
          expect(await opened(after)).not.toBe(await opened(before));
          expect(liveIds(sim, projectId)).toEqual([after.serviceAccountId, before.serviceAccountId].sort());
        },
      },
      afterDestroy: () => expect(sim.serviceAccounts(projectId)).toEqual([]),
    });
  },
);

test.each(LANGUAGES)("environments in %s: the dev stack, configured by its Pulumi.dev.yaml", async (language) => {
  // p-1a2b3c01: what the example's Pulumi.dev.yaml names
  const { sim, projectId, appId } = await suite.simulatorWithApp("dev", "p-1a2b3c01");
  sim.addVolume(projectId, { id: "default-us-east-1", sizeGb: 50 });
  const databaseUrl = randomSecret("postgres://dev:pw-");
  const run = await suite.prepareExample(sim, {
    scenario: "environments",
    language,
    stackName: "dev",
    // YAML has no optional secrets (README): only the other languages take the database URL.
    config: language === "yaml" ? {} : { databaseUrl: { value: databaseUrl, secret: true } },
  });
  await programTest(run, [sim], {
    afterUp: (o) => {
      const names = ["appSecretNames", "deployerGrants", "deployerId", "environment", "token", "tokenExpiresAt"];
      expect(keys(o)).toEqual([...names, "volumeSizeGb", language === "yaml" ? "apiKeys" : "apiKeyNames"].sort());
      expect(o.environment).toBe("dev");
      const [account, ...others] = sim.serviceAccounts(projectId);
      expect(others).toEqual([]);
      expect(account).toMatchObject({ id: o.deployerId, name: "dev-deployer", grants: [projectId] });
      expect(Date.parse(account.tokenExpiresAt) - Date.parse(account.createdAt)).toBe(7 * DAY_MS);
      expect(sim.volume(projectId, "default-us-east-1")?.sizeGb).toBe(50);
      expect(o.volumeSizeGb).toBe(50);
      expect(sim.appSecrets(projectId, appId)).toEqual({
        PIMS_TOKEN: o.token,
        LOG_LEVEL: "debug",
        ...(language === "yaml" ? {} : { DATABASE_URL: databaseUrl }),
      });
      const apiKeys = o.apiKeys as Array<{ name: string }> | undefined;
      expect(language === "yaml" ? apiKeys?.map((k) => k.name) : o.apiKeyNames).toEqual(["dev-deployer"]);
    },
    afterDestroy: () => expect(sim.serviceAccounts(projectId)).toEqual([]),
  });
  expect(run.printed()).not.toContain(databaseUrl);
});

test.each(LANGUAGES)("multi-account in %s: a scoped provider and another service", async (language) => {
  const [simA, simB] = [await suite.simulator(), await suite.simulator()];
  const partner = simB.addProject({ name: "partner" });
  const partnerApp = simB.addApp(partner.id, "web");
  const invoice = simB.addInvoice(partner.id, { amountDue: 500, currency: "eur" });
  const partnerToken = randomSecret("pims_sa_partner_");
  const partnerAccount = simB.addServiceAccount({ projectId: partner.id, name: "partner", tokenSecret: partnerToken });
  const run = await suite.prepareExample(simA, {
    scenario: "multi-account",
    language,
    stackName: "dev",
    config: {
      otherBaseUrl: simB.baseUrl,
      otherToken: { value: partnerToken, secret: true },
      otherProjectId: partner.id,
    },
  });
  let projectId = "";
  await programTest(run, [simA, simB], {
    afterUp: (o) => {
      const lists = language === "yaml" ? ["otherInvoiceList"] : ["apiKeyNames", "otherInvoices"];
      expect(keys(o)).toEqual(["ciAccountId", "ciToken", "deployerId", "newProjectId", ...lists].sort());
      projectId = o.newProjectId as string;
      expect(simA.project(projectId)?.name).toBe("team-dev");
      const accounts = simA.serviceAccounts(projectId).map((a) => [a.id, a.name]);
      expect(accounts.sort()).toEqual(
        [
          [o.deployerId, "project-deployer"],
          [o.ciAccountId, "ci"],
        ].sort(),
      );
      // The CI account is minted by the project's own account, through the scoped provider.
      const ciCreate = simA.requests.find(
        (r) => r.method === "POST" && r.body && (r.body as { name?: string }).name === "ci",
      );
      expect(ciCreate?.principal).toBe(o.deployerId);
      expect(simB.appSecrets(partner.id, partnerApp.id)).toEqual({ UPSTREAM_PROJECT_ID: projectId });
      if (language !== "yaml") {
        expect([...(o.apiKeyNames as string[])].sort()).toEqual(["ci", "project-deployer"]);
        expect(o.otherInvoices).toEqual([invoice.id]);
      } else {
        expect((o.otherInvoiceList as Array<{ id: string }>).map((i) => i.id)).toEqual([invoice.id]);
      }
    },
    edit: {
      config: { rotationTrigger: "2" },
      check: (before, after) => {
        // The project's account is replaced; the scoped provider takes the new token; the CI account stays.
        expect(after.deployerId).not.toBe(before.deployerId);
        expect(after.ciAccountId).toBe(before.ciAccountId);
        expect(liveIds(simA, projectId)).toEqual([after.deployerId, after.ciAccountId].sort());
      },
    },
    afterDestroy: () => {
      expect(simA.serviceAccounts(projectId)).toEqual([]);
      expect(simB.serviceAccounts(partner.id).map((a) => a.id)).toEqual([partnerAccount.id]); // not the stack's
    },
  });
});

test("functions in yaml: an app's recent error lines and a build's status, read-only", async () => {
  const { sim, projectId, appId } = await suite.simulatorWithApp("functions");
  // 25 lines on stderr among lines on stdout: the example reads the 20 most recent on stderr.
  const errors = Array.from({ length: 25 }, (_, i) => `error: request ${i} failed`);
  sim.addLogs(
    projectId,
    appId,
    errors.flatMap((logLine, i) => [{ logLine: `served request ${i}` }, { logLine, stream: "stderr" }]),
  );
  const ok = sim.addBuild(projectId, appId, { status: "success", logs: [{ log: "Step 1/1: done" }] });
  const failed = sim.addBuild(projectId, appId, { status: "build_failure", logs: [{ log: "error: no Dockerfile" }] });
  const run = await suite.prepareExample(sim, {
    scenario: "functions",
    language: "yaml",
    stackName: "dev",
    config: { projectId, buildId: ok.id },
  });
  await programTest(run, [sim], {
    afterUp: (o) => {
      // YAML exports the lines whole (errorLogLines), not their text (errorLines): ../../examples/functions/README.md.
      expect(keys(o)).toEqual(["buildStatus", "buildSucceeded", "errorLinesTruncated", "errorLogLines"]);
      const lines = o.errorLogLines as Array<{ logLine: string; stream: string; appId: string }>;
      expect(lines).toHaveLength(20);
      expect(new Set(lines.map((l) => l.stream))).toEqual(new Set(["stderr"]));
      expect(lines.map((l) => l.logLine).sort()).toEqual(errors.slice(5).sort());
      expect(o.errorLinesTruncated).toBe(true);
      expect([o.buildStatus, o.buildSucceeded]).toEqual(["success", true]);
    },
    edit: {
      config: { buildId: failed.id },
      check: (_before, after) => expect([after.buildStatus, after.buildSucceeded]).toEqual(["build_failure", false]),
    },
    // Functions only: the stack never asked the service to change anything.
    afterDestroy: () => expect(sim.requests.filter((r) => r.method !== "GET")).toEqual([]),
  });
});
