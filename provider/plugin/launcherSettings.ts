/**
 * The settings of the plugin's launcher (plugin/pulumi-resource-pims, a bash script): environment variables read
 * before any Node.js runs, so outside the provider's settings table (../settings). docs/settings.md renders this
 * table too (`npm run docs:settings`); the launcher is the one place that reads them.
 */
export interface LauncherSetting {
  /** The environment variable. */
  env: string;
  /** What applies when it is not set. */
  default: string;
  /** What it does. */
  doc: string;
}

export const LAUNCHER_SETTINGS: readonly LauncherSetting[] = [
  {
    env: "PIMS_NODE",
    default: "`node` on PATH",
    doc:
      "The node binary (version 22 or newer) that runs the npm package's Node launcher of the `pims` plugin " +
      "(`plugins.providers`; the released executable needs no Node.js). " +
      "With an older Node, the plugin's first error line says to install Node.js 22 or set this.",
  },
];
