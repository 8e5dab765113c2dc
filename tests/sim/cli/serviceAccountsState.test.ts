/**
 * `pims service-accounts list <project> --state <file|->` against the simulator: which accounts a stack holds, read
 * from `pulumi stack export` JSON (a ServiceAccount's id, serviceAccountId, previousServiceAccountId and
 * retiredServiceAccountIds), so the orphans of a failed `up` against a slow service stand out. Only ids are read from
 * the export: nothing else of it (its encrypted secrets above all) is ever printed.
 *
 * Issue 63: the real exports of both hosts, the state-compatibility fixtures (tests/fixtures/v*: `pulumi stack export`
 * right after a real `pulumi up` of each release under the real engine, written by make-fixture.ts for a TypeScript
 * program and make-plugin-fixture.ts for a YAML program through the plugin), each served with the accounts its stack
 * holds and one it does not: exactly that one is STACK no. An export holding no ServiceAccount (another stack's, an
 * empty stack's) is refused, naming the file, unless --allow-empty-state.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { nativeToken } from "../../../provider/identity";
import { typeToken, type ResourceKind } from "../../../provider/kinds";
import { tempDir } from "../../../scripts/engine";
import { listFixtures, type Fixture } from "../../fixtures/fixtures";
import { resourcesOfType, SECRET_SIG, SECRET_VALUE } from "../../kit/engine/engine";
import { accountsOf } from "../../kit/engine/fixtures";
import { lines, useCliSuite } from "../../kit/sim/cli";
import { testClient } from "../../kit/sim/client";

const cli = useCliSuite();
const { pims } = cli;
/** Stands for the encrypted token of a state: must never be printed. */
const CIPHERTEXT = "v1:ciphertext-of-the-token-0123456789abcdef";
const dir = tempDir("pims-state-");
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The JSON `pulumi stack export` writes, with one ServiceAccount resource holding these ids (and another resource). */
function exportOf(ids: { id: string; previous?: string; retired?: string[] }): string {
  const token = { [SECRET_SIG]: SECRET_VALUE, ciphertext: CIPHERTEXT };
  return JSON.stringify({
    version: 3,
    deployment: {
      manifest: { time: "2026-01-01T00:00:00Z" },
      resources: [
        {
          urn: "urn:pulumi:dev::app::pulumi:pulumi:Stack::app-dev",
          type: "pulumi:pulumi:Stack",
          outputs: { note: "not an account" },
        },
        {
          urn: "urn:pulumi:dev::app::pulumi-nodejs:dynamic/pims:Project::proj",
          type: "pulumi-nodejs:dynamic/pims:Project",
          id: "p-00000000",
        },
        {
          urn: "urn:pulumi:dev::app::pulumi-nodejs:dynamic/pims:ServiceAccount::ci",
          type: "pulumi-nodejs:dynamic/pims:ServiceAccount",
          id: ids.id,
          outputs: {
            serviceAccountId: ids.id,
            previousServiceAccountId: ids.previous,
            retiredServiceAccountIds: ids.retired ?? [],
            token,
          },
        },
      ],
    },
  });
}
function stateFile(name: string, text: string): string {
  const f = path.join(dir, name);
  fs.writeFileSync(f, text);
  return f;
}

/** A project with 5 accounts named "ci": the current, previous and retired one of a stack, and two orphans. */
async function seed(): Promise<{ p: string; current: string; previous: string; retired: string; orphans: string[] }> {
  const p = cli.sim.addProject().id;
  const client = testClient(cli.sim);
  const ids: string[] = [];
  for (let i = 0; i < 5; i++)
    ids.push((await client.createServiceAccount(p, { name: "ci", description: "", grants: [p], expiresIn: 0 })).id);
  const [retired, previous, current, ...orphans] = ids;
  return { p, current, previous, retired, orphans };
}

