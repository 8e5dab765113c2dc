/**
 * Issue 64's acceptance table for the adapter's open route (`fn::open::external`: a short-lived account per open),
 * written once and run against each host (the function and `pims esc-rotator serve` over HTTPS), with ESC's calls
 * made as ESC makes them (./caller: the bare `request` body, the documented headers and claims, `aud` the open URL):
 * leases used by a consumer until the service expires them, the clean-up that never cuts one short, the live bound
 * under a burst of opens against the service's rate limit, every refusal with no request to the service, a body sent
 * to the wrong route, and replays refused by a second instance and after a restart, for opens and rotations alike.
 */
import { inSeries, seriesMarker } from "../../../provider/escRotator";
import { BOUNDS, useEscSuite, type StartTarget } from "./suite";
import type { EscRequest } from "./caller";

type Leased = Record<string, unknown> & { token: string; serviceAccountId: string; tokenExpiresAt: string };

export function describeEscOpenTable(title: string, start: StartTarget): void {
  describe(title, () => {
    const suite = useEscSuite(start);
    const lease = (ttl = 3, name = "ci") => ({ projectId: suite.p, name, grants: [suite.p], ttl });
    /** The ids of the open series' live accounts, as the simulator holds them. */
    const leases = (name = "ci") =>
      suite.sim
        .serviceAccounts(suite.p)
        .filter((a) => inSeries(seriesMarker("open", suite.caller.environment, lease(1, name)), a.name))
        .map((a) => a.id)
        .sort();
    const open = async (req: unknown = lease()) => {
      const r = await suite.target.send(await suite.caller.open(req));
      return r as unknown as { status: number; body: Leased; headers: Record<string, string> };
    };

    test("20 opens, each token working until the service expires it and refused after; then 1 live lease", async () => {
      const held: Leased[] = [];
      for (let i = 1; i <= 20; i++) {
        const r = await open();
        expect(r.status).toBe(200);
        expect(Object.keys(r.body).sort()).toEqual(
          [
            "name",
            "projectId",
            "serviceAccountId",
            "token",
            "tokenExpiresAt",
            "tokenFingerprint",
            "tokenId",
            "ttl",
          ].sort(),
        );
        expect(r.body.ttl).toBe(3);
        held.push(r.body);
        // Every lease made so far works exactly while its expiry is ahead on the service's clock.
        const now = Date.parse(suite.sim.now().toISOString());
        for (const h of held) expect(await suite.consumerWorks(h.token)).toBe(Date.parse(h.tokenExpiresAt) > now);
        expect(leases().length).toBeLessThanOrEqual(BOUNDS.maxLeases);
        suite.sim.advanceClock(1_000);
      }
      // Only leases that had expired were ever deleted: each deleted one had expired when the next open ran.
      suite.sim.advanceClock(10_000); // every lease has expired on the service's clock (ours does not move)
      for (const h of held) expect(await suite.consumerWorks(h.token)).toBe(false);
      const last = await open();
      expect(last.status).toBe(200);
      expect(leases()).toEqual([last.body.serviceAccountId]);
    });

    test("50 opens at once against the rate limit: 200 up to the live bound, then 429 with Retry-After", async () => {
      suite.sim.setRateLimit({ rate: 40, burst: 10 });
      const before = new Set(suite.sim.deletedServiceAccounts());
      const answers = await Promise.all(Array.from({ length: 50 }, () => open(lease(300))));
      const ok = answers.filter((a) => a.status === 200);
      const limited = answers.filter((a) => a.status === 429);
      const other = answers.filter((a) => a.status !== 200 && a.status !== 429).map((a) => [a.status, a.body.message]);
      expect(other).toEqual([]);
      expect(ok).toHaveLength(BOUNDS.maxLeases);
      for (const a of limited) {
        const after = Number(a.headers["retry-after"] ?? a.headers["Retry-After"]);
        expect(after).toBeGreaterThanOrEqual(1);
        // When the oldest lease expires on the service's clock, which its `Date` header gives in whole seconds.
        expect(after).toBeLessThanOrEqual(300 + 1);
        expect(String(a.body.message)).toContain(`PIMS_ESC_MAX_LEASES or --max-leases: ${BOUNDS.maxLeases}`);
        expect(String(a.body.message)).toContain(seriesMarker("open", suite.caller.environment, lease()));
      }
      // No orphan: every live account of the series is a lease some caller received; none was made and dropped.
      expect(leases()).toEqual(ok.map((a) => a.body.serviceAccountId).sort());
      expect(suite.sim.deletedServiceAccounts().filter((id) => !before.has(id))).toEqual([]);
      for (const a of ok) expect(await suite.consumerWorks(a.body.token)).toBe(true);
    });

    test("an expired lease whose delete failed is deleted by a later open, even a 429, and logged", async () => {
      const expiring = await open(lease(3));
      for (let i = 0; i < BOUNDS.maxLeases - 1; i++) expect((await open(lease(300))).status).toBe(200);
      suite.sim.advanceClock(4_000); // the first lease has expired on the service's clock: live = the bound - 1
      suite.sim.addFault({
        method: "DELETE",
        path: `/v2/projects/${suite.p}/service-accounts/*`,
        kind: "status",
        status: 500,
      });
      expect((await open(lease(300))).status).toBe(200); // its clean-up fails: the expired one stays
      expect(leases()).toContain(expiring.body.serviceAccountId);
      suite.sim.clearFaults();
      const refused = await open(lease(300)); // the bound is reached by valid leases
      expect(refused.status).toBe(429);
      expect(leases()).not.toContain(expiring.body.serviceAccountId);
      expect(leases()).toHaveLength(BOUNDS.maxLeases);
      const line =
        suite.target
          .logs()
          .split("\n")
          .filter((l) => l.includes(" 429 "))
          .pop() ?? "";
      expect(line).toContain(`deleted ${expiring.body.serviceAccountId}`);
    });

    const refusals: Array<[string, number, (c: typeof suite.caller) => Promise<EscRequest>]> = [
      ["a forged signature", 401, (c) => c.open(lease(), { forged: true })],
      ["an unknown key id", 401, (c) => c.open(lease(), { kid: "k-unknown" })],
      ["an expired token", 401, (c) => c.open(lease(), { claims: { iat: 1_000, exp: 2_000 } })],
      ["another audience", 401, (c) => c.open(lease(), { claims: { aud: "https://elsewhere.test" } })],
      ["another issuer", 401, (c) => c.open(lease(), { claims: { iss: "https://evil.test" } })],
      ["a tampered body", 401, (c) => c.open(lease(), { sentBody: Buffer.from(JSON.stringify(lease(3, "x"))) })],
      [
        "an organization not on the allow-list",
        401,
        (c) => c.open(lease(), { claims: { org: "evil", current_env: "evil/app/prod" } }),
      ],
      ["a malformed request (no grants)", 400, (c) => c.open({ ...lease(), grants: undefined })],
      ["a ttl above the adapter's longest", 400, (c) => c.open(lease(BOUNDS.maxTtl + 1))],
      ["a rotation's body at the open route", 400, (c) => c.open({ request: lease(), state: null })],
      ["an open's body at the rotation route", 400, (c) => c.open(lease(), { claims: { aud: c.audience } })],
    ];
    test.each(refusals)("%s is refused with %s and no request to the service", async (what, status, make) => {
      const r = await make(suite.caller);
      suite.sim.clearRequests();
      const answer = await suite.target.send(r);
      expect(answer.status).toBe(status);
      const message = String(answer.body.message);
      if (status === 401) expect(message).toBe("unauthorized");
      if (what.includes("ttl")) expect(message).toContain(`ttl: ${BOUNDS.maxTtl + 1} is above the adapter's longest`);
      if (what.includes("no grants")) expect(message).toContain("grants");
      if (what.includes("body at the")) expect(message).toMatch(/body: this is an? (open|rotation)'s body/);
      expect(suite.sim.requests).toHaveLength(0);
      expect(suite.sim.serviceAccounts(suite.p)).toEqual([]);
    });

    test("a replay to a second instance and after a restart: 401, no write, for an open and a rotation", async () => {
      const opened = await suite.caller.open(lease(300));
      const rotation = await suite.caller.request(
        { projectId: suite.p, name: "ci", grants: [suite.p], expiresIn: 86_400 },
        null,
      );
      expect((await suite.target.send(opened)).status).toBe(200);
      expect((await suite.target.send(rotation)).status).toBe(200);
      const accounts = suite.sim.serviceAccounts(suite.p).map((a) => a.id);
      for (const which of ["a second instance", "a restarted one"]) {
        const other = await suite.another(); // nothing remembered in memory is shared with the first
        for (const replayed of [opened, rotation]) {
          suite.sim.clearRequests();
          const r = await other.send(replayed);
          expect([which, r.status]).toEqual([which, 401]);
          expect(suite.writes()).toBe(0);
        }
        expect(other.logs()).toMatch(/401 refused: replayed request: account sa-\S+ of the series carries its jti/);
        await other.close();
      }
      expect(suite.sim.serviceAccounts(suite.p).map((a) => a.id)).toEqual(accounts);
    });
  });
}
