/**
 * ServiceAccount: check and diff tables (pure), the whole lifecycle against the simulator (create → read →
 * update → replace → delete → delete again), credentials, the SDK class under pulumi mocks, the size and
 * content of the serialized provider, and a scan of every error text and log for plaintext secrets.
 */
import * as pulumi from "@pulumi/pulumi";
import {
  AuthError,
  NetworkError,
  NotFoundError,
  PimsClient,
  PimsError,
  RateLimitError,
  ServerError,
  TimeoutError,
  ValidationError,
  type ApiKey,
} from "../../provider/client";
import { UNKNOWN } from "../../provider/common";
import { MissingCredentialsError } from "../../provider/credentials";
import {
  isAmbiguousCreateFailure,
  MAX_EXPIRES_IN,
  orphanCandidates,
  ROTATION_REASON,
  ServiceAccountProvider,
  UncertainCreateError,
  type ServiceAccountOutputs,
} from "../../provider/serviceAccount";
import { ServiceAccount } from "../../sdk/serviceAccount";
import { providerShim } from "../../sdk/shim";
import { captureRegistrations, configureRequest, expectNoPlaintextSecrets, outputValue, simConfig, startSimulator } from "../helpers";
import type { PimsSimulator } from "../../simulator";

type Props = Record<string, unknown>;

let sim: PimsSimulator;
/** Every error message, check reason and log line produced in this file: scanned for secrets at the end. */
const texts: string[] = [];
/** Secrets seen outside the simulator (e.g. the env token of the serialization test). */
const extraSecrets: string[] = [];
const logged: string[] = [];
const restoreConsole: Array<() => void> = [];

beforeAll(async () => {
  sim = await startSimulator();
  for (const level of ["log", "info", "warn", "error", "debug"] as const) {
    const spy = jest.spyOn(console, level).mockImplementation((...args: unknown[]) => {
      logged.push(args.map(String).join(" "));
    });
    restoreConsole.push(() => spy.mockRestore());
  }
});

afterAll(async () => {
  for (const r of restoreConsole) r();
  await sim?.stop();
});

/** Awaits a rejection, records its message for the secret scan, and returns the error. */
async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    const err = e as Error;
    texts.push(err.message, String(err.stack ?? ""));
    return err;
  }
  throw new Error("expected the promise to reject");
}

/** True when `v` survives JSON unchanged: no undefined anywhere, no Output/secret wrapper objects. */
function isPlainJson(v: unknown): boolean {
  return JSON.stringify(JSON.parse(JSON.stringify(v))) === JSON.stringify(v) && deepPlain(v);
}
function deepPlain(v: unknown): boolean {
  if (v === undefined) return false;
  if (Array.isArray(v)) return v.every(deepPlain);
  if (typeof v === "object" && v !== null) {
    if (Object.getPrototypeOf(v) !== Object.prototype) return false;
    return Object.values(v).every(deepPlain);
  }
  return true;
}

/** The outputs with the token removed: the token may live only under `token` (the one secret output). */
const withoutToken = (o: object): string => JSON.stringify({ ...o, token: "<removed>" });

/** create(), with the outputs it must return. */
async function createAccount(p: ServiceAccountProvider, inputs: Props): Promise<{ id: string; outs: ServiceAccountOutputs }> {
  const r = await p.create(inputs);
  if (!r.outs) throw new Error("create returned no outputs");
  return { id: r.id, outs: r.outs };
}

async function configured(extra: ConstructorParameters<typeof ServiceAccountProvider>[0] = {}): Promise<ServiceAccountProvider> {
  const p = new ServiceAccountProvider(extra);
  await p.configure(configureRequest(simConfig(sim)));
  return p;
}

// ---- check ----------------------------------------------------------------------------------------------------

