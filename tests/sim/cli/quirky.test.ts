/**
 * The `pims` CLI against the simulator's `quirky` profile, which sends nulls, extra members and other shapes the
 * service's documentation leaves open: --json keeps what the service left empty as `null`, tables show `-`.
 */
import { lines, useCliSuite } from "../../kit/sim/cli";

const { pims, seedApp, sim } = useCliSuite({ profile: "quirky" });

describe("pims api-keys (quirky profile)", () => {
  it('--json: a key of no service account has principalId null (not "", not missing); the table shows -', async () => {
    const { p } = seedApp();
    sim.addApiKey(p, { name: "user-key", apiKey: "pims_live_user_key_0123456789", expiresAt: "2030-01-01T00:00:00Z" });
    sim.addApiKey(p, { name: "forever", apiKey: "pims_live_forever_0123456789", principalId: "sa-1" });
    const r = await pims(["api-keys", p, "--json"]);
    expect(r.code).toBe(0);
    const { keys } = JSON.parse(r.stdout) as { keys: Array<Record<string, unknown>> };
    expect(keys.map((k) => [k.name, k.principalId])).toEqual([
      ["user-key", null],
      ["forever", "sa-1"],
    ]);
    expect(keys[0]).toMatchObject({ expiresAtEpochMs: Date.UTC(2030, 0, 1), neverExpires: false });
    // expiresAt null means the key does not expire: the CLI says so the documented way, and keeps the number null.
    expect(keys[1]).toMatchObject({ expiresAt: "never", neverExpires: true, expiresAtEpochMs: null });
    expect(r.stdout).not.toMatch(/"principalId": ""/);

    const table = await pims(["api-keys", p]);
    expect(table.code).toBe(0);
    expect(lines(table.stdout)[1]).toMatch(/^user-key\s.*\s2030-01-01T00:00:00Z\s+-$/);
  });
});

describe("pims logs (quirky profile)", () => {
  it("pages to the end when the last page says nextPageToken: null", async () => {
    const { p, app } = seedApp();
    sim.generateLogs(p, app, 450);
    const r = await pims(["logs", p, app, "--page-size", "200", "--limit", "1000"]);
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toHaveLength(450);
    expect(r.stderr).toBe("");
    expect(sim.countRequests({ method: "GET" })).toBe(3);
  });
});
