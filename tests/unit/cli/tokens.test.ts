/**
 * `pims tokens` ordering and time-left text (no network): what the simulator cannot send, e.g. an unreadable expiry.
 */
import { timeLeft, tokenViews } from "../../../cli/tokens";
import type { ApiKeyResult } from "../../../sdk/nodejs/functions";

const NOW = Date.UTC(2025, 0, 1, 12);
const key = (name: string, expiresAt: string, principalId?: string): ApiKeyResult => ({
  id: `key-${name}`,
  name,
  description: "",
  apiKey: `pims_live_${name}_0123456789abcdef`,
  projectId: "p-1",
  ...(principalId ? { principalId } : {}),
  source: "user",
  status: "active",
  createdAt: "",
  updatedAt: "",
  expiresAt,
  neverExpires: expiresAt === "never",
  expiresAtEpochMs: null,
  expiresAtDate: null,
});

describe("tokenViews", () => {
  it("sorts soonest first, then unreadable expiries, then never, keeping the service's order among equals", () => {
    const keys = [
      key("never-1", "never"),
      key("garbage", "next tuesday"),
      key("late", "2025-03-01T00:00:00Z"),
      key("never-2", "NEVER"),
      key("expired", "2024-12-31T10:00:00Z", "sa-1"),
      key("epoch-seconds", String(NOW / 1000 + 3600)), // an epoch number sent by the service, read as such
    ];
    const views = tokenViews(keys, NOW, 2 * 3_600_000);
    expect(views.map((v) => [v.name, v.expiresAt, v.secondsLeft, v.expiring])).toEqual([
      ["expired", "2024-12-31T10:00:00Z", -26 * 3600, true],
      ["epoch-seconds", "2025-01-01T13:00:00.000Z", 3600, true],
      ["late", "2025-03-01T00:00:00Z", 58.5 * 86_400, false],
      ["garbage", null, null, false],
      ["never-1", "never", null, false],
      ["never-2", "never", null, false],
    ]);
    expect(views.map(timeLeft)).toEqual(["expired 1d 2h ago", "1h", "58d 12h", "unknown", "never", "never"]);
    expect(JSON.stringify(views)).not.toContain("pims_live_");
  });

  it("flags nothing without a window, and an expiry exactly at the window's end", () => {
    const keys = [key("edge", "2025-01-01T14:00:00Z")];
    expect(tokenViews(keys, NOW, undefined)[0].expiring).toBe(false);
    expect(tokenViews(keys, NOW, 2 * 3_600_000)[0].expiring).toBe(true);
    expect(tokenViews(keys, NOW, 2 * 3_600_000 - 1)[0].expiring).toBe(false);
  });
});
