/**
 * Fuzzed inputs: property-based tests (fast-check) of every provider's `check()` — Project, ServiceAccount,
 * VolumeSize, AppSecrets.
 *
 * Each field gets arbitrary JSON values plus values near its boundaries (strings of 0/1/2/49/50/51/… code
 * points, astral characters whose UTF-16 length differs from their length in characters, blank strings, numbers
 * around 0, 50, 1024 and 31536000, fractions, huge and negative numbers, null, absent, the preview-unknown
 * placeholder). An oracle written from the seed's rules (and the SDK's documented ones) says, per field, whether
 * the value is valid and which rule it breaks. For every generated input:
 *   - check() never throws;
 *   - the set of fields with failures is exactly the set the oracle calls invalid (valid inputs are accepted);
 *   - every failure names its field (`property`) and its reason states the broken rule (a regex per rule);
 *   - no secret value appears in a reason (AppSecrets);
 *   - no HTTP call: the providers are configured against a simulator whose request log stays empty.
 * A second property per provider feeds completely arbitrary values (any JS value, not only JSON) as olds/news
 * and only asserts that check() returns a well-formed result without throwing.
 */
import fc from "fast-check";
import { UNKNOWN } from "../../provider/common";
import { newProvider } from "../../provider/index";
import { configureRequest, simConfig, startSimulator } from "../helpers";
import type { PimsSimulator } from "../../simulator";

const RUNS = Number(process.env.FUZZ_RUNS ?? 2000);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const fcParams = { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) };

type Props = Record<string, unknown>;
type Kind = "Project" | "ServiceAccount" | "VolumeSize" | "AppSecrets";
/** What the oracle says about one field: undefined = valid, else the patterns an acceptable reason matches. */
type Verdict = RegExp[] | undefined;

// ---- arbitraries ---------------------------------------------------------------------------------------

/** Lengths (in characters) around every string limit of the four resources. */
const STRING_LENGTHS = [0, 1, 2, 3, 49, 50, 51, 99, 100, 101, 255, 256, 257, 499, 500, 501];

/** A string of exactly `n` code points: ASCII, or any code point (astral ones take two UTF-16 units). */
const stringOfLength = (n: number): fc.Arbitrary<string> =>
  fc.oneof(
    fc.string({ unit: "grapheme-ascii", minLength: n, maxLength: n }),
    fc.string({ unit: "binary", minLength: n, maxLength: n }),
    fc.constant("😀".repeat(n)), // n characters, 2n UTF-16 units
  );

const boundaryString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...STRING_LENGTHS).chain(stringOfLength),
  fc.constantFrom("", " ", "  ", "\t", "\n", " \t\n ", "\u00a0", "a", "ab", "p-1a2b3c4d"),
);

const boundaryNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(
    -1, 0, -0, 1, 49, 50, 51, 99, 100, 1023, 1024, 1025,
    31_535_999, 31_536_000, 31_536_001, 0.5, 49.5, 50.5, 1e-9, 50 + 1e-9,
    Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 2, 1e21, -1e21, Number.MIN_VALUE, Number.MAX_VALUE,
  ),
  fc.integer({ min: -5, max: 120 }),
  fc.integer({ min: 31_535_990, max: 31_536_010 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** Any value a field may carry (the engine only sends JSON), plus the preview placeholder. */
const anyField: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  { weight: 3, arbitrary: boundaryString },
  { weight: 3, arbitrary: boundaryNumber },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, true, false, [], {}, UNKNOWN) },
);

