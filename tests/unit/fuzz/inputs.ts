/**
 * Generators of check() inputs for the fuzz suite (tests/unit/fuzz/check.test.ts): arbitrary JSON values plus values
 * near every field's boundaries, and per-resource input records that are mostly plausible, sometimes anything.
 */
import fc from "fast-check";
import { UNKNOWN } from "../../../provider/checks";

/** A provider's inputs (or previous inputs) as the engine hands them over: any JSON object. */
export type Props = Record<string, unknown>;

// ---- arbitraries ---------------------------------------------------------------------------------------

/** Lengths (in characters) around every string limit of the four resources. */
export const STRING_LENGTHS = [0, 1, 2, 3, 49, 50, 51, 99, 100, 101, 255, 256, 257, 499, 500, 501];

/** A string of exactly `n` code points: ASCII, or any code point (astral ones take two UTF-16 units). */
export const stringOfLength = (n: number): fc.Arbitrary<string> =>
  fc.oneof(
    fc.string({ unit: "grapheme-ascii", minLength: n, maxLength: n }),
    fc.string({ unit: "binary", minLength: n, maxLength: n }),
    fc.constant("😀".repeat(n)), // n characters, 2n UTF-16 units
  );

export const boundaryString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...STRING_LENGTHS).chain(stringOfLength),
  fc.constantFrom("", " ", "  ", "\t", "\n", " \t\n ", "\u00a0", "a", "ab", "p-1a2b3c4d"),
);

export const boundaryNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(
    -1,
    0,
    -0,
    1,
    49,
    50,
    51,
    99,
    100,
    1023,
    1024,
    1025,
    31_535_999,
    31_536_000,
    31_536_001,
    0.5,
    49.5,
    50.5,
    1e-9,
    50 + 1e-9,
    Number.MAX_SAFE_INTEGER,
    Number.MAX_SAFE_INTEGER + 2,
    1e21,
    -1e21,
    Number.MIN_VALUE,
    Number.MAX_VALUE,
  ),
  fc.integer({ min: -5, max: 120 }),
  fc.integer({ min: 31_535_990, max: 31_536_010 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** Any value a field may carry (the engine only sends JSON), plus the preview placeholder. */
export const anyField: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  { weight: 3, arbitrary: boundaryString },
  { weight: 3, arbitrary: boundaryNumber },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, true, false, [], {}, UNKNOWN) },
);

/** Mostly plausible values for a field, sometimes anything. */
export const field = (plausible: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> =>
  fc.oneof({ weight: 3, arbitrary: plausible }, { weight: 2, arbitrary: anyField });

export const idLike = fc.oneof(
  fc.stringMatching(/^p-[0-9a-f]{8}$/),
  fc.constantFrom("default-us-east-1", "p-1a2b3c4d-web", "x"),
);
export const VALUE_MARK = "sv~";
/** Secret values carry a mark (and are at least 9 characters) so a leak into a reason can be told from a name. */
export const secretValue = fc.string({ minLength: 6, maxLength: 30 }).map((s) => `${VALUE_MARK}${s}`);

// ---- input generators, one per resource ----------------------------------------------------------------

export const projectNews = fc.record({ name: field(boundaryString) }, { requiredKeys: [] });

export const grantsArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.array(idLike, { minLength: 1, maxLength: 5 }),
  fc.array(fc.oneof(idLike, fc.constantFrom<unknown>(UNKNOWN, "", " ", 7, null)), { minLength: 0, maxLength: 6 }),
  fc.constantFrom(49, 50, 51).map((n) => Array.from({ length: n }, (_, i) => `p-${String(i).padStart(8, "0")}`)),
  fc.constant(["p-00000001", "p-00000001"]),
);

export const serviceAccountNews = fc.record(
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
export const rotationEdge = fc
  .tuple(fc.integer({ min: 0, max: 31_536_000 }), fc.integer({ min: -2, max: 2 }), fc.boolean())
  .map(([expiresIn, delta, small]) => {
    const e = small ? Math.min(expiresIn, 100) : expiresIn;
    return { projectId: "p-1a2b3c4d", name: "ci", grants: ["p-1a2b3c4d"], expiresIn: e, rotateBeforeExpiry: e + delta };
  });

export const volumeIds = fc.constantFrom("p-1a2b3c4d", "default-us-east-1");
export const volumeSizeNews = fc.record(
  { projectId: field(volumeIds), volumeId: field(volumeIds), sizeGb: field(boundaryNumber) },
  { requiredKeys: [] },
);
/** Previous inputs: none, the same volume (the growth rule applies) or another one. */
export const volumeSizeOlds = (news: Props): fc.Arbitrary<Props> =>
  fc.oneof(
    fc.constant({}),
    boundaryNumber.map((sizeGb) => ({ projectId: news.projectId, volumeId: news.volumeId, sizeGb })),
    fc.record({
      projectId: volumeIds,
      volumeId: volumeIds,
      sizeGb: fc.oneof(boundaryNumber, fc.constant<unknown>(UNKNOWN)),
    }),
  );

export const secretName = fc.oneof(
  fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,20}$/),
  fc.constantFrom(255, 256, 257).map((n) => `A${"b".repeat(n - 1)}`),
  fc.constantFrom("", "1ABC", "A-B", "A B", "é", "__proto__", "constructor", "_"),
  fc.string({ maxLength: 300 }),
);
export const secretsArb: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.dictionary(
      secretName,
      fc.oneof({ weight: 4, arbitrary: secretValue }, { weight: 1, arbitrary: anyField }),
      { minKeys: 0, maxKeys: 6 },
    ),
  },
  {
    weight: 1,
    arbitrary: fc.dictionary(secretName, fc.constantFrom<unknown>(UNKNOWN, null), { minKeys: 1, maxKeys: 3 }),
  },
  { weight: 1, arbitrary: fc.array(secretValue) },
);
export const appSecretsNews = fc.record(
  { projectId: field(idLike), appId: field(idLike), secrets: field(secretsArb) },
  { requiredKeys: [] },
);
