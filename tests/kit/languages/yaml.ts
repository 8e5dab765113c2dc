/**
 * The YAML runner. Environment: the official YAML host beside the CLI (scripts/engine/yaml's ensureYamlHost). SDK:
 * none; a program names the pims package by the resource options `version` and `pluginDownloadURL`, or a project's
 * `plugins.providers` names this repository's plugin (./index's namePlugin). Program: under its host, `pulumi up`.
 * Also docs/yaml.md's published program for a home not on GitHub ({@link yamlPublishedProgram}).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { ensureEngine, REPO_ROOT } from "../../../scripts/engine";
import { ensureYamlHost } from "../../../scripts/engine/yaml";
import { readPublishedFile } from "./guide";
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

/**
 * docs/yaml.md's published `Pulumi.yaml` block verbatim but for its GitHub address, which becomes the page's line for a
 * home not on GitHub (block `published:option another-home`) naming `downloadUrl`, the release's address with
 * `${VERSION}` in it, written as that line writes it (`$${VERSION}`: the engine, not YAML, replaces it); then two
 * accounts (rotated in each mode by the config keys `triggerReplace` and `triggerOverlap`) beside its project, as a
 * user's program grows. Outputs: `ciId`, `ciToken`, `appId`, `appPreviousId`.
 */
export function yamlPublishedProgram(downloadUrl: string): string {
  const DAY = 86400;
  const placeholder = "pluginDownloadURL: github://api.github.com/OWNER/pulumi-pims\n";
  const page = readPublishedFile("yaml.md", "Pulumi.yaml");
  if (!page.includes(placeholder)) throw new Error(`docs/yaml.md's published block lost its line ${placeholder}`);
  const text = fs.readFileSync(path.join(REPO_ROOT, "docs", "yaml.md"), "utf8");
  const another = /<!-- published:option another-home -->\s*\n```yaml\n([\s\S]*?)```/.exec(text)?.[1] ?? "";
  if (!/^ +pluginDownloadURL: https:\/\/\S+\/v\$\$\{VERSION\}$/m.test(another))
    throw new Error(`docs/yaml.md's another-home block has no pluginDownloadURL ending in $\${VERSION}: ${another}`);
  if (!downloadUrl.includes("${VERSION}")) throw new Error(`${downloadUrl} has no \${VERSION}`);
  const written = downloadUrl.replace("${VERSION}", () => "$${VERSION}");
  const account = (name: string, extra: string[]): string[] => [
    `  ${name}:`,
    "    type: pims:index:ServiceAccount",
    "    properties:",
    "      projectId: ${projectId}",
    `      name: rehearsal-${name}`,
    '      grants: ["${projectId}"]',
    `      expiresIn: ${30 * DAY}`,
    ...extra.map((l) => `      ${l}`),
  ];
  return [
    "name: my-infra",
    "runtime: yaml",
    "config:",
    "  projectId: { type: string }",
    '  triggerReplace: { type: string, default: "0" }',
    '  triggerOverlap: { type: string, default: "0" }',
    page.replace(placeholder, () => `pluginDownloadURL: ${written}\n`).trimEnd(),
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
