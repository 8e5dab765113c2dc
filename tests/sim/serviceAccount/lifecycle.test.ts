/**
 * ServiceAccount against the simulator: the whole lifecycle (create → read → update → replace → delete → delete
 * again), rotation on the simulator clock, a new rotateBeforeExpiry applied in place with no call, check and diff
 * making no call, and a scan of every error text and log line for plaintext secrets. Credentials: credentials.test.ts.
 */
import { AuthError, PimsClient, ValidationError } from "../../../provider/client";
import { UNKNOWN } from "../../../provider/checks";
import type { ServiceAccountOutputs } from "../../../provider/serviceAccount";
import { newRun } from "../../../provider/serviceAccount/run";
import {
  inputsFor,
  isPlainJson,
  withoutToken,
  useServiceAccountSuite,
  type LooseServiceAccountProvider,
  type Props,
} from "../../kit/provider/serviceAccount";
import { expectNoPlaintextSecrets } from "../../kit/secrets/secrets";

const suite = useServiceAccountSuite();

/** A provider whose clock is the simulator's: its rotation window follows `suite.sim.advanceClock`. */
const simClockProvider = (): Promise<LooseServiceAccountProvider> =>
  suite.configured({ now: () => suite.sim.now().getTime() });

/** create(), with the outputs it must return. */
async function createAccount(
  p: LooseServiceAccountProvider,
  inputs: Props,
): Promise<{ id: string; outs: ServiceAccountOutputs }> {
  return p.create(inputs);
}

// ---- no call in check and diff ------------------------------------------------------------------------------------

describe("check and diff make no call", () => {
  const valid: Props = { projectId: "p-1", name: "ci", grants: ["p-1", "p-2"], expiresIn: 3600 };

  test("check makes no HTTP call, even on a configured provider", async () => {
    const p = await suite.configured();
    suite.sim.clearRequests();
    await p.check({}, valid);
    await p.check(valid, { ...valid, name: "" });
    await p.check({}, { ...valid, projectId: UNKNOWN });
    expect(suite.sim.requests).toHaveLength(0);
  });

  test("diff makes no HTTP call", async () => {
    const NOW = Date.parse("2025-01-01T00:00:00Z");
    const p = await suite.configured({ now: () => NOW });
    const olds: Props = {
      ...valid,
      description: "",
      serviceAccountId: "sa-1",
      createdAt: "2024-12-31T12:00:00Z",
      createdByUserId: "u-1",
      tokenId: "tok-1",
      tokenExpiresAt: "2025-01-01T12:00:00.000Z",
      token: "pims_sa_secret_value_for_diff",
    };
    suite.sim.clearRequests();
    await p.diff("sa-1", olds, { ...valid, name: "y" });
    await p.diff("sa-1", { ...olds, tokenExpiresAt: "2020-01-01T00:00:00Z" }, { ...valid, rotateBeforeExpiry: 60 });
    expect(suite.sim.requests).toHaveLength(0);
  });
});

// ---- lifecycle against the simulator -------------------------------------------------------------------------

