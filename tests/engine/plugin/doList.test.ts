/**
 * `pulumi do` (CLI 3.259.0, built by this repository) with the pims plugin: `pulumi do --package <the launcher>
 * pims:ServiceAccount list --project-id <id>` against a simulator holding 25 accounts made outside any stack in one
 * project and 3 in another prints exactly the 25 ids; `pulumi import` of a YAML project takes them all as they are
 * (one import file); `read <id>` shows one as an import reads it; `--count 10` prints 10; a project the service does
 * not know fails with the service's message; `pims:Project` has no `list`; no token the simulator issued is printed.
 * The plugin's List without the engine (pages, continuations, `computed`): tests/sim/plugin/list.test.ts.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { PLUGIN_DIR, writeYamlProject } from "../../../scripts/engine/yaml";
import { exportEncrypted, resources } from "../../kit/engine/engine";
import { useEngineStack } from "../../kit/engine/engineSuite";
import { consoleAccount, liveIds, writesOf } from "../../kit/sim/simulator";

let workDir: string;
let project: string; // 25 accounts made in the console
let other: string; // 3 more, in another project

/** `pulumi do --package <the launcher> <args>`, credentials from the environment as a user sets them. */
const pulumiDo = (args: string[]) =>
  suite.pulumi(["do", "--package", path.join(PLUGIN_DIR, "pulumi-resource-pims"), ...args], {
    cwd: workDir,
    env: { PIMS_TOKEN: suite.sim.token, PIMS_BASE_URL: suite.sim.baseUrl },
  });

/** The ids a `list` printed (its stdout is a JSON array of `{id, name}`). */
function listed(stdout: string): Array<{ id: string; name: string }> {
  return JSON.parse(stdout) as Array<{ id: string; name: string }>;
}

const expectedIds = (projectId: string): string[] => liveIds(suite.sim, projectId).map((id) => `${projectId}/${id}`);

const suite = useEngineStack({
  scratchPrefix: "pims-e2e-do-list-",
  stack: async ({ sim, scratch }) => {
    project = sim.addProject({ name: "console-25" }).id;
    other = sim.addProject({ name: "console-3" }).id;
    for (let i = 0; i < 25; i++) await consoleAccount(sim, project, `worker ${String(i).padStart(2, "0")}`, 0);
    for (let i = 0; i < 3; i++) await consoleAccount(sim, other, `other ${i}`, 0);
    workDir = path.join(scratch, "pims-do-list");
    writeYamlProject(workDir, { name: "pims-do-list", program: "resources: {}\n" });
    return { stackName: "dev", yaml: true, workDir };
  },
});

describe("pulumi do pims:ServiceAccount list", () => {
  let ids: string[] = [];

  test("prints exactly the project's 25 accounts, named, from one listing and no write", async () => {
    suite.clearRequests();
    const r = await pulumiDo(["pims:ServiceAccount", "list", "--project-id", project]);
    expect(r.code).toBe(0);
    const items = listed(r.stdout);
    ids = items.map((i) => i.id).sort();
    expect(ids).toEqual(expectedIds(project));
    expect(items.map((i) => i.name).sort()).toEqual(
      Array.from({ length: 25 }, (_, i) => `worker ${String(i).padStart(2, "0")}`),
    );
    expect(suite.sim.requests.map((q) => `${q.method} ${q.path}`)).toEqual([`GET /v2/projects/${project}/api-keys`]);
    expect(listed((await pulumiDo(["pims:ServiceAccount", "list", "--project-id", other])).stdout)).toHaveLength(3);
  });

  test("each id goes straight into pulumi import: one import file of all 25, no write", async () => {
    const file = path.join(suite.scratch, "import.json");
    const doc = { resources: ids.map((id, i) => ({ type: "pims:index:ServiceAccount", name: `sa${i}`, id })) };
    fs.writeFileSync(file, JSON.stringify(doc));
    suite.clearRequests();
    const r = await suite.pulumi(
      [
        "import",
        "--stack",
        "dev",
        "--non-interactive",
        "--file",
        file,
        "--yes",
        "--protect=false",
        "--out",
        path.join(suite.scratch, "imported.yaml"),
      ],
      { cwd: workDir },
    );
    expect(r.code).toBe(0);
    expect(writesOf(suite.sim)).toEqual([]);
    const imported = resources(exportEncrypted(suite.stack)).filter((x) => x.type === "pims:index:ServiceAccount");
    expect(imported.map((x) => `${x.outputs?.projectId as string}/${x.id}`).sort()).toEqual(ids);
  });

  test("--count 10 prints 10 of them", async () => {
    const r = await pulumiDo(["pims:ServiceAccount", "list", "--project-id", project, "--count", "10"]);
    expect(r.code).toBe(0);
    const ten = listed(r.stdout).map((i) => i.id);
    expect(ten).toHaveLength(10);
    expect(ten.every((id) => ids.includes(id))).toBe(true);
  });

  test("read <id> shows an account as an import reads it: no token held, nothing written", async () => {
    suite.clearRequests();
    const r = await pulumiDo(["pims:ServiceAccount", "read", ids[0], "--output", "json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ projectId: project, tokenHeld: false, id: ids[0].split("/")[1] });
    expect(writesOf(suite.sim)).toEqual([]);
  });

  test("a project the service does not know fails with the service's message", async () => {
    const r = await pulumiDo(["pims:ServiceAccount", "list", "--project-id", "p-00000000"]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("listing API keys of project p-00000000: 404 project p-00000000 not found");
  });

  test("pims:Project has no list (the service has no listing of projects), and its help says so", async () => {
    const help = await pulumiDo(["pims:Project", "--help"]);
    expect(help.stdout).toContain("the service has no listing of projects");
    expect(help.stdout).not.toMatch(/^\s+list\s/m);
  });

  test("no token the simulator issued in anything printed or written", () => {
    expect(suite.expectNoSecrets().length).toBeGreaterThanOrEqual(29); // the provider's and the 28 accounts'
  });
});
