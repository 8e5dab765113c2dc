/**
 * Issue 55's peer-bug suite, rows 4 and 13: the provider's own credential, each through a TypeScript program (the
 * dynamic provider) and a YAML program (the plugin), against the simulator and the real engine.
 *
 * Row 4, a rotated provider credential that refresh and destroy do not use (pulumi/pulumi-github#203,
 * pulumi/pulumi-cloudflare#498, pulumi/pulumi-vault#118, pulumi/pulumi-digitalocean#804; pulumi/pulumi#4981, which
 * added `refresh --run-program` and `destroy --run-program`): without `--run-program` the engine configures the
 * provider from the state, i.e. with the credential the last `pulumi up` stored. What the user needs: after rotating
 * the token in config and deleting the old one, the 401 says that the state still holds the previous credential
 * (never the token itself; its fingerprint) and names `--run-program`, with which refresh and destroy both succeed.
 *
 * Row 13, the provider deleting the very token it is authenticated with (terraform-provider-fivenines#16: "refuse to
 * delete the token the provider itself is authenticated with"). What the user needs: a destroy that would delete the
 * account whose token is the credential in use refuses before any DELETE, naming the account and what to do (set
 * another credential first); with another credential, the destroy deletes it.
 *
 * Needs the pulumi CLI and the YAML host: without them this suite fails, it never skips.
 */
import { randomSecret } from "../../../scripts/engine";
import { fingerprint } from "../../../provider/client";
import type { EngineSuite } from "../../kit/engine/engineSuite";
import {
  type Host,
  type OneAccount,
  type OneAccountSuite,
  through,
  useOneAccountStack,
} from "../../kit/engine/oneAccount";
import { testClient } from "../../kit/sim/client";
import { liveIds, writesOf } from "../../kit/sim/simulator";
import { HOSTS } from "./table";

/** The program of both rows: one account the stack manages, no expiry. */
const appAccount = (projectId: string): OneAccount => ({
  resource: "app",
  inputs: { projectId, name: "app", expiresIn: 0 },
  outputs: { id: "serviceAccountId" },
});

/** A row's suite in one host: the program above, in a PIMS project of its own. */
const appSuite = (host: Host, project: string): OneAccountSuite =>
  useOneAccountStack({ host, project, account: (_suite, projectId) => appAccount(projectId) });

const setToken = (suite: EngineSuite, token: string): Promise<void> =>
  suite.stack.setConfig("pims:token", { value: token, secret: true });

/** The error text of an operation that must fail. */
async function failure(op: Promise<unknown>): Promise<string> {
  const outcome = await op.then(
    () => undefined,
    (e: unknown) => String((e as Error).message ?? e),
  );
  if (outcome === undefined) throw new Error("the operation succeeded; it must fail");
  return outcome;
}

// ---- row 4 ---------------------------------------------------------------------------------------------------------

/**
 * Either host: `up` authenticated as the deployer account D1 (not managed by the stack); D1's token is rotated (D2 in
 * config, D1 deleted on the service); refresh and destroy without `--run-program` say that the state holds the
 * previous credential (`definite`: the host could compare it with the current config) and name `--run-program`; with
 * it, both succeed, and nothing is deleted before.
 */
