/**
 * docs/yaml.md followed literally, as a newcomer would: from an empty project directory holding this platform's plugin
 * archive from the release (tests/kit/languages/dist.ts; the page says to download it), the guide's `Pulumi.yaml`
 * written as it is printed (block `<!-- guide:file Pulumi.yaml -->`) and the guide's commands run in order (block `<!--
 * guide:shell -->`), with the real engine and the official YAML host. The machine is a user's: an empty plugin cache,
 * no plugin on PATH, no `plugins.providers`, a `node` first on PATH that fails if called. Then a no-change preview and
 * destroy. The page's row of the docs table (tests/kit/languages/docsTable.ts), which follows the page and scans for
 * tokens.
 *
 * Substitutions, all about this test's sandbox: `pulumi login --local` logs in to a temporary `file://` backend; the
 * example ids and address in `pulumi config set` are the simulator's; `pulumi up` gets `--yes`. The token reaches
 * the commands as `PIMS_TOKEN`, as the guide says.
 */
import { VERSION } from "../../kit/languages/dist";
import { describeDocsPage } from "../../kit/languages/docsTable";
import { readGuide, seedPageObjects } from "../../kit/languages/guide";

jest.setTimeout(15 * 60_000);

const guide = readGuide("yaml.md");

describeDocsPage(
  {
    language: "yaml",
    page: "yaml.md",
    project: "project",
    seed: (sim) => {
      const seeded = seedPageObjects(sim);
      // The page's program also reads the project's invoices and the app's error logs.
      sim.addInvoice(seeded.appProjectId, { amountDue: 1250, currency: "eur" });
      sim.addLogs(seeded.appProjectId, seeded.appId, [{ logLine: "boom", stream: "stderr" }]);
      return seeded;
    },
  },
  (page) => {
    test("the guide has the program and the commands this test runs", () => {
      expect(guide.files.map((f) => f.file)).toEqual(["Pulumi.yaml"]);
      expect(guide.files[0].text).not.toContain("plugins:");
      expect(guide.files[0].text).toContain(`version: ${VERSION}`);
      expect(guide.commands[0]).toBe(
        `pulumi plugin install resource pims ${VERSION} --file pulumi-resource-pims-v${VERSION}-linux-amd64.tar.gz`,
      );
      expect(guide.commands).toContain('pulumi config set --secret pims:token "$PIMS_TOKEN"');
      expect(guide.commands.at(-1)).toBe("pulumi up");
    });

    test("up created what the program declares, as the right accounts, with the token a secret output", async () => {
      const { sim, seeded } = page();
      const outputs = await page().outputs();
      const projectId = outputs.projectId as string;
      expect(sim.project(projectId)?.name).toBe("team-a");
      const accounts = sim.serviceAccounts(projectId);
      expect(accounts.map((a) => a.name).sort()).toEqual(["team-a-deployer", "team-a-worker"]);
      expect(outputs.deployerToken).toBe("[secret]");
      expect(outputs.apiKeys).toBe("[secret]");
      // The test's own look at the values: not part of what a user's commands printed.
      const revealed = await page().outputs(true);
      const deployer = accounts.find((a) => a.name === "team-a-deployer");
      expect(sim.issuedSecrets()).toContain(revealed.deployerToken);
      expect(sim.appSecrets(seeded.appProjectId, seeded.appId)).toEqual({
        PIMS_TOKEN: revealed.deployerToken,
        LOG_LEVEL: "info",
      });
      expect(outputs.secretNames).toEqual(["LOG_LEVEL", "PIMS_TOKEN"]);
      expect(sim.volume(seeded.appProjectId, seeded.volumeId)?.sizeGb).toBe(100);
      // The resize went through the explicit provider: as the deployer account, not the stack's token.
      const resize = sim.requests.find((r) => r.method === "PATCH" && r.path.endsWith("/resize"));
      expect(resize?.principal).toBe(deployer?.id);
      expect(outputs.invoices).toEqual([expect.objectContaining({ amountDue: 1250, amountDueMajor: 12.5 })]);
      expect(outputs.recentErrors).toEqual([expect.objectContaining({ logLine: "boom", stream: "stderr" })]);
    });

    test("a no-change preview calls nothing but the three functions; destroy deletes both accounts", async () => {
      const { sim, node, sh } = page();
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
      expect(out).toContain(
        `project ${projectId} ("team-a") was removed from the stack but still exists in the service`,
      );
      expect(out).toMatch(/volume \S+ in project \S+ was removed from the stack and stays at 100 GB/);
      expect(node.calls()).toEqual([]);
    });
  },
);
