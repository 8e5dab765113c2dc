/**
 * Overlapping rotation (issue 18) through the real engine, both simulator profiles. One stack holds three service
 * accounts rotated by the same four `pulumi up`s: `overlap` (keepPreviousToken, a new rotationTrigger each time),
 * `window` (keepPreviousToken, its rotateBeforeExpiry window reached 1 s after each creation) and `plain` (the option
 * off: today's replacement). A consumer per account calls the simulator every 200 ms
 * (GET /v2/projects/{project_id}/api-keys) with the token it read from the stack outputs, and re-reads them only after
 * each `pulumi up` has finished — first making one call with the token it held, so the outcome right after the up
 * (the moment the replaced account is gone) is always observed. With the option on no call answers 401; with it off
 * every rotation costs the consumer its token. Then the state (tokens encrypted), the backend's files and the engine's
 * output are scanned for every issued secret, and destroy deletes every account, current and previous.
 */
import * as pims from "pulumi-pims";
import { copyExample } from "../../../scripts/engine";
import { exportEncrypted, isEncryptedSecret, resource, revealed, sleep } from "../../kit/engine/engine";
import { addProjectWithApp, useEngineStack } from "../../kit/engine/engineSuite";
import { expectNoPlaintextSecrets } from "../../kit/secrets/secrets";
import { liveIds } from "../../kit/sim/simulator";
import { testClient } from "../../kit/sim/client";
import { Consumer, type Outcome } from "../../kit/engine/consumer";

const ROTATIONS = 4;
const NAMES = ["overlap", "window", "plain"] as const;
type Name = (typeof NAMES)[number];

/** The rotationTrigger of `overlap` and `plain`; the test changes it between ups. */
const settings = { trigger: "0" };
let home: string;

function program(): Record<string, unknown> {
  const common = { projectId: home, grants: [home], description: "rotation e2e" };
  const accounts: Record<Name, pims.ServiceAccount> = {
    overlap: new pims.ServiceAccount("overlap", {
      ...common,
      name: "overlap",
      expiresIn: 3600,
      rotationTrigger: settings.trigger,
      keepPreviousToken: true,
    }),
    // Due 1 s after each creation (119 of 120 s left), so every up rotates it; a token stays valid for 120 s, two ups.
    window: new pims.ServiceAccount("window", {
      ...common,
      name: "window",
      expiresIn: 120,
      rotateBeforeExpiry: 119,
      keepPreviousToken: true,
    }),
    plain: new pims.ServiceAccount("plain", {
      ...common,
      name: "plain",
      expiresIn: 3600,
      rotationTrigger: settings.trigger,
    }),
  };
  const out: Record<string, unknown> = {};
  for (const [name, a] of Object.entries(accounts)) {
    out[`${name}Id`] = a.serviceAccountId;
    out[`${name}Token`] = a.token;
    out[`${name}PreviousId`] = a.previousServiceAccountId;
    out[`${name}PreviousToken`] = a.previousToken;
  }
  return out;
}