/** Mostly plausible values for a field, sometimes anything. */
const field = (plausible: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> =>
  fc.oneof({ weight: 3, arbitrary: plausible }, { weight: 2, arbitrary: anyField });

const idLike = fc.oneof(fc.stringMatching(/^p-[0-9a-f]{8}$/), fc.constantFrom("default-us-east-1", "p-1a2b3c4d-web", "x"));
const VALUE_MARK = "sv~";
/** Secret values carry a mark (and are at least 9 characters) so a leak into a reason can be told from a name. */
const secretValue = fc.string({ minLength: 6, maxLength: 30 }).map((s) => `${VALUE_MARK}${s}`);

// ---- oracle helpers ------------------------------------------------------------------------------------

const chars = (s: string): number => Array.from(s).length;
const absent = (v: unknown): boolean => v === undefined || v === null;
const isMap = (v: unknown): v is Props => typeof v === "object" && v !== null && !Array.isArray(v);
const validInt = (v: unknown, min: number, max = Infinity): v is number =>
  typeof v === "number" && Number.isInteger(v) && v >= min && v <= max;

/** A required non-empty id string (VolumeSize and AppSecrets wording). */
function requiredIdVerdict(name: string, v: unknown): Verdict {
  if (absent(v)) return [new RegExp(`^${name} is required$`)];
  if (v === UNKNOWN) return undefined;
  if (typeof v !== "string") return [new RegExp(`^${name} must be a string \\(got \\w+\\)$`)];
  if (v.trim() === "") return [new RegExp(`^${name} must not be empty$`)];
  return undefined;
}

// ---- the oracles, one per resource ---------------------------------------------------------------------

function projectOracle(news: Props): Record<string, Verdict> {
  const name = news.name;
  let v: Verdict;
  if (absent(name)) v = [/^name is required$/];
  else if (name === UNKNOWN) v = undefined;
  else if (typeof name !== "string") v = [/^name must be a string \(got \w+\)$/];
  else if (chars(name) < 2 || chars(name) > 50) v = [new RegExp(`^name must be 2 to 50 characters \\(got ${chars(name)}: `)];
  return { name: v };
}

function serviceAccountOracle(news: Props): Record<string, Verdict> {
  const out: Record<string, Verdict> = {};
  const { projectId, name, description, grants, expiresIn, rotationTrigger, rotateBeforeExpiry } = news;

  if (absent(projectId)) out.projectId = [/^projectId is required: the id of the project that owns the account$/];
  else if (projectId !== UNKNOWN && (typeof projectId !== "string" || projectId.trim() === ""))
    out.projectId = [/^projectId must be a non-empty project id string \(got .*\)$/s];

  if (absent(name)) out.name = [/^name is required: 1 to 100 characters$/];
  else if (name !== UNKNOWN) {
    if (typeof name !== "string") out.name = [/^name must be a string of 1 to 100 characters \(got .*\)$/s];
    else if (chars(name) < 1 || chars(name) > 100) out.name = [new RegExp(`^name must be 1 to 100 characters \\(got ${chars(name)}\\)$`)];
  }

  if (!absent(description) && description !== UNKNOWN) {
    if (typeof description !== "string") out.description = [/^description must be a string of at most 500 characters \(got .*\)$/s];
    else if (chars(description) > 500) out.description = [new RegExp(`^description must be at most 500 characters \\(got ${chars(description)}\\)$`)];
  }

  if (absent(grants)) out.grants = [/^grants is required: 1 to 50 project ids the account may access$/];
  else if (grants !== UNKNOWN) {
    if (!Array.isArray(grants)) out.grants = [/^grants must be an array of 1 to 50 project ids \(got .*\)$/s];
    else {
      const bad = grants.length < 1 || grants.length > 50;
      const known = grants.filter((g) => g !== UNKNOWN);
      const badEntry = known.some((g) => typeof g !== "string" || g.trim() === "");
      const strings = known.filter((g): g is string => typeof g === "string" && g.trim() !== "");
      const duplicate = new Set(strings).size !== strings.length;
      if (bad || badEntry || duplicate) {
        out.grants = [
          /^grants must have 1 to 50 entries \(got \d+\)$/,
          /^grants\[\d+\] must be a non-empty project id string \(got .*\)$/s,
          /^grants must not contain duplicates \(.* appears more than once\)$/s,
        ];
      }
    }
  }

  const expiresInOk = validInt(expiresIn, 0, 31_536_000);
  if (absent(expiresIn)) out.expiresIn = [/^expiresIn is required: the token lifetime in seconds, 0 to 31536000 \(0 = never expires\)$/];
  else if (expiresIn !== UNKNOWN && !expiresInOk)
    out.expiresIn = [/^expiresIn must be an integer number of seconds from 0 to 31536000 \(0 = never expires\) \(got .*\)$/s];

  if (!absent(rotationTrigger) && rotationTrigger !== UNKNOWN && typeof rotationTrigger !== "string")
    out.rotationTrigger = [/^rotationTrigger must be a string \(got .*\); convert it, e.g\. String\(value\)$/s];

  if (!absent(rotateBeforeExpiry) && rotateBeforeExpiry !== UNKNOWN) {
    if (!validInt(rotateBeforeExpiry, 0)) out.rotateBeforeExpiry = [/^rotateBeforeExpiry must be a non-negative integer number of seconds \(got .*\)$/s];
    else if (expiresInOk && expiresIn > 0 && rotateBeforeExpiry >= expiresIn)
      out.rotateBeforeExpiry = [/^rotateBeforeExpiry must be less than expiresIn \(got \S+ >= \d+\): /];
  }
  return out;
}

function volumeSizeOracle(olds: Props, news: Props): Record<string, Verdict> {
  const out: Record<string, Verdict> = {
    projectId: requiredIdVerdict("projectId", news.projectId),
    volumeId: requiredIdVerdict("volumeId", news.volumeId),
  };
  const size = news.sizeGb;
  if (absent(size)) out.sizeGb = [/^sizeGb is required$/];
  else if (size !== UNKNOWN) {
    if (typeof size !== "number" || !Number.isInteger(size)) out.sizeGb = [/^sizeGb must be an integer \(got .*\)$/s];
    else if (size < 50) out.sizeGb = [new RegExp(`^sizeGb must be at least 50 \\(got ${String(size).replace(/[+.]/g, "\\$&")}\\)$`)];
    else {
      // Volumes only grow: compared with the previous inputs when they describe the same volume.
      const sameVolume =
        typeof olds.projectId === "string" && typeof olds.volumeId === "string" && olds.projectId === news.projectId && olds.volumeId === news.volumeId;
      if (sameVolume && typeof olds.sizeGb === "number" && size < olds.sizeGb) out.sizeGb = [/^sizeGb cannot shrink from .+ to .+: volumes only grow$/];
    }
  }
  return out;
}

function appSecretsOracle(news: Props): Record<string, Verdict> {
  const out: Record<string, Verdict> = {
    projectId: requiredIdVerdict("projectId", news.projectId),
    appId: requiredIdVerdict("appId", news.appId),
  };
  const secrets = news.secrets;
  if (absent(secrets)) out.secrets = [/^secrets is required$/];
  else if (secrets === UNKNOWN) out.secrets = undefined;
  else if (!isMap(secrets)) out.secrets = [/^secrets must be a map of secret names to string values \(got [\w ]+\)$/];
  else if (Object.keys(secrets).length === 0) out.secrets = [/^secrets must contain at least one secret: /];
  else {
    const bad = Object.entries(secrets).some(
      ([k, v]) => k.length > 256 || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(k) || absent(v) || (v !== UNKNOWN && typeof v !== "string"),
    );
    if (bad) {
      out.secrets = [
        /^secret name ".*" must be at most 256 characters \(got \d+\)$/s,
        /^secret name ".*" must match \^\[A-Za-z_\]\[A-Za-z0-9_\]\*\$ \(a letter or underscore, then letters, digits or underscores\)$/s,
        /^secret ".*" has no value: values must be strings$/s,
        /^secret ".*" must have a string value \(got [\w ]+\)$/s,
      ];
    }
  }
  return out;
}

// ---- input generators, one per resource ----------------------------------------------------------------

const projectNews = fc.record({ name: field(boundaryString) }, { requiredKeys: [] });

const grantsArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.array(idLike, { minLength: 1, maxLength: 5 }),
  fc.array(fc.oneof(idLike, fc.constantFrom<unknown>(UNKNOWN, "", " ", 7, null)), { minLength: 0, maxLength: 6 }),
  fc.constantFrom(49, 50, 51).map((n) => Array.from({ length: n }, (_, i) => `p-${String(i).padStart(8, "0")}`)),
  fc.constant(["p-00000001", "p-00000001"]),
);

