/**
 * ServiceAccount without the network: check, every rule it enforces on the inputs, and what it leaves unknown at
 * preview.
 */
import { UNKNOWN } from "../../../provider/checks";
import { MAX_EXPIRES_IN, ServiceAccountProvider } from "../../../provider/serviceAccount";
import { isPlainJson, loose, type Props } from "../../kit/provider/serviceAccount";

// ---- check ----------------------------------------------------------------------------------------------------

describe("check", () => {
  const provider = loose(new ServiceAccountProvider());
  const valid: Props = { projectId: "p-1", name: "ci", grants: ["p-1", "p-2"], expiresIn: 3600 };
  const failuresOf = async (news: Props) => {
    const r = await provider.check({}, news);
    return r.failures ?? [];
  };

  test('valid inputs pass and are normalized (description defaults to "", absent options stay absent)', async () => {
    const r = await provider.check({}, { ...valid, __provider: "serialized" });
    expect(r.failures).toEqual([]);
    expect(r.inputs).toEqual({
      projectId: "p-1",
      name: "ci",
      description: "",
      grants: ["p-1", "p-2"],
      expiresIn: 3600,
    });
    expect(Object.keys(r.inputs ?? {})).not.toContain("rotationTrigger");
    expect(Object.keys(r.inputs ?? {})).not.toContain("rotateBeforeExpiry");
    expect(isPlainJson(r.inputs)).toBe(true);
    const withOptions = await provider.check(
      {},
      { ...valid, description: "d", rotationTrigger: "2025-06", rotateBeforeExpiry: 600 },
    );
    expect(withOptions.failures).toEqual([]);
    expect(withOptions.inputs).toMatchObject({ description: "d", rotationTrigger: "2025-06", rotateBeforeExpiry: 600 });
  });

  const x = (n: number, c = "a") => c.repeat(n);
  const cases: Array<[string, Props, string, string | RegExp]> = [
    ["missing projectId", { projectId: undefined }, "projectId", /projectId is required/],
    ["empty projectId", { projectId: "" }, "projectId", "projectId must not be empty"],
    ["non-string projectId", { projectId: 7 }, "projectId", "projectId must be a string (got number)"],
    ["missing name", { name: undefined }, "name", "name is required: 1 to 100 characters"],
    ["empty name", { name: "" }, "name", "name must be 1 to 100 characters (got 0)"],
    ["name of 120 characters", { name: x(120) }, "name", "name must be 1 to 100 characters (got 120)"],
    [
      "name of 101 emoji (counted as characters)",
      { name: x(101, "🔑") },
      "name",
      "name must be 1 to 100 characters (got 101)",
    ],
    ["non-string name", { name: 42 }, "name", /name must be a string/],
    [
      "description of 501 characters",
      { description: x(501) },
      "description",
      "description must be at most 500 characters (got 501)",
    ],
    ["non-string description", { description: true }, "description", /description must be a string/],
    ["missing grants", { grants: undefined }, "grants", /grants is required: 1 to 50/],
    ["grants not an array", { grants: "p-1" }, "grants", /grants must be an array of 1 to 50 project ids/],
    ["no grants", { grants: [] }, "grants", "grants must have 1 to 50 entries (got 0)"],
    [
      "51 grants",
      { grants: Array.from({ length: 51 }, (_, i) => `p-${i}`) },
      "grants",
      "grants must have 1 to 50 entries (got 51)",
    ],
    ["an empty grant", { grants: ["p-1", ""] }, "grants", /grants\[1\] must be a non-empty project id string/],
    ["a non-string grant", { grants: [5] }, "grants", /grants\[0\] must be a non-empty project id string \(got 5\)/],
    [
      "duplicate grants",
      { grants: ["p-1", "p-2", "p-1", "p-1"] },
      "grants",
      'grants must not contain duplicates ("p-1" appears more than once)',
    ],
    ["missing expiresIn", { expiresIn: undefined }, "expiresIn", /expiresIn is required/],
    [
      "negative expiresIn",
      { expiresIn: -1 },
      "expiresIn",
      /expiresIn must be an integer number of seconds from 0 to 31536000 .*\(got -1\)/,
    ],
    ["expiresIn above one year", { expiresIn: MAX_EXPIRES_IN + 1 }, "expiresIn", /\(got 31536001\)/],
    ["non-integer expiresIn", { expiresIn: 1.5 }, "expiresIn", /\(got 1.5\)/],
    ["string expiresIn", { expiresIn: "3600" }, "expiresIn", /\(got "3600"\)/],
    [
      "non-string rotationTrigger",
      { rotationTrigger: 3 },
      "rotationTrigger",
      /rotationTrigger must be a string \(got 3\)/,
    ],
    [
      "negative rotateBeforeExpiry",
      { rotateBeforeExpiry: -1 },
      "rotateBeforeExpiry",
      /non-negative integer number of seconds \(got -1\)/,
    ],
    ["non-integer rotateBeforeExpiry", { rotateBeforeExpiry: 0.5 }, "rotateBeforeExpiry", /\(got 0.5\)/],
    [
      "rotateBeforeExpiry = expiresIn",
      { rotateBeforeExpiry: 3600 },
      "rotateBeforeExpiry",
      /must be less than expiresIn \(got 3600 >= 3600\).*every `pulumi up` would replace/,
    ],
    [
      "rotateBeforeExpiry > expiresIn",
      { rotateBeforeExpiry: 7200 },
      "rotateBeforeExpiry",
      /must be less than expiresIn/,
    ],
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

  // With keepPreviousToken a token is current for (expiresIn − window), then previous for as long again: it must still
  // be valid when its successor is rotated, so the window must be at least half the lifetime.
  test.each([
    [86_400, 43_199],
    [604_800, 3600],
    [60, 0],
  ])(
    "keepPreviousToken with expiresIn %i and rotateBeforeExpiry %i (less than half): rejected, " +
      "explaining why and what to choose",
    async (expiresIn, w) => {
      const failures = await failuresOf({ ...valid, expiresIn, rotateBeforeExpiry: w, keepPreviousToken: true });
      expect(failures).toEqual([
        {
          property: "rotateBeforeExpiry",
          reason: expect.stringContaining(
            `rotateBeforeExpiry must be at least half of expiresIn with keepPreviousToken ` +
              `(got ${w} < ${expiresIn} / 2)`,
          ) as unknown,
        },
      ]);
      expect(failures[0].reason).toContain(
        `kept as the previous token until its successor is rotated ${expiresIn - w} s later`,
      );
      expect(failures[0].reason).toContain(`rotateBeforeExpiry ${Math.ceil(expiresIn / 2)} or more`);
      // The same lifetimes are fine without the option (today's rule).
      expect(await failuresOf({ ...valid, expiresIn, rotateBeforeExpiry: w })).toEqual([]);
    },
  );

  test.each([
    ["half of expiresIn", { expiresIn: 86_400, rotateBeforeExpiry: 43_200 }],
    ["more than half", { expiresIn: 604_800, rotateBeforeExpiry: 432_000 }],
    ["no window (manual rotations only)", { expiresIn: 3600 }],
    ["a token that never expires", { expiresIn: 0, rotateBeforeExpiry: 0 }],
    [
      "keepPreviousToken false with a short window",
      { expiresIn: 3600, rotateBeforeExpiry: 60, keepPreviousToken: false },
    ],
  ])("keepPreviousToken with %s passes", async (_label, change) => {
    expect(await failuresOf({ ...valid, keepPreviousToken: true, ...change })).toEqual([]);
  });

  test("keepPreviousToken must be a boolean", async () => {
    const failures = await failuresOf({ ...valid, keepPreviousToken: "yes" });
    expect(failures).toEqual([
      { property: "keepPreviousToken", reason: 'keepPreviousToken must be true or false (got "yes")' },
    ]);
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
      expect((r.inputs as Props | undefined)?.[key]).toBe(UNKNOWN);
    },
  );

  test("grants with some unknown entries: the known ones and the length are still checked", async () => {
    expect(await failuresOf({ ...valid, grants: [UNKNOWN, "p-1"] })).toEqual([]);
    const dup = await failuresOf({ ...valid, grants: [UNKNOWN, "p-1", "p-1"] });
    expect(dup.map((f) => f.reason)).toEqual(['grants must not contain duplicates ("p-1" appears more than once)']);
    const tooMany = await failuresOf({ ...valid, grants: Array.from({ length: 51 }, () => UNKNOWN) });
    expect(tooMany.map((f) => f.reason)).toEqual(["grants must have 1 to 50 entries (got 51)"]);
  });
});
