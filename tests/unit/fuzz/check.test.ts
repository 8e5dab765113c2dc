/**
 * Fuzzed inputs: property-based tests (fast-check) of every provider's `check()` — Project, ServiceAccount,
 * VolumeSize, AppSecrets.
 *
 * Each field gets arbitrary JSON values plus values near its boundaries (strings of 0/1/2/49/50/51/… code
 * points, astral characters whose UTF-16 length differs from their length in characters, blank strings, numbers
 * around 0, 50, 1024 and 31536000, fractions, huge and negative numbers, null, absent, the preview-unknown
 * placeholder): see fuzz/inputs.ts. An oracle written from each resource's documented rules (fuzz/oracles.ts) says,
 * per field, whether the value is valid and which rule it breaks. For every generated input:
 *   - check() never throws;
 *   - the set of fields with failures is exactly the set the oracle calls invalid (valid inputs are accepted);
 *   - every failure names its field (`property`) and its reason states the broken rule (a regex per rule);
 *   - no secret value appears in a reason (AppSecrets);
 *   - no HTTP call: the providers have no credentials at all (neither configured nor in the environment), so any
 *     attempt to reach the service would throw. (The simulator-backed suites also assert an empty request log.)
 * A second property per provider feeds completely arbitrary values (any JS value, not only JSON) as olds/news
 * and only asserts that check() returns a well-formed result without throwing.
 */
import fc from "fast-check";
import { RESOURCE_KINDS, type ResourceKind } from "../../../provider/kinds";
import { isPlainObject } from "../../../provider/client/values";
import { UNKNOWN } from "../../../provider/checks";
import { newProvider } from "../../../provider";
import {
  anyField,
  appSecretsNews,
  idLike,
  projectNews,
  rotationEdge,
  secretValue,
  serviceAccountNews,
  stringOfLength,
  VALUE_MARK,
  volumeSizeNews,
  volumeSizeOlds,
  type Props,
} from "./inputs";
import { appSecretsOracle, projectOracle, serviceAccountOracle, volumeSizeOracle, type Verdict } from "./oracles";
import { configureRequest } from "../../kit/provider/provider";
import { useEnv } from "../../kit/env";

const RUNS = Number(process.env.FUZZ_RUNS ?? 2000);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const fcParams = { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) };

type Kind = ResourceKind;

/** The input fields check() validates, per kind. */
const CHECKED_FIELDS: Record<Kind, string[]> = {
  Project: ["name"],
  ServiceAccount: ["projectId", "name", "description", "grants", "expiresIn", "rotationTrigger", "rotateBeforeExpiry"],
  VolumeSize: ["projectId", "volumeId", "sizeGb"],
  AppSecrets: ["projectId", "appId", "secrets"],
};

// ---- the properties --------------------------------------------------------------------------------------

const providers = {} as Record<Kind, ReturnType<typeof newProvider>>;
// No credentials anywhere: a check() that tried to build a client (let alone call the service) would throw.
useEnv("all", { PIMS_TOKEN: undefined, PIMS_BASE_URL: undefined });

beforeAll(async () => {
  for (const kind of RESOURCE_KINDS) {
    providers[kind] = newProvider(kind);
    await providers[kind].configure?.(configureRequest({}));
  }
});

/** Runs check and compares its failures with the oracle's verdicts; returns whether the input was valid. */
async function checkAgainstOracle(
  kind: Kind,
  olds: Props,
  news: Props,
  verdicts: Record<string, Verdict>,
): Promise<boolean> {
  const provider = providers[kind];
  const result = await provider.check!(olds, news);
  const failures = result.failures ?? [];
  // The marked secret values of this input (names may be shown in reasons; values never).
  const values = isPlainObject(news.secrets)
    ? Object.values(news.secrets).filter((v): v is string => typeof v === "string" && v.startsWith(VALUE_MARK))
    : [];
  const invalid = Object.entries(verdicts)
    .filter(([, v]) => v !== undefined)
    .map(([k]) => k)
    .sort();
  const failed = [...new Set(failures.map((f) => f.property))].sort();
  if (JSON.stringify(failed) !== JSON.stringify(invalid)) {
    throw new Error(
      `${kind}: fields with failures ${JSON.stringify(failed)} but the rules make ${JSON.stringify(invalid)} ` +
        `invalid; failures: ${JSON.stringify(failures)}`,
    );
  }
  for (const f of failures) {
    const patterns = verdicts[f.property] ?? [];
    if (!patterns.some((p) => p.test(f.reason))) {
      throw new Error(
        `${kind}: reason for ${f.property} does not state the broken rule: ${JSON.stringify(f.reason)} (expected one ` +
          `of ${patterns.join(" | ")})`,
      );
    }
    if (values.some((v) => f.reason.includes(v)))
      throw new Error(`${kind}: a secret value appears in the reason for ${f.property}`);
  }
  if (result.inputs === undefined) throw new Error(`${kind}: check returned no inputs`);
  return invalid.length === 0;
}

/**
 * Checks every generated (olds, news) of one kind against the oracle's verdicts, and that the generator produced
 * both valid and invalid inputs (a generator that stops producing one of them fails the test).
 */