const serviceAccountNews = fc.record(
  {
    projectId: field(idLike),
    name: field(boundaryString),
    description: field(boundaryString),
    grants: field(grantsArb),
    expiresIn: field(boundaryNumber),
    rotationTrigger: field(fc.string()),
    rotateBeforeExpiry: field(boundaryNumber),
  },
  { requiredKeys: [] },
);

/** The cross-field rule (rotateBeforeExpiry < expiresIn) near its edge: mostly valid other fields. */
const rotationEdge = fc
  .tuple(fc.integer({ min: 0, max: 31_536_000 }), fc.integer({ min: -2, max: 2 }), fc.boolean())
  .map(([expiresIn, delta, small]) => {
    const e = small ? Math.min(expiresIn, 100) : expiresIn;
    return { projectId: "p-1a2b3c4d", name: "ci", grants: ["p-1a2b3c4d"], expiresIn: e, rotateBeforeExpiry: e + delta } as Props;
  });

const volumeIds = fc.constantFrom("p-1a2b3c4d", "default-us-east-1");
const volumeSizeNews = fc.record({ projectId: field(volumeIds), volumeId: field(volumeIds), sizeGb: field(boundaryNumber) }, { requiredKeys: [] });
/** Previous inputs: none, the same volume (the growth rule applies) or another one. */
const volumeSizeOlds = (news: Props): fc.Arbitrary<Props> =>
  fc.oneof(
    fc.constant({}),
    boundaryNumber.map((sizeGb) => ({ projectId: news.projectId, volumeId: news.volumeId, sizeGb })),
    fc.record({ projectId: volumeIds, volumeId: volumeIds, sizeGb: fc.oneof(boundaryNumber, fc.constant<unknown>(UNKNOWN)) }),
  );

