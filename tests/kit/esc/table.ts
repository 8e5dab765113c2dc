/**
 * Issue 54's acceptance table for the ESC rotation adapter, written once and run against each host of the adapter (the
 * function `createEscRotator(...).handle` and `pims esc-rotator serve` over HTTPS): rotations while a consumer polls,
 * adoption, every refusal with no request to the service, the retried, half-committed and failed-delete rotations
 * leaving no orphan, and no issued token in anything the adapter logged.
 */
import { inSeries, seriesName } from "../../../provider/escRotator";
import { expectNoPlaintextSecrets } from "../secrets/secrets";
import { consoleAccount } from "../sim/simulator";
import type { EscRequest } from "./caller";
import { useEscSuite, type StartTarget } from "./suite";

export type { EscTarget, EscTargetSetup } from "./suite";

type Rotated = Record<string, unknown> & { token: string; serviceAccountId: string };

/** The suite: one simulator, caller and adapter; each test its own project (so its own series). */
export function describeEscTable(title: string, start: StartTarget): void {
  describe(title, () => {
    const suite = useEscSuite(start);
    const request = (name = "ci-deployer") => ({ projectId: suite.p, name, grants: [suite.p], expiresIn: 2_592_000 });
    const series = (name = "ci-deployer") =>
      suite.sim
        .serviceAccounts(suite.p)
        .filter((a) => inSeries(seriesName(suite.caller.environment, request(name)), a.name))
        .map((a) => a.id)
        .sort();
    const rotate = async (state: unknown, req: unknown = request()) => {
      const r = await suite.target.send(await suite.caller.request(req, state));
      return r as unknown as { status: number; body: Rotated };
    };
    const consumerWorks = (token: string) => suite.consumerWorks(token);
    /** The service commits a create, then answers 503: `times` creates, or every one. */
    const committedThen503 = (times?: number): void =>
      suite.sim.addFault({
        method: "POST",
        path: `/v2/projects/${suite.p}/service-accounts`,
        kind: "status",
        status: 503,
        afterCommit: true,
        ...(times === undefined ? {} : { times }),
      });

    test("10 rotations from state null while a consumer polls: never a 401, two live accounts after each", async () => {
      let state = null as Rotated | null;
      let refused = 0;
      let polling = true;
      const poller = (async () => {
        while (polling) {
          if (state && !(await consumerWorks(state.token))) refused++;
          await new Promise((r) => setTimeout(r, 5));
        }
      })();
      for (let i = 1; i <= 10; i++) {
        const held: Rotated | null = state;
        const r = await rotate(held);
        expect(r.status).toBe(200);
        expect(Object.keys(r.body).sort()).toEqual(
          [
            "name",
            "previousServiceAccountId",
            "projectId",
            "rotatedAt",
            "serviceAccountId",
            "token",
            "tokenExpiresAt",
            "tokenFingerprint",
            "tokenId",
          ].sort(),
        );
        expect(r.body.previousServiceAccountId).toBe(held?.serviceAccountId ?? null);
        // The token `current` held before this rotation still works until the next one.
        if (held) expect(await consumerWorks(held.token)).toBe(true);
        expect(await consumerWorks(r.body.token)).toBe(true);
        expect(series()).toEqual([r.body.serviceAccountId, ...(held ? [held.serviceAccountId] : [])].sort());
        state = r.body;
      }
      polling = false;
      await poller;
      expect(refused).toBe(0);
    });

    test("adoption: a console-made account named by the initial state is kept once, then retired", async () => {
      const made = await consoleAccount(suite.sim, suite.p, "made-by-hand");
      const linesBefore = suite.target
        .logs()
        .split("\n")
        .filter((l) => l.includes(suite.caller.environment)).length;
      const first = await rotate({ serviceAccountId: made.id });
      // One log line for the rotation: environment, trigger user, the new and the kept account, outcome, time taken.
      const lines = suite.target
        .logs()
        .split("\n")
        .filter((l) => l.includes(suite.caller.environment));
      expect(lines).toHaveLength(linesBefore + 1);
      expect(lines[lines.length - 1]).toMatch(
        new RegExp(
          `acme/app/prod · rotate · trigger alice · new ${first.body.serviceAccountId} · kept ${made.id} · ` +
            "200 rotated in \\d+ ms",
        ),
      );
      expect(first.status).toBe(200);
      expect(first.body.previousServiceAccountId).toBe(made.id);
      expect(await consumerWorks(made.token)).toBe(true);
      const second = await rotate(first.body);
      expect(second.status).toBe(200);
      expect(await consumerWorks(made.token)).toBe(false);
      expect(
        suite.sim
          .serviceAccounts(suite.p)
          .map((a) => a.id)
          .sort(),
      ).toEqual([first.body.serviceAccountId, second.body.serviceAccountId].sort());
    });

    const refusals: Array<[string, number, () => Promise<EscRequest>]> = [
      ["a forged signature", 401, () => suite.caller.request(request(), null, { forged: true })],
      ["an unknown key id", 401, () => suite.caller.request(request(), null, { kid: "k-unknown" })],
      ["an expired token", 401, () => suite.caller.request(request(), null, { claims: { iat: 1_000, exp: 2_000 } })],
      [
        "another audience",
        401,
        () => suite.caller.request(request(), null, { claims: { aud: "https://elsewhere.test" } }),
      ],
      ["another issuer", 401, () => suite.caller.request(request(), null, { claims: { iss: "https://evil.test" } })],
      [
        "a tampered body",
        401,
        () =>
          suite.caller.request(request(), null, { sentBody: Buffer.from(JSON.stringify({ request: request("x") })) }),
      ],
      [
        "an organization not on the allow-list",
        401,
        () => suite.caller.request(request(), null, { claims: { org: "evil", current_env: "evil/app/prod" } }),
      ],
      ["a malformed request (no grants)", 400, () => suite.caller.request({ ...request(), grants: undefined }, null)],
    ];
    test.each(refusals)("%s is refused with its status and no request to the service", async (_what, status, make) => {
      suite.sim.clearRequests();
      const r = await suite.target.send(await make());
      expect(r.status).toBe(status);
      if (status === 400) expect(String(r.body.message)).toContain("request.grants");
      expect(suite.sim.requests).toHaveLength(0);
      expect(suite.sim.serviceAccounts(suite.p)).toEqual([]);
    });

    test("a replayed jti: 401 and no request; unknown key ids refetch the JWKS at most once", async () => {
      const once = await suite.caller.request(request(), null);
      expect((await suite.target.send(once)).status).toBe(200);
      suite.sim.clearRequests();
      expect((await suite.target.send(once)).status).toBe(401);
      expect(suite.sim.requests).toHaveLength(0);
      const before = suite.caller.jwksFetches;
      for (let i = 0; i < 5; i++)
        expect((await suite.target.send(await suite.caller.request(request(), null, { kid: `k-${i}` }))).status).toBe(
          401,
        );
      expect(suite.caller.jwksFetches - before).toBeLessThanOrEqual(1);
      expect(suite.sim.requests).toHaveLength(0);
    });

    test("a double rotation (the first response lost, retried with the same state) leaves no orphan", async () => {
      const a = await rotate(null);
      const b = await rotate(a.body);
      expect(b.status).toBe(200);
      const lost = await rotate(b.body); // ESC never stores this answer
      expect(lost.status).toBe(200);
      const retried = await rotate(b.body);
      expect(retried.status).toBe(200);
      expect(series()).toEqual([b.body.serviceAccountId, retried.body.serviceAccountId].sort());
      expect(await consumerWorks(b.body.token)).toBe(true);
    });

    test("a create the service commits and answers 503 leaves no orphan", async () => {
      const a = await rotate(null);
      committedThen503(1);
      const r = await rotate(a.body);
      expect(r.status).toBe(200);
      expect(series()).toEqual([a.body.serviceAccountId, r.body.serviceAccountId].sort());
    });

    test("a failing delete: 503 naming each extra account and how to delete it; the next one cleans up", async () => {
      const a = await rotate(null);
      const b = await rotate(a.body);
      suite.sim.addFault({
        method: "DELETE",
        path: `/v2/projects/${suite.p}/service-accounts/*`,
        kind: "status",
        status: 500,
      });
      const failed = await rotate(b.body);
      expect(failed.status).toBe(503);
      const message = String(failed.body.message);
      const extra = series().filter((id) => id !== b.body.serviceAccountId && id !== a.body.serviceAccountId);
      for (const id of [a.body.serviceAccountId, ...extra])
        expect(message).toContain(`pims service-accounts delete ${suite.p} ${id}`);
      expectNoPlaintextSecrets(message, suite.sim.issuedSecrets(), "the 503 answer");
      expect(await consumerWorks(b.body.token)).toBe(true);
      suite.sim.clearFaults();
      const next = await rotate(b.body);
      expect(next.status).toBe(200);
      expect(series()).toEqual([b.body.serviceAccountId, next.body.serviceAccountId].sort());
    });

    test("every create committed, then 503: naming what the listing shows live, in the adapter's words", async () => {
      const a = await rotate(null);
      committedThen503();
      const before = new Set(suite.sim.deletedServiceAccounts());
      const failed = await rotate(a.body);
      expect(failed.status).toBe(503);
      const message = String((failed.body as unknown as { message: string }).message);
      // What the create made was deleted again, and the service holds it deleted.
      const madeNow = suite.sim.deletedServiceAccounts().filter((id) => !before.has(id));
      expect(madeNow.length).toBeGreaterThanOrEqual(1);
      expect(series()).toEqual([a.body.serviceAccountId]);
      expect(message).toContain(`Deleted: ${madeNow.join(", ")}`);
      expect(message).toContain("No account of this request is left live");
      for (const id of madeNow) expect(message).not.toContain(`delete ${suite.p} ${id}`);
      // The adapter's words: there is no stack to hold anything.
      expect(message).not.toMatch(/stack|pulumi-pims never deletes/);
      const line =
        suite.target
          .logs()
          .split("\n")
          .filter((l) => l.includes(" 503 "))
          .pop() ?? "";
      expect(line).toContain(`deleted ${madeNow.join(",")}`);
      expect(await consumerWorks(a.body.token)).toBe(true);
    });
  });
}