async function rotatedCredentialScenario(suite: EngineSuite, projectId: string, definite: boolean): Promise<void> {
  const { sim, stack, engine } = suite;
  const admin = testClient(sim, { token: sim.token, retries: 0 });
  const d1 = { token: randomSecret("pims_sa_deployer1_"), id: "" };
  d1.id = sim.addServiceAccount({ projectId, name: "deployer", tokenSecret: d1.token }).id;
  await setToken(suite, d1.token);
  await stack.up(engine.opts);
  const app = await suite.shown("app");
  expect(sim.requests.some((r) => r.principal === d1.id && r.method === "POST")).toBe(true);

  // The deployer's token is rotated: the new one in config, the old one deleted.
  const d2 = randomSecret("pims_sa_deployer2_");
  sim.addServiceAccount({ projectId, name: "deployer-2", tokenSecret: d2 });
  await setToken(suite, d2);
  await admin.deleteServiceAccount(projectId, d1.id);

  const refresh = await stack.refresh(engine.opts);
  const said = refresh.stdout + refresh.stderr;
  expect(said).toContain("the state still holds the previous credential");
  expect(said).toContain("`pulumi refresh --run-program`");
  expect(said).toContain(`fingerprint ${fingerprint(d1.token)}`);
  if (definite) expect(said).toContain(`not the stack config's current one (fingerprint ${fingerprint(d2)})`);
  expect(said).not.toContain("Refresh again later");
  expect(await suite.shown("app")).toEqual(app); // a 401 is never absence: kept unchanged

  sim.clearRequests();
  const refused = await failure(stack.destroy(engine.opts));
  expect(refused).toContain("the state still holds the previous credential");
  expect(refused).toContain("`pulumi destroy --run-program`");
  expect(refused).toContain(`fingerprint ${fingerprint(d1.token)}`);
  expect(liveIds(sim, projectId)).toContain(app.serviceAccountId);

  // With --run-program, both succeed (the refresh also stores the current credential in the state).
  const withProgram = await stack.refresh({ ...engine.opts, runProgram: true });
  expect(withProgram.summary.result).toBe("succeeded");
  expect(withProgram.stdout + withProgram.stderr).not.toMatch(/401|previous credential/);
  expect(await suite.shown("app")).toEqual(app);

  sim.clearRequests();
  const destroyed = await stack.destroy({ ...engine.opts, runProgram: true });
  expect(destroyed.summary.result).toBe("succeeded");
  expect(writesOf(sim)).toEqual([`DELETE /v2/projects/${projectId}/service-accounts/${String(app.serviceAccountId)}`]);
  expect(liveIds(sim, projectId)).not.toContain(app.serviceAccountId);
  suite.expectNoSecrets([d1.token, d2]);
}

for (const host of HOSTS)
  describe(`row 4 ${through(host)}`, () => {
    const { suite, home } = appSuite(host, "pims-peer-rotated");
    // `definite`: the plugin can compare the state's credential with the stack config's current one
    test(`row 4, ${host}: a 401 to the stored credential says it is the previous one; --run-program succeeds`, () =>
      rotatedCredentialScenario(suite, home(), host === "yaml"));
  });

// ---- row 13 --------------------------------------------------------------------------------------------------------

/**
 * Either host: the stack creates `app` as the admin, then authenticates with `app`'s own token (stored by an `up`);
 * destroy refuses before any DELETE, naming the account and what to do; with the admin's token again,
 * `destroy --run-program` deletes it.
 */
async function ownCredentialScenario(suite: EngineSuite, projectId: string): Promise<void> {
  const { sim, stack, engine } = suite;
  await stack.up(engine.opts);
  const app = await suite.shown("app");
  const appId = app.serviceAccountId as string;
  await setToken(suite, app.token as string);
  await stack.up(engine.opts); // stores the credential in the state: refresh and destroy now use it

  sim.clearRequests();
  const refused = await failure(stack.destroy(engine.opts));
  expect(refused).toContain(
    `service account "app" (${appId}) in project ${projectId} was not deleted: its token is the credential this ` +
      "provider is authenticated with",
  );
  expect(refused).toContain("Set another credential first");
  expect(writesOf(sim)).toEqual([]); // refused before any DELETE
  expect(liveIds(sim, projectId)).toEqual([appId]);
  expect(await suite.shown("app")).toEqual(app);

  await setToken(suite, sim.token);
  sim.clearRequests();
  const destroyed = await stack.destroy({ ...engine.opts, runProgram: true });
  expect(destroyed.summary.result).toBe("succeeded");
  expect(writesOf(sim)).toEqual([`DELETE /v2/projects/${projectId}/service-accounts/${appId}`]);
  expect(liveIds(sim, projectId)).toEqual([]);
  suite.expectNoSecrets();
}

for (const host of HOSTS)
  describe(`row 13 ${through(host)}`, () => {
    const { suite, home } = appSuite(host, "pims-peer-own");
    test(`row 13, ${host}: destroy refuses to delete the account whose token is the credential in use`, () =>
      ownCredentialScenario(suite, home()));
  });
