/**
 * `pims service-accounts list <project> --state <file|->` against the simulator: which accounts a stack holds, read
 * from `pulumi stack export` JSON (a ServiceAccount's id, serviceAccountId, previousServiceAccountId and
 * retiredServiceAccountIds), so the orphans of a failed `up` against a slow service stand out. Only ids are read from
 * the export: nothing else of it (its encrypted secrets above all) is ever printed.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { tempDir } from "../../../scripts/engine";
import { SECRET_SIG, SECRET_VALUE } from "../../kit/engine/engine";
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
});
