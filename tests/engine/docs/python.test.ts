/**
 * docs/python.md followed literally: from an empty project directory holding the two files the page says to take from
 * the release (the wheel and this platform's plugin archive, from the release directory: tests/kit/languages/dist.ts),
 * the page's blocks run in the page's order: its commands as written, its files written unchanged. The machine is a
 * user's: an empty plugin cache, no plugin on PATH, a `node` first on PATH that fails if called, no download server.
 *
 * Substitutions, all about this test's sandbox: `python3 -m venv venv` makes the environment with
 * tests/kit/languages/python.ts's userVenv (which sees the cached `pulumi` and `grpcio`, so pip downloads nothing);
 * `pulumi login --local` logs in to a temporary `file://` backend; the example address and ids in `pulumi config set`
 * are the simulator's. Replaced step: `pulumi up` runs the page's __main__.py as an Automation API inline program
 * (tests/engine/programs/python/inline.py), as no Python language host can be obtained here. Then, beyond the page,
 * destroy. The page's row of the docs table (tests/kit/languages/docsTable.ts), which follows the page and scans for
 * tokens.
 */
import * as path from "node:path";
import { VERSION } from "../../kit/languages/dist";
import { describeDocsPage, seedAppProject, type DocsPage } from "../../kit/languages/docsTable";
import { E2E_TIMEOUT_MS } from "../../kit/engine/engine";
import { readSteps } from "../../kit/languages/guide";
import { PYTHON_INLINE_DRIVER, userVenv } from "../../kit/languages/python";

jest.setTimeout(E2E_TIMEOUT_MS);

const steps = readSteps("python.md");

/** Runs the inline program (the replaced `pulumi up`, or destroy after the page). */
const inline = (page: DocsPage, operation: "up" | "destroy") =>
  page.inline(path.join(page.dir, "venv", "bin", "python"), [
    PYTHON_INLINE_DRIVER,
    page.dir,
    "dev",
    operation,
    path.join(page.dir, "__main__.py"),
  ]);

describeDocsPage(
  {
    language: "python",
    page: "python.md",
    project: "my-infra",
    simulator: { profile: "default" },
    seed: (sim) => seedAppProject(sim, "docs-python"),
    releaseFiles: (dist) => [dist.wheel, dist.archive],
    replaced: {
      "python3 -m venv venv": async (page) => void (await userVenv(path.join(page.dir, "venv"))),
      "pulumi up": async (page) => void (await inline(page, "up")),
    },
  },
  (page) => {
    test("the page names the release's files, then the files and commands this test follows", () => {
      const commands = steps.flatMap((s) => ("commands" in s ? s.commands : []));
      expect(commands.slice(0, 3)).toEqual([
        "python3 -m venv venv",
        `venv/bin/pip install pulumi_pims-${VERSION}-py3-none-any.whl`,
        `pulumi plugin install resource pims ${VERSION} --file pulumi-resource-pims-v${VERSION}-linux-amd64.tar.gz`,
      ]);
      expect(steps.flatMap((s) => ("file" in s ? [s.file] : []))).toEqual(["Pulumi.yaml", "__main__.py"]);
      expect(commands.at(-1)).toBe("pulumi up");
    });

    test("followed in order, the page deploys every resource with the plugin from the archive", async () => {
      const { sim, seeded, sh } = page();
      const team = sim.projects().find((p) => p.name === "platform-team");
      expect(sim.serviceAccounts(team?.id).map((a) => a.name)).toEqual(["deployer"]);
      expect(sim.volume(seeded.projectId, seeded.volumeId)?.sizeGb).toBe(100);
      expect(Object.keys(sim.appSecrets(seeded.projectId, seeded.appId)).sort()).toEqual(["LOG_LEVEL", "PIMS_TOKEN"]);
      const outputs = await page().outputs();
      expect(outputs.deployerToken).toBe("[secret]");
      expect(outputs.keyCount).toBe("[secret]"); // computed from a secret result
      const keyCount = await sh("pulumi stack output keyCount --show-secrets", false);
      expect(keyCount.trim()).toBe("1");
    });

    test("after the page: destroy leaves 0 live accounts, Node never called", async () => {
      const { sim, node } = page();
      const team = sim.projects().find((p) => p.name === "platform-team");
      await inline(page(), "destroy");
      expect(sim.serviceAccounts(team?.id)).toEqual([]);
      expect(node.calls()).toEqual([]);
    });
  },
);
