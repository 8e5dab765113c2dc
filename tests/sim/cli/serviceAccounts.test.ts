/**
 * `pims service-accounts list|delete|import-file` against the simulator: what is listed (never key material), what is
 * deleted, what `pulumi import --file` is given.
 */
import { lines, type RunResult, useCliSuite } from "../../kit/sim/cli";
import { expectNoPlaintextSecrets } from "../../kit/secrets/secrets";
import { testClient } from "../../kit/sim/client";

const { pims, sim } = useCliSuite();

// ---- service-accounts -------------------------------------------------------------------------------------

describe("pims service-accounts", () => {
  const userKey = "pims_live_user_key_value_0123456789";
  /** A project with two accounts named "ci" (e.g. one orphan), one named "web", and a user key (no principal). */
  async function seedAccounts(): Promise<{ p: string; ci: string[]; web: string }> {
    const p = sim.addProject().id;
    const client = testClient(sim);
    const create = async (name: string, expiresIn: number): Promise<string> =>
      (await client.createServiceAccount(p, { name, description: "", grants: [p], expiresIn })).id;
    const ci1 = await create("ci", 3600);
    sim.advanceClock(60_000);
    const ci2 = await create("ci", 0);
    const web = await create("web", 86_400);
    sim.addApiKey(p, { name: "ci", apiKey: userKey });
    return { p, ci: [ci1, ci2], web };
  }
  /** Neither a token the service issued nor any key value (full or as the service masks it) was printed. */
  function expectNoKeyMaterial(r: RunResult): void {
    expectNoPlaintextSecrets(r.stdout + r.stderr, [...sim.issuedSecrets(), userKey], "the CLI output");
    expect(r.stdout + r.stderr).not.toMatch(/pims_\.\.\.|pims…|pims_sa_|pims_live_/);
  }

  it("list: a row per account with a key (id, name, status, created, expires), no key value, no user key", async () => {
    const { p, ci, web } = await seedAccounts();
    const live = new Map(sim.serviceAccounts(p).map((a) => [a.id, a]));
    const r = await pims(["service-accounts", "list", p]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    const [header, ...rows] = lines(r.stdout);
    expect(header).toMatch(/^ID\s+NAME\s+STATUS\s+CREATED\s+EXPIRES$/);
    expect(rows).toHaveLength(3);
    // Grouped by name, oldest first: the two "ci" accounts side by side.
    expect(rows.map((row) => row.split(/\s+/)[0])).toEqual([...ci, web]);
    const [first, second] = rows;
    expect(first).toMatch(
      new RegExp(`^${ci[0]}\\s+ci\\s+active\\s+${live.get(ci[0])?.createdAt}\\s+${live.get(ci[0])?.tokenExpiresAt}$`),
    );
    expect(second).toMatch(new RegExp(`^${ci[1]}\\s+ci\\s+active\\s+${live.get(ci[1])?.createdAt}\\s+never$`));
    expect(header.indexOf("CREATED")).toBe(first.indexOf(live.get(ci[0])?.createdAt ?? "?"));
    expectNoKeyMaterial(r);
  });

  it("list --json: {accounts} with exactly id, name, status, createdAt, expiresAt", async () => {
    const { p, ci, web } = await seedAccounts();
    const r = await pims(["service-accounts", "list", p, "--json"]);
    expect(r.code).toBe(0);
    const body = JSON.parse(r.stdout) as { accounts: Array<Record<string, string>> };
    expect(body.accounts.map((a) => a.id)).toEqual([...ci, web]);
    for (const a of body.accounts)
      expect(Object.keys(a).sort()).toEqual(["createdAt", "expiresAt", "id", "name", "status"]);
    const live = sim.serviceAccounts(p).find((a) => a.id === web);
    expect(body.accounts[2]).toEqual({
      id: web,
      name: "web",
      status: "active",
      createdAt: live?.createdAt,
      expiresAt: live?.tokenExpiresAt,
    });
    expectNoKeyMaterial(r);
  });

  it("list: says so when no account has a key; an unknown project exits 1", async () => {
    const p = sim.addProject().id;
    sim.addApiKey(p, { name: "user-key", apiKey: userKey });
    const empty = await pims(["service-accounts", "list", p]);
    expect(empty.code).toBe(0);
    expect(empty.stdout.trim()).toBe(`No service accounts with an API key in project ${p}.`);
    expectNoKeyMaterial(empty);
    const unknown = await pims(["service-accounts", "list", "p-nope"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr.trim()).toBe(
      `listing API keys of project p-nope: 404 project p-nope not found (GET ` +
        `${sim.baseUrl}/v2/projects/p-nope/api-keys)`,
    );
  });

  it("delete: prints the service's message, exit 0; the account is gone from the service and from list", async () => {
    const { p, ci } = await seedAccounts();
    sim.clearRequests();
    const r = await pims(["service-accounts", "delete", p, ci[1]]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(`service account ${ci[1]} deleted`);
    expect(r.stderr).toBe("");
    expect(sim.requests.map((q) => `${q.method} ${q.path} ${q.status}`)).toEqual([
      `DELETE /v2/projects/${p}/service-accounts/${ci[1]} 200`,
    ]);
    expect(sim.deletedServiceAccounts()).toContain(ci[1]);
    expect(sim.serviceAccounts(p).map((a) => a.id)).not.toContain(ci[1]);
    const after = await pims(["service-accounts", "list", p, "--json"]);
    expect((JSON.parse(after.stdout) as { accounts: Array<{ id: string }> }).accounts.map((a) => a.id)).not.toContain(
      ci[1],
    );
    expectNoKeyMaterial(r);
  });

  it("delete: an unknown (or already deleted) account exits 1 with the service's message", async () => {
    const { p, ci } = await seedAccounts();
    const unknown = await pims(["service-accounts", "delete", p, "sa-nope"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toBe("");
    expect(unknown.stderr.trim()).toBe(
      `deleting service account sa-nope in project ${p}: 404 service account sa-nope not found (DELETE ` +
        `${sim.baseUrl}/v2/projects/${p}/service-accounts/sa-nope)`,
    );
    expect(sim.serviceAccounts(p)).toHaveLength(3);
    expect((await pims(["service-accounts", "delete", p, ci[0]])).code).toBe(0);
    const again = await pims(["service-accounts", "delete", p, ci[0]]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`404 service account ${ci[0]} not found`);
  });

  it("usage: missing or empty arguments exit 2 without a request; help explains what list can see", async () => {
    for (const args of [
      ["service-accounts"],
      ["service-accounts", "delete", "p-1"],
      ["service-accounts", "delete", "p-1", ""],
      ["service-accounts", "delete", " ", "sa-1"],
      ["service-accounts", "list"],
    ]) {
      const r = await pims(args);
      expect(r.code).toBe(2);
      expect(r.stderr).not.toBe("");
    }
    expect(sim.requests).toHaveLength(0);
    const help = await pims(["service-accounts", "list", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("The service has no operation that lists service accounts");
    const top = await pims(["--help"]);
    expect(top.stdout).toContain("service-accounts");
  });

  it("import-file: one ServiceAccount per account (unique names, <project>/<id>), the project as parent", async () => {
    const { p, ci, web } = await seedAccounts();
    sim.clearRequests();
    const r = await pims(["service-accounts", "import-file", p]);
    expect(r.code).toBe(0);
    const sa = "pims:index:ServiceAccount";
    expect(JSON.parse(r.stdout)).toEqual({
      resources: [
        { type: sa, name: "ci", id: `${p}/${ci[0]}` },
        { type: sa, name: "ci-2", id: `${p}/${ci[1]}` },
        { type: sa, name: "web", id: `${p}/${web}` },
      ],
    });
    expect(r.stderr).toContain(`3 service account(s) of project ${p} written to stdout`);
    expect(sim.requests.map((q) => `${q.method} ${q.path}`)).toEqual([`GET /v2/projects/${p}/api-keys`]);
    expectNoKeyMaterial(r);

    const withProject = await pims(["service-accounts", "import-file", p, "--project", "app", "--skip", ci[0]]);
    const doc = JSON.parse(withProject.stdout) as { resources: Array<Record<string, string>> };
    expect(doc.resources).toEqual([
      { type: "pims:index:Project", name: "app", id: p },
      { type: sa, name: "ci", id: `${p}/${ci[1]}`, parent: "app" },
      { type: sa, name: "web", id: `${p}/${web}`, parent: "app" },
    ]);
    const missing = await pims(["service-accounts", "import-file", "p-nope"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("404");
    expect(missing.stdout).toBe("");
  });
});