describe("lifecycle against the simulator", () => {
  test("create → read → update → replace (create new, delete old) → delete → delete again", async () => {
    const project = suite.sim.addProject();
    const other = suite.sim.addProject();
    const provider = await suite.configured();
    const check = async (news: Props): Promise<Props> => {
      const r = await provider.check({}, news);
      expect(r.failures).toEqual([]);
      return { ...(r.inputs as Props | undefined), __provider: "serialized-shim" };
    };
    const first: Props = {
      projectId: project.id,
      name: "ci-deployer",
      description: "deploys from CI",
      grants: [project.id, other.id],
      expiresIn: 86_400,
    };
    const inputs = await check(first);

    // create
    suite.sim.clearRequests();
    const created = await provider.create(inputs);
    const outs = created.outs;
    expect(suite.sim.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      `POST /v2/projects/${project.id}/service-accounts 201`,
    ]);
    expect(suite.sim.requests[0].body).toEqual({
      name: "ci-deployer",
      description: "deploys from CI",
      grants: [project.id, other.id],
      expiresIn: 86_400,
    });
    const live = suite.sim.serviceAccounts(project.id);
    expect(live).toHaveLength(1);
    expect(live[0]).toMatchObject({
      id: created.id,
      name: "ci-deployer",
      description: "deploys from CI",
      grants: [project.id, other.id],
    });
    expect(outs).toEqual({
      projectId: project.id,
      name: "ci-deployer",
      description: "deploys from CI",
      grants: [project.id, other.id],
      expiresIn: 86_400,
      serviceAccountId: created.id,
      createdAt: live[0].createdAt,
      createdByUserId: live[0].createdByUserId,
      tokenId: live[0].tokenId,
      tokenExpiresAt: live[0].tokenExpiresAt,
      token: expect.any(String),
      tokenHeld: true,
      tokenFingerprint: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
    expect(Date.parse(outs.tokenExpiresAt) - Date.parse(outs.createdAt)).toBe(86_400_000);
    expect(isPlainJson(outs)).toBe(true);
    // The token is the secret the service issued (not the admin token), and it works as a bearer token.
    expect(suite.sim.issuedSecrets()).toContain(outs.token);
    expect(outs.token).not.toBe(suite.sim.token);
    expectNoPlaintextSecrets(withoutToken(outs), suite.sim.issuedSecrets(), "create outputs other than token");
    const asAccount = new PimsClient({ baseUrl: suite.sim.baseUrl, token: outs.token, retries: 0 });
    const keys = await asAccount.listApiKeys(project.id);
    expect(keys.map((k) => k.principalId)).toContain(created.id);
    const bogus = new PimsClient({ baseUrl: suite.sim.baseUrl, token: `${outs.token}x`, retries: 0 });
    expect(await suite.rejection(bogus.listApiKeys(project.id))).toBeInstanceOf(AuthError);

    // read (refresh): props unchanged, token included; one listing, which still shows the account
    suite.sim.clearRequests();
    newRun();
    const state = { ...outs, __provider: "serialized-shim" };
    const read = await provider.read(created.id, state);
    expect(read.id).toBe(created.id);
    expect(read.props).toEqual(state);
    expect(read.props?.token).toBe(outs.token);
    expect(suite.sim.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET /v2/projects/${project.id}/api-keys`]);
    suite.sim.clearRequests();

    // update: every output carried over, the token first of all; no call
    const same = await provider.update(created.id, state, inputs);
    expect(same).toEqual(outs);
    const changed = await provider.update(created.id, state, { ...inputs, name: "renamed", rotationTrigger: "r2" });
    expect(changed).toEqual(outs); // replacing inputs are never applied in place: the state keeps the truth
    expect(isPlainJson(changed)).toBe(true);
    expect(suite.sim.requests).toHaveLength(0);

    // replace: diff says replace, create-before-delete; the engine creates the new one, then deletes the old one
    const news = await check({ ...first, grants: [other.id, project.id], rotationTrigger: "2025-06" });
    expect(await provider.diff(created.id, state, news)).toEqual({
      changes: true,
      replaces: ["rotationTrigger"],
      deleteBeforeReplace: false,
    });
    suite.sim.clearRequests();
    newRun(); // a new `pulumi up`
    const replacement = await provider.create(news);
    const newOuts = replacement.outs;
    expect(replacement.id).not.toBe(created.id);
    expect(newOuts.token).not.toBe(outs.token);
    expect(newOuts.rotationTrigger).toBe("2025-06");
    expect(
      suite.sim
        .serviceAccounts(project.id)
        .map((a) => a.id)
        .sort(),
    ).toEqual([created.id, replacement.id].sort()); // both live in between
    await provider.delete(created.id, state);
    // The delete of the replaced account looks at the project's accounts first (accounts no state holds).
    expect(suite.sim.requests.map((r) => `${r.method} ${r.status}`)).toEqual(["POST 201", "GET 200", "DELETE 200"]);
    expect(suite.sim.requests[2].path).toBe(`/v2/projects/${project.id}/service-accounts/${created.id}`);
    expect(suite.sim.deletedServiceAccounts()).toContain(created.id);
    expect(suite.sim.serviceAccounts(project.id).map((a) => a.id)).toEqual([replacement.id]);
    expect(await suite.rejection(asAccount.listApiKeys(project.id))).toBeInstanceOf(AuthError); // the old token is dead
    const asNew = new PimsClient({ baseUrl: suite.sim.baseUrl, token: newOuts.token, retries: 0 });
    await expect(asNew.listApiKeys(project.id)).resolves.toBeDefined(); // the new one works

    // delete, then delete again: the 404 counts as deleted once the project's API keys confirm the account is gone
    suite.sim.clearRequests();
    newRun(); // a `pulumi destroy`: its one listing, then the DELETEs; a 404 gets a listing of its own
    await provider.delete(replacement.id, { ...newOuts, __provider: "serialized-shim" });
    expect(suite.sim.deletedServiceAccounts()).toContain(replacement.id);
    expect(suite.sim.serviceAccounts(project.id)).toEqual([]);
    await expect(
      provider.delete(replacement.id, { ...newOuts, __provider: "serialized-shim" }),
    ).resolves.toBeUndefined();
    expect(suite.sim.requests.map((r) => `${r.method} ${r.status}`)).toEqual([
      "GET 200",
      "DELETE 200",
      "DELETE 404",
      "GET 200",
    ]);
    expect(suite.sim.requests[3].path).toBe(`/v2/projects/${project.id}/api-keys`);
  });

  test("rotateBeforeExpiry: the replacement shows up once the simulator clock enters the window", async () => {
    const project = suite.sim.addProject();
    const provider = await simClockProvider();
    const inputs = inputsFor(project.id, "rotating", { expiresIn: 3600, rotateBeforeExpiry: 600 });
    const { id, outs } = await createAccount(provider, inputs);
    expect(await provider.diff(id, outs, inputs)).toMatchObject({ changes: false });
    suite.sim.advanceClock(2999 * 1000);
    expect(await provider.diff(id, outs, inputs)).toMatchObject({ changes: false });
    suite.sim.advanceClock(1000);
    expect(await provider.diff(id, outs, inputs)).toEqual({
      changes: true,
      replaces: ["rotateBeforeExpiry"],
      deleteBeforeReplace: false,
    });
  });

  test("expiresIn 0: the token never expires and is never rotated", async () => {
    const project = suite.sim.addProject();
    const provider = await simClockProvider();
    const inputs = inputsFor(project.id, "forever", { expiresIn: 0, rotateBeforeExpiry: 0 });
    const { id, outs } = await createAccount(provider, inputs);
    expect(outs.tokenExpiresAt).toBe("never");
    suite.sim.advanceClock(10 * 365 * 24 * 3600 * 1000);
    expect(await provider.diff(id, outs, inputs)).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
    const asAccount = new PimsClient({ baseUrl: suite.sim.baseUrl, token: outs.token, retries: 0 });
    await expect(asAccount.listApiKeys(project.id)).resolves.toBeDefined();
  });

  test("a rule only the service knows (grant of a missing project): clear error, nothing created", async () => {
    const project = suite.sim.addProject();
    const provider = await suite.configured();
    const err = await suite.rejection(
      provider.create({
        projectId: project.id,
        name: "bad",
        description: "",
        grants: ["p-doesnotexist"],
        expiresIn: 60,
      }),
    );
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toMatch(/creating service account "bad" in project .*: 422 .*grants\[0\].*p-doesnotexist/);
    expect(suite.sim.serviceAccounts(project.id)).toEqual([]);
  });

  test("create re-validates: invalid inputs never reach the service", async () => {
    const provider = await suite.configured();
    suite.sim.clearRequests();
    const err = await suite.rejection(provider.create({ projectId: "p-1", name: "", grants: ["p-1"], expiresIn: 60 }));
    expect(err.message).toContain("name must be 1 to 100 characters (got 0)");
    expect(suite.sim.requests).toHaveLength(0);
  });

  test("read without stored state (the dynamic host's import) is refused, naming what works instead", async () => {
    const provider = await suite.configured();
    const err = await suite.rejection(provider.read("sa-123", {}));
    expect(err.message).toMatch(
      /cannot read service account sa-123: no state to start from\. .*`pulumi import pims:index:ServiceAccount .*adoptServiceAccountId/,
    );
  });
});

// ---- rotateBeforeExpiry alone: an in-place update ------------------------------------------------------------------

describe("rotateBeforeExpiry changed alone", () => {
  test("is an update that makes no call and keeps the account id and its token", async () => {
    const project = suite.sim.addProject();
    const provider = await simClockProvider();
    const inputs = inputsFor(project.id, "policy", { expiresIn: 86_400, rotateBeforeExpiry: 600 });
    const { id, outs } = await createAccount(provider, inputs);
    const state: Props = { ...outs, __provider: "serialized-shim" };
    const news: Props = { ...inputs, rotateBeforeExpiry: 3600, __provider: "serialized-shim" };

    suite.sim.clearRequests();
    const checked = await provider.check(state, news);
    expect(checked.failures).toEqual([]);
    expect(await provider.diff(id, state, { ...(checked.inputs as Props | undefined) })).toEqual({
      changes: true,
      replaces: [],
      deleteBeforeReplace: false,
    });
    const updated = await provider.update(id, state, { ...(checked.inputs as Props | undefined) });
    expect(suite.sim.requests).toEqual([]); // not one call: the service never sees the window

    expect(updated).toEqual({ ...outs, rotateBeforeExpiry: 3600 });
    expect(updated.serviceAccountId).toBe(id);
    expect(updated.token).toBe(outs.token);
    expect(suite.sim.serviceAccounts(project.id).map((a) => a.id)).toEqual([id]); // the same live account, no other
    await expect(
      new PimsClient({ baseUrl: suite.sim.baseUrl, token: updated.token, retries: 0 }).listApiKeys(project.id),
    ).resolves.toBeDefined();
  });

  test("a new window already reached replaces (the rotation)", async () => {
    const project = suite.sim.addProject();
    const provider = await simClockProvider();
    const inputs = inputsFor(project.id, "policy-due", { expiresIn: 3600, rotateBeforeExpiry: 60 });
    const { id, outs } = await createAccount(provider, inputs);
    suite.sim.advanceClock(3000 * 1000); // 600 s left: the 60 s window is not reached, a 1200 s one is
    suite.sim.clearRequests();
    expect(await provider.diff(id, outs, inputs)).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
    expect(await provider.diff(id, outs, { ...inputs, rotateBeforeExpiry: 1200 })).toEqual({
      changes: true,
      replaces: ["rotateBeforeExpiry"],
      deleteBeforeReplace: false,
    });
    expect(suite.sim.requests).toEqual([]);
  });
});

// ---- secret scan (last: it reads what every test above produced) --------------------------------------------

describe("secret scan", () => {
  test("no issued secret, admin token or env token in any error message, check reason or log line", () => {
    suite.expectNoSecretsSeen({ secrets: 6, texts: 8 }); // check reasons hold no secret: tests/unit
  });
});
