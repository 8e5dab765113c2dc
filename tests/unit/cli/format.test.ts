/** Text helpers of the `pims` CLI (no network): table layout by display width, cell escaping, masking, options. */
import {
  RecentKeys,
  UsageError,
  cellText,
  displayWidth,
  durationOption,
  instantOption,
  intOption,
  maskSecret,
  table,
} from "../../../cli/format";
import { formatDuration } from "../../../provider/client/values";

describe("displayWidth", () => {
  it.each([
    ["", 0],
    ["2024-05-01T12:00:00Z", 20],
    ["pims…wxyz", 9],
    ["fe\u0301vr.", 5], // e + combining acute accent: one column
    ["févr.", 5],
    ["2024年5月1日", 12], // ideographs take two columns
    ["한국", 4],
    ["ＡＢ", 4], // fullwidth forms
    ["a\u200bb", 2], // zero-width space
    ["🚀 ok", 5],
  ])("%j is %i columns", (text, width) => {
    expect(displayWidth(text)).toBe(width);
  });
});

describe("cellText", () => {
  it("escapes control characters so a value cannot break its row or drive the terminal", () => {
    expect(cellText("a\nb\tc\r")).toBe("a\\nb\\tc\\r");
    expect(cellText("\u001b[31mred")).toBe("\\u001b[31mred");
    expect(cellText("plain")).toBe("plain");
  });
  it("shows a missing value as -", () => {
    expect([cellText(null), cellText(undefined), cellText("")]).toEqual(["-", "-", ""]);
  });
});

describe("table", () => {
  it("pads by display width: every column starts at the same terminal column", () => {
    const out = table(
      ["ID", "CREATED", "AMOUNT"],
      [
        ["a", "2024年5月1日", "1.00 USD"],
        ["bb", "1 fe\u0301vr. 2024", "100.00 USD"],
        ["ccc", "1714564800", "0 JPY"],
      ],
      new Set([2]),
    );
    const rows = out.trimEnd().split("\n");
    expect(rows).toHaveLength(4);
    const colOf = (row: string, text: string): number => displayWidth(row.slice(0, row.indexOf(text)));
    expect(rows.slice(1).map((r, i) => colOf(r, ["2024年", "1 fe", "1714"][i]))).toEqual([5, 5, 5]);
    expect(colOf(rows[0], "CREATED")).toBe(5);
    // Right-aligned amounts end where the header does.
    const end = colOf(rows[0], "AMOUNT") + "AMOUNT".length;
    expect(rows.slice(1).map((r) => displayWidth(r))).toEqual([end, end, end]);
  });

  it("keeps one line per record whatever the values hold; null cells show -", () => {
    const out = table(["A", "B"], [["x\ny", null]]);
    expect(out).toBe("A     B\nx\\ny  -\n");
  });

  it("trims trailing spaces of each line", () => {
    expect(table(["NAME", "NOTE"], [["n", ""]])).toBe("NAME  NOTE\nn\n");
  });
});

describe("maskSecret", () => {
  it.each([
    ["pims_live_0123456789abcdefghij_wxyz", "pims…wxyz"],
    ["abcdefghijkl", "…ijkl"],
    ["short", "****"],
    ["", ""],
  ])("%j → %j", (value, masked) => {
    expect(maskSecret(value)).toBe(masked);
  });
});

describe("option parsers", () => {
  it("intOption accepts integers in range and names the flag otherwise", () => {
    const parse = intOption("--limit", 1, 10);
    expect(parse(" 7 ")).toBe(7);
    for (const bad of ["0", "11", "2.5", "x", ""])
      expect(() => parse(bad)).toThrow(
        new UsageError(`--limit must be an integer from 1 to 10 (got ${JSON.stringify(bad)})`),
      );
  });

  it("instantOption passes RFC 3339 through and turns a duration into a time that long ago", () => {
    const parse = instantOption("--after", () => Date.UTC(2024, 4, 1, 12));
    expect(parse("2024-05-01T10:00:00Z")).toBe("2024-05-01T10:00:00Z");
    expect(parse("15m")).toBe("2024-05-01T11:45:00.000Z");
    expect(parse("1d")).toBe("2024-04-30T12:00:00.000Z");
    expect(() => parse("yesterday")).toThrow(/--after must be an RFC 3339 timestamp/);
  });

  it("durationOption reads one number and one unit (s, m, h, d) as milliseconds", () => {
    const parse = durationOption("--expiring-within");
    expect([parse("30s"), parse("15m"), parse(" 2h "), parse("7d"), parse("0s")]).toEqual([
      30_000, 900_000, 7_200_000, 604_800_000, 0,
    ]);
    for (const bad of ["7", "1y", "1.5h", "-1d", "2h30m", "", "99999999999999999d"]) {
      expect(() => parse(bad)).toThrow(
        new UsageError(`--expiring-within must be a duration such as 30s, 15m, 2h, 7d (got ${JSON.stringify(bad)})`),
      );
    }
  });

  it("instantOption rejects a duration too long to be a date instead of throwing a RangeError", () => {
    expect(() => instantOption("--after")("99999999999999999d")).toThrow(UsageError);
  });

  it.each([
    [0, "0s"],
    [999, "999ms"],
    [250, "250ms"],
    [2_500, "2.5s"],
    [9_050, "9s"],
    [9_000, "9s"],
    [250_000, "4m 10s"],
    [7_500_000, "2h 5m"],
    [7_200_000, "2h"],
    [(6 * 24 + 3) * 3_600_000 + 59_000, "6d 3h"],
    [30 * 86_400_000 + 60_000, "30d"],
    [-7_260_000, "2h 1m"],
  ])("formatDuration(%j) is %j: the two largest units, rounded down", (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it("RecentKeys forgets the oldest key beyond its capacity", () => {
    const keys = new RecentKeys(2);
    ["a", "b", "c"].forEach((k) => keys.add(k));
    expect([keys.has("a"), keys.has("b"), keys.has("c"), keys.size]).toEqual([false, true, true, 2]);
  });
});
