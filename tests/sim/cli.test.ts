/**
 * The `pims` command-line tool, run as a child process (the compiled bin/cli/pims.js under Node 22) against the
 * simulator: exit codes, what it prints, follow modes, and that the token never appears in its output.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { MissingCredentialsError } from "../../provider/credentials";
import type { PimsSimulator } from "../../simulator";
import { expectNoPlaintextSecrets, startSimulator, testClient } from "../helpers";

const ROOT = path.resolve(__dirname, "../..");
const CLI = path.join(ROOT, "bin", "cli", "pims.js");
const NODE_BIN_DIR = path.join(ROOT, "node_modules", ".bin");
const NODE = fs.existsSync(path.join(NODE_BIN_DIR, "node")) ? path.join(NODE_BIN_DIR, "node") : process.execPath;

let sim: PimsSimulator;
/** Everything every CLI run printed in the current test, scanned for the token afterwards. */
let transcript: string[] = [];

interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

interface RunOptions {
  /** Replaces variables; undefined removes one. */
  env?: Record<string, string | undefined>;
  /** Called whenever stdout grows, with everything printed so far, and the child (e.g. to signal it). */
  onStdout?: (stdout: string, child: ChildProcess) => void;
  timeoutMs?: number;
}

/** Runs `pims <args>` asynchronously (the simulator lives in this process and must keep serving). */
function pims(args: string[], o: RunOptions = {}): Promise<RunResult> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    PATH: `${NODE_BIN_DIR}${path.delimiter}${process.env.PATH ?? ""}`,
    PIMS_TOKEN: sim.token,
    PIMS_BASE_URL: sim.baseUrl,
    PIMS_RETRY_MIN_DELAY_MS: "5",
    PULUMI_CONFIG: undefined,
    ...o.env,
  };
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, [CLI, ...args], { env: env as NodeJS.ProcessEnv, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`pims ${args.join(" ")} did not exit within ${o.timeoutMs ?? 20_000} ms; stdout so far:\n${stdout}\nstderr:\n${stderr}`));
    }, o.timeoutMs ?? 20_000);
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      stdout += d;
      o.onStdout?.(stdout, child);
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      transcript.push(stdout, stderr);
      resolve({ code, stdout, stderr });
    });
  });
}

const lines = (text: string): string[] => text.split("\n").filter((l) => l !== "");

beforeAll(() => {
  // bin/ is built by the tier's global setup (tests/buildOnce.ts) when it is stale.
  expect(fs.existsSync(CLI)).toBe(true);
});

beforeEach(async () => {
  sim = await startSimulator();
  transcript = [];
});

afterEach(async () => {
  // PIMS_TOKEN must never be printed, whatever the command did.
  expectNoPlaintextSecrets(transcript.join("\n"), [sim.token], "the CLI's stdout/stderr");
  await sim.stop();
});

function seedApp(): { p: string; app: string } {
  const p = sim.addProject().id;
  return { p, app: sim.addApp(p, "web").id };
}