describe("check", () => {
  const provider = new ServiceAccountProvider();
  const valid: Props = { projectId: "p-1", name: "ci", grants: ["p-1", "p-2"], expiresIn: 3600 };
  const failuresOf = async (news: Props) => {
    const r = await provider.check({}, news);
    for (const f of r.failures ?? []) texts.push(f.reason);
    return r.failures ?? [];
  };

  test("valid inputs pass and are normalized (description defaults to \"\", absent options stay absent)", async () => {
    const r = await provider.check({}, { ...valid, __provider: "serialized" });
    expect(r.failures).toEqual([]);
    expect(r.inputs).toEqual({ projectId: "p-1", name: "ci", description: "", grants: ["p-1", "p-2"], expiresIn: 3600 });
    expect(Object.keys(r.inputs ?? {})).not.toContain("rotationTrigger");
    expect(Object.keys(r.inputs ?? {})).not.toContain("rotateBeforeExpiry");
    expect(isPlainJson(r.inputs)).toBe(true);
    const withOptions = await provider.check({}, { ...valid, description: "d", rotationTrigger: "2025-06", rotateBeforeExpiry: 600 });
    expect(withOptions.failures).toEqual([]);
    expect(withOptions.inputs).toMatchObject({ description: "d", rotationTrigger: "2025-06", rotateBeforeExpiry: 600 });
  });

  const x = (n: number, c = "a") => c.repeat(n);
  const cases: Array<[string, Props, string, string | RegExp]> = [
    ["missing projectId", { projectId: undefined }, "projectId", /projectId is required/],
    ["empty projectId", { projectId: "" }, "projectId", /projectId must be a non-empty/],
    ["non-string projectId", { projectId: 7 }, "projectId", /projectId must be a non-empty project id string \(got 7\)/],
    ["missing name", { name: undefined }, "name", "name is required: 1 to 100 characters"],
    ["empty name", { name: "" }, "name", "name must be 1 to 100 characters (got 0)"],
    ["name of 120 characters", { name: x(120) }, "name", "name must be 1 to 100 characters (got 120)"],
    ["name of 101 emoji (counted as characters)", { name: x(101, "🔑") }, "name", "name must be 1 to 100 characters (got 101)"],
    ["non-string name", { name: 42 }, "name", /name must be a string/],
    ["description of 501 characters", { description: x(501) }, "description", "description must be at most 500 characters (got 501)"],
    ["non-string description", { description: true }, "description", /description must be a string/],
    ["missing grants", { grants: undefined }, "grants", /grants is required: 1 to 50/],
    ["grants not an array", { grants: "p-1" }, "grants", /grants must be an array of 1 to 50 project ids/],
    ["no grants", { grants: [] }, "grants", "grants must have 1 to 50 entries (got 0)"],
    ["51 grants", { grants: Array.from({ length: 51 }, (_, i) => `p-${i}`) }, "grants", "grants must have 1 to 50 entries (got 51)"],
    ["an empty grant", { grants: ["p-1", ""] }, "grants", /grants\[1\] must be a non-empty project id string/],
    ["a non-string grant", { grants: [5] }, "grants", /grants\[0\] must be a non-empty project id string \(got 5\)/],
    ["duplicate grants", { grants: ["p-1", "p-2", "p-1", "p-1"] }, "grants", 'grants must not contain duplicates ("p-1" appears more than once)'],
    ["missing expiresIn", { expiresIn: undefined }, "expiresIn", /expiresIn is required/],
    ["negative expiresIn", { expiresIn: -1 }, "expiresIn", /expiresIn must be an integer number of seconds from 0 to 31536000 .*\(got -1\)/],
    ["expiresIn above one year", { expiresIn: MAX_EXPIRES_IN + 1 }, "expiresIn", /\(got 31536001\)/],
    ["non-integer expiresIn", { expiresIn: 1.5 }, "expiresIn", /\(got 1.5\)/],
    ["string expiresIn", { expiresIn: "3600" }, "expiresIn", /\(got "3600"\)/],
    ["non-string rotationTrigger", { rotationTrigger: 3 }, "rotationTrigger", /rotationTrigger must be a string \(got 3\)/],
    ["negative rotateBeforeExpiry", { rotateBeforeExpiry: -1 }, "rotateBeforeExpiry", /non-negative integer number of seconds \(got -1\)/],
    ["non-integer rotateBeforeExpiry", { rotateBeforeExpiry: 0.5 }, "rotateBeforeExpiry", /\(got 0.5\)/],
    ["rotateBeforeExpiry = expiresIn", { rotateBeforeExpiry: 3600 }, "rotateBeforeExpiry", /must be less than expiresIn \(got 3600 >= 3600\).*every `pulumi up` would replace/],
    ["rotateBeforeExpiry > expiresIn", { rotateBeforeExpiry: 7200 }, "rotateBeforeExpiry", /must be less than expiresIn/],
  ];
  test.each(cases)("%s fails on the field, naming the rule", async (_label, change, property, reason) => {
    const failures = await failuresOf({ ...valid, ...change });
    expect(failures).toHaveLength(1);
    expect(failures[0].property).toBe(property);
    if (typeof reason === "string") expect(failures[0].reason).toBe(reason);
    else expect(failures[0].reason).toMatch(reason);
  });

  const edges: Array<[string, Props]> = [
    ["name of 1 character", { name: "a" }],
    ["name of 100 characters", { name: x(100) }],
    ["name of 100 emoji", { name: x(100, "🔑") }],
    ["description of 500 characters", { description: x(500) }],
    ["50 grants", { grants: Array.from({ length: 50 }, (_, i) => `p-${i}`) }],
    ["expiresIn 0 (never)", { expiresIn: 0 }],
    ["expiresIn one year", { expiresIn: MAX_EXPIRES_IN }],
    ["rotateBeforeExpiry 0", { rotateBeforeExpiry: 0 }],
    ["rotateBeforeExpiry just below expiresIn", { rotateBeforeExpiry: 3599 }],
    ["rotateBeforeExpiry with a token that never expires", { expiresIn: 0, rotateBeforeExpiry: 10 ** 9 }],
    ["null description", { description: null }],
  ];
  test.each(edges)("%s passes", async (_label, change) => {
    expect(await failuresOf({ ...valid, ...change })).toEqual([]);
  });

  test("several failures are all reported at once", async () => {
    const failures = await failuresOf({ projectId: "p-1", name: "", grants: [], expiresIn: -5 });
    expect(failures.map((f) => f.property).sort()).toEqual(["expiresIn", "grants", "name"]);
  });

  test.each(["projectId", "name", "description", "grants", "expiresIn", "rotationTrigger", "rotateBeforeExpiry"])(
    "%s unknown at preview is not validated, and passes through",
    async (key) => {
      const r = await provider.check({}, { ...valid, rotateBeforeExpiry: 60, [key]: UNKNOWN });
      expect(r.failures).toEqual([]);
      expect((r.inputs as unknown as Props)[key]).toBe(UNKNOWN);
    },
  );

  test("grants with some unknown entries: the known ones and the length are still checked", async () => {
    expect(await failuresOf({ ...valid, grants: [UNKNOWN, "p-1"] })).toEqual([]);
    const dup = await failuresOf({ ...valid, grants: [UNKNOWN, "p-1", "p-1"] });
    expect(dup.map((f) => f.reason)).toEqual(['grants must not contain duplicates ("p-1" appears more than once)']);
    const tooMany = await failuresOf({ ...valid, grants: Array.from({ length: 51 }, () => UNKNOWN) });
    expect(tooMany.map((f) => f.reason)).toEqual(["grants must have 1 to 50 entries (got 51)"]);
  });

  test("check makes no HTTP call, even on a configured provider", async () => {
    const p = await configured();
    sim.clearRequests();
    await p.check({}, valid);
    await p.check(valid, { ...valid, name: "" });
    await p.check({}, { ...valid, projectId: UNKNOWN });
    expect(sim.requests).toHaveLength(0);
  });
});

