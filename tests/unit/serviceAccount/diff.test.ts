/**
 * ServiceAccount without the network: diff (what replaces, what is an in-place update, the rotation window) and
 * update (what it keeps).
 */
import { UNKNOWN } from "../../../provider/checks";
import { ROTATION_REASON, ServiceAccountProvider } from "../../../provider/serviceAccount";
import { useLogSink } from "../../../provider/client/log";
import { fingerprint } from "../../../provider/client/token";
import { isPlainJson, loose, type Props } from "../../kit/provider/serviceAccount";

// ---- diff -----------------------------------------------------------------------------------------------------

describe("diff", () => {
  /** What diff answers for an in-place update. */
  const IN_PLACE = { changes: true, replaces: [], deleteBeforeReplace: false };
  const NOW = Date.parse("2025-01-01T00:00:00Z");
  const provider = loose(new ServiceAccountProvider({ now: () => NOW }));
  /** The inputs as the engine passes them (with the dynamic provider's `__provider`). */
  const inputs: Props = {
    projectId: "p-1",
    name: "ci",
    description: "deploys",
    grants: ["p-1", "p-2"],
    expiresIn: 86_400,
    rotationTrigger: "r1",
    rotateBeforeExpiry: 3600,
    __provider: "serialized",
  };
  const olds: Props = {
    ...inputs,
    serviceAccountId: "sa-1",
    createdAt: "2024-12-31T12:00:00Z",
    createdByUserId: "u-1",
    tokenId: "tok-1",
    tokenExpiresAt: "2025-01-01T12:00:00.000Z", // 12 h left; window 1 h: not due
    token: "pims_sa_secret_value_for_diff",
  };
  const news = (change: Props = {}): Props => {
    const n: Props = { ...inputs };
    for (const [k, v] of Object.entries(change)) {
      if (v === undefined) delete n[k];
      else n[k] = v;
    }
    return n;
  };

  test("unchanged inputs: no changes", async () => {
    expect(await provider.diff("sa-1", olds, news())).toEqual({
      changes: false,
      replaces: [],
      deleteBeforeReplace: false,
    });
  });

  test("grants reordered: no change", async () => {
    expect(await provider.diff("sa-1", olds, news({ grants: ["p-2", "p-1"] }))).toMatchObject({
      changes: false,
      replaces: [],
    });
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
  ];
  test.each(changes)("a change of %s replaces it, create-before-delete (%j)", async (key, change) => {
    expect(await provider.diff("sa-1", olds, news(change))).toEqual({
      changes: true,
      replaces: [key],
      deleteBeforeReplace: false,
    });
  });

  // rotateBeforeExpiry is a local policy the service never sees: a new window that is not reached is an update.
  test.each<[string, Props]>([
    ["a larger window, not reached", { rotateBeforeExpiry: 7200 }],
    ["a smaller window", { rotateBeforeExpiry: 60 }],
    ["the window removed", { rotateBeforeExpiry: undefined }],
  ])("rotateBeforeExpiry changed alone (%s): an in-place update, no replacement", async (_label, change) => {
    expect(await provider.diff("sa-1", olds, news(change))).toEqual(IN_PLACE);
  });

  test("rotateBeforeExpiry set for the first time, not reached: an in-place update", async () => {
    const { rotateBeforeExpiry: _, ...noWindow } = olds;
    expect(await provider.diff("sa-1", noWindow, news())).toEqual(IN_PLACE);
  });

  test("a rotation trigger set for the first time replaces", async () => {
    const { rotationTrigger: _, ...noTrigger } = olds;
    expect(await provider.diff("sa-1", noTrigger, news())).toMatchObject({
      changes: true,
      replaces: ["rotationTrigger"],
    });
  });

  test("several changes list every changed input", async () => {
    const r = await provider.diff("sa-1", olds, news({ name: "x", grants: ["p-3"] }));
    expect(r.replaces).toEqual(["name", "grants"]);
  });

  test("an input unknown at preview counts as a replacing change", async () => {
    expect(await provider.diff("sa-1", olds, news({ name: UNKNOWN }))).toMatchObject({
      changes: true,
      replaces: ["name"],
      deleteBeforeReplace: false,
    });
    expect(await provider.diff("sa-1", olds, news({ grants: [UNKNOWN, "p-2"] }))).toMatchObject({
      changes: true,
      replaces: ["grants"],
    });
  });

  test("rotation window reached (or token expired): replace, create-before-delete", async () => {
    const at = (iso: string) => provider.diff("sa-1", { ...olds, tokenExpiresAt: iso }, news());
    const due = { changes: true, replaces: [ROTATION_REASON], deleteBeforeReplace: false };
    expect(await at("2025-01-01T01:00:00.000Z")).toEqual(due); // exactly at expiry − window
    expect(await at("2025-01-01T00:30:00.000Z")).toEqual(due); // inside the window
    expect(await at("2024-12-31T00:00:00.000Z")).toEqual(due); // already expired
    // one second early
    expect(await at("2025-01-01T01:00:01.000Z")).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
  });

  test("the rotation window used is the new one: a new window already reached replaces (the rotation)", async () => {
    // 12 h left: a window of 1 h is not due, a (new) window of 13 h is: that replaces, as a rotation.
    const r = await provider.diff("sa-1", olds, news({ rotateBeforeExpiry: 13 * 3600 }));
    expect(r).toEqual({ changes: true, replaces: ["rotateBeforeExpiry"], deleteBeforeReplace: false });
    const unknownWindow = await provider.diff(
      "sa-1",
      { ...olds, tokenExpiresAt: "2024-01-01T00:00:00Z" },
      news({ rotateBeforeExpiry: UNKNOWN }),
    );
    expect(unknownWindow.replaces).toEqual(["rotateBeforeExpiry"]);
    // an unknown window on an expiring token may be reached: preview shows the possible replacement
    expect((await provider.diff("sa-1", olds, news({ rotateBeforeExpiry: UNKNOWN }))).replaces).toEqual([
      "rotateBeforeExpiry",
    ]);
  });

  test("a token that never expires is never rotated; no window, no rotation", async () => {
    const never = { ...olds, expiresIn: 0, tokenExpiresAt: "never" };
    // a new window on a token that never expires: an in-place update, never a rotation
    expect(await provider.diff("sa-1", never, news({ expiresIn: 0, rotateBeforeExpiry: 0 }))).toEqual(IN_PLACE);
    expect(await provider.diff("sa-1", never, news({ expiresIn: 0, rotateBeforeExpiry: UNKNOWN }))).toEqual(IN_PLACE);
    expect(
      await provider.diff("sa-1", { ...never, rotateBeforeExpiry: 0 }, news({ expiresIn: 0, rotateBeforeExpiry: 0 })),
    ).toEqual({
      changes: false,
      replaces: [],
      deleteBeforeReplace: false,
    });
    const expiredNoWindow = { ...olds, rotateBeforeExpiry: undefined, tokenExpiresAt: "2020-01-01T00:00:00Z" };
    delete (expiredNoWindow as Props).rotateBeforeExpiry;
    expect(await provider.diff("sa-1", expiredNoWindow, news({ rotateBeforeExpiry: undefined }))).toEqual({
      changes: false,
      replaces: [],
      deleteBeforeReplace: false,
    });
  });

  test("a current account a refresh marked: the reason and the warning say what it found (issue 63)", async () => {
    const said: string[] = [];
    const restore = useLogSink((severity, line) => {
      if (severity === "warning") said.push(line);
    });
    const diff = async (o: Props, change: Props = {}) => {
      said.length = 0;
      return provider.diff("sa-1", o, news({ rotateBeforeExpiry: undefined, ...change }));
    };
    try {
      // Expired on the service's clock, though not on ours (12 h left here): kept and marked, holding nothing else.
      const { rotateBeforeExpiry: _, ...noWindow } = olds;
      const expired = { ...noWindow, retiredServiceAccountIds: ["sa-1"] };
      expect(await diff(expired)).toEqual({ changes: true, replaces: ["tokenExpiresAt"], deleteBeforeReplace: false });
      expect(said).toEqual([
        expect.stringMatching(
          /^pulumi-pims: service account "ci" \(sa-1\) in project p-1 is replaced \(tokenExpiresAt\): its token expired at 2025-01-01T12:00:00\.000Z on the service's clock \(`pulumi refresh` found it so; .* then deletes account sa-1; .* set `rotateBeforeExpiry` on this ServiceAccount/,
        ),
      ]);
      // A window that passed without an up says so instead; a key the service marked expired with no date too.
      await diff({ ...expired, tokenExpiresAt: "never" }, { rotateBeforeExpiry: 60 });
      expect(said).toEqual([
        expect.stringMatching(
          /\(tokenExpiresAt\): the service marks its token expired .* window passed without a `pulumi up`/,
        ),
      ]);
      // With another account held (keepPreviousToken): rotated in place; the stored expiry decides what was found.
      const held = { ...expired, keepPreviousToken: true, previousServiceAccountId: "sa-0" };
      expect(await diff(held, { keepPreviousToken: true })).toEqual(IN_PLACE);
      expect(said).toEqual([
        expect.stringContaining(
          "(sa-1) in project p-1 is rotated in place (serviceAccountId): account sa-1 was deleted outside the stack",
        ),
      ]);
      await diff({ ...held, tokenExpiresAt: "2024-12-31T23:59:59Z" }, { keepPreviousToken: true });
      expect(said).toEqual([
        expect.stringContaining("is rotated in place (tokenExpiresAt): its token expired at 2024-12-31T23:59:59Z on"),
      ]);
      // Not marked: no line.
      expect(await diff(noWindow)).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
      expect(said).toEqual([]);
    } finally {
      restore();
    }
  });

  test("state without a description (older writer) equals an omitted description", async () => {
    const { description: _, ...noDescription } = olds;
    expect(await provider.diff("sa-1", noDescription, news({ description: undefined }))).toMatchObject({
      changes: false,
    });
  });
});

// ---- update (pure: no configured provider, so any call would fail) ---------------------------------------------

describe("update", () => {
  const provider = loose(new ServiceAccountProvider());
  const olds: Props = {
    projectId: "p-1",
    name: "ci",
    description: "deploys",
    grants: ["p-1"],
    expiresIn: 86_400,
    rotateBeforeExpiry: 3600,
    serviceAccountId: "sa-1",
    createdAt: "2024-12-31T12:00:00Z",
    createdByUserId: "u-1",
    tokenId: "tok-1",
    tokenExpiresAt: "2025-01-01T12:00:00.000Z",
    token: "pims_sa_secret_value_for_update",
    __provider: "serialized",
  };
  const { __provider: _, ...written } = olds;
  // A state written before fingerprints existed gets the held token's on its next update (provider/serviceAccount).
  const stored: Props = { ...written, tokenFingerprint: fingerprint(olds.token as string) };
  /** The inputs every update below keeps: only what a test adds changes. */
  const kept: Props = { projectId: "p-1", name: "ci", grants: ["p-1"], expiresIn: 86_400 };

  test("a new rotateBeforeExpiry is applied; the account, its token and every other output are kept", async () => {
    const outs = await provider.update("sa-1", olds, { ...kept, description: "deploys", rotateBeforeExpiry: 600 });
    expect(outs).toEqual({ ...stored, rotateBeforeExpiry: 600 });
    expect(isPlainJson(outs)).toBe(true);
  });

  test("rotateBeforeExpiry removed: absent from the outputs (never undefined)", async () => {
    const outs = await provider.update("sa-1", olds, kept);
    const { rotateBeforeExpiry: __, ...rest } = stored;
    expect(outs).toEqual(rest);
    expect(Object.keys(outs)).not.toContain("rotateBeforeExpiry");
    expect(isPlainJson(outs)).toBe(true);
  });

  test("inputs that replace are never applied in place: the state keeps what the service holds", async () => {
    const outs = await provider.update("sa-1", olds, {
      projectId: "p-9",
      name: "renamed",
      grants: ["p-2"],
      expiresIn: 60,
      rotationTrigger: "r2",
      rotateBeforeExpiry: 3600,
    });
    expect(outs).toEqual(stored);
  });

  test("state written without a description (older writer) gets the default", async () => {
    const { description: ___, ...noDescription } = olds;
    expect(
      await provider.update("sa-1", noDescription, {
        projectId: "p-1",
        name: "ci",
        grants: ["p-1"],
        expiresIn: 86_400,
        rotateBeforeExpiry: 3600,
      }),
    ).toEqual({ ...stored, description: "" });
  });
});
