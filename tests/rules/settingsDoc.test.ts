/**
 * docs/settings.md holds the table of every setting as provider/settings.ts renders it: a setting added or changed in
 * the table without `npm run docs:settings` fails here.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { SETTINGS } from "../../provider/settings";
import {
  BEGIN,
  END,
  LAUNCHER_BEGIN,
  LAUNCHER_END,
  renderSettingsTable,
  SETTINGS_DOC,
  withSettingsTable,
} from "../../scripts/generate/docs-settings";

describe("docs/settings.md", () => {
  const doc = fs.readFileSync(SETTINGS_DOC, "utf8");

  it("holds exactly the table the settings render (run `npm run docs:settings` after changing one)", () => {
    expect(withSettingsTable(doc)).toBe(doc);
  });

  it("the table has one row per setting, naming its environment variable, config key and provider argument", () => {
    const table = doc.slice(doc.indexOf(BEGIN), doc.indexOf(END));
    const rows = table.split("\n").filter((l) => l.startsWith("| `PIMS_"));
    expect(rows).toHaveLength(Object.keys(SETTINGS).length);
    for (const [name, s] of Object.entries(SETTINGS)) {
      const row = rows.find((r) => r.startsWith(`| \`${s.env}\` |`)) ?? "";
      expect(row).not.toBe("");
      expect(row.includes(`\`pims:${name}\``)).toBe(s.set !== "env");
      expect(row.includes(`| \`${name}\` |`)).toBe(s.set === "argument");
    }
  });

  it("the launcher's table names PIMS_NODE (read by plugin/pulumi-resource-pims, which says so)", () => {
    const table = doc.slice(doc.indexOf(LAUNCHER_BEGIN), doc.indexOf(LAUNCHER_END));
    expect(table).toContain("| `PIMS_NODE` | `node` on PATH |");
    expect(fs.readFileSync(path.join(__dirname, "..", "..", "plugin", "pulumi-resource-pims"), "utf8")).toContain(
      'node="${PIMS_NODE:-node}"',
    );
  });

  it("a changed setting shows as a difference, and a page without the markers is refused", () => {
    const changed = doc.replace("`PIMS_MAX_RETRIES` | — | — | 4 |", "`PIMS_MAX_RETRIES` | — | — | 5 |");
    expect(changed).not.toBe(doc);
    expect(withSettingsTable(changed)).toBe(doc);
    expect(() => withSettingsTable("# Settings\n")).toThrow(/markers/);
    expect(renderSettingsTable().split("\n")[0]).toContain("Environment variable");
  });
});