// ---- diff -----------------------------------------------------------------------------------------------------

describe("diff", () => {
  const NOW = Date.parse("2025-01-01T00:00:00Z");
  const provider = new ServiceAccountProvider({ now: () => NOW });
  const olds: ServiceAccountOutputs & Props = {
    projectId: "p-1",
    name: "ci",
    description: "deploys",
    grants: ["p-1", "p-2"],
    expiresIn: 86_400,
    rotationTrigger: "r1",
    rotateBeforeExpiry: 3600,
    serviceAccountId: "sa-1",
    createdAt: "2024-12-31T12:00:00Z",
    createdByUserId: "u-1",
    tokenId: "tok-1",
    tokenExpiresAt: "2025-01-01T12:00:00.000Z", // 12 h left; window 1 h: not due
    token: "pims_sa_secret_value_for_diff",
    __provider: "serialized",
  };
  const news = (change: Props = {}): Props => {
    const n: Props = { projectId: "p-1", name: "ci", description: "deploys", grants: ["p-1", "p-2"], expiresIn: 86_400, rotationTrigger: "r1", rotateBeforeExpiry: 3600, __provider: "serialized" };
    for (const [k, v] of Object.entries(change)) {
      if (v === undefined) delete n[k];
      else n[k] = v;
    }
    return n;
  };

  test("unchanged inputs: no changes", async () => {
    expect(await provider.diff("sa-1", olds, news())).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
  });

  test("grants reordered: no change", async () => {
    expect(await provider.diff("sa-1", olds, news({ grants: ["p-2", "p-1"] }))).toMatchObject({ changes: false, replaces: [] });
  });

  const changes: Array<[string, Props]> = [
    ["projectId", { projectId: "p-9" }],
    ["name", { name: "ci-2" }],
    ["description", { description: "" }],
    ["grants", { grants: ["p-1"] }],
    ["grants", { grants: ["p-1", "p-3"] }],
    ["expiresIn", { expiresIn: 86_401 }],
    ["rotationTrigger", { rotationTrigger: "r2" }],
    ["rotationTrigger", { rotationTrigger: undefined }],
    ["rotateBeforeExpiry", { rotateBeforeExpiry: 7200 }],
    ["rotateBeforeExpiry", { rotateBeforeExpiry: undefined }],
  ];
  test.each(changes)("a change of %s replaces it, create-before-delete (%j)", async (key, change) => {
    expect(await provider.diff("sa-1", olds, news(change))).toEqual({ changes: true, replaces: [key], deleteBeforeReplace: false });
  });

  test("a rotation trigger set for the first time replaces", async () => {
    const { rotationTrigger: _, ...noTrigger } = olds;
    expect(await provider.diff("sa-1", noTrigger, news())).toMatchObject({ changes: true, replaces: ["rotationTrigger"] });
  });

  test("several changes list every changed input", async () => {
    const r = await provider.diff("sa-1", olds, news({ name: "x", grants: ["p-3"] }));
    expect(r.replaces).toEqual(["name", "grants"]);
  });

  test("an input unknown at preview counts as a replacing change", async () => {
    expect(await provider.diff("sa-1", olds, news({ name: UNKNOWN }))).toMatchObject({ changes: true, replaces: ["name"], deleteBeforeReplace: false });
    expect(await provider.diff("sa-1", olds, news({ grants: [UNKNOWN, "p-2"] }))).toMatchObject({ changes: true, replaces: ["grants"] });
  });

  test("rotation window reached (or token expired): replace, create-before-delete", async () => {
    const at = (iso: string) => provider.diff("sa-1", { ...olds, tokenExpiresAt: iso }, news());
    const due = { changes: true, replaces: [ROTATION_REASON], deleteBeforeReplace: false };
    expect(await at("2025-01-01T01:00:00.000Z")).toEqual(due); // exactly at expiry − window
    expect(await at("2025-01-01T00:30:00.000Z")).toEqual(due); // inside the window
    expect(await at("2024-12-31T00:00:00.000Z")).toEqual(due); // already expired
    expect(await at("2025-01-01T01:00:01.000Z")).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false }); // one second early
  });

  test("the rotation window used is the new one", async () => {
    // 12 h left: a window of 1 h is not due, a (new) window of 13 h is; the window change itself also replaces.
    const r = await provider.diff("sa-1", olds, news({ rotateBeforeExpiry: 13 * 3600 }));
    expect(r).toEqual({ changes: true, replaces: ["rotateBeforeExpiry"], deleteBeforeReplace: false });
    const unknownWindow = await provider.diff("sa-1", { ...olds, tokenExpiresAt: "2024-01-01T00:00:00Z" }, news({ rotateBeforeExpiry: UNKNOWN }));
    expect(unknownWindow.replaces).toEqual(["rotateBeforeExpiry"]);
  });

  test("a token that never expires is never rotated; no window, no rotation", async () => {
    const never = { ...olds, expiresIn: 0, tokenExpiresAt: "never" };
    expect(await provider.diff("sa-1", never, news({ expiresIn: 0, rotateBeforeExpiry: 0 }))).toMatchObject({ changes: true, replaces: ["rotateBeforeExpiry"] });
    expect(await provider.diff("sa-1", { ...never, rotateBeforeExpiry: 0 }, news({ expiresIn: 0, rotateBeforeExpiry: 0 }))).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
    const expiredNoWindow = { ...olds, rotateBeforeExpiry: undefined, tokenExpiresAt: "2020-01-01T00:00:00Z" };
    delete (expiredNoWindow as Props).rotateBeforeExpiry;
    expect(await provider.diff("sa-1", expiredNoWindow, news({ rotateBeforeExpiry: undefined }))).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
  });

  test("state without a description (older writer) equals an omitted description", async () => {
    const { description: _, ...noDescription } = olds;
    expect(await provider.diff("sa-1", noDescription, news({ description: undefined }))).toMatchObject({ changes: false });
  });

  test("diff makes no HTTP call", async () => {
    const p = await configured({ now: () => NOW });
    sim.clearRequests();
    await p.diff("sa-1", olds, news({ name: "y" }));
    await p.diff("sa-1", { ...olds, tokenExpiresAt: "2020-01-01T00:00:00Z" }, news());
    expect(sim.requests).toHaveLength(0);
  });
});

