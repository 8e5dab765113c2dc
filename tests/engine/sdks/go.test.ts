/**
 * The Go SDK, and docs/go.md followed literally: `go vet` of the generated package (sdk/go); then, from an empty
 * project directory holding this platform's plugin archive from the release (tests/kit/languages/dist.ts), beside what
 * the page calls `../pulumi-pims` (tests/kit/languages/guide.ts's sandboxClone), the page's blocks run in the page's
 * order: its commands as written, its Pulumi.yaml and main.go written unchanged. The machine is a user's: an empty
 * plugin cache, no plugin on PATH, a `node` first on PATH that fails if called.
 *
 * Substitutions, about the sandbox: `pulumi login --local` logs in to a temporary `file://` backend; the example
 * address and ids in `pulumi config set` are the simulator's. Replaced step: `pulumi up` (no Go language host can be
 * obtained here) becomes what the Go host does first, `go build` of the module as the page left it, then
 * tests/engine/programs/go/inline.go added beside main.go (its init runs main.go's `program` as an Automation API
 * inline program), `go mod tidy` for the harness's imports, a build and a run. Then, beyond the page, destroy: 0 live
 * accounts. The page's row of the docs table (tests/kit/languages/docsTable.ts), which follows the page and scans for
 * tokens. Needs the pulumi CLI, Go, the Go module proxy (the first build compiles the Pulumi Go SDK: minutes).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { VERSION } from "../../kit/languages/dist";
import { describeDocsPage, seedAppProject, type DocsPage, type InlineResult } from "../../kit/languages/docsTable";
import { addInlineDriver, GO_SDK_DIR, goEnv, inlineVars } from "../../kit/languages/go";
import { readSteps, sandboxClone } from "../../kit/languages/guide";
import { run } from "../../kit/languages/index";

/** A first `go vet` of a program importing the Automation API compiles the Pulumi Go SDK: minutes on 2 cores. */
jest.setTimeout(20 * 60_000);

const steps = readSteps("go.md");
/** What the replaced `pulumi up` returned. */
let up: InlineResult | undefined;

/** The replaced `pulumi up` (see the top of this file), or destroy after the page, through the inline harness. */
async function inline(page: DocsPage, operation: "up" | "destroy"): Promise<InlineResult> {
  if (!fs.existsSync(path.join(page.dir, "inline.go"))) {
    await page.sh("go build ./..."); // what the Go host does first: the page's module must build as the page left it
    addInlineDriver(page.dir);
    await page.sh("go mod tidy && go vet ./... && go build -o my-infra .");
  }
  return page.inline(path.join(page.dir, "my-infra"), [], inlineVars(page.dir, operation));
}

describeDocsPage(
  {
    language: "go",
    page: "go.md",
    project: "my-infra",
    simulator: { profile: "default" },
    seed: (sim) => seedAppProject(sim, "docs-go"),
    prepare: sandboxClone,
    replaced: {
      "pulumi up": async (page) => {
        up = await inline(page, "up");
      },
    },
  },
  (page) => {
    test("the generated package passes go vet", async () => {
      await run("go", ["vet", "./..."], { cwd: GO_SDK_DIR, env: goEnv() });
    });

    test("the page: its install commands, files and commands in this order", () => {
      const commands = steps.flatMap((s) => ("commands" in s ? s.commands : []));
      expect(commands.slice(0, 4)).toEqual([
        "go mod init my-infra",
        "go mod edit -replace pulumi-pims/sdk/go=../pulumi-pims/sdk/go",
        "go get pulumi-pims/sdk/go/pims",
        `pulumi plugin install resource pims ${VERSION} --file pulumi-resource-pims-v${VERSION}-linux-amd64.tar.gz`,
      ]);
      expect(steps.flatMap((s) => ("file" in s ? [s.file] : []))).toEqual(["Pulumi.yaml", "main.go"]);
      expect(commands.slice(-2)).toEqual(["go mod tidy", "pulumi up"]);
    });

    test("followed in order, the page deploys every resource with the plugin from the archive", async () => {
      const { sim, seeded, dir } = page();
      expect(up?.changes).toEqual({ create: 5 });
      expect(up?.outputs?.deployerToken).toEqual({ secret: true });
      expect(fs.readFileSync(path.join(dir, "go.mod"), "utf8")).toMatch(
        /^replace pulumi-pims\/sdk\/go => \.\.\/pulumi-pims\/sdk\/go$/m,
      );
      const team = sim.projects().find((p) => p.name === "platform-team");
      expect(sim.serviceAccounts(team?.id).map((a) => a.name)).toEqual(["deployer"]);
      expect(sim.volume(seeded.projectId, seeded.volumeId)?.sizeGb).toBe(100);
      expect(Object.keys(sim.appSecrets(seeded.projectId, seeded.appId)).sort()).toEqual(["LOG_LEVEL", "PIMS_TOKEN"]);
      expect(await page().outputs()).toMatchObject({ deployerToken: "[secret]" });
    });

    test("after the page: destroy leaves 0 live accounts, Node never called", async () => {
      const { sim, node } = page();
      const team = sim.projects().find((p) => p.name === "platform-team");
      const down = await inline(page(), "destroy");
      expect(down.changes).toEqual({ delete: 5 });
      expect(sim.serviceAccounts(team?.id)).toEqual([]);
      expect(node.calls()).toEqual([]);
    });
  },
);