/** Resolves when `cond()` holds; fails after `ms`. */
async function waitFor(cond: () => boolean, what: string, ms = 10_000): Promise<void> {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

// ---- general -----------------------------------------------------------------------------------------------

describe("pims", () => {
  it("--help lists the commands and the exit codes (exit 0); --version prints the package version", async () => {
    const help = await pims(["--help"]);
    expect(help.code).toBe(0);
    for (const s of ["logs", "build-logs", "runs", "api-keys", "invoices", "Exit codes:", "PIMS_TOKEN"]) expect(help.stdout).toContain(s);
    const version = await pims(["--version"]);
    expect(version.code).toBe(0);
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string };
    expect(version.stdout.trim()).toBe(pkg.version);
    const buildHelp = await pims(["build-logs", "--help"]);
    expect(buildHelp.stdout).toContain("1 the build failed");
  });

  it.each([
    [[], "no command"],
    [["frobnicate"], "unknown command"],
    [["logs", "p-1"], "missing argument"],
    [["invoices", "p-1", "extra"], "too many arguments"],
    [["logs", "p-1", "a", "--page-size", "0"], "--page-size must be an integer from 1 to 1000"],
    [["logs", "p-1", "a", "--page-size", "1001"], "--page-size must be an integer from 1 to 1000"],
    [["logs", "p-1", "a", "--stream", "stdin"], "Allowed choices are stdout, stderr"],
    [["logs", "p-1", "a", "--direction", "sideways"], "Allowed choices are forward, backward"],
    [["logs", "p-1", "a", "--limit", "0"], "--limit must be an integer from 1 to 100000"],
    [["logs", "p-1", "a", "--before", "yesterday"], "--before must be an RFC 3339 timestamp"],
    [["logs", "p-1", "a", "--follow", "--before", "1h"], "--follow cannot be combined with --before"],
    [["logs", "p-1", "a", "--max-polls", "2"], "--max-polls only applies with --follow"],
    [["api-keys", "p-1", "--show-secrets"], "--show-secrets only applies with --json"],
    [["invoices", "p-1", "--base-url", "ftp://x"], "--base-url must be an http:// or https:// URL"],
  ])("usage error %j exits 2 without a request (%s)", async (args, expected) => {
    const r = await pims(args as string[]);
    expect(r.code).toBe(2);
    if (!["no command", "unknown command", "missing argument", "too many arguments"].includes(expected)) expect(r.stderr).toContain(expected);
    expect(r.stderr).not.toBe("");
    expect(sim.requests).toHaveLength(0);
  });

  it("missing PIMS_TOKEN or base URL: the MissingCredentialsError text, exit 2", async () => {
    const noToken = await pims(["invoices", "p-1"], { env: { PIMS_TOKEN: undefined } });
    expect(noToken.code).toBe(2);
    expect(noToken.stderr.trim()).toBe(new MissingCredentialsError(["token"]).message);
    const nothing = await pims(["invoices", "p-1"], { env: { PIMS_TOKEN: undefined, PIMS_BASE_URL: undefined } });
    expect(nothing.code).toBe(2);
    expect(nothing.stderr.trim()).toBe(new MissingCredentialsError(["token", "baseUrl"]).message);
    expect(sim.requests).toHaveLength(0);
  });

  it("--base-url replaces PIMS_BASE_URL", async () => {
    const { p } = seedApp();
    sim.addInvoice(p, { id: "in_flag" });
    const r = await pims(["--base-url", sim.baseUrl, "invoices", p, "--json"], { env: { PIMS_BASE_URL: undefined } });
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { invoices: Array<{ id: string }> }).invoices.map((i) => i.id)).toEqual(["in_flag"]);
    const after = await pims(["invoices", p, "--base-url", sim.baseUrl], { env: { PIMS_BASE_URL: "http://127.0.0.1:9" } });
    expect(after.code).toBe(0);
  });

  it("a service error exits 1 with `action: status message` on stderr", async () => {
    const r = await pims(["invoices", "p-nope"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim()).toBe("listing invoices of project p-nope: 404 project p-nope not found");
  });

  it("a bad token exits 1 with the 401 message, and neither token is printed", async () => {
    const { p } = seedApp();
    const badToken = "pims_sa_not_a_real_token_but_long_enough";
    const r = await pims(["api-keys", p], { env: { PIMS_TOKEN: badToken } });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(`listing API keys of project ${p}: 401 invalid or missing bearer token`);
    expectNoPlaintextSecrets(r.stdout + r.stderr, [badToken], "the CLI output");
  });

  it("--verbose prints each retry on stderr; without it retries are silent", async () => {
    const { p } = seedApp();
    sim.addInvoice(p, { id: "in_1" });
    sim.addFault({ method: "GET", path: `/v2/projects/${p}/invoices`, kind: "status", status: 503, times: 2 });
    const verbose = await pims(["--verbose", "invoices", p]);
    expect(verbose.code).toBe(0);
    const retryLines = lines(verbose.stderr).filter((l) => l.startsWith("retry "));
    expect(retryLines).toHaveLength(2);
    expect(retryLines[0]).toMatch(new RegExp(`^retry 1: GET /v2/projects/${p}/invoices failed \\(HTTP 503\\); trying again in \\d+ ms$`));
    expect(verbose.stdout).toContain("in_1");

    sim.addFault({ method: "GET", path: `/v2/projects/${p}/invoices`, kind: "status", status: 503, times: 1 });
    const quiet = await pims(["invoices", p]);
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe("");
  });
});