// ---- lifecycle against the simulator -------------------------------------------------------------------------

describe("lifecycle against the simulator", () => {
  test("create → read → update → replace (create new, delete old) → delete → delete again", async () => {
    const project = sim.addProject();
    const other = sim.addProject();
    const provider = await configured();
    const check = async (news: Props): Promise<Props> => {
      const r = await provider.check({}, news);
      expect(r.failures).toEqual([]);
      return { ...(r.inputs as unknown as Props), __provider: "serialized-shim" };
    };
    const inputs = await check({ projectId: project.id, name: "ci-deployer", description: "deploys from CI", grants: [project.id, other.id], expiresIn: 86_400 });

    // create
    sim.clearRequests();
    const created = await provider.create(inputs);
    const outs = created.outs as ServiceAccountOutputs;
    expect(sim.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([`POST /v2/projects/${project.id}/service-accounts 201`]);
    expect(sim.requests[0].body).toEqual({ name: "ci-deployer", description: "deploys from CI", grants: [project.id, other.id], expiresIn: 86_400 });
    const live = sim.serviceAccounts(project.id);
    expect(live).toHaveLength(1);
    expect(live[0]).toMatchObject({ id: created.id, name: "ci-deployer", description: "deploys from CI", grants: [project.id, other.id] });
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
    });
    expect(Date.parse(outs.tokenExpiresAt) - Date.parse(outs.createdAt)).toBe(86_400_000);
    expect(isPlainJson(outs)).toBe(true);
    // The token is the secret the service issued (not the admin token), and it works as a bearer token.
    expect(sim.issuedSecrets()).toContain(outs.token);
    expect(outs.token).not.toBe(sim.token);
    expectNoPlaintextSecrets(withoutToken(outs), sim.issuedSecrets(), "create outputs other than token");
    const asAccount = new PimsClient({ baseUrl: sim.baseUrl, token: outs.token, retries: 0 });
    const keys = await asAccount.listApiKeys(project.id);
    expect(keys.map((k) => k.principalId)).toContain(created.id);
    const bogus = new PimsClient({ baseUrl: sim.baseUrl, token: `${outs.token}x`, retries: 0 });
    expect(await rejection(bogus.listApiKeys(project.id))).toBeInstanceOf(AuthError);

    // read (refresh): props unchanged, token included, no call
    sim.clearRequests();
    const state = { ...outs, __provider: "serialized-shim" };
    const read = await provider.read(created.id, state);
    expect(read.id).toBe(created.id);
    expect(read.props).toEqual(state);
    expect(read.props?.token).toBe(outs.token);
    expect(sim.requests).toHaveLength(0);

    // update: every output carried over, the token first of all; no call
    const same = await provider.update(created.id, state, inputs);
    expect(same.outs).toEqual(outs);
    const changed = await provider.update(created.id, state, { ...inputs, name: "renamed", rotationTrigger: "r2" });
    expect(changed.outs).toEqual(outs); // replacing inputs are never applied in place: the state keeps the truth
    expect(isPlainJson(changed.outs)).toBe(true);
    expect(sim.requests).toHaveLength(0);

    // replace: diff says replace, create-before-delete; the engine creates the new one, then deletes the old one
    const news = await check({ projectId: project.id, name: "ci-deployer", description: "deploys from CI", grants: [other.id, project.id], expiresIn: 86_400, rotationTrigger: "2025-06" });
    expect(await provider.diff(created.id, state, news)).toEqual({ changes: true, replaces: ["rotationTrigger"], deleteBeforeReplace: false });
    sim.clearRequests();
    const replacement = await provider.create(news);
    const newOuts = replacement.outs as ServiceAccountOutputs;
    expect(replacement.id).not.toBe(created.id);
    expect(newOuts.token).not.toBe(outs.token);
    expect(newOuts.rotationTrigger).toBe("2025-06");
    expect(sim.serviceAccounts(project.id).map((a) => a.id).sort()).toEqual([created.id, replacement.id].sort()); // both live in between
    await provider.delete(created.id, state);
    expect(sim.requests.map((r) => `${r.method} ${r.status}`)).toEqual(["POST 201", "DELETE 200"]);
    expect(sim.requests[1].path).toBe(`/v2/projects/${project.id}/service-accounts/${created.id}`);
    expect(sim.deletedServiceAccounts()).toContain(created.id);
    expect(sim.serviceAccounts(project.id).map((a) => a.id)).toEqual([replacement.id]);
    expect(await rejection(asAccount.listApiKeys(project.id))).toBeInstanceOf(AuthError); // the old token is dead
    const asNew = new PimsClient({ baseUrl: sim.baseUrl, token: newOuts.token, retries: 0 });
    await expect(asNew.listApiKeys(project.id)).resolves.toBeDefined(); // the new one works

    // delete, then delete again (already gone: 404 is success)
    sim.clearRequests();
    await provider.delete(replacement.id, { ...newOuts, __provider: "serialized-shim" });
    expect(sim.deletedServiceAccounts()).toContain(replacement.id);
    expect(sim.serviceAccounts(project.id)).toEqual([]);
    await expect(provider.delete(replacement.id, { ...newOuts, __provider: "serialized-shim" })).resolves.toBeUndefined();
    expect(sim.requests.map((r) => `${r.method} ${r.status}`)).toEqual(["DELETE 200", "DELETE 404"]);
  });

  test("rotateBeforeExpiry: the replacement shows up once the simulator clock enters the window", async () => {
    const project = sim.addProject();
    const provider = await configured({ now: () => sim.now().getTime() });
    const inputs: Props = { projectId: project.id, name: "rotating", description: "", grants: [project.id], expiresIn: 3600, rotateBeforeExpiry: 600 };
    const { id, outs } = await createAccount(provider, inputs);
    expect(await provider.diff(id, outs, inputs)).toMatchObject({ changes: false });
    sim.advanceClock(2999 * 1000);
    expect(await provider.diff(id, outs, inputs)).toMatchObject({ changes: false });
    sim.advanceClock(1000);
    expect(await provider.diff(id, outs, inputs)).toEqual({ changes: true, replaces: ["rotateBeforeExpiry"], deleteBeforeReplace: false });
  });

  test("expiresIn 0: the token never expires and is never rotated", async () => {
    const project = sim.addProject();
    const provider = await configured({ now: () => sim.now().getTime() });
    const inputs: Props = { projectId: project.id, name: "forever", description: "", grants: [project.id], expiresIn: 0, rotateBeforeExpiry: 0 };
    const { id, outs } = await createAccount(provider, inputs);
    expect(outs.tokenExpiresAt).toBe("never");
    sim.advanceClock(10 * 365 * 24 * 3600 * 1000);
    expect(await provider.diff(id, outs, inputs)).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
    const asAccount = new PimsClient({ baseUrl: sim.baseUrl, token: outs.token, retries: 0 });
    await expect(asAccount.listApiKeys(project.id)).resolves.toBeDefined();
  });

  test("a rule only the service knows (grant of a missing project): clear error, nothing created", async () => {
    const project = sim.addProject();
    const provider = await configured();
    const err = await rejection(provider.create({ projectId: project.id, name: "bad", description: "", grants: ["p-doesnotexist"], expiresIn: 60 }));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toMatch(/creating service account "bad" in project .*: 422 .*grants\[0\].*p-doesnotexist/);
    expect(sim.serviceAccounts(project.id)).toEqual([]);
  });

  test("create re-validates: invalid inputs never reach the service", async () => {
    const provider = await configured();
    sim.clearRequests();
    const err = await rejection(provider.create({ projectId: "p-1", name: "", grants: ["p-1"], expiresIn: 60 }));
    expect(err.message).toContain("name must be 1 to 100 characters (got 0)");
    expect(sim.requests).toHaveLength(0);
  });

  test("delete fails on anything but 404 (the account may still exist)", async () => {
    const project = sim.addProject();
    const provider = await configured();
    const { id, outs } = await createAccount(provider, { projectId: project.id, name: "kept", description: "", grants: [project.id], expiresIn: 60 });
    sim.addFault({ method: "DELETE", path: "/v2/projects/*", kind: "status", status: 500, times: 1 });
    const err = await rejection(provider.delete(id, outs));
    expect(err.message).toMatch(new RegExp(`deleting service account ${id} in project ${project.id}: 500`));
    expect(sim.serviceAccounts(project.id).map((a) => a.id)).toEqual([id]);
    sim.clearFaults();
    await provider.delete(id, outs);
    expect(sim.deletedServiceAccounts()).toContain(id);
  });

  test("read without stored state (import) is refused with an explanation", async () => {
    const provider = await configured();
    const err = await rejection(provider.read("sa-123", {}));
    expect(err.message).toMatch(/cannot read service account sa-123: .*cannot be imported or adopted.*Declare a new ServiceAccount/);
  });
});

