/**
 * The YAML runner. Environment: the official YAML host beside the CLI (scripts/engine/yaml's ensureYamlHost). SDK:
 * none; a program names the pims package by the resource options `version` and `pluginDownloadURL`, or a project's
 * `plugins.providers` names this repository's plugin (./index's namePlugin). Program: under its host, `pulumi up`.
 * Also docs/yaml.md's published program for a home not on GitHub ({@link yamlPublishedProgram}).
 */
import { ensureEngine } from "../../../scripts/engine";
import { ensureYamlHost } from "../../../scripts/engine/yaml";
import { readBlock } from "./guide";
import type { Runner } from "./index";

export const yaml: Runner = {
  language: "yaml",
  runs: "host",
  toolchain: () => {
    const engineDir = ensureEngine();
    ensureYamlHost(engineDir);
    return { path: [engineDir], env: {} };
  },
};

/** The outputs of {@link yamlRotationProgram} naming the accounts. */
export const YAML_ROTATION_OUTPUTS = { ci: "ciId", app: "appId", appPrevious: "appPreviousId", token: "ciToken" };

/**
 * A YAML program of two accounts of the project `${projectId}`, rotated in each mode by the config keys
 * `triggerReplace` (`ci`, by replacement) and `triggerOverlap` (`app`, its previous account kept): `resources` opens
 * the resources (a page's block, or `resources:`), `options` are each account's resource options. Outputs:
 * {@link YAML_ROTATION_OUTPUTS}.
 */
export function yamlRotationProgram(o: {
  name: string;
  prefix: string;
  resources?: string;
  options?: string[];
}): string {
  const DAY = 86400;
  const account = (name: string, extra: string[]): string[] => [
    `  ${name}:`,
    "    type: pims:index:ServiceAccount",
    "    properties:",
    "      projectId: ${projectId}",
    `      name: ${o.prefix}-${name}`,
    '      grants: ["${projectId}"]',
    `      expiresIn: ${30 * DAY}`,
    ...extra.map((l) => `      ${l}`),
    ...(o.options ? ["    options:", ...o.options.map((l) => `      ${l}`)] : []),
  ];
  return [
    `name: ${o.name}`,
    "runtime: yaml",
    "config:",
    "  projectId: { type: string }",
    '  triggerReplace: { type: string, default: "0" }',
    '  triggerOverlap: { type: string, default: "0" }',
    o.resources ?? "resources:",
    ...account("ci", ["rotationTrigger: ${triggerReplace}"]),
    ...account("app", [
      `rotateBeforeExpiry: ${20 * DAY}`,
      "keepPreviousToken: true",
      "rotationTrigger: ${triggerOverlap}",
    ]),
    "outputs:",
    "  ciId: ${ci.serviceAccountId}",
    "  ciToken: ${ci.token}",
    "  appId: ${app.serviceAccountId}",
    "  appPreviousId: ${app.previousServiceAccountId}",
    "",
  ].join("\n");
}

/**
 * docs/yaml.md's published `Pulumi.yaml` block verbatim but for its GitHub address, which becomes the page's line for a
 * home not on GitHub (block `published:option another-home`) naming `downloadUrl`, the release's address with
 * `${VERSION}` in it, written as that line writes it (`$${VERSION}`: the engine, not YAML, replaces it); then the two
 * accounts of {@link yamlRotationProgram} beside its project, as a user's program grows.
 */
export function yamlPublishedProgram(downloadUrl: string): string {
  const placeholder = "pluginDownloadURL: github://api.github.com/OWNER/pulumi-pims\n";
  const page = readBlock("yaml.md", "published:file Pulumi.yaml");
  if (!page.includes(placeholder)) throw new Error(`docs/yaml.md's published block lost its line ${placeholder}`);
  const another = readBlock("yaml.md", "published:option another-home");
  if (!/^ +pluginDownloadURL: https:\/\/\S+\/v\$\$\{VERSION\}$/m.test(another))
    throw new Error(`docs/yaml.md's another-home block has no pluginDownloadURL ending in $\${VERSION}: ${another}`);
  if (!downloadUrl.includes("${VERSION}")) throw new Error(`${downloadUrl} has no \${VERSION}`);
  const written = downloadUrl.replace("${VERSION}", () => "$${VERSION}");
  const resources = page.replace(placeholder, () => `pluginDownloadURL: ${written}\n`).trimEnd();
  return yamlRotationProgram({ name: "my-infra", prefix: "rehearsal", resources });
}
