/**
 * Live tier, the `pims` CLI's reads (the compiled bin/cli/pims.js, as a user runs it) with `--record` pointing at the
 * run's recording: API keys, invoices, service accounts, and app and build logs when their variables are set. Every
 * byte printed is scanned for the token.
 */
import { runCli, type RunResult } from "../kit/sim/cli";
import { requireLiveSettings } from "../../scripts/live/settings";
import { expectNoPlaintextSecrets } from "../kit/secrets/secrets";

const s = requireLiveSettings();
const onlyIf = (cond: unknown): jest.It => (cond ? test : test.skip);
const printed: string[] = [];

/** `pims <args>` against the live service: the token only in PIMS_TOKEN, the recording through --record. */
async function pims(...args: string[]): Promise<RunResult> {
  const flags = ["--base-url", s.baseUrl, ...(s.recording ? ["--record", s.recording] : [])];
  // PIMS_WIRE_RECORD removed: the flag alone must turn the recorder on.
  const r = await runCli(
    [...flags, ...args],
    { PIMS_TOKEN: s.token, PIMS_BASE_URL: undefined, PIMS_WIRE_RECORD: undefined },
    { timeoutMs: 120_000 },
  );
  printed.push(r.stdout, r.stderr);
  if (r.code !== 0) throw new Error(`pims ${args.join(" ")} exited ${r.code}: ${r.stderr.trim()}`);
  return r;
}

afterAll(() => expectNoPlaintextSecrets(printed.join("\n"), [s.token], "the CLI's output"));

test("pims api-keys, invoices and service-accounts list (--json)", async () => {
  expect(
    Array.isArray((JSON.parse((await pims("api-keys", s.projectId, "--json")).stdout) as { keys: unknown }).keys),
  ).toBe(true);
  expect(
    Array.isArray(
      (JSON.parse((await pims("invoices", s.projectId, "--json")).stdout) as { invoices: unknown }).invoices,
    ),
  ).toBe(true);
  expect(
    Array.isArray(
      (JSON.parse((await pims("service-accounts", "list", s.projectId, "--json")).stdout) as { accounts: unknown })
        .accounts,
    ),
  ).toBe(true);
});

onlyIf(s.appId)("pims logs (PIMS_LIVE_APP)", async () => {
  const { lines } = JSON.parse((await pims("logs", s.projectId, s.appId!, "--limit", "5", "--json")).stdout) as {
    lines: unknown[];
  };
  expect(lines.length).toBeLessThanOrEqual(5);
});

onlyIf(s.buildId)("pims build-logs (PIMS_LIVE_BUILD)", async () => {
  expect(JSON.parse((await pims("build-logs", s.projectId, s.appId!, s.buildId!, "--json")).stdout)).toHaveProperty(
    "status",
  );
});
