/**
 * Each setting is written once, in `SETTINGS` (provider/settings.ts): the plugin schema's config block, the TSDoc of
 * `pims.Provider`'s arguments, docs/settings.md and the rows other pages show are rendered from it. Each number of
 * the table is changed in a copy, and the texts rendered from the copy must follow it with no other edit; the
 * committed texts must be the renderings of the table itself.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { configVariables } from "../../../provider/plugin/schemaProperties";
import {
  CONFIG_KEYS,
  SETTINGS,
  settingDefault,
  type ConfigKey,
  type SettingName,
  type SettingsTable,
} from "../../../provider/settings";
import {
  PROVIDER_SOURCE,
  renderSettingsTable,
  ROW_PAGES,
  SETTINGS_DOC,
  withProviderArgDocs,
  withSettingRows,
  withSettingsTable,
} from "../../../scripts/generate/docs-settings";

const NAMES = Object.keys(SETTINGS) as SettingName[];
/** The table as its specs (each may have a default). */
const TABLE: SettingsTable = SETTINGS;
const source = fs.readFileSync(PROVIDER_SOURCE, "utf8");
const schema = JSON.parse(
  fs.readFileSync(path.join(__dirname, "..", "..", "..", "provider", "schema.json"), "utf8"),
) as {
  config: { variables: Record<string, { description: string; defaultInfo: { environment: string[] } }> };
};

/** The TSDoc of `ProviderArgs.<name>` in a rendering of providerResource.ts. */
function argumentDoc(text: string, name: string): string {
  const args = text.slice(text.indexOf("export interface ProviderArgs {"));
  const end = args.search(new RegExp(`\\n {2}${name}\\?: `));
  expect(end).toBeGreaterThan(0);
  return args.slice(args.lastIndexOf("/**", end), end);
}

/** The docs table's row of setting `name`. */
const rowOf = (table: string, name: SettingName): string =>
  table.split("\n").find((l) => l.startsWith(`| \`${SETTINGS[name].env}\` |`)) ?? "";

/** The table with the default of `name` changed to `value`. */
function changed(name: SettingName, value: number): SettingsTable {
  return { ...SETTINGS, [name]: { ...SETTINGS[name], default: value } };
}

describe("the settings' texts are rendered from the table", () => {
  it("the committed schema config, Provider argument docs and docs/settings.md are the table's renderings", () => {
    expect(schema.config.variables).toEqual(configVariables());
    expect(withProviderArgDocs(source)).toBe(source);
    const doc = fs.readFileSync(SETTINGS_DOC, "utf8");
    expect(withSettingsTable(doc)).toBe(doc);
  });

  it("each config variable names its environment variable and default from the table", () => {
    expect(Object.keys(configVariables()).sort()).toEqual([...CONFIG_KEYS].sort());
    for (const key of CONFIG_KEYS) {
      const v = schema.config.variables[key];
      expect(v.defaultInfo.environment).toEqual([SETTINGS[key].env]);
      expect(v.description).toContain(`\`${SETTINGS[key].env}\``);
      if (typeof TABLE[key].default === "number") expect(v.description).toContain(settingDefault(SETTINGS[key]));
    }
  });

  const numeric = NAMES.filter((n) => typeof TABLE[n].default === "number");
  it("some settings have numeric defaults (the next test has something to change)", () =>
    expect(numeric.length).toBeGreaterThan(3));

  it.each(numeric)("changing the default of %s changes every text that shows it, and nothing else", (name) => {
    const old = TABLE[name].default as number;
    const table = changed(name, old * 2 + 7);
    const shown = settingDefault(table[name]);
    expect(shown).not.toBe(settingDefault(SETTINGS[name]));
    expect(shown).toContain(String(old * 2 + 7));

    const docRow = rowOf(renderSettingsTable(table), name);
    expect(docRow).toContain(`| ${shown} |`);
    for (const other of NAMES.filter((n) => n !== name))
      expect(rowOf(renderSettingsTable(table), other)).toBe(rowOf(renderSettingsTable(), other));
    // The pages that show this setting's row (installation, large stacks) follow the table too.
    for (const page of ROW_PAGES.map((p) => fs.readFileSync(p, "utf8")).filter((d) => rowOf(d, name) !== ""))
      expect(rowOf(withSettingRows(page, table), name)).toBe(docRow);

    if (SETTINGS[name].set !== "env") {
      const key = name as ConfigKey;
      const variables = configVariables(table);
      expect(variables[key].description).toContain(shown);
      expect(variables[key].description).not.toBe(configVariables()[key].description);
      for (const other of CONFIG_KEYS.filter((k) => k !== key))
        expect(variables[other]).toEqual(configVariables()[other]);
    }

    const rendered = withProviderArgDocs(source, table);
    if (SETTINGS[name].set === "argument") {
      // The TSDoc wraps at 120 columns: compare its words.
      const words = (text: string) => text.replace(/\s*\*\s*/g, " ").replace(/\s+/g, " ");
      expect(words(argumentDoc(rendered, name))).toContain(shown);
      expect(argumentDoc(rendered, name)).not.toBe(argumentDoc(source, name));
      expect(rendered.replace(argumentDoc(rendered, name), "")).toBe(source.replace(argumentDoc(source, name), ""));
    } else expect(rendered).toBe(source);
  });

  it("a changed environment variable reaches the schema's defaultInfo, the Provider's docs and the table", () => {
    const table = { ...SETTINGS, maxConcurrency: { ...SETTINGS.maxConcurrency, env: "PIMS_OTHER_CAP" } };
    expect(configVariables(table).maxConcurrency.defaultInfo).toEqual({ environment: ["PIMS_OTHER_CAP"] });
    expect(argumentDoc(withProviderArgDocs(source, table), "maxConcurrency")).toContain("`PIMS_OTHER_CAP`");
    expect(renderSettingsTable(table)).toContain("| `PIMS_OTHER_CAP` | `pims:maxConcurrency` |");
  });

  it("an argument ProviderArgs does not declare is refused, not skipped", () => {
    const table = { ...SETTINGS, goneProjects: { ...SETTINGS.goneProjects, set: "argument" as const } };
    expect(() => withProviderArgDocs(source, table)).toThrow(/ProviderArgs has no documented member goneProjects/);
  });
});
