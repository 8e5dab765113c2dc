/**
 * `pims tokens` against the simulator: the order by expiry, the window and its exit code (4), --json, an empty
 * project, `never` and null expiries (quirky profile), errors (1, 2), and never a key value in anything printed.
 *
 * The CLI measures time on the service's clock (its `Date` header), the simulator on its own (equal to the machine's
 * unless advanceClock is called): keys are seeded with expiries relative to Date.now(), service accounts with
 * expiresIn on an unadvanced simulator clock; the skew case (issue 55, row 16) moves the simulator's clock.
 */
import { maskSecret } from "../../../cli/format";
import type { TokenView } from "../../../cli/tokens";
import type { PimsSimulator } from "../../../simulator";
import { type CliSuite, lines, type RunResult, useCliSuite } from "../../kit/sim/cli";
import { expectNoPlaintextSecrets } from "../../kit/secrets/secrets";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const at = (msFromNow: number): string => new Date(Date.now() + msFromNow).toISOString();

interface TokensJson {
  project: string;
  now: string;
  within: string | null;
  withinSeconds: number | null;
  tokens: TokenView[];
  expiring: number;
}

/**
 * Every `apiKey` value of the project as the service sends it (`GET /v2/projects/{project_id}/api-keys`, read here
 * without the client), with the secrets the simulator issued: none may appear in what the CLI printed, not even masked.
 */
async function expectNoKeyValues(sim: PimsSimulator, project: string, ...runs: RunResult[]): Promise<void> {
  const res = await fetch(`${sim.baseUrl}/v2/projects/${project}/api-keys`, {
    headers: { Authorization: `Bearer ${sim.token}` },
  });
  const values = ((await res.json()) as Array<{ apiKey: string }>).map((k) => k.apiKey);
  expect(values.length).toBeGreaterThan(0);
  const printed = runs.map((r) => `${r.stdout}\n${r.stderr}`).join("\n");
  expectNoPlaintextSecrets(
    printed,
    [...values, ...values.map(maskSecret), ...sim.issuedSecrets()],
    "pims tokens output",
  );
  expect(printed).not.toContain("…"); // maskSecret's ellipsis: no masked value either
  expect(printed).not.toMatch(/apiKey/);
}

function seeded(cli: CliSuite): { p: string; sa: string } {
  const sim = cli.sim;
  const p = sim.addProject().id;
  sim.addApiKey(p, { name: "month", apiKey: "pims_live_month_0123456789abcdef", expiresAt: at(30 * DAY) });
  sim.addApiKey(p, { name: "forever", apiKey: "pims_live_forever_0123456789abcdef", expiresAt: "never" });
  sim.addApiKey(p, {
    name: "soon",
    apiKey: "pims_live_soon_0123456789abcdef",
    expiresAt: at(2 * HOUR + 30_000),
    principalId: "sa-soon",
  });
  // A live service account: its key's expiry is computed by the simulator (3 days on its clock, not advanced here).
  const sa = sim.addServiceAccount({
    projectId: p,
    name: "ci-deployer",
    expiresIn: 3 * 86_400,
    tokenSecret: "pims_sa_secret_for_the_scan_0001",
  }).id;
  return { p, sa };
}

