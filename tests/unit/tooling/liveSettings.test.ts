/**
 * The live tier's gate (scripts/live/settings.ts): what is required, and that every check that costs money or leaves
 * something behind stays off unless its own variable allows it.
 */
import { describeChecks, liveSettings, NOT_CONFIGURED, PREFIX_RULE } from "../../../scripts/live/settings";

const required = {
  PIMS_LIVE_BASE_URL: "https://pims.example.com",
  PIMS_LIVE_TOKEN: "t0ken-value",
  PIMS_LIVE_PROJECT: "p-1a2b3c4d",
};

test("without any of the three required variables the tier is not configured, and says what to set in one line", () => {
  for (const name of Object.keys(required)) expect(liveSettings({ ...required, [name]: " " })).toBeUndefined();
  expect(NOT_CONFIGURED).not.toContain("\n");
  for (const name of Object.keys(required)) expect(NOT_CONFIGURED).toContain(name);
});

test("by default only the free checks are on, under a fresh prefix", () => {
  const s = liveSettings(required)!;
  expect(s).toMatchObject({ allowCreateProject: false, skipEngine: false });
  expect(s.resize).toBeUndefined();
  expect(s.secretsAppId).toBeUndefined();
  expect(s.prefix).toMatch(PREFIX_RULE);
  expect(liveSettings(required)!.prefix).not.toBe(s.prefix);
  expect(describeChecks(s).filter((l) => l.startsWith("  on "))).toHaveLength(3);
});

test("a resize needs the volume, ≥ 50 GB and PIMS_LIVE_ALLOW_RESIZE=1; otherwise it says why it is off", () => {
  const notAllowed = liveSettings({ ...required, PIMS_LIVE_VOLUME: "v", PIMS_LIVE_RESIZE_GB: "200" })!;
  expect(notAllowed.resize).toBeUndefined();
  expect(notAllowed.resizeSkipped).toContain("PIMS_LIVE_ALLOW_RESIZE=1");
  expect(
    liveSettings({ ...required, PIMS_LIVE_VOLUME: "v", PIMS_LIVE_ALLOW_RESIZE: "1", PIMS_LIVE_RESIZE_GB: "20" })
      ?.resizeSkipped,
  ).toContain("at least 50");
  expect(liveSettings({ ...required, PIMS_LIVE_VOLUME: "v", PIMS_LIVE_ALLOW_RESIZE: "1" })?.resize).toBeUndefined();
  expect(
    liveSettings({ ...required, PIMS_LIVE_VOLUME: "v", PIMS_LIVE_ALLOW_RESIZE: "1", PIMS_LIVE_RESIZE_GB: "200" })
      ?.resize,
  ).toEqual({
    volumeId: "v",
    sizeGb: 200,
  });
});

test("projects created only with PIMS_LIVE_ALLOW_CREATE_PROJECT=1; builds/runs need the app; bad prefix: no", () => {
  expect(liveSettings({ ...required, PIMS_LIVE_ALLOW_CREATE_PROJECT: "yes" })?.allowCreateProject).toBe(false);
  expect(liveSettings({ ...required, PIMS_LIVE_ALLOW_CREATE_PROJECT: "1" })?.allowCreateProject).toBe(true);
  expect(() => liveSettings({ ...required, PIMS_LIVE_RUN: "run-1" })).toThrow("PIMS_LIVE_APP");
  // The teardown deletes every account whose name starts with the prefix: an empty or broad one would be dangerous.
  for (const prefix of ["deployer", "pims-live-", "pims-live-a-", "pims-live-abcd"]) {
    expect(() => liveSettings({ ...required, PIMS_LIVE_PREFIX: prefix })).toThrow("PIMS_LIVE_PREFIX");
  }
});