const secretName = fc.oneof(
  fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,20}$/),
  fc.constantFrom(255, 256, 257).map((n) => `A${"b".repeat(n - 1)}`),
  fc.constantFrom("", "1ABC", "A-B", "A B", "é", "__proto__", "constructor", "_"),
  fc.string({ maxLength: 300 }),
);
const secretsArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.dictionary(secretName, fc.oneof({ weight: 4, arbitrary: secretValue }, { weight: 1, arbitrary: anyField }), { minKeys: 0, maxKeys: 6 }) },
  { weight: 1, arbitrary: fc.dictionary(secretName, fc.constantFrom<unknown>(UNKNOWN, null), { minKeys: 1, maxKeys: 3 }) },
  { weight: 1, arbitrary: fc.array(secretValue) },
);
const appSecretsNews = fc.record(
  { projectId: field(idLike), appId: field(idLike), secrets: field(secretsArb) },
  { requiredKeys: [] },
);

// ---- the properties --------------------------------------------------------------------------------------

let sim: PimsSimulator;
const providers = {} as Record<Kind, ReturnType<typeof newProvider>>;

beforeAll(async () => {
  sim = await startSimulator();
  for (const kind of ["Project", "ServiceAccount", "VolumeSize", "AppSecrets"] as const) {
    providers[kind] = newProvider(kind);
    await providers[kind].configure?.(configureRequest(simConfig(sim)));
  }
  sim.clearRequests();
});
afterAll(async () => {
  await sim.stop();
});
afterEach(() => {
  // check() must never reach the service: not one request, whatever the input.
  expect(sim.requests).toEqual([]);
});