describe("pims tokens (default profile)", () => {
  const cli = useCliSuite({ profile: "default" });
  const { pims } = cli;

  it("lists every token soonest first, never last, with the time left, and exits 0 without a window", async () => {
    const { p, sa } = seeded(cli);
    const r = await pims(["tokens", p]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    const [header, ...rows] = lines(r.stdout);
    expect(header).toMatch(/^ID\s+NAME\s+PRINCIPAL\s+STATUS\s+EXPIRES AT\s+TIME LEFT$/);
    expect(rows).toHaveLength(4);
    expect(rows[0]).toMatch(/^key-\w+\s+soon\s+sa-soon\s+active\s+\S+Z\s+(2h|1h 59m)$/);
    expect(rows[1]).toMatch(new RegExp(`^\\S+\\s+ci-deployer\\s+${sa}\\s+active\\s+\\S+Z\\s+(3d|2d 23h)$`));
    expect(rows[2]).toMatch(/^key-\w+\s+month\s+-\s+active\s+\S+Z\s+(30d|29d 23h)$/);
    expect(rows[3]).toMatch(/^key-\w+\s+forever\s+-\s+active\s+never\s+never$/);
    // Columns line up: each row's expiry starts under the header's EXPIRES AT.
    expect(rows.map((row) => row.search(/\d{4}-\d{2}-\d{2}T|never/))).toEqual(
      rows.map(() => header.indexOf("EXPIRES AT")),
    );
    await expectNoKeyValues(cli.sim, p, r);
  });

  it("exits 0 when nothing expires within the window, and marks every row no", async () => {
    const { p } = seeded(cli);
    const r = await pims(["tokens", p, "--expiring-within", "90m"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    const [header, ...rows] = lines(r.stdout);
    expect(header).toMatch(/\s+TIME LEFT\s+WITHIN 90m$/);
    expect(rows.map((row) => row.split(/\s+/).pop())).toEqual(["no", "no", "no", "no"]);
  });

  it("exits 4 when a token expires within the window, with one stderr line per such token", async () => {
    const { p, sa } = seeded(cli);
    const r = await pims(["tokens", p, "--expiring-within", "3h"]);
    expect(r.code).toBe(4);
    expect(lines(r.stdout).map((row) => row.split(/\s+/).pop())).toEqual(["3h", "yes", "no", "no", "no"]);
    expect(lines(r.stderr)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^expiring: soon \\(key-\\w+, ` +
            `service account sa-soon\\) in project ${p} expires at \\S+Z \\((2h|1h 59m) left\\)$`,
        ),
      ),
    ]);

    // A wider window takes in the service account's token (3 days) too,
    // not the 30-day key or the one that never expires.
    const wide = await pims(["tokens", p, "--expiring-within", "4d"]);
    expect(wide.code).toBe(4);
    expect(lines(wide.stderr)).toHaveLength(2);
    expect(lines(wide.stderr)[1]).toContain(`ci-deployer (`);
    expect(lines(wide.stderr)[1]).toContain(`service account ${sa})`);
    await expectNoKeyValues(cli.sim, p, r, wide);
  });

  it("counts an already expired token whatever the window (0s included), shown as expired … ago", async () => {
    const p = cli.sim.addProject().id;
    cli.sim.addApiKey(p, { name: "later", apiKey: "pims_live_later_0123456789abcdef", expiresAt: at(10 * DAY) });
    cli.sim.addApiKey(p, {
      name: "stale",
      apiKey: "pims_live_stale_0123456789abcdef",
      expiresAt: at(-(2 * HOUR + 60_000)),
      status: "expired",
    });
    const r = await pims(["tokens", p, "--expiring-within", "0s"]);
    expect(r.code).toBe(4);
    const rows = lines(r.stdout);
    expect(rows[1]).toMatch(/^key-\w+\s+stale\s+-\s+expired\s+\S+Z\s+expired 2h 1m ago\s+yes$/);
    expect(rows[2]).toMatch(/\s+later\s+.*\s+no$/);
    expect(lines(r.stderr)).toEqual([
      expect.stringMatching(
        /^expiring: stale \(key-\w+, no service account\) in project \S+ expired at \S+Z \(expired 2h 1m ago\)$/,
      ),
    ]);
    await expectNoKeyValues(cli.sim, p, r);
  });

  it("--json: the stable object, every member present, same exit code", async () => {
    const { p, sa } = seeded(cli);
    const before = Date.now();
    const r = await pims(["tokens", p, "--expiring-within", "1d", "--json"]);
    expect(r.code).toBe(4);
    const body = JSON.parse(r.stdout) as TokensJson;
    expect(Object.keys(body)).toEqual(["project", "now", "within", "withinSeconds", "tokens", "expiring"]);
    expect(body).toMatchObject({ project: p, within: "1d", withinSeconds: 86_400, expiring: 1 });
    const now = Date.parse(body.now);
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
    expect(body.tokens.map((t) => [t.name, t.principalId, t.status, t.expiring])).toEqual([
      ["soon", "sa-soon", "active", true],
      ["ci-deployer", sa, "active", false],
      ["month", null, "active", false],
      ["forever", null, "active", false],
    ]);
    for (const t of body.tokens)
      expect(Object.keys(t)).toEqual(["id", "name", "principalId", "status", "expiresAt", "secondsLeft", "expiring"]);
    // secondsLeft is measured from `now`, on the machine clock.
    const soon = body.tokens[0];
    expect(soon.secondsLeft).toBe(Math.floor((Date.parse(soon.expiresAt ?? "") - now) / 1000));
    expect(soon.secondsLeft).toBeGreaterThan(2 * 3600 - 30);
    expect(body.tokens[3]).toMatchObject({ expiresAt: "never", secondsLeft: null });
    // The same stderr line as the table form: a cron job mails it either way.
    expect(lines(r.stderr)).toEqual([expect.stringMatching(/^expiring: soon /)]);
    await expectNoKeyValues(cli.sim, p, r);

    const plain = JSON.parse((await pims(["tokens", p, "--json"])).stdout) as TokensJson;
    expect(plain).toMatchObject({ within: null, withinSeconds: null, expiring: 0 });
    expect(plain.tokens.every((t) => !t.expiring)).toBe(true);
  });

  it("--service-accounts keeps only the keys with a principal", async () => {
    const { p, sa } = seeded(cli);
    const r = await pims(["tokens", p, "--service-accounts", "--json"]);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as TokensJson).tokens.map((t) => t.principalId)).toEqual(["sa-soon", sa]);
  });

  it("a project with no keys: says so, exits 0 with or without a window; --json gives an empty list", async () => {
    const p = cli.sim.addProject().id;
    const r = await pims(["tokens", p, "--expiring-within", "7d"]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(`No tokens (API keys) in project ${p}: nothing expires.`);
    expect(r.stderr).toBe("");
    const j = await pims(["tokens", p, "--json", "--expiring-within", "7d"]);
    expect(j.code).toBe(0);
    expect(JSON.parse(j.stdout)).toEqual({
      project: p,
      now: expect.any(String),
      within: "7d",
      withinSeconds: 604_800,
      tokens: [],
      expiring: 0,
    });
  });

  it("a project the service does not know: exit 1 with the service's message", async () => {
    const r = await pims(["tokens", "p-nope", "--expiring-within", "7d"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim()).toBe(
      `listing API keys of project p-nope: 404 project p-nope not found (GET ` +
        `${cli.sim.baseUrl}/v2/projects/p-nope/api-keys)`,
    );
  });

  it.each([["1y"], ["7"], ["-1d"], ["1.5h"], ["soon"], ["99999999999999999d"]])(
    "--expiring-within %j is a usage error (exit 2) before any request",
    async (bad) => {
      const p = cli.sim.addProject().id;
      cli.sim.clearRequests();
      const r = await pims(["tokens", p, "--expiring-within", bad]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(
        `error: --expiring-within must be a duration such as 30s, 15m, 2h, 7d (got ${JSON.stringify(bad)})`,
      );
      expect(r.stdout).toBe("");
      expect(cli.sim.requests).toEqual([]);
    },
  );

  it("the top-level help lists exit code 4", async () => {
    const r = await pims(["--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ {2}4 {2}tokens --expiring-within: a token expires/m);
    expect(r.stdout).toMatch(/^ {2}tokens \[options\] <project>/m);
  });

  it("issue 63: --help says the times are the service's clock (as measured below), not this machine's", async () => {
    const r = await pims(["tokens", "--help"]);
    expect(r.code).toBe(0);
    const help = r.stdout.replace(/\s+/g, " ");
    expect(help).toContain("Times are measured on the service's clock");
    expect(help).not.toMatch(/this machine's clock(?! when)/);
  });

  it("issue 55 row 16: time left and the window on the service's clock, an hour ahead of or behind ours", async () => {
    const { sim } = cli;
    const p = sim.addProject().id;
    sim.advanceClock(-HOUR); // behind: a 3 h token has 2 h left on our clock, 3 h on the service's
    sim.addServiceAccount({ projectId: p, name: "behind", expiresIn: 3 * 3600 });
    const behind = await pims(["tokens", p, "--expiring-within", "150m", "--json"]);
    expect(behind.code).toBe(0);
    const b = JSON.parse(behind.stdout) as TokensJson;
    expect(Math.abs(Date.parse(b.now) - (Date.now() - HOUR))).toBeLessThan(60_000);
    expect(b.tokens[0]).toMatchObject({ name: "behind", expiring: false });
    expect(b.tokens[0].secondsLeft).toBeGreaterThan(3 * 3600 - 60);

    sim.advanceClock(2 * HOUR); // ahead: 1 h left on the service's clock, 2 h on ours by the stored expiry
    const ahead = await pims(["tokens", p, "--expiring-within", "90m"]);
    expect(ahead.code).toBe(4);
    expect(lines(ahead.stderr)).toEqual([expect.stringMatching(/^expiring: behind .* \((1h|59m( \d+s)?) left\)$/)]);
  });
});

describe("pims tokens (quirky profile: expiresAt null for never, principalId null)", () => {
  const cli = useCliSuite({ profile: "quirky" });
  const { pims } = cli;

  it("a null expiry is never: listed last, never flagged; a null principal is -", async () => {
    const p = cli.sim.addProject().id;
    cli.sim.addApiKey(p, { name: "forever", apiKey: "pims_live_forever_0123456789abcdef", expiresAt: "never" });
    cli.sim.addApiKey(p, {
      name: "week",
      apiKey: "pims_live_week_0123456789abcdef",
      expiresAt: at(6 * DAY + 3 * HOUR + 60_000),
    });
    cli.sim.addServiceAccount({
      projectId: p,
      name: "eternal",
      expiresIn: 0,
      tokenSecret: "pims_sa_secret_eternal_for_scan_02",
    });

    // The wire really says null (read without the client).
    const wire = (await (
      await fetch(`${cli.sim.baseUrl}/v2/projects/${p}/api-keys`, {
        headers: { Authorization: `Bearer ${cli.sim.token}` },
      })
    ).json()) as Array<{
      expiresAt: unknown;
    }>;
    expect(wire.map((k) => k.expiresAt)).toEqual([expect.any(String), null, null]);

    const r = await pims(["tokens", p, "--expiring-within", "7d"]);
    expect(r.code).toBe(4);
    const rows = lines(r.stdout);
    expect(rows[1]).toMatch(/^key-\w+\s+week\s+-\s+active\s+\S+Z\s+6d 3h\s+yes$/);
    expect(rows.slice(2).map((row) => row.replace(/^\S+\s+/, "").split(/\s{2,}/))).toEqual(
      expect.arrayContaining([
        ["forever", "-", "active", "never", "never", "no"],
        ["eternal", expect.stringMatching(/^sa-/), "active", "never", "never", "no"],
      ]),
    );
    expect(lines(r.stderr)).toHaveLength(1);

    const j = JSON.parse((await pims(["tokens", p, "--json"])).stdout) as TokensJson;
    expect(j.tokens[0]).toMatchObject({ name: "week", expiring: false, secondsLeft: expect.any(Number) });
    expect(j.tokens.slice(1).map((t) => [t.expiresAt, t.secondsLeft, t.expiring])).toEqual([
      ["never", null, false],
      ["never", null, false],
    ]);
    expect(j.tokens.find((t) => t.name === "forever")?.principalId).toBeNull();
    await expectNoKeyValues(cli.sim, p, r);
  });
});
