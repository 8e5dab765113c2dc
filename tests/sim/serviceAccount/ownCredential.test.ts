/**
 * The account whose token is the provider's own credential is never deleted (issue 55, row 13;
 * terraform-provider-fivenines#16): a delete refuses before any DELETE, naming the account and what to do; a rotation
 * with `keepPreviousToken` that would retire it keeps it in `retiredServiceAccountIds` (the update fails with the same
 * words), and the next update with another credential deletes it. The engine scenarios:
 * tests/engine/peerBugs/providerCredential.test.ts.
 */
import { ServiceAccountProvider } from "../../../provider/serviceAccount";
import type { PimsSimulator } from "../../../simulator";
import { inputsFor, loose, type LooseServiceAccountProvider } from "../../kit/provider/serviceAccount";
import { configureRequest, simConfig } from "../../kit/provider/provider";
import { rejectionOf } from "../../kit/rejection";
import { expectNoPlaintextSecrets } from "../../kit/secrets/secrets";
import { startSimulator } from "../../kit/sim/simulator";
import { liveIds, writesOf } from "../../kit/sim/simulator";

let sim: PimsSimulator;
const texts: string[] = [];
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(async () => {
  expectNoPlaintextSecrets(texts.join("\n"), [...sim.issuedSecrets(), sim.token], "refusals");
  await sim.stop();
});
beforeEach(() => jest.spyOn(console, "warn").mockImplementation(() => undefined));
afterEach(() => jest.restoreAllMocks());

/** A provider authenticated with `token` (default: the simulator's admin token). */
async function provider(token?: string): Promise<LooseServiceAccountProvider> {
  const p = new ServiceAccountProvider();
  const config = simConfig(sim);
  await p.configure(configureRequest(token === undefined ? config : { ...config, "pims:token": token }));
  return loose(p);
}

test("row 13: delete refuses, before any call, when the account's token is the credential in use", async () => {
  const project = sim.addProject();
  const { id, outs } = await (await provider()).create(inputsFor(project.id, "deployer"));
  const itself = await provider(outs.token);
  sim.clearRequests();
  const err = await rejectionOf(itself.delete(id, outs), Error);
  texts.push(err.message);
  expect(err.message).toBe(
    `pulumi-pims: service account "deployer" (${id}) in project ${project.id} was not deleted: its token is the ` +
      "credential this provider is authenticated with (same fingerprint), and deleting it would cut this run and " +
      "every later one off the service. Set another credential first (`pulumi config set --secret pims:token " +
      "<another account's token>`, then `pulumi up` so the state stores it, or `pulumi destroy --run-program`), " +
      "then run again; to keep the account, `pulumi state delete` the resource instead.",
  );
  expect(sim.requests).toEqual([]);
  expect(liveIds(sim, project.id)).toEqual([id]);

  // The plan says it first: a replacement (a new trigger) would delete it; the diff warns, still without a call.
  const warn = jest.spyOn(console, "warn").mockImplementation(() => undefined);
  const inputs = inputsFor(project.id, "deployer", { rotationTrigger: "r2" });
  expect(await itself.diff(id, outs, inputs)).toMatchObject({ replaces: ["rotationTrigger"] });
  const said = warn.mock.calls.map((c: unknown[]) => c.map(String).join(" ")).join("\n");
  texts.push(said);
  expect(said).toContain(
    `(${id}) in project ${project.id} would be deleted by this plan, and its delete will be refused`,
  );
  expect(sim.requests).toEqual([]);

  await (await provider()).delete(id, outs); // another credential: deleted
  expect(liveIds(sim, project.id)).toEqual([]);
});

test("row 13: a rotation never retires the previous account while the provider authenticates with it", async () => {
  const project = sim.addProject();
  const admin = await provider();
  const base = inputsFor(project.id, "overlap", { keepPreviousToken: true, rotationTrigger: "r1" });
  const { id, outs: first } = await admin.create(base);
  const second = await admin.update(id, first, { ...base, rotationTrigger: "r2" });
  expect(second.previousServiceAccountId).toBe(first.serviceAccountId);

  // Authenticated as the previous account (the first one), the next rotation would delete it: kept, retired.
  const itself = await provider(first.token);
  sim.clearRequests();
  const err = await rejectionOf(itself.update(id, second, { ...base, rotationTrigger: "r3" }), Error);
  texts.push(err.message);
  expect(err.message).toContain(`(${String(first.serviceAccountId)}) in project ${project.id} was not retired`);
  const stored = (err as unknown as { properties: Record<string, unknown> }).properties;
  expect(stored.retiredServiceAccountIds).toEqual([first.serviceAccountId]);
  expect(writesOf(sim)).toEqual([`POST /v2/projects/${project.id}/service-accounts`]); // the new one; no DELETE
  expect(liveIds(sim, project.id)).toContain(first.serviceAccountId);

  // With another credential, the next update deletes it.
  const { __provider: _, ...state } = stored;
  const third = await admin.update(id, state, { ...base, rotationTrigger: "r3" });
  expect(third.retiredServiceAccountIds).toBeUndefined();
  expect(liveIds(sim, project.id)).not.toContain(first.serviceAccountId);
});
