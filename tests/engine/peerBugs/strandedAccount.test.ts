/**
 * Issue 55, row 12: `pulumi state delete` of a ServiceAccount, or a lost state, leaves a live account that nothing
 * names: its token still works, no state holds it, the next `pulumi up` would make a second account for the same
 * resource and `destroy` never deletes the first. Elsewhere users rebuild such a state by hand, resource by resource
 * (pulumi/pulumi#16712 "Ability to recreate state from program and reality", pulumi/pulumi#3388 create-or-import).
 *
 * What the user needs: the docs' recovery steps (docs/troubleshooting.md, "A live account no stack names",
 * read from the file and run line by line, placeholders filled) find the account (`pims service-accounts list
 * --state` marks it `STACK no`, `pulumi do … list` names it), take the one whose token is in use back into the stack
 * (`pulumi import` in YAML, `adoptServiceAccountId` in TypeScript: no new account, its token still works, no change
 * next) and delete the one nothing uses (`pims service-accounts delete`, then `pulumi up` makes the declared one);
 * destroy then leaves nothing live. Through the dynamic provider (a TypeScript program) and through the plugin (a YAML
 * program).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as pims from "pulumi-pims";
import { REPO_ROOT } from "../../../scripts/engine";
import { PLUGIN_DIR, writeYamlProject } from "../../../scripts/engine/yaml";
import { exportEncrypted, pimsCli, resource, resources } from "../../kit/engine/engine";
import { type EngineSuite, useEngineStack } from "../../kit/engine/engineSuite";
import { accountYaml } from "../../kit/engine/oneAccount";
import { liveIds } from "../../kit/sim/simulator";

type Host = "typescript" | "yaml";

/** The page whose steps this suite runs (the lead moves the section into docs/troubleshooting.md). */
const RECOVERY_DOC = path.join(REPO_ROOT, "docs", "troubleshooting.md");
const SECTION = "### A live account no stack names";