// ---- failed creates that may have created the account (possible orphans) -------------------------------------

describe("ambiguous create failures: possible orphans", () => {
  const POST_SA = /\/service-accounts$/;
  const API_KEYS = /\/api-keys$/;
  const inputsFor = (projectId: string, name: string): Props => ({ projectId, name, description: "", grants: [projectId], expiresIn: 3600 });
  /** `METHOD <last path segment> STATUS` of every request since the last clearRequests(). */
  const log = (): string[] => sim.requests.map((r) => `${r.method} ${r.path.split("/").pop() ?? ""} ${r.status}`);
  const original = (err: Error): Error => (err instanceof UncertainCreateError ? err.original : err);

  afterEach(() => sim.clearFaults());

  describe("which failures are ambiguous (pure)", () => {
    const init = { action: "creating service account \"x\" in project p-1", method: "POST", path: "/v2/projects/p-1/service-accounts" };
    const cases: Array<[string, boolean, unknown]> = [
      ["a timeout", true, new TimeoutError({ ...init, code: "ECONNABORTED" })],
      ["a dropped connection (ECONNRESET)", true, new NetworkError({ ...init, code: "ECONNRESET" })],
      ["a network error without a code", true, new NetworkError({ ...init })],
      ["ECONNREFUSED (never sent)", false, new NetworkError({ ...init, code: "ECONNREFUSED" })],
      ["ENOTFOUND (never sent)", false, new NetworkError({ ...init, code: "ENOTFOUND" })],
      ["EAI_AGAIN (never sent)", false, new NetworkError({ ...init, code: "EAI_AGAIN" })],
      ["EHOSTUNREACH (never sent)", false, new NetworkError({ ...init, code: "EHOSTUNREACH" })],
      ["ENETUNREACH (never sent)", false, new NetworkError({ ...init, code: "ENETUNREACH" })],
      ["a 500", true, new ServerError({ ...init, status: 500 })],
      ["a 503", true, new ServerError({ ...init, status: 503 })],
      ["a 2xx whose body could not be read (the token was lost)", true, new PimsError({ ...init, status: 201, serverMessage: "unexpected response" })],
      ["a 422", false, new ValidationError({ ...init, status: 422 })],
      ["a 404", false, new NotFoundError({ ...init, status: 404 })],
      ["a 401", false, new AuthError({ ...init, status: 401 })],
      ["a 429 (the service did nothing)", false, new RateLimitError({ ...init, status: 429 })],
      ["a plain Error", false, new Error("boom")],
      ["a string", false, "boom"],
    ];
    test.each(cases)("%s → ambiguous: %s", (_label, expected, e) => {
      expect(isAmbiguousCreateFailure(e)).toBe(expected);
    });

    test("candidates: same name and a principalId only, one per account, newest first, no key value", () => {
      const key = (k: Partial<ApiKey>): ApiKey => ({
        id: "k",
        name: "ci",
        description: "",
        apiKey: "pims_live_key_value_never_shown",
        projectId: "p-1",
        source: "service_account",
        status: "active",
        createdAt: "2025-01-01T00:00:00Z",
        updatedAt: "2025-01-01T00:00:00Z",
        expiresAt: "never",
        ...k,
      });
      const keys = [
        key({ principalId: "sa-old", createdAt: "2025-01-01T00:00:00Z" }),
        key({ principalId: "sa-new", createdAt: "2025-03-01T00:00:00Z" }),
        key({ principalId: "sa-new", createdAt: "2025-04-01T00:00:00Z" }), // a second key of the same account
        key({ principalId: "sa-other", name: "ci-2" }), // another name
        key({ principalId: "sa-case", name: "CI" }), // names are compared exactly
        key({}), // a user key: no principal
      ];
      const candidates = orphanCandidates(keys, "ci");
      expect(candidates).toEqual([
        { id: "sa-new", createdAt: "2025-03-01T00:00:00Z" },
        { id: "sa-old", createdAt: "2025-01-01T00:00:00Z" },
      ]);
      expect(JSON.stringify(candidates)).not.toContain("pims_live_key_value_never_shown");
      expect(orphanCandidates(keys, "nobody")).toEqual([]);
    });
  });

  test("a dropped POST (nothing created): the error is unchanged, no candidates; exactly 1 POST + 1 GET api-keys", async () => {
    const project = sim.addProject();
    const provider = await configured();
    sim.addFault({ method: "POST", path: POST_SA, kind: "drop", times: 1 });
    sim.clearRequests();
    const err = await rejection(provider.create(inputsFor(project.id, "dropped")));
    expect(err).toBeInstanceOf(NetworkError);
    expect(err).not.toBeInstanceOf(UncertainCreateError);
    expect(err.message).toMatch(new RegExp(`^creating service account "dropped" in project ${project.id}: could not reach the service \\([A-Z_]+\\)$`));
    expect(err.message).not.toMatch(/may have created|service-accounts delete/);
    expect(sim.serviceAccounts(project.id)).toEqual([]);
    expect(sim.countRequests({ method: "POST", path: POST_SA })).toBe(1);
    expect(sim.countRequests({ method: "GET", path: API_KEYS })).toBe(1);
    expect(sim.requests).toHaveLength(2);
    expect(sim.requests[1].path).toBe(`/v2/projects/${project.id}/api-keys`);
  });

  test("the account WAS created but the response was lost (client timeout): the error names it and how to delete it, without its token", async () => {
    const project = sim.addProject();
    const saved = process.env.PIMS_TIMEOUT_MS;
    process.env.PIMS_TIMEOUT_MS = "1000"; // read by the provider's client at call time (tuningFromEnv)
    try {
      const provider = await configured();
      // The POST is handled 1.3 s after it arrives, after the client gave up at 1 s: the account exists, its
      // token never reaches the provider. The service stays slow: the listing sent at ~1 s is answered at ~1.6 s
      // (within the timeout), so it sees the account the POST created meanwhile.
      sim.addFault({ method: "POST", path: POST_SA, kind: "delay", delayMs: 1300, times: 1 });
      sim.addFault({ method: "GET", path: API_KEYS, kind: "delay", delayMs: 600, times: 1 });
      sim.clearRequests();
      const err = await rejection(provider.create(inputsFor(project.id, "slow-ci")));

      const live = sim.serviceAccounts(project.id);
      expect(live).toHaveLength(1); // created, and not deleted by the provider
      const orphan = live[0];
      expect(err).toBeInstanceOf(UncertainCreateError);
      const uncertain = err as UncertainCreateError;
      expect(uncertain.original).toBeInstanceOf(TimeoutError);
      expect(uncertain.candidates).toEqual([{ id: orphan.id, createdAt: orphan.createdAt }]);
      const lines = err.message.split("\n");
      expect(lines[0]).toBe(uncertain.original.message); // the original message is kept, first
      expect(lines[0]).toBe(`creating service account "slow-ci" in project ${project.id}: timed out waiting for the service`);
      expect(err.message).toContain("The service may have created the account anyway");
      expect(err.message).toContain(`${orphan.id} (created ${orphan.createdAt})`);
      expect(err.message).toContain("Their tokens are unknown to Pulumi");
      expect(err.message).toContain(`pims service-accounts delete ${project.id} <id>`);
      expectNoPlaintextSecrets(`${err.message}\n${String(err.stack)}`, sim.issuedSecrets(), "the uncertain-create error");
      expectNoPlaintextSecrets(JSON.stringify(uncertain.candidates), sim.issuedSecrets(), "the candidates");
      expect(log()).toEqual(["POST service-accounts 201", "GET api-keys 200"]); // no retry of the POST
    } finally {
      if (saved === undefined) delete process.env.PIMS_TIMEOUT_MS;
      else process.env.PIMS_TIMEOUT_MS = saved;
    }
  });

  test("a 5xx while a same-named account of another stack exists: it is named as a candidate, and left alone", async () => {
    const project = sim.addProject();
    const provider = await configured();
    const { id: otherStacks } = await createAccount(provider, inputsFor(project.id, "shared"));
    const { id: differentName } = await createAccount(provider, inputsFor(project.id, "shared-2"));
    sim.addApiKey(project.id, { name: "shared" }); // a user key with the same name: no principal, not an account
    sim.addFault({ method: "POST", path: POST_SA, kind: "status", status: 500, times: 1 });
    sim.clearRequests();
    const err = await rejection(provider.create(inputsFor(project.id, "shared")));
    expect(err).toBeInstanceOf(UncertainCreateError);
    expect(original(err)).toBeInstanceOf(ServerError);
    expect(err.message.split("\n")[0]).toBe(`creating service account "shared" in project ${project.id}: 500 injected fault`);
    expect((err as UncertainCreateError).candidates.map((c) => c.id)).toEqual([otherStacks]);
    expect(err.message).toContain(`Project ${project.id} now has 1 live service account named "shared"`);
    expect(err.message).not.toContain(differentName);
    expect(err.message).toMatch(/another stack.*never deletes one by itself/);
    expect(log()).toEqual(["POST service-accounts 500", "GET api-keys 200"]);
    expect(sim.serviceAccounts(project.id).map((a) => a.id).sort()).toEqual([otherStacks, differentName].sort());
    expectNoPlaintextSecrets(err.message, sim.issuedSecrets(), "the uncertain-create error");
  });

  test("a 5xx with no same-named account: the error is unchanged", async () => {
    const project = sim.addProject();
    const provider = await configured();
    await createAccount(provider, inputsFor(project.id, "unrelated"));
    sim.addFault({ method: "POST", path: POST_SA, kind: "status", status: 503, times: 1 });
    sim.clearRequests();
    const err = await rejection(provider.create(inputsFor(project.id, "fresh")));
    expect(err).toBeInstanceOf(ServerError);
    expect(err.message).toBe(`creating service account "fresh" in project ${project.id}: 503 injected fault`);
    expect(log()).toEqual(["POST service-accounts 503", "GET api-keys 200"]);
  });

  test("the listing fails too: best effort, the original error is thrown unchanged (listing retried at most once)", async () => {
    const project = sim.addProject();
    const provider = await configured();
    await createAccount(provider, inputsFor(project.id, "same"));
    sim.addFault({ method: "POST", path: POST_SA, kind: "status", status: 500, times: 1 });
    sim.addFault({ method: "GET", path: API_KEYS, kind: "status", status: 503 });
    sim.clearRequests();
    const err = await rejection(provider.create(inputsFor(project.id, "same")));
    expect(err).toBeInstanceOf(ServerError);
    expect(err.message).toBe(`creating service account "same" in project ${project.id}: 500 injected fault`);
    expect(log()).toEqual(["POST service-accounts 500", "GET api-keys 503", "GET api-keys 503"]);
  });

  test("a failure that proves nothing was created (422) is rethrown without any listing", async () => {
    const project = sim.addProject();
    const provider = await configured();
    sim.clearRequests();
    const err = await rejection(provider.create({ ...inputsFor(project.id, "bad"), grants: ["p-doesnotexist"] }));
    expect(err).toBeInstanceOf(ValidationError);
    expect(log()).toEqual(["POST service-accounts 422"]);
  });

  test("the happy path makes exactly one call (the POST)", async () => {
    const project = sim.addProject();
    const provider = await configured();
    sim.clearRequests();
    await createAccount(provider, inputsFor(project.id, "happy"));
    expect(log()).toEqual(["POST service-accounts 201"]);
  });
});

