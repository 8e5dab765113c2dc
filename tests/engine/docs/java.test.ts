/**
 * docs/java.md followed literally, with Pulumi's official Java language host and plain `pulumi` commands
 * (`runtime: java`), from an empty project directory holding only the file the page says to take from the release
 * (this platform's plugin archive, from the release directory: tests/kit/languages/dist.ts), beside what the page calls
 * `../pulumi-pims` (sdk/java copied). The page's blocks run in the page's order: its files written unchanged
 * (Pulumi.yaml, pom.xml, App.java), its shell lines as written (`guide:shell`: install the SDK with Maven, the plugin
 * from the archive, configure, `pulumi up`), then its rotation lines (`guide:rotate`), then refresh and destroy. The
 * machine is a user's: an empty plugin cache, no plugin on PATH, a `node` first on PATH that fails if called (the
 * host runs Maven, Maven runs java), no download server. Every resource, a function and an explicit provider; a
 * rotation by replacement (the deployer) and an overlapping one (the worker, keepPreviousToken); 0 plaintext tokens in
 * what the commands printed and in the backend, the token output `[secret]`, 0 live accounts after destroy. The
 * page's row of the docs table (tests/kit/languages/docsTable.ts), which follows the page and scans for tokens.
 *
 * Substitutions, all about the sandbox: `pulumi login --local` logs in to a temporary backend; the example address and
 * ids are the simulator's; `pulumi up` gets `--yes --non-interactive`. Every mvn (the page's and the host's) uses Maven
 * 3.9.9 and the suite's cached local repository (tests/kit/languages/java.ts); the page's `mvn … install` is skipped
 * when that repository already holds a build of the same sdk/java. Each command runs Maven 1–3 times (10–40 s).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { VERSION } from "../../kit/languages/dist";
import { describeDocsPage } from "../../kit/languages/docsTable";
import { readBlock, readSteps, seedPageObjects } from "../../kit/languages/guide";
import { JAVA_LOCAL_REPO, JAVA_SDK_DIR, sdkInstalledStamp } from "../../kit/languages/java";

jest.setTimeout(15 * 60_000);

const steps = readSteps("java.md");
const commands = steps.flatMap((s) => ("commands" in s ? s.commands : []));
const rotateCommands = readBlock("java.md", "guide:rotate")
  .split("\n")
  .filter((l) => l.trim() !== "");
const INSTALL_SDK = "mvn -f ../pulumi-pims/sdk/java install";

describeDocsPage(
  {
    language: "java",
    page: "java.md",
    project: "my-infra",
    seed: seedPageObjects,
    issued: 4,
    prepare: (scratch) => {
      fs.mkdirSync(path.join(scratch, "pulumi-pims", "sdk"), { recursive: true });
      fs.cpSync(JAVA_SDK_DIR, path.join(scratch, "pulumi-pims", "sdk", "java"), {
        recursive: true,
        filter: (src) => path.basename(src) !== "target",
      });
      // A user's machine: Maven 3.9 and the pulumi CLI (the Java host beside it) on PATH (the Java runner's
      // toolchain), Java from the system.
      fs.mkdirSync(JAVA_LOCAL_REPO, { recursive: true });
    },
    replaced: {
      // Skipped when the suite's local repository already holds a build of the same sdk/java.
      [INSTALL_SDK]: async (page) => {
        if (fs.existsSync(sdkInstalledStamp())) return;
        await page.sh(INSTALL_SDK);
        fs.writeFileSync(sdkInstalledStamp(), "");
      },
    },
  },
  (page) => {
    test("the page names the release's archive, then the files and commands this test follows", () => {
      expect(steps.flatMap((s) => ("file" in s ? [s.file] : []))).toEqual([
        "Pulumi.yaml",
        "pom.xml",
        "src/main/java/myinfra/App.java",
      ]);
      const files = Object.fromEntries(steps.flatMap((s) => ("file" in s ? [[s.file, s.text]] : [])));
      expect(files["Pulumi.yaml"]).toBe("name: my-infra\nruntime: java\n"); // no plugins.providers
      expect(files["pom.xml"]).toMatch(/<groupId>pulumipims<\/groupId>\s*<artifactId>pims<\/artifactId>/);
      expect(commands.slice(0, 2)).toEqual([
        INSTALL_SDK,
        `pulumi plugin install resource pims ${VERSION} --file pulumi-resource-pims-v${VERSION}-linux-amd64.tar.gz`,
      ]);
      expect(commands).toContain('pulumi config set --secret pims:token "$PIMS_TOKEN"');
      expect(commands.at(-1)).toBe("pulumi up");
      expect(rotateCommands).toEqual(["pulumi config set rotation 2", "pulumi up"]);
    });

    test("up created every resource, through the explicit provider where named, with the token [secret]", async () => {
      const { sim, seeded, node, outputs } = page();
      const out = await outputs();
      const projectId = out.projectId as string;
      expect(sim.project(projectId)?.name).toBe("team-a");
      const accounts = sim.serviceAccounts(projectId);
      expect(accounts.map((a) => a.name).sort()).toEqual(["team-a-deployer", "team-a-worker"]);
      expect(out.deployerToken).toBe("[secret]");
      expect(out.secretNames).toEqual(["LOG_LEVEL", "PIMS_TOKEN"]);
      expect(out.volumeSizeGb).toBe(100);
      expect(out.apiKeyCount).toBe("[secret]"); // computed from getApiKeys' result, a secret
      const shown = await outputs(true);
      expect(shown.apiKeyCount).toBe(1);
      expect(sim.issuedSecrets()).toContain(shown.deployerToken);
      expect(sim.appSecrets(seeded.appProjectId, seeded.appId)).toEqual({
        PIMS_TOKEN: shown.deployerToken,
        LOG_LEVEL: "info",
      });
      expect(sim.volume(seeded.appProjectId, seeded.volumeId)?.sizeGb).toBe(100);
      // The resize went through the explicit provider: as the deployer account, not the stack's token.
      const resize = sim.requests.find((r) => r.method === "PATCH" && r.path.endsWith("/resize"));
      expect(resize?.principal).toBe(out.deployerAccountId);
      // The plugin the engine ran: the one installed from the archive (the table's first step); never Node.
      expect(node.calls()).toEqual([]);
    });

    test("the Java host learns from the SDK's jar that the program needs the pims plugin at this version", async () => {
      const { sh } = page();
      // The command the host runs for GetRequiredPlugins (pulumi-java's Maven executor): its JSON goes to stdout.
      const out = await sh(
        "mvn -Dorg.slf4j.simpleLogger.logFile=System.err --no-transfer-progress compile exec:java " +
          "-DmainClass=com.pulumi.bootstrap.internal.Main -DmainArgs=packages 2>/dev/null",
        false,
      );
      expect(JSON.parse(out)).toEqual([{ resource: true, name: "pims", version: VERSION }]);
    });

    test("a rotation in each mode: the deployer replaced, the worker's previous account kept live", async () => {
      const { sim, seeded, outputs, follow } = page();
      const before = await outputs();
      const projectId = before.projectId as string;
      const oldToken = (await outputs(true)).deployerToken;
      for (const command of rotateCommands) await follow(command);
      const after = await outputs();
      const shown = await outputs(true);
      const live = sim.serviceAccounts(projectId).map((a) => a.id);
      // Replacement: a new deployer, the old one deleted, the app's secrets carry the new token.
      expect(after.deployerAccountId).not.toBe(before.deployerAccountId);
      expect(live).toContain(after.deployerAccountId);
      expect(live).not.toContain(before.deployerAccountId);
      expect(sim.deletedServiceAccounts()).toContain(before.deployerAccountId);
      expect(shown.deployerToken).not.toBe(oldToken);
      expect(sim.appSecrets(seeded.appProjectId, seeded.appId)?.PIMS_TOKEN).toBe(shown.deployerToken);
      // Overlap: a new worker account, the previous one still live as previousServiceAccountId.
      expect(after.workerAccountId).not.toBe(before.workerAccountId);
      expect(after.workerPreviousAccountId).toBe(before.workerAccountId);
      expect(live).toEqual(expect.arrayContaining([after.workerAccountId, before.workerAccountId]));
      expect(live).toHaveLength(3);
    });

    test("refresh keeps the state as it is; destroy leaves 0 live accounts", async () => {
      const { sim, node, outputs, sh } = page();
      const before = await outputs();
      await sh("pulumi refresh --yes --non-interactive");
      expect(await outputs()).toEqual(before);
      const out = await sh("pulumi destroy --yes --non-interactive");
      expect(sim.serviceAccounts()).toEqual([]);
      expect(node.calls()).toEqual([]);
      expect(out).toContain(`project ${before.projectId as string} ("team-a") was removed from the stack`);
    });
  },
);