async function fuzzCheckAgainstRules(
  kind: Kind,
  inputs: fc.Arbitrary<{ olds: Props; news: Props }>,
  oracle: (olds: Props, news: Props) => Record<string, Verdict>,
): Promise<void> {
  let valid = 0;
  let invalid = 0;
  await fc.assert(
    fc.asyncProperty(inputs, async ({ olds, news }) => {
      if (await checkAgainstOracle(kind, olds, news, oracle(olds, news))) valid++;
      else invalid++;
    }),
    fcParams,
  );
  expect(valid).toBeGreaterThan(RUNS / 20);
  expect(invalid).toBeGreaterThan(RUNS / 20);
}

/** News alone (no previous inputs), as the (olds, news) pairs fuzzCheckAgainstRules takes. */
const created = (news: fc.Arbitrary<Props>): fc.Arbitrary<{ olds: Props; news: Props }> =>
  news.map((n) => ({ olds: {}, news: n }));

describe("check() against the rules, with fuzzed inputs", () => {
  test("Project", async () => {
    await fuzzCheckAgainstRules("Project", created(projectNews), (_olds, news) => projectOracle(news));
  });

  test("ServiceAccount", async () => {
    const allValidFields = fc.record({
      projectId: idLike,
      name: fc.integer({ min: 1, max: 100 }).chain(stringOfLength),
      description: fc.integer({ min: 0, max: 500 }).chain(stringOfLength),
      grants: fc.array(idLike, { minLength: 1, maxLength: 3 }).map((g) => [...new Set(g)]),
      expiresIn: fc.integer({ min: 0, max: 31_536_000 }),
    });
    const news = fc.oneof(
      { weight: 3, arbitrary: serviceAccountNews },
      { weight: 1, arbitrary: allValidFields },
      { weight: 1, arbitrary: rotationEdge },
    );
    await fuzzCheckAgainstRules("ServiceAccount", created(news), (_olds, n) => serviceAccountOracle(n));
  });

  test("VolumeSize (with previous inputs: volumes only grow)", async () => {
    const pair = volumeSizeNews.chain((news) => volumeSizeOlds(news).map((olds) => ({ olds, news })));
    await fuzzCheckAgainstRules("VolumeSize", pair, volumeSizeOracle);
  });

  test("AppSecrets (no secret value in any reason)", async () => {
    const allValidFields = fc.record({
      projectId: idLike,
      appId: idLike,
      secrets: fc.dictionary(
        fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,255}$/),
        fc.oneof(secretValue, fc.constant(UNKNOWN)),
        { minKeys: 1, maxKeys: 5 },
      ),
    });
    const news = fc.oneof({ weight: 3, arbitrary: appSecretsNews }, { weight: 1, arbitrary: allValidFields });
    await fuzzCheckAgainstRules("AppSecrets", created(news), (_olds, n) => appSecretsOracle(n));
  });
});

describe("check() never throws, whatever JSON it is given", () => {
  // The dynamic-provider host hands check() plain JSON (protobuf Struct values): any JSON value as olds, as news
  // and as each of their members — including objects whose keys shadow Object.prototype (`toString`,
  // `valueOf`, `__proto__`, `constructor`), deep nesting and the preview placeholder.
  const trickyKeys = fc.constantFrom(
    "toString",
    "valueOf",
    "__proto__",
    "constructor",
    "hasOwnProperty",
    "length",
    "toJSON",
  );
  const trickyObject = fc.dictionary(trickyKeys, fc.jsonValue({ maxDepth: 1 }), { minKeys: 1, maxKeys: 3 });
  const member = fc.oneof(
    anyField,
    trickyObject,
    fc.array(trickyObject, { maxLength: 2 }),
    fc.jsonValue({ maxDepth: 4 }),
  );
  const bagOf = (keys: string[]): fc.Arbitrary<unknown> =>
    fc.oneof(
      { weight: 1, arbitrary: fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constant(undefined)) },
      { weight: 4, arbitrary: fc.dictionary(fc.oneof(fc.constantFrom(...keys), trickyKeys), member) },
    );
  // The checked fields plus the outputs a state may carry back as olds.
  const keysOf: Record<Kind, string[]> = {
    Project: [...CHECKED_FIELDS.Project, "projectId"],
    ServiceAccount: [...CHECKED_FIELDS.ServiceAccount, "token"],
    VolumeSize: CHECKED_FIELDS.VolumeSize,
    AppSecrets: [...CHECKED_FIELDS.AppSecrets, "secretNames"],
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
  const cases = RESOURCE_KINDS.flatMap((kind) =>
    CHECKED_FIELDS[kind].flatMap((f) => shadowing.map((v) => [kind, f, v] as const)),
  );
  test.each(cases)("%s.%s = %j is rejected with a failure naming the field", async (kind, f, value) => {
    const result = await providers[kind].check!({}, { [f]: value });
    const reasons = (result.failures ?? []).filter((x) => x.property === f);
    // AppSecrets.secrets accepts a map, so { toString: 0 } is a map with one badly-typed secret: still a failure.
    expect(reasons.length).toBeGreaterThan(0);
  });
});