/** The recovery section's shell lines, in order, comments dropped, grouped by its numbered steps. */
function recoverySteps(): string[][] {
  const text = fs.readFileSync(RECOVERY_DOC, "utf8");
  const start = text.indexOf(SECTION);
  expect(start).toBeGreaterThanOrEqual(0);
  const rest = text.slice(start + SECTION.length);
  const end = rest.search(/\n#{2,3} /);
  const section = end < 0 ? rest : rest.slice(0, end);
  return section
    .split(/\n\d\. /)
    .slice(1)
    .map((step) =>
      [...step.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) =>
        m[1]
          .split("\n")
          .map((l) => l.replace(/\s+#.*$/, "").trim())
          .filter((l) => l !== ""),
      ),
    );
}

const DAY = 86_400;

const yamlProgram = (home: string): string => `
resources:
${accountYaml("ci", { projectId: home, name: "ci", expiresIn: 90 * DAY })}\
${accountYaml("spare", { projectId: home, name: "spare", expiresIn: 90 * DAY })}\
outputs:
  ciId: \${ci.serviceAccountId}
  spareId: \${spare.serviceAccountId}
`;

/** The TypeScript program; `adopt.ci`, once set, is the id step 2 of the docs adds to the account `ci`. */
const typescriptProgram = (home: string, adopt: { ci?: string }) => async () => {
  const declared = { projectId: home, grants: [home], expiresIn: 90 * DAY };
  const ci = new pims.ServiceAccount("ci", {
    ...declared,
    name: "ci",
    ...(adopt.ci ? { adoptServiceAccountId: adopt.ci } : {}),
  });
  const spare = new pims.ServiceAccount("spare", { ...declared, name: "spare" });
  return { ciId: ci.serviceAccountId, spareId: spare.serviceAccountId };
};

function describeHost(host: Host): void {
  describe(`row 12 through ${host === "yaml" ? "the plugin (YAML)" : "the dynamic provider (TypeScript)"}`, () => {
    stepsOf(host);
  });
}

function stepsOf(host: Host): void {
  let home = "";
  let workDir = "";
  const adopt: { ci?: string } = {};
  const suite: EngineSuite = useEngineStack({
    scratchPrefix: `pims-e2e-peer12-${host}-`,
    stack: ({ sim, scratch }) => {
      home = sim.addProject({ name: "peer-stranded" }).id;
      workDir = path.join(scratch, host);
      if (host === "yaml") {
        writeYamlProject(workDir, { name: "pims-peer-stranded", program: yamlProgram(home) });
        return { stackName: "dev", yaml: true, workDir };
      }
      return { stackName: "dev", projectName: "pims-peer-stranded", workDir, program: typescriptProgram(home, adopt) };
    },
  });
  const { engine } = suite;
  const stateFile = (): string => path.join(workDir, "state.json");

  /** One line of the docs as a user runs it here: placeholders filled, `pulumi` on the suite's stack. */
  async function run(line: string, fill: Record<string, string>): Promise<string> {
    let l = line.replace(/"\$PIMS_PLUGIN"/g, path.join(PLUGIN_DIR, "pulumi-resource-pims"));
    for (const [k, v] of Object.entries(fill)) l = l.split(`<${k}>`).join(v);
    expect(l).not.toMatch(/<\w+>/);
    if (l === "pulumi stack export > state.json") {
      const r = await suite.pulumi(["stack", "export", "--stack", "dev"], { cwd: workDir });
      expect(r.code).toBe(0);
      fs.writeFileSync(stateFile(), r.stdout);
      return "";
    }
    const [cmd, ...args] = l.split(/\s+/);
    if (cmd === "pims") {
      const argv = args.map((a) => (a === "state.json" ? stateFile() : a));
      const service = { baseUrl: suite.sim.baseUrl, token: suite.sim.token };
      if (argv.includes("--state")) {
        // Both accounts were deleted from the state: `list --state` says it holds none and stops (issue 63: another
        // stack's export would mark every account STACK no); the docs then say to add --allow-empty-state.
        const refused = await pimsCli(argv, service).then(
          () => ({ code: 0, stderr: "" }),
          (e: { code?: number; stderr?: string }) => e,
        );
        expect(refused).toMatchObject({ code: 2, stderr: expect.stringContaining(`${stateFile()} holds no pims`) });
        expect(fs.readFileSync(RECOVERY_DOC, "utf8")).toContain("add `--allow-empty-state`");
        argv.push("--allow-empty-state");
      }
      return (await pimsCli(argv, service)).stdout;
    }
    expect(cmd).toBe("pulumi");
    if (args.join(" ") === "up") {
      // the program runs as `pulumi up` runs it (for TypeScript an inline program: through the Automation API)
      const up = await suite.stack.up(engine.opts);
      expect(up.summary.result).toBe("succeeded");
      return JSON.stringify(up.summary.resourceChanges);
    }
    const credentials = { PIMS_TOKEN: suite.sim.token, PIMS_BASE_URL: suite.sim.baseUrl };
    const stackArgs = args[0] === "do" ? [] : ["--stack", "dev", "--non-interactive"];
    const r = await suite.pulumi([...args, ...stackArgs], { cwd: workDir, env: credentials });
    expect(r.code).toBe(0);
    return r.stdout;
  }

  let ci = { id: "", token: "" }; // in use: a consumer holds its token
  let spare = { id: "", token: "" }; // used by nothing
  let steps: string[][] = [];

  test(`row 12, ${host}: pulumi state delete leaves both accounts live, unnamed; up would make two more`, async () => {
    steps = recoverySteps();
    expect(steps).toHaveLength(3);
    const o = await suite.up({ create: 3 });
    ci = { id: o.ciId.value as string, token: await suite.tokenOf("ci") };
    spare = { id: o.spareId.value as string, token: await suite.tokenOf("spare") };
    for (const name of ["ci", "spare"]) {
      const urn = resource(exportEncrypted(suite.stack), ":ServiceAccount", name).urn;
      const r = await suite.pulumi(["state", "delete", urn, "--yes", "--stack", "dev"], { cwd: workDir });
      expect(r.code).toBe(0);
    }
    expect(resources(exportEncrypted(suite.stack)).filter((r) => r.type.endsWith("ServiceAccount"))).toEqual([]);
    expect(liveIds(suite.sim, home)).toEqual([ci.id, spare.id].sort());
    const preview = await suite.stack.preview(engine.opts);
    expect(preview.changeSummary).toEqual({ create: 2, same: 1 });
  });

  test(`row 12, ${host}: the docs' step 1 finds them: STACK no in pims service-accounts list, pulumi do`, async () => {
    suite.clearRequests();
    const printed = [];
    for (const line of steps[0]) printed.push(await run(line, { project: home }));
    const table = printed.find((p) => p.includes("STACK")) ?? "";
    for (const id of [ci.id, spare.id]) expect(table).toMatch(new RegExp(`^${id}\\s.*\\sno\\s*$`, "m"));
    expect(table).toContain("2 accounts with STACK no are held by none of the states given");
    const listed = JSON.parse(printed.find((p) => p.trim().startsWith("[")) ?? "[]") as Array<{ id: string }>;
    expect(listed.map((i) => i.id).sort()).toEqual([`${home}/${ci.id}`, `${home}/${spare.id}`].sort());
    expect(suite.writes()).toEqual([]);
  });

  test(`row 12, ${host}: step 2 takes the account in use back (no new account); step 3 deletes the other`, async () => {
    suite.clearRequests();
    if (host === "yaml") {
      for (const line of steps[1]) await run(line, { name: "ci", project: home, id: ci.id });
      expect(suite.writes()).toEqual([]);
    } else {
      // step 2 in TypeScript is prose: `adoptServiceAccountId: "<id>"` on the account, then `pulumi up`
      const text = fs.readFileSync(RECOVERY_DOC, "utf8");
      expect(text).toContain('TypeScript: add `adoptServiceAccountId: "<id>"` to the ServiceAccount `<name>`');
      adopt.ci = ci.id;
      await suite.up({ create: 2, same: 1 }); // ci adopted (no POST), spare declared anew
      expect(suite.writes()).toEqual([`POST /v2/projects/${home}/service-accounts as admin`]);
    }
    expect(await suite.shown("ci")).toMatchObject({ serviceAccountId: ci.id, tokenHeld: false });
    expect(await suite.tokenWorks(ci.token, home)).toBe(true);

    suite.clearRequests();
    const said = [];
    for (const line of steps[2]) said.push(await run(line, { project: home, id: spare.id }));
    expect(said[1]).toBe(JSON.stringify(host === "yaml" ? { create: 1, same: 2 } : { same: 3 }));
    expect(await suite.tokenWorks(spare.token, home)).toBe(false);
    const now = await suite.shown("spare");
    expect(liveIds(suite.sim, home)).toEqual([ci.id, now.serviceAccountId as string].sort());
    await suite.stack.preview({ ...engine.opts, expectNoChanges: true });
    expect(await suite.tokenWorks(ci.token, home)).toBe(true); // the consumer of ci never noticed
  });

  test(`row 12, ${host}: destroy deletes both, nothing stays live; no token in plaintext`, async () => {
    const down = await suite.stack.destroy(engine.opts);
    expect(down.summary.result).toBe("succeeded");
    expect(liveIds(suite.sim, home)).toEqual([]);
    suite.expectNoSecrets();
  });
}

describeHost("typescript");
describeHost("yaml");