// ---- credentials -----------------------------------------------------------------------------------------------

describe("credentials", () => {
  const saved = { token: process.env.PIMS_TOKEN, baseUrl: process.env.PIMS_BASE_URL };
  const restore = () => {
    for (const [k, v] of [["PIMS_TOKEN", saved.token], ["PIMS_BASE_URL", saved.baseUrl]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  afterEach(restore);

  test("no configure and no env: MissingCredentialsError naming pims:token and PIMS_TOKEN", async () => {
    delete process.env.PIMS_TOKEN;
    delete process.env.PIMS_BASE_URL;
    const project = sim.addProject();
    for (const provider of [new ServiceAccountProvider(), await (async () => {
      const p = new ServiceAccountProvider();
      await p.configure(configureRequest({}));
      return p;
    })()]) {
      const err = await rejection(provider.create({ projectId: project.id, name: "x", description: "", grants: [project.id], expiresIn: 60 }));
      expect(err).toBeInstanceOf(MissingCredentialsError);
      expect(err.message).toContain("pims:token");
      expect(err.message).toContain("PIMS_TOKEN");
      const del = await rejection(provider.delete("sa-1", { projectId: project.id }));
      expect(del).toBeInstanceOf(MissingCredentialsError);
    }
    expect(sim.serviceAccounts(project.id)).toEqual([]);
  });

  test("env fallback: PIMS_TOKEN / PIMS_BASE_URL, read at call time", async () => {
    const project = sim.addProject();
    const provider = new ServiceAccountProvider(); // created before the env is set
    await provider.configure(configureRequest({}));
    process.env.PIMS_TOKEN = sim.token;
    process.env.PIMS_BASE_URL = sim.baseUrl;
    const { id } = await provider.create({ projectId: project.id, name: "from-env", description: "", grants: [project.id], expiresIn: 60 });
    expect(sim.serviceAccounts(project.id).map((a) => a.id)).toEqual([id]);
    await provider.delete(id, { projectId: project.id });
    expect(sim.deletedServiceAccounts()).toContain(id);
  });
});

// ---- the serialized provider ------------------------------------------------------------------------------------

describe("serialized provider", () => {
  const saved = process.env.PIMS_TOKEN;
  afterAll(() => {
    if (saved === undefined) delete process.env.PIMS_TOKEN;
    else process.env.PIMS_TOKEN = saved;
  });

  test("holds no token and stays small", async () => {
    const envToken = `pims_env_${"7f3a".repeat(10)}`;
    extraSecrets.push(envToken);
    process.env.PIMS_TOKEN = envToken;
    // What dynamic.Resource stores in state as __provider: serializeFunction(() => provider), a closure over the
    // shim object (pulumi/dynamic: serializeProvider). The mocks test below checks the real __provider too.
    const shim = providerShim("ServiceAccount");
    const stored = await pulumi.runtime.serializeFunction(() => shim, { allowSecrets: true });
    // The form the issue names: a closure over the providerShim *function*, which also serializes the factory
    // and the shim module's exports. It is never stored, so only its content is asserted; its size is printed.
    const asWritten = await pulumi.runtime.serializeFunction(() => providerShim("ServiceAccount"));
    process.stdout.write(
      `serialized shim, as stored (() => shim): ${Buffer.byteLength(stored.text)} bytes; ` +
        `as the issue words it (() => providerShim("ServiceAccount")): ${Buffer.byteLength(asWritten.text)} bytes\n`,
    );
    for (const s of [stored, asWritten]) {
      expect(s.text).not.toContain(envToken);
      expect(s.text).not.toContain(sim.token);
      expect(s.text).not.toMatch(/PIMS_TOKEN|process\.env/);
      expect(s.containsSecrets).toBe(false);
      expect(s.text).toContain("pulumi-pims/bin/provider");
    }
    expect(Buffer.byteLength(stored.text)).toBeLessThan(1500);
    expect(Buffer.byteLength(asWritten.text)).toBeLessThan(3000);
  });
});

// ---- the SDK class under pulumi mocks ---------------------------------------------------------------------------

describe("ServiceAccount class (pulumi mocks)", () => {
  const newResourceArgs: pulumi.runtime.MockResourceArgs[] = [];
  // The mock API's newResource does not receive resource options: `registered` holds the RegisterResourceRequests
  // the SDK sends to the (mock) resource monitor, which carry additionalSecretOutputs as the engine sees them.
  const registered = captureRegistrations({
    newResource: (args) => {
      newResourceArgs.push(args);
      return { id: "sa-mock", state: { ...args.inputs, serviceAccountId: "sa-mock", token: "pims_sa_mocked_token_value" } };
    },
    call: (args) => args.inputs,
  });

  test("registers pulumi-nodejs:dynamic/pims:ServiceAccount with additionalSecretOutputs [token]", async () => {
    const envToken = `pims_env_${"9c1d".repeat(10)}`;
    extraSecrets.push(envToken);
    const savedToken = process.env.PIMS_TOKEN;
    process.env.PIMS_TOKEN = envToken;
    const sa = new ServiceAccount("ci", { projectId: "p-1", name: "ci", grants: ["p-1"], expiresIn: 3600 }, { additionalSecretOutputs: ["tokenId"] });
    const [urn, token] = await Promise.all([outputValue(sa.urn), outputValue(sa.token)]);

    expect(registered).toHaveLength(1);
    expect(registered[0].type).toBe("pulumi-nodejs:dynamic/pims:ServiceAccount");
    expect(registered[0].additionalSecretOutputs).toContain("token");
    expect(registered[0].additionalSecretOutputs).toContain("tokenId"); // the user's options are merged, not replaced
    expect(urn).toMatch(/::pulumi-nodejs:dynamic\/pims:ServiceAccount::ci$/);
    expect(newResourceArgs[0].type).toBe("pulumi-nodejs:dynamic/pims:ServiceAccount");
    expect(newResourceArgs[0].inputs).toMatchObject({ projectId: "p-1", name: "ci", grants: ["p-1"], expiresIn: 3600 });
    if (savedToken === undefined) delete process.env.PIMS_TOKEN;
    else process.env.PIMS_TOKEN = savedToken;
    // __provider is exactly what the state stores: no credential, small.
    const stored: unknown = newResourceArgs[0].inputs.__provider;
    expect(typeof stored).toBe("string");
    expect(stored).not.toContain(envToken);
    expect(Buffer.byteLength(stored as string)).toBeLessThan(1500);
    texts.push(stored as string);
    expect(token).toBe("pims_sa_mocked_token_value"); // the seeded output key is populated from the state
  });
});

// ---- secret scan (last: it reads what every test above produced) --------------------------------------------

describe("secret scan", () => {
  test("no issued secret, admin token or env token in any error message, check reason or log line", () => {
    const secrets = [...sim.issuedSecrets(), sim.token, ...extraSecrets];
    expect(sim.issuedSecrets().length).toBeGreaterThan(5); // the scan looks for real secrets
    expect(texts.length).toBeGreaterThan(20); // ...in real texts
    process.stdout.write(`scanned ${texts.length} error/check texts and ${logged.length} log lines for ${secrets.length} secrets\n`);
    expectNoPlaintextSecrets(texts.join("\n"), secrets, "error messages and check reasons");
    expectNoPlaintextSecrets(logged.join("\n"), secrets, "console output");
  });
});
