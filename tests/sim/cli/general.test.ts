/**
 * The `pims` CLI as a whole (compiled bin/cli/pims.js against the simulator): help, version, usage errors,
 * credentials, service errors and --verbose.
 */
import { MissingCredentialsError } from "../../../provider/configErrors";
import { lines, useCliSuite } from "../../kit/sim/cli";
import { packageVersion } from "../../../provider/identity";
import { expectNoPlaintextSecrets } from "../../kit/secrets/secrets";

const { pims, seedApp, sim } = useCliSuite();

// ---- general -----------------------------------------------------------------------------------------------

describe("pims", () => {
  it("--help lists the commands and the exit codes (exit 0); --version prints the package version", async () => {
    const help = await pims(["--help"]);
    expect(help.code).toBe(0);
    for (const s of ["logs", "build-logs", "runs", "api-keys", "invoices", "Exit codes:", "PIMS_TOKEN"])
      expect(help.stdout).toContain(s);
    const version = await pims(["--version"]);
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toBe(packageVersion());
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
    [["invoices", "p-1", "--base-url", "ftp://x"], "--base-url must be an absolute http(s) URL"],
  ])("usage error %j exits 2 without a request (%s)", async (args, expected) => {
    const r = await pims(args);
    expect(r.code).toBe(2);
    if (!["no command", "unknown command", "missing argument", "too many arguments"].includes(expected))
      expect(r.stderr).toContain(expected);
    expect(r.stderr).not.toBe("");
    expect(sim.requests).toHaveLength(0);
  });

  it("missing PIMS_TOKEN or base URL: one line naming the variables and --base-url, no stack, exit 2", async () => {
    const cliText = (missing: Array<"token" | "baseUrl">): string =>
      `error: ${new MissingCredentialsError(missing, { audience: "cli" }).message}\n`;
    const noToken = await pims(["invoices", "p-1"], { env: { PIMS_TOKEN: undefined } });
    expect(noToken.code).toBe(2);
    expect(noToken.stdout).toBe("");
    expect(noToken.stderr).toBe(cliText(["token"]));
    expect(noToken.stderr).toContain("PIMS_TOKEN");
    const noAddress = await pims(["api-keys", "p-1"], { env: { PIMS_BASE_URL: "  " } });
    expect(noAddress.code).toBe(2);
    expect(noAddress.stderr).toBe(cliText(["baseUrl"]));
    expect(noAddress.stderr).toMatch(/--base-url <url>.*PIMS_BASE_URL/);
    const nothing = await pims(["logs", "p-1", "a", "--follow"], {
      env: { PIMS_TOKEN: undefined, PIMS_BASE_URL: undefined },
    });
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toBe(cliText(["token", "baseUrl"]));
    for (const r of [noToken, noAddress, nothing]) {
      expect(lines(r.stderr)).toHaveLength(1);
      expect(r.stderr).not.toMatch(/pulumi config|pims:token|pims:baseUrl|\bat .*\.js:\d+|Error:/);
      expect(r.stderr.match(/not configured/g)).toHaveLength(1);
    }
    expect(sim.requests).toHaveLength(0);
  });

  it("an unusable PIMS_BASE_URL or --base-url is named with the rule, exit 2; a trailing /v2 is accepted", async () => {
    const bad = await pims(["invoices", "p-1"], { env: { PIMS_BASE_URL: "api.example.com/v2" } });
    expect(bad.code).toBe(2);
    expect(lines(bad.stderr)).toEqual([
      expect.stringContaining(
        "PIMS_BASE_URL must be an absolute http(s) URL without query, fragment or user:password (got " +
          '"api.example.com/v2"',
      ),
    ]);
    const { p } = seedApp();
    sim.addInvoice(p, { id: "in_v2" });
    const withV2 = await pims(["invoices", p, "--json", "--base-url", `${sim.baseUrl}/v2/`]);
    expect(withV2.code).toBe(0);
    expect(withV2.stdout).toContain("in_v2");
    expect(sim.requests.map((q) => q.path)).toEqual([`/v2/projects/${p}/invoices`]);
  });

  it("plain http to another host: exit 2 naming the rule and PIMS_ALLOW_INSECURE_HTTP; allowed, it works", async () => {
    const { p } = seedApp();
    const refused = await pims(["api-keys", p, "--base-url", "http://192.0.2.1:8080"]);
    expect(refused.code).toBe(2);
    expect(lines(refused.stderr)).toEqual([
      "error: pulumi-pims is not configured correctly: --base-url uses plain http to 192.0.2.1:8080, another machine " +
        '(got "http://192.0.2.1:8080"): the token and every new service-account token would cross the network ' +
        "unencrypted. Use an https:// address; or, on a private network or behind a proxy that terminates TLS, allow " +
        "plain http with PIMS_ALLOW_INSECURE_HTTP=true",
    ]);
    // Allowed, the address is called (192.0.2.1 is reserved for documentation: nothing answers there).
    const allowed = await pims(["api-keys", p], {
      env: {
        PIMS_BASE_URL: "http://192.0.2.1:8080",
        PIMS_ALLOW_INSECURE_HTTP: "true",
        PIMS_TIMEOUT_MS: "300",
        PIMS_MAX_RETRIES: "0",
      },
    });
    expect(allowed.code).toBe(1);
    expect(allowed.stderr).toMatch(/^listing API keys of project p-\w+: (timed out|could not reach the service)/);
    // The simulator on loopback (http, this machine) stays allowed: every other test of this file uses it.
    expect(sim.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:/);
    expect(sim.requests).toHaveLength(0);
    expectNoPlaintextSecrets(refused.stderr + allowed.stderr, [sim.token], "the CLI output");
  });

  it("an argument the function refuses is a usage error: exit 2, its rule, no request", async () => {
    const r = await pims(["invoices", " "]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("error: checking getInvoices arguments: projectId must not be empty\n");
    expect(sim.requests).toHaveLength(0);
  });

  it("--base-url replaces PIMS_BASE_URL", async () => {
    const { p } = seedApp();
    sim.addInvoice(p, { id: "in_flag" });
    const r = await pims(["--base-url", sim.baseUrl, "invoices", p, "--json"], { env: { PIMS_BASE_URL: undefined } });
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { invoices: Array<{ id: string }> }).invoices.map((i) => i.id)).toEqual([
      "in_flag",
    ]);
    const after = await pims(["invoices", p, "--base-url", sim.baseUrl], {
      env: { PIMS_BASE_URL: "http://127.0.0.1:9" },
    });
    expect(after.code).toBe(0);
  });

  it("a service error exits 1 with `action: status message` on stderr", async () => {
    const r = await pims(["invoices", "p-nope"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim()).toBe(
      `listing invoices of project p-nope: 404 project p-nope not found (GET ` +
        `${sim.baseUrl}/v2/projects/p-nope/invoices)`,
    );
  });

  it("a bad token exits 1 with the 401 message, and neither token is printed", async () => {
    const { p } = seedApp();
    const badToken = "pims_sa_not_a_real_token_but_long_enough";
    const r = await pims(["api-keys", p], { env: { PIMS_TOKEN: badToken } });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(
      `listing API keys of project ${p}: 401 invalid or missing bearer token (the token set in PIMS_TOKEN was ` +
        "refused: " +
        "check that it is the whole token of a live service account of this service and that it has not expired)",
    );
    expectNoPlaintextSecrets(r.stdout + r.stderr, [badToken], "the CLI output");
  });

  it("--verbose prints each retry on stderr; without it retries are silent", async () => {
    const { p } = seedApp();
    sim.addInvoice(p, { id: "in_1" });
    sim.addFault({ method: "GET", path: `/v2/projects/${p}/invoices`, kind: "status", status: 503, times: 2 });
    const verbose = await pims(["--verbose", "invoices", p]);
    expect(verbose.code).toBe(0);
    const retryLines = lines(verbose.stderr).filter((l) => l.startsWith("pims: "));
    expect(retryLines).toHaveLength(2);
    expect(retryLines[0]).toMatch(
      new RegExp(`^pims: GET /v2/projects/${p}/invoices: HTTP 503; retry 1 of \\d+ in \\d+ms$`),
    );
    expect(verbose.stdout).toContain("in_1");

    sim.addFault({ method: "GET", path: `/v2/projects/${p}/invoices`, kind: "status", status: 503, times: 1 });
    const quiet = await pims(["invoices", p]);
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe("");
  });
});