// ---- api-keys and invoices ---------------------------------------------------------------------------------

describe("pims api-keys", () => {
  const fullKey = "pims_live_0123456789abcdefghij_wxyz";

  it("prints an aligned table with masked values", async () => {
    const { p } = seedApp();
    sim.addApiKey(p, { name: "deploy", apiKey: fullKey, expiresAt: "2030-01-01T00:00:00Z", principalId: "sa-1" });
    sim.addApiKey(p, { name: "forever-key", apiKey: "pims_live_zzzzzzzzzzzzzzzzzzzz_0000", expiresAt: "never" });
    const r = await pims(["api-keys", p]);
    expect(r.code).toBe(0);
    const [header, first, second] = lines(r.stdout);
    expect(header).toMatch(/^NAME\s+ID\s+KEY\s+STATUS\s+SOURCE\s+EXPIRES\s+PRINCIPAL$/);
    expect(first).toMatch(/^deploy\s+key-\w+\s+pims…wxyz\s+active\s+user\s+2030-01-01T00:00:00Z\s+sa-1$/);
    expect(second).toMatch(/^forever-key\s+.*\bnever\s+-$/);
    expect(header.indexOf("KEY")).toBe(first.indexOf("pims…"));
    expect(r.stdout).not.toContain(fullKey);
  });

  it("--json masks values unless --show-secrets", async () => {
    const { p } = seedApp();
    sim.addApiKey(p, { name: "deploy", apiKey: fullKey });
    const masked = await pims(["api-keys", p, "--json"]);
    expect(masked.code).toBe(0);
    const body = JSON.parse(masked.stdout) as { keys: Array<{ name: string; apiKey: string; neverExpires: boolean }> };
    expect(body.keys).toEqual([expect.objectContaining({ name: "deploy", apiKey: "pims…wxyz", neverExpires: true })]);
    expect(masked.stdout).not.toContain(fullKey);

    const shown = await pims(["api-keys", p, "--json", "--show-secrets"]);
    expect(shown.code).toBe(0);
    expect((JSON.parse(shown.stdout) as { keys: Array<{ apiKey: string }> }).keys[0].apiKey).toBe(fullKey);
  });

  it("says so when there are no keys", async () => {
    const { p } = seedApp();
    const r = await pims(["api-keys", p]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(`No API keys in project ${p}.`);
  });
});

describe("pims invoices", () => {
  it("prints amounts in major units with the currency, right-aligned", async () => {
    const { p } = seedApp();
    sim.addInvoice(p, { id: "in_usd", amountDue: 1234, currency: "usd", paymentStatus: "open" });
    sim.addInvoice(p, { id: "in_jpy", amountDue: 500, currency: "jpy" });
    sim.addInvoice(p, { id: "in_kwd", amountDue: 1234, currency: "KWD" });
    const r = await pims(["invoices", p]);
    expect(r.code).toBe(0);
    const rows = lines(r.stdout);
    expect(rows[0]).toMatch(/^ID\s+CREATED\s+AMOUNT\s+STATUS\s+ACCOUNT\s+COUNTRY\s+PDF$/);
    expect(rows[1]).toMatch(/^in_usd\s.*\s12\.34 USD\s+open\s+Demo Account\s+US\s+https:\/\/invoices\.example\.com\/in_usd\.pdf$/);
    expect(rows[2]).toContain(" 500 JPY ");
    expect(rows[3]).toContain(" 1.234 KWD ");
    // Right-aligned: the amounts end in the same column as the header AMOUNT.
    const end = rows[0].indexOf("AMOUNT") + "AMOUNT".length;
    expect([rows[1].indexOf("12.34 USD") + 9, rows[2].indexOf("500 JPY") + 7, rows[3].indexOf("1.234 KWD") + 9]).toEqual([end, end, end]);
  });

  it("--json gives the invoices with amountDueMajor", async () => {
    const { p } = seedApp();
    sim.addInvoice(p, { id: "in_eur", amountDue: 1999, currency: "eur" });
    const r = await pims(["invoices", p, "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      invoices: [expect.objectContaining({ id: "in_eur", amountDue: 1999, amountDueMajor: 19.99, currency: "eur", currencyDigits: 2 })],
    });
  });
});

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

  it("list: one row per account that has a key (id, name, status, created, expires), no key value; user keys are not accounts", async () => {
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
    expect(first).toMatch(new RegExp(`^${ci[0]}\\s+ci\\s+active\\s+${live.get(ci[0])?.createdAt}\\s+${live.get(ci[0])?.tokenExpiresAt}$`));
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
    for (const a of body.accounts) expect(Object.keys(a).sort()).toEqual(["createdAt", "expiresAt", "id", "name", "status"]);
    const live = sim.serviceAccounts(p).find((a) => a.id === web);
    expect(body.accounts[2]).toEqual({ id: web, name: "web", status: "active", createdAt: live?.createdAt, expiresAt: live?.tokenExpiresAt });
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
    expect(unknown.stderr.trim()).toBe("listing API keys of project p-nope: 404 project p-nope not found");
  });

  it("delete: prints the service's message, exit 0; the account is gone from the service and from list", async () => {
    const { p, ci } = await seedAccounts();
    sim.clearRequests();
    const r = await pims(["service-accounts", "delete", p, ci[1]]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(`service account ${ci[1]} deleted`);
    expect(r.stderr).toBe("");
    expect(sim.requests.map((q) => `${q.method} ${q.path} ${q.status}`)).toEqual([`DELETE /v2/projects/${p}/service-accounts/${ci[1]} 200`]);
    expect(sim.deletedServiceAccounts()).toContain(ci[1]);
    expect(sim.serviceAccounts(p).map((a) => a.id)).not.toContain(ci[1]);
    const after = await pims(["service-accounts", "list", p, "--json"]);
    expect((JSON.parse(after.stdout) as { accounts: Array<{ id: string }> }).accounts.map((a) => a.id)).not.toContain(ci[1]);
    expectNoKeyMaterial(r);
  });

  it("delete: an unknown (or already deleted) account exits 1 with the service's message", async () => {
    const { p, ci } = await seedAccounts();
    const unknown = await pims(["service-accounts", "delete", p, "sa-nope"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toBe("");
    expect(unknown.stderr.trim()).toBe(`deleting service account sa-nope in project ${p}: 404 service account sa-nope not found`);
    expect(sim.serviceAccounts(p)).toHaveLength(3);
    expect((await pims(["service-accounts", "delete", p, ci[0]])).code).toBe(0);
    const again = await pims(["service-accounts", "delete", p, ci[0]]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`404 service account ${ci[0]} not found`);
  });

  it("usage: missing or empty arguments exit 2 without a request; help explains what list can see", async () => {
    for (const args of [["service-accounts"], ["service-accounts", "delete", "p-1"], ["service-accounts", "delete", "p-1", ""], ["service-accounts", "delete", " ", "sa-1"], ["service-accounts", "list"]]) {
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
});

// ---- logs --------------------------------------------------------------------------------------------------

describe("pims logs", () => {
  function seedThree(p: string, app: string): void {
    sim.addLogs(p, app, [
      { timestamp: "2024-05-01T12:00:00.000Z", logLine: "boot", containerName: "web", runId: "run-a" },
      { timestamp: "2024-05-01T12:00:01.000Z", logLine: "ERROR disk", containerName: "worker", runId: "run-a", stream: "stderr" },
      { timestamp: "2024-05-01T12:00:02.000Z", logLine: "ready", containerName: "web", runId: "run-b" },
    ]);
  }

  it("prints `timestamp [stream] container: line`, oldest first", async () => {
    const { p, app } = seedApp();
    seedThree(p, app);
    const r = await pims(["logs", p, app]);
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toEqual([
      "2024-05-01T12:00:00.000Z [stdout] web: boot",
      "2024-05-01T12:00:01.000Z [stderr] worker: ERROR disk",
      "2024-05-01T12:00:02.000Z [stdout] web: ready",
    ]);
    expect(r.stderr).toBe("");
  });

  it("passes every filter under the service's query names", async () => {
    const { p, app } = seedApp();
    seedThree(p, app);
    const r = await pims([
      "logs", p, app,
      "--before", "2024-05-01T13:00:00Z", "--after", "2024-05-01T11:00:00Z", "--container", "worker", "--run", "run-a",
      "--search", "ERROR", "--stream", "stderr", "--direction", "forward", "--page-size", "50", "--limit", "10",
    ]);
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toEqual(["2024-05-01T12:00:01.000Z [stderr] worker: ERROR disk"]);
    expect(sim.requests.map((q) => q.query)).toEqual([
      {
        beforeDate: "2024-05-01T13:00:00Z", afterDate: "2024-05-01T11:00:00Z", container: "worker", runId: "run-a",
        search: "ERROR", stream: "stderr", direction: "forward", pageSize: "50",
      },
    ]);
  });

  it("--after accepts a duration ago", async () => {
    const { p, app } = seedApp();
    sim.addLogs(p, app, [{ logLine: "just now" }]);
    const before = Date.now();
    const r = await pims(["logs", p, app, "--after", "15m"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("just now");
    const sent = Date.parse(sim.requests[0].query.afterDate);
    expect(Math.abs(sent - (before - 15 * 60_000))).toBeLessThan(10_000);
  });

  it("--limit cuts, says so on stderr, and --json gives {lines, truncated}", async () => {
    const { p, app } = seedApp();
    sim.generateLogs(p, app, 50);
    const r = await pims(["logs", p, app, "--limit", "5"]);
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toHaveLength(5);
    expect(lines(r.stdout)[0]).toContain("(line 45)"); // the newest five, oldest first
    expect(lines(r.stdout)[4]).toContain("#49");
    expect(r.stderr).toContain("showing the newest 5 lines; more exist");

    const j = await pims(["logs", p, app, "--limit", "3", "--json", "--direction", "forward"]);
    expect(j.code).toBe(0);
    const body = JSON.parse(j.stdout) as { lines: Array<{ logLine: string }>; truncated: boolean };
    expect(body.truncated).toBe(true);
    expect(body.lines.map((l) => l.logLine)).toEqual([expect.stringContaining("(line 0)"), expect.stringContaining("(line 1)"), expect.stringContaining("(line 2)")]);
  });

  it("pages through 2500 lines", async () => {
    const { p, app } = seedApp();
    sim.generateLogs(p, app, 2500);
    const r = await pims(["logs", p, app, "--page-size", "200", "--limit", "5000"]);
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toHaveLength(2500);
    expect(sim.countRequests({ method: "GET" })).toBe(13);
  });

  it("an app without logs prints nothing and exits 0; an unknown app exits 1", async () => {
    const { p, app } = seedApp();
    const empty = await pims(["logs", p, app]);
    expect(empty).toMatchObject({ code: 0, stdout: "" });
    const unknown = await pims(["logs", p, `${p}-nope`]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr.trim()).toBe(`reading logs of app ${p}-nope in project ${p}: 404 app ${p}-nope not found`);
  });

  it("--follow prints lines appended between polls exactly once, then stops after --max-polls", async () => {
    const { p, app } = seedApp();
    seedThree(p, app);
    let stage = 0;
    let newOne = "";
    const run = pims(["logs", p, app, "--follow", "--interval", "150", "--max-polls", "8"], {
      onStdout: (out) => {
        if (stage === 0 && lines(out).length >= 3) {
          stage = 1;
          newOne = sim.addLogs(p, app, [{ logLine: "new one" }])[0].timestamp;
        } else if (stage === 1 && out.includes("new one")) {
          stage = 2;
          // Appended after "new one" was printed, in the same millisecond: must be neither lost nor repeated.
          sim.addLogs(p, app, [{ logLine: "same millisecond", timestamp: newOne }]);
        } else if (stage === 2 && out.includes("same millisecond")) {
          stage = 3;
          sim.addLogs(p, app, [{ logLine: "later", stream: "stderr", containerName: "worker" }]);
        }
      },
    });
    const r = await run;
    expect(r.code).toBe(0);
    const printed = lines(r.stdout).map((l) => l.slice(l.indexOf(": ") + 2));
    expect(printed).toEqual(["boot", "ERROR disk", "ready", "new one", "same millisecond", "later"]);
    expect(lines(r.stdout)[5]).toMatch(/ \[stderr\] worker: later$/);
    // One initial read and exactly --max-polls polls, all forward from the newest line seen.
    expect(sim.countRequests({ method: "GET" })).toBe(9);
    const polls = sim.requests.slice(1);
    expect(polls.every((q) => q.query.direction === "forward" && typeof q.query.afterDate === "string")).toBe(true);
  });

  it("--follow --json prints one JSON object per line, no duplicates across polls", async () => {
    const { p, app } = seedApp();
    seedThree(p, app);
    const r = await pims(["logs", p, app, "--follow", "--json", "--interval", "50", "--max-polls", "3"]);
    expect(r.code).toBe(0);
    const objs = lines(r.stdout).map((l) => JSON.parse(l) as { logId: string; logLine: string });
    expect(objs.map((o) => o.logLine)).toEqual(["boot", "ERROR disk", "ready"]);
    expect(new Set(objs.map((o) => o.logId)).size).toBe(3);
    expect(sim.countRequests({ method: "GET" })).toBe(4); // the polls did read the newest line again
    expect(sim.requests.slice(1).every((q) => q.status === 200)).toBe(true);
  });

  it("--follow stops on Ctrl-C (SIGINT) and exits 0", async () => {
    const { p, app } = seedApp();
    seedThree(p, app);
    let signalled = false;
    const r = await pims(["logs", p, app, "--follow", "--interval", "60000"], {
      timeoutMs: 10_000,
      onStdout: (out, child) => {
        if (!signalled && lines(out).length >= 3) {
          signalled = true;
          child.kill("SIGINT");
        }
      },
    });
    expect(signalled).toBe(true);
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toHaveLength(3);
  });

  it("--follow on an empty app picks up the first lines", async () => {
    const { p, app } = seedApp();
    let added = false;
    const run = pims(["logs", p, app, "--follow", "--interval", "100", "--max-polls", "5"]);
    await waitFor(() => sim.countRequests({ method: "GET" }) >= 2, "the first poll");
    sim.addLogs(p, app, [{ logLine: "first" }, { logLine: "second" }]);
    added = true;
    const r = await run;
    expect(added).toBe(true);
    expect(r.code).toBe(0);
    expect(lines(r.stdout).map((l) => l.slice(l.indexOf(": ") + 2))).toEqual(["first", "second"]);
  });
});

// ---- build-logs --------------------------------------------------------------------------------------------

describe("pims build-logs", () => {
  it("prints entries and the status; exit 0 for success, 1 for a failed build", async () => {
    const { p, app } = seedApp();
    const ok = sim.addBuild(p, app, { status: "success", logs: [{ log: "compiling", createdAt: "2024-05-01T12:00:00Z" }, { log: "done", createdAt: "2024-05-01T12:00:05Z" }] });
    const r = await pims(["build-logs", p, app, ok.id]);
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toEqual(["2024-05-01T12:00:00Z compiling", "2024-05-01T12:00:05Z done"]);
    expect(r.stderr.trim()).toBe(`build ${ok.id}: success`);

    const bad = sim.addBuild(p, app, { status: "build_failure", logs: [{ log: "error TS2304" }] });
    const f = await pims(["build-logs", p, app, bad.id]);
    expect(f.code).toBe(1);
    expect(f.stderr.trim()).toBe(`build ${bad.id}: build_failure`);

    const j = await pims(["build-logs", p, app, bad.id, "--json"]);
    expect(j.code).toBe(1);
    expect(JSON.parse(j.stdout)).toMatchObject({ buildId: bad.id, status: "build_failure", finished: true, succeeded: false, logs: [{ log: "error TS2304" }] });
  });

  it("--follow prints only new entries and exits 0 when the build reaches success", async () => {
    const { p, app } = seedApp();
    const b = sim.addBuild(p, app, { status: "building", logs: [{ log: "step 1" }] });
    let stage = 0;
    const r = await pims(["build-logs", p, app, b.id, "--follow", "--interval", "100"], {
      onStdout: (out) => {
        if (stage === 0 && out.includes("step 1")) {
          stage = 1;
          sim.setBuildStatus(p, app, b.id, "building", ["step 2"]);
        } else if (stage === 1 && out.includes("step 2")) {
          stage = 2;
          sim.setBuildStatus(p, app, b.id, "success", ["step 3"]);
        }
      },
    });
    expect(r.code).toBe(0);
    expect(lines(r.stdout).map((l) => l.replace(/^\S+ /, ""))).toEqual(["step 1", "step 2", "step 3"]);
    expect(r.stderr.trim()).toBe(`build ${b.id}: success`);
    expect(sim.countRequests({ method: "GET" })).toBeGreaterThanOrEqual(3);
  });

  it("--follow exits 1 when the build fails", async () => {
    const { p, app } = seedApp();
    const b = sim.addBuild(p, app, { status: "pending" });
    const run = pims(["build-logs", p, app, b.id, "--follow", "--interval", "50", "--json"]);
    await waitFor(() => sim.countRequests({ method: "GET" }) >= 2, "two polls");
    sim.setBuildStatus(p, app, b.id, "init_failure", ["no such image"]);
    const r = await run;
    expect(r.code).toBe(1);
    const objs = lines(r.stdout).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(objs).toEqual([
      expect.objectContaining({ log: "no such image" }),
      { buildId: b.id, status: "init_failure", finished: true, succeeded: false },
    ]);
  });

  it("--follow on an already finished build returns at once", async () => {
    const { p, app } = seedApp();
    const b = sim.addBuild(p, app, { status: "ready", logs: [{ log: "all good" }] });
    const r = await pims(["build-logs", p, app, b.id, "--follow", "--interval", "5000"]);
    expect(r.code).toBe(0);
    expect(sim.countRequests({ method: "GET" })).toBe(1);
    expect(r.stdout).toContain("all good");
  });

  it("--follow --max-polls exits 3 when the build is still running", async () => {
    const { p, app } = seedApp();
    const b = sim.addBuild(p, app, { status: "building" });
    const r = await pims(["build-logs", p, app, b.id, "--follow", "--interval", "20", "--max-polls", "3"]);
    expect(r.code).toBe(3);
    expect(r.stderr.trim()).toBe(`build ${b.id} is still building after 3 polls`);
    expect(sim.countRequests({ method: "GET" })).toBe(3);
  });

  it("--follow interrupted by Ctrl-C while the build runs exits 3", async () => {
    const { p, app } = seedApp();
    const b = sim.addBuild(p, app, { status: "building", logs: [{ log: "step 1" }] });
    let signalled = false;
    const r = await pims(["build-logs", p, app, b.id, "--follow", "--interval", "60000"], {
      timeoutMs: 10_000,
      onStdout: (out, child) => {
        if (!signalled && out.includes("step 1")) {
          signalled = true;
          child.kill("SIGINT");
        }
      },
    });
    expect(r.code).toBe(3);
    expect(r.stderr.trim()).toBe(`build ${b.id} is still building when interrupted`);
  });

  it("an unknown build exits 1 with the service's message", async () => {
    const { p, app } = seedApp();
    const r = await pims(["build-logs", p, app, "build-nope", "--follow"]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(`reading logs of build build-nope of app ${app} in project ${p}: 404 build build-nope not found`);
  });
});

// ---- runs cancel -------------------------------------------------------------------------------------------

describe("pims runs cancel", () => {
  it("cancels a running run: prints the message, exit 0", async () => {
    const { p, app } = seedApp();
    const run = sim.addRun(p, app, { status: "running" });
    const r = await pims(["runs", "cancel", p, app, run.id]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(`run ${run.id} cancelled`);
    expect(sim.runs().find((x) => x.id === run.id)?.status).toBe("cancelled");
  });

  it("a finished run: the service's message on stderr, exit 1, run unchanged", async () => {
    const { p, app } = seedApp();
    const run = sim.addRun(p, app, { status: "finished" });
    const r = await pims(["runs", "cancel", p, app, run.id]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(`cancelling run ${run.id} of app ${app} in project ${p}: 409 run ${run.id} has already finished (status: finished)`);
    expect(sim.runs().find((x) => x.id === run.id)?.status).toBe("finished");
  });

  it("an unknown run: exit 1", async () => {
    const { p, app } = seedApp();
    const r = await pims(["runs", "cancel", p, app, "run-nope"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("404 run run-nope not found");
  });

  it("`pims runs` without a subcommand is a usage error", async () => {
    const r = await pims(["runs"]);
    expect(r.code).toBe(2);
  });
});