/** Runs check and compares its failures with the oracle's verdicts; returns whether the input was valid. */
async function checkAgainstOracle(kind: Kind, olds: Props, news: Props, verdicts: Record<string, Verdict>): Promise<boolean> {
  const provider = providers[kind];
  const result = await provider.check!(olds, news);
  const failures = result.failures ?? [];
  // The marked secret values of this input (names may be shown in reasons; values never).
  const values = isMap(news.secrets) ? Object.values(news.secrets).filter((v): v is string => typeof v === "string" && v.startsWith(VALUE_MARK)) : [];
  const invalid = Object.entries(verdicts).filter(([, v]) => v !== undefined).map(([k]) => k).sort();
  const failed = [...new Set(failures.map((f) => f.property))].sort();
  if (JSON.stringify(failed) !== JSON.stringify(invalid)) {
    throw new Error(`${kind}: fields with failures ${JSON.stringify(failed)} but the rules make ${JSON.stringify(invalid)} invalid; failures: ${JSON.stringify(failures)}`);
  }
  for (const f of failures) {
    const patterns = verdicts[f.property] ?? [];
    if (!patterns.some((p) => p.test(f.reason))) {
      throw new Error(`${kind}: reason for ${f.property} does not state the broken rule: ${JSON.stringify(f.reason)} (expected one of ${patterns.join(" | ")})`);
    }
    if (values.some((v) => f.reason.includes(v))) throw new Error(`${kind}: a secret value appears in the reason for ${f.property}`);
  }
  if (result.inputs === undefined) throw new Error(`${kind}: check returned no inputs`);
  return invalid.length === 0;
}

/** Counts valid and invalid inputs so a generator that stops producing one of them fails the test. */
function tally(): { valid: number; invalid: number; add(ok: boolean): void } {
  return {
    valid: 0,
    invalid: 0,
    add(ok: boolean) {
      if (ok) this.valid++;
      else this.invalid++;
    },
  };
}