describe("pims service-accounts list --state", () => {
  it("STACK column: yes for current, previous, retired accounts of the stack, no for orphans; deletion", async () => {
    const s = await seed();
    const file = stateFile("dev.json", exportOf({ id: s.current, previous: s.previous, retired: [s.retired] }));
    const r = await pims(["service-accounts", "list", s.p, "--state", file]);
    expect(r.code).toBe(0);
    const [header, ...rest] = lines(r.stdout);
    expect(header).toMatch(/^ID\s+NAME\s+STATUS\s+CREATED\s+EXPIRES\s+STACK$/);
    const marks = Object.fromEntries(
      rest.filter((l) => /^sa-/.test(l)).map((l) => [l.split(/\s+/)[0], l.split(/\s+/).pop()]),
    );
    expect(marks).toEqual({
      [s.current]: "yes",
      [s.previous]: "yes",
      [s.retired]: "yes",
      [s.orphans[0]]: "no",
      [s.orphans[1]]: "no",
    });
    expect(r.stdout).toContain(`2 accounts with STACK no are held by none of the states given`);
    expect(r.stdout).toContain(`pims service-accounts delete ${s.p} <id>`);
    expect(r.stdout + r.stderr).not.toContain(CIPHERTEXT);
  });

  it("--json with the export on stdin (-), two states (repeatable): each account has stack true/false", async () => {
    const s = await seed();
    const other = stateFile("other.json", exportOf({ id: s.orphans[0] }));
    const r = await pims(["service-accounts", "list", s.p, "--json", "--state", "-", "--state", other], {
      stdin: exportOf({ id: s.current }),
    });
    expect(r.code).toBe(0);
    const { accounts } = JSON.parse(r.stdout) as { accounts: Array<{ id: string; stack: boolean }> };
    const held = accounts.filter((a) => a.stack).map((a) => a.id);
    expect(held.sort()).toEqual([s.current, s.orphans[0]].sort());
    expect(accounts).toHaveLength(5);
    expect(r.stdout).not.toContain(CIPHERTEXT);
  });

  it("an unreadable state or not an export: usage error (exit 2) before any request, quoting none of it", async () => {
    const { p } = await seed();
    cli.sim.clearRequests();
    const missing = await pims(["service-accounts", "list", p, "--state", path.join(dir, "nope.json")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`--state: cannot read ${path.join(dir, "nope.json")} (ENOENT)`);
    const notExport = stateFile("notes.txt", `token: ${CIPHERTEXT}`);
    const bad = await pims(["service-accounts", "list", p, "--state", notExport]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("is not the JSON of `pulumi stack export`");
    expect(bad.stdout + bad.stderr).not.toContain(CIPHERTEXT);
    expect(cli.sim.requests).toEqual([]);
  });

  it("--allow-empty-state without --state is a usage error (exit 2)", async () => {
    const r = await pims(["service-accounts", "list", cli.sim.addProject().id, "--allow-empty-state"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--allow-empty-state goes with --state");
  });
});

/** The real exports: every state fixture of each host, by the type token that host writes. */
const EXPORTS = (
  [
    ["TypeScript", "dynamic", typeToken],
    ["YAML (the plugin)", "plugin", nativeToken],
  ] as const
).flatMap(([program, host, type]) =>
  listFixtures(host).map((fixture) => ({ program, version: path.basename(fixture.dir), fixture, type })),
);

/** The fixture's export as a user passes it: the committed state.json, untouched. */
const exportFile = (f: Fixture): string => path.join(f.dir, "state.json");

/**
 * Serves what the export's stack holds (every account of its ServiceAccounts: current, previous, retired) and one
 * account `gone` of the same project that no state holds.
 */
function serveExport(f: Fixture, type: (kind: ResourceKind) => string): { p: string; held: string[]; gone: string } {
  const stored = resourcesOfType(f.state, type("ServiceAccount"));
  expect(stored.length).toBeGreaterThan(0);
  const held = new Set<string>();
  const projects = new Set<string>();
  for (const r of stored) {
    const { projectId, name } = r.outputs as { projectId: string; name: string };
    if (!projects.has(projectId)) cli.sim.addProject({ id: projectId });
    projects.add(projectId);
    for (const { id } of accountsOf(r)) {
      if (!held.has(id)) cli.sim.addServiceAccount({ id, projectId, name });
      held.add(id);
    }
  }
  expect(projects.size).toBe(1);
  const [p] = projects;
  return { p, held: [...held], gone: cli.sim.addServiceAccount({ projectId: p, name: "gone" }).id };
}

describe.each(EXPORTS)("pims service-accounts list --state: the export of a $program stack, $version", (e) => {
  it("exactly the account the stack does not hold is STACK no, in the table and in --json", async () => {
    const { p, held, gone } = serveExport(e.fixture, e.type);
    const r = await pims(["service-accounts", "list", p, "--state", exportFile(e.fixture)]);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
    const marks = Object.fromEntries(
      lines(r.stdout)
        .filter((l) => /^sa-/.test(l))
        .map((l) => [l.split(/\s+/)[0], l.split(/\s+/).pop()]),
    );
    expect(marks).toEqual({ ...Object.fromEntries(held.map((id) => [id, "yes"])), [gone]: "no" });
    expect(r.stdout).toContain("1 account with STACK no is held by none of the states given");

    const j = await pims(["service-accounts", "list", p, "--json", "--state", exportFile(e.fixture)]);
    expect(j.code).toBe(0);
    const { accounts } = JSON.parse(j.stdout) as { accounts: Array<{ id: string; stack: boolean }> };
    expect(accounts.filter((a) => !a.stack).map((a) => a.id)).toEqual([gone]);
    expect(accounts.filter((a) => a.stack).map((a) => a.id)).toEqual(expect.arrayContaining(held));
    expect(accounts).toHaveLength(held.length + 1);
  });
});

/**
 * Exports that hold no ServiceAccount, from the newest real export of each host: its ServiceAccounts taken out (as
 * `pulumi state delete` of each leaves it, or another stack of the program), and its resources taken out (what the
 * engine exports for a stack never updated: `deployment` without `resources`, as Pulumi 3.259.0 writes it).
 */
const EMPTY = (["TypeScript", "YAML (the plugin)"] as const).flatMap((program) => {
  const e = EXPORTS.filter((x) => x.program === program).pop();
  if (!e) throw new Error(`no state fixture of a ${program} stack`);
  const { deployment } = e.fixture.state;
  const { resources = [], ...rest } = deployment as { resources?: Array<{ type: string }> };
  const others = resources.filter((r) => r.type !== e.type("ServiceAccount"));
  return [
    {
      what: `${e.version} without its ServiceAccounts`,
      e,
      text: { ...e.fixture.state, deployment: { ...rest, resources: others } },
    },
    { what: `${e.version} of a stack never updated`, e, text: { ...e.fixture.state, deployment: rest } },
  ];
});

describe.each(EMPTY)("pims service-accounts list --state: an export holding no ServiceAccount ($what)", (c) => {
  it("is refused before any request, naming the file (exit 2); --allow-empty-state: all STACK no", async () => {
    const { p, held, gone } = serveExport(c.e.fixture, c.e.type);
    const file = stateFile(`${c.what.replace(/\W+/g, "-")}.json`, JSON.stringify(c.text));
    cli.sim.clearRequests();
    const r = await pims(["service-accounts", "list", p, "--state", file]);
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 2, stdout: "" });
    expect(r.stderr).toContain(`--state: ${file} holds no pims ServiceAccount`);
    expect(r.stderr).toContain("add --allow-empty-state");
    expect(cli.sim.requests).toEqual([]);

    const allowed = await pims(["service-accounts", "list", p, "--json", "--state", file, "--allow-empty-state"]);
    expect(allowed.code).toBe(0);
    const { accounts } = JSON.parse(allowed.stdout) as { accounts: Array<{ id: string; stack: boolean }> };
    expect(accounts.map((a) => [a.id, a.stack]).sort()).toEqual([...held, gone].map((id) => [id, false]).sort());
  });
});