describe.each(["default", "quirky"] as const)(
  "overlapping rotation through the real engine (%s service)",
  (profile) => {
    const consumers = {} as Record<Name, Consumer>;
    /** Every account id each resource held, in order of creation. */
    const history: Record<Name, string[]> = { overlap: [], window: [], plain: [] };
    const suite = useEngineStack({
      scratchPrefix: `pims-e2e-rotation-${profile}-`,
      profile,
      stack: ({ sim, scratch }) => {
        settings.trigger = "0";
        home = sim.addProject({ name: "rotation-e2e" }).id;
        for (const name of NAMES)
          consumers[name] = new Consumer(
            sim,
            () => home,
            (o) => o[`${name}Token`].value as string,
          );
        return {
          stackName: "rotation",
          projectName: "pims-e2e-rotation",
          workDir: scratch,
          program: async () => program(),
        };
      },
      stopAlso: () => Object.values(consumers),
    });
    const { engine } = suite;

    /** Live account ids of one resource (by its account name), sorted. */
    const live = (name: Name): string[] =>
      suite.sim
        .serviceAccounts(home)
        .filter((a) => a.name === name)
        .map((a) => a.id)
        .sort();

    test("up creates the three accounts; the consumers start with their tokens", async () => {
      const outputs = await suite.up({ create: 4 });
      for (const name of NAMES) {
        const id = outputs[`${name}Id`].value as string;
        history[name].push(id);
        expect(live(name)).toEqual([id]);
        expect(outputs[`${name}Token`].secret).toBe(true);
        consumers[name].token = outputs[`${name}Token`].value as string;
        consumers[name].start();
      }
    });

    test(`${ROTATIONS} rotations: keepPreviousToken, no consumer 401; without, each up's next call: 401`, async () => {
      for (let i = 1; i <= ROTATIONS; i++) {
        await sleep(1_100); // the window account's window opens 1 s after its creation
        settings.trigger = String(i);
        // Both option-on accounts are updated in place; the option-off one is replaced.
        const o = await suite.up({ update: 2, replace: 1, same: 1 });
        for (const name of NAMES) await consumers[name].reread(o);

        for (const name of NAMES) {
          const [current, before] = [o[`${name}Id`].value as string, history[name].at(-1)];
          const older = history[name].at(-2);
          history[name].push(current);
          expect(current).not.toBe(before);
          // One POST per account per rotation; at most one DELETE, of the account two rotations old (one old when off).
          const posts = suite.sim.requests.filter(
            (r) => r.method === "POST" && (r.body as { name?: string } | undefined)?.name === name,
          );
          expect(posts).toHaveLength(1);
          const deletes = suite.sim.requests.filter(
            (r) => r.method === "DELETE" && history[name].some((id) => r.path.endsWith(`/service-accounts/${id}`)),
          );
          if (name === "plain") {
            expect(live(name)).toEqual([current]);
            expect(deletes.map((d) => d.path)).toEqual([`/v2/projects/${home}/service-accounts/${before}`]);
            expect(o[`${name}PreviousToken`]?.value).toBeUndefined();
          } else {
            expect(live(name)).toEqual([current, before].sort());
            expect(deletes.map((d) => d.path)).toEqual(older ? [`/v2/projects/${home}/service-accounts/${older}`] : []);
            expect(o[`${name}PreviousId`].value).toBe(before);
            expect(o[`${name}PreviousToken`].secret).toBe(true);
            expect(suite.sim.issuedSecrets()).toContain(o[`${name}PreviousToken`].value);
          }
          if (older) expect(suite.sim.deletedServiceAccounts()).toContain(older);
        }
        expect(engine.text()).toMatch(
          new RegExp(`service account "overlap" in project ${home}: rotated \\(rotationTrigger\\): new account`),
        );
        expect(engine.text()).toMatch(
          new RegExp(`service account "window" in project ${home}: rotated \\(rotateBeforeExpiry\\): new account`),
        );
        // A planned rotation is progress: shown, never as a warning.
        expect(engine.text()).not.toMatch(/warning: [^\n]*rotated \(/);
      }
      for (const c of Object.values(consumers)) await c.stop();

      const count = (name: Name, outcome: Outcome): number => consumers[name].count(outcome);
      process.stdout.write(
        `${profile}: consumer calls ` +
          `${NAMES.map((n) => `${n} ${consumers[n].outcomes.length} (${count(n, "401")} x 401)`).join(", ")}\n`,
      );
      for (const name of NAMES) expect(consumers[name].others).toEqual([]);
      for (const name of ["overlap", "window"] as const) {
        expect(consumers[name].outcomes.length).toBeGreaterThan(ROTATIONS);
        expect(count(name, "401")).toBe(0);
        expect(consumers[name].afterUp).toEqual(Array<Outcome>(ROTATIONS).fill("ok"));
      }
      // The option off, the same consumer: the token it read is dead the moment each up ends.
      expect(consumers.plain.afterUp).toEqual(Array<Outcome>(ROTATIONS).fill("401"));
      expect(count("plain", "401")).toBeGreaterThanOrEqual(ROTATIONS);
    });

    test("the state holds both tokens of each account encrypted only; no secret in the backend files or output", () => {
      const state = exportEncrypted(suite.stack);
      const secrets = suite.expectNoSecrets(); // in the engine's output and the backend's files
      expect(secrets.length).toBeGreaterThan(3 * (ROTATIONS + 1)); // the admin token and every account's token
      expectNoPlaintextSecrets(JSON.stringify(state), secrets, "the exported state");
      for (const name of ["overlap", "window"]) {
        const outs = resource(state, "pims:ServiceAccount", name).outputs ?? {};
        expect(isEncryptedSecret(outs.token)).toBe(true);
        expect(isEncryptedSecret(outs.previousToken)).toBe(true);
        expect(outs.previousServiceAccountId).toBe(history[name as Name].at(-2));
      }
      expect(engine.text()).toContain("kept until the next rotation");
    });

    test("destroy deletes every account, current and previous: none live", async () => {
      const res = await suite.stack.destroy(engine.opts);
      expect(res.summary.result).toBe("succeeded");
      expect(suite.sim.serviceAccounts(home)).toEqual([]);
      for (const name of NAMES)
        expect(suite.sim.deletedServiceAccounts()).toEqual(expect.arrayContaining(history[name]));
    });
  },
);

/**
 * Interrupting `pulumi up` mid-rotation (the Automation API's abort sends SIGINT to the CLI) while the rotation's
 * POST /v2/projects/{project_id}/service-accounts is in flight (held 3 s by the simulator): no token may be lost, i.e.
 * afterwards every live account of the resource is one the state holds (current, previous or retired), with its token.
 * The next `up` converges to exactly two live accounts. The program is examples/rotation (keepPreviousToken) run as a
 * project directory, in its own process: an inline program would run in this jest process, where the engine's
 * dropped connection after SIGINT surfaces as unhandled gRPC rejections.
 */
describe("pulumi up interrupted mid-rotation (default service)", () => {
  let projectId: string;
  const suite = useEngineStack({
    scratchPrefix: "pims-e2e-rotation-interrupt-",
    profile: "default",
    stack: ({ sim, scratch }) => {
      ({ projectId } = addProjectWithApp(sim, "rotation-interrupt"));
      return {
        stackName: "interrupt",
        workDir: copyExample("rotation", scratch),
        config: { projectId, rotationTrigger: "0" },
      };
    },
  });
  const { engine } = suite;

  /** The accounts of the example's ServiceAccount `ci` in the state (retired, previous, current), tokens revealed. */
  async function stored(): Promise<Map<string, string | undefined>> {
    const outs = resource(await suite.stack.exportStack(), "pims:ServiceAccount", "ci").outputs ?? {};
    const held = new Map<string, string | undefined>();
    for (const id of (outs.retiredServiceAccountIds as string[] | undefined) ?? []) held.set(id, undefined);
    if (typeof outs.previousServiceAccountId === "string")
      held.set(outs.previousServiceAccountId, revealed(outs.previousToken) as string);
    held.set(String(outs.serviceAccountId), revealed(outs.token) as string);
    return held;
  }
  const live = (): string[] => liveIds(suite.sim, projectId);

  test("SIGINT during the rotation's POST: every live account in state with its token; next up converges", async () => {
    await suite.stack.up(engine.opts);
    await suite.stack.setConfig("rotationTrigger", { value: "1" });
    await suite.stack.up(engine.opts); // a previous account exists: the interrupted rotation would delete it
    expect(live()).toHaveLength(2);

    await suite.stack.setConfig("rotationTrigger", { value: "2" });
    suite.sim.addFault({ kind: "delay", delayMs: 3000, method: "POST", path: /\/service-accounts$/ });
    suite.sim.clearRequests();
    const abort = new AbortController();
    const interrupted = suite.stack.up({ ...engine.opts, signal: abort.signal }).then(
      (r) => r.summary.result,
      (e: unknown) => (e instanceof Error ? e.message : String(e)),
    );
    // Abort once the create is in flight (the simulator logs a request on arrival, with status 0).
    const inFlight = (): boolean =>
      suite.sim.requests.some((r) => r.method === "POST" && r.path.endsWith("/service-accounts") && r.status === 0);
    for (let i = 0; i < 600 && !inFlight(); i++) await sleep(50);
    expect(inFlight()).toBe(true);
    abort.abort();
    const outcome = await interrupted;
    process.stdout.write(
      `interrupted up: ${outcome.split("\n")[0]}; simulator saw ` +
        `${suite.sim.requests.map((r) => `${r.method} ${r.status}`).join(", ")}\n`,
    );
    suite.sim.clearFaults();

    // No token lost: each live account is held by the state, and the token stored for it works.
    const held = await stored();
    process.stdout.write(`after the interruption: ${live().length} live, ${held.size} in the state\n`);
    expect(live().filter((id) => !held.has(id))).toEqual([]);
    for (const [id, token] of held) {
      if (token !== undefined && live().includes(id))
        await expect(testClient(suite.sim, { token, retries: 0 }).listApiKeys(projectId)).resolves.toBeDefined();
    }

    // The next up finishes whatever was left: two live accounts, both in the state.
    const res = await suite.stack.up(engine.opts);
    expect(res.summary.result).toBe("succeeded");
    expect(live()).toEqual([...(await stored()).keys()].sort());
    expect(live()).toHaveLength(2);

    await suite.stack.destroy(engine.opts);
    expect(suite.sim.serviceAccounts(projectId)).toEqual([]);
    suite.expectNoSecrets();
  });
});