describe("check() against the rules, with fuzzed inputs", () => {
  test("Project", async () => {
    const t = tally();
    await fc.assert(
      fc.asyncProperty(projectNews, async (news) => t.add(await checkAgainstOracle("Project", {}, news, projectOracle(news)))),
      fcParams,
    );
    expect(t.valid).toBeGreaterThan(RUNS / 20);
    expect(t.invalid).toBeGreaterThan(RUNS / 20);
  });

  test("ServiceAccount", async () => {
    const t = tally();
    const allValidFields = fc.record({
      projectId: idLike,
      name: fc.integer({ min: 1, max: 100 }).chain(stringOfLength),
      description: fc.integer({ min: 0, max: 500 }).chain(stringOfLength),
      grants: fc.array(idLike, { minLength: 1, maxLength: 3 }).map((g) => [...new Set(g)]),
      expiresIn: fc.integer({ min: 0, max: 31_536_000 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.oneof({ weight: 3, arbitrary: serviceAccountNews }, { weight: 1, arbitrary: allValidFields as fc.Arbitrary<Props> }, { weight: 1, arbitrary: rotationEdge }), async (news) =>
        t.add(await checkAgainstOracle("ServiceAccount", {}, news, serviceAccountOracle(news))),
      ),
      fcParams,
    );
    expect(t.valid).toBeGreaterThan(RUNS / 20);
    expect(t.invalid).toBeGreaterThan(RUNS / 20);
  });

  test("VolumeSize (with previous inputs: volumes only grow)", async () => {
    const t = tally();
    const pair = volumeSizeNews.chain((news) => volumeSizeOlds(news).map((olds) => ({ olds, news })));
    await fc.assert(
      fc.asyncProperty(pair, async ({ olds, news }) => t.add(await checkAgainstOracle("VolumeSize", olds, news, volumeSizeOracle(olds, news)))),
      fcParams,
    );
    expect(t.valid).toBeGreaterThan(RUNS / 20);
    expect(t.invalid).toBeGreaterThan(RUNS / 20);
  });

  test("AppSecrets (no secret value in any reason)", async () => {
    const t = tally();
    const allValidFields = fc.record({
      projectId: idLike,
      appId: idLike,
      secrets: fc.dictionary(fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,255}$/), fc.oneof(secretValue, fc.constant(UNKNOWN)), { minKeys: 1, maxKeys: 5 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.oneof({ weight: 3, arbitrary: appSecretsNews }, { weight: 1, arbitrary: allValidFields as fc.Arbitrary<Props> }), async (news) => t.add(await checkAgainstOracle("AppSecrets", {}, news, appSecretsOracle(news)))),
      fcParams,
    );
    expect(t.valid).toBeGreaterThan(RUNS / 20);
    expect(t.invalid).toBeGreaterThan(RUNS / 20);
  });
});

describe("check() never throws, whatever JSON it is given", () => {
  // The dynamic-provider host hands check() plain JSON (protobuf Struct values): any JSON value as olds, as news
  // and as each of their members — including objects whose keys shadow Object.prototype (`toString`,
  // `valueOf`, `__proto__`, `constructor`), deep nesting and the preview placeholder.
  const trickyKeys = fc.constantFrom("toString", "valueOf", "__proto__", "constructor", "hasOwnProperty", "length", "toJSON");
  const trickyObject = fc.dictionary(trickyKeys, fc.jsonValue({ maxDepth: 1 }), { minKeys: 1, maxKeys: 3 });
  const member = fc.oneof(anyField, trickyObject, fc.array(trickyObject, { maxLength: 2 }), fc.jsonValue({ maxDepth: 4 }));
  const bagOf = (keys: string[]): fc.Arbitrary<unknown> =>
    fc.oneof(
      { weight: 1, arbitrary: fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constant(undefined)) },
      { weight: 4, arbitrary: fc.dictionary(fc.oneof(fc.constantFrom(...keys), trickyKeys), member) },
    );
  const keysOf: Record<Kind, string[]> = {
    Project: ["name", "projectId"],
    ServiceAccount: ["projectId", "name", "description", "grants", "expiresIn", "rotationTrigger", "rotateBeforeExpiry", "token"],
    VolumeSize: ["projectId", "volumeId", "sizeGb"],
    AppSecrets: ["projectId", "appId", "secrets", "secretNames"],
  };

  test.each(Object.keys(keysOf) as Kind[])("%s", async (kind) => {
    await fc.assert(
      fc.asyncProperty(bagOf(keysOf[kind]), bagOf(keysOf[kind]), async (olds, news) => {
        const result = await providers[kind].check!(olds, news);
        expect(result).toBeDefined();
        for (const f of result.failures ?? []) {
          expect(keysOf[kind]).toContain(f.property);
          expect(typeof f.reason).toBe("string");
          expect(f.reason.length).toBeGreaterThan(0);
        }
      }),
      fcParams,
    );
  });
});

describe("check() with JSON objects whose keys shadow Object.prototype (found by the fuzzer)", () => {
  // `{"toString": 0}` is valid JSON a program can pass for any field (from JavaScript, or `as any`). Turning it
  // into text with String(v) or `${v}` throws "Cannot convert object to primitive value": a crash instead of a
  // failure naming the field.
  const shadowing: Props[] = [{ toString: 0 }, { valueOf: [] }, { toString: {}, valueOf: null }];
  const fieldsOf: Record<Kind, string[]> = {
    Project: ["name"],
    ServiceAccount: ["projectId", "name", "description", "grants", "expiresIn", "rotationTrigger", "rotateBeforeExpiry"],
    VolumeSize: ["projectId", "volumeId", "sizeGb"],
    AppSecrets: ["projectId", "appId", "secrets"],
  };
  const cases = (Object.keys(fieldsOf) as Kind[]).flatMap((kind) => fieldsOf[kind].flatMap((f) => shadowing.map((v) => [kind, f, v] as const)));
  test.each(cases)("%s.%s = %j is rejected with a failure naming the field", async (kind, f, value) => {
    const result = await providers[kind].check!({}, { [f]: value });
    const reasons = (result.failures ?? []).filter((x) => x.property === f);
    // AppSecrets.secrets accepts a map, so { toString: 0 } is a map with one badly-typed secret: still a failure.
    expect(reasons.length).toBeGreaterThan(0);
  });
});
