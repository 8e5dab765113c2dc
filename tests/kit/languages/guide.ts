/**
 * Following a docs page as a user would (the docs table, ./docsTable; the consumer suites; the published paths,
 * ../release/publishedPaths): the page's `guide:` and `published:` blocks, a shell that keeps what the page's commands
 * printed, the sandbox's substitutions and clone, what the pages' programs expect in the service, and the final scan
 * for tokens.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { REPO_ROOT } from "../../../scripts/engine";
import type { PimsSimulator } from "../../../simulator";
import { expectNoPlaintextSecrets, expectNoSecretsInFiles } from "../secrets/secrets";
import { GO_SDK_DIR } from "./go";
import { run, type Ran } from "./index";
import { PYTHON_SDK_DIR } from "./python";

/**
 * What the docs call `../pulumi-pims`, a clone of this repository beside the user's project: `root/pulumi-pims`
 * with the SDKs copied (a pip install builds inside the source tree, which must not be this repository's).
 */
export function sandboxClone(root: string): string {
  const clone = path.join(root, "pulumi-pims");
  fs.mkdirSync(path.join(clone, "sdk"), { recursive: true });
  fs.cpSync(PYTHON_SDK_DIR, path.join(clone, "sdk", "python"), { recursive: true });
  fs.cpSync(GO_SDK_DIR, path.join(clone, "sdk", "go"), { recursive: true });
  return clone;
}

/** One step of a docs page, in the page's order: a file to write, or a shell block's command lines. */
export type GuideStep = { file: string; text: string } | { commands: string[] };

/** The blocks of docs/`page` marked `<!-- MARKER -->` (`marker`, a regexp source): its groups, then the text. */
function blocks(page: string, marker: string): RegExpMatchArray[] {
  const text = fs.readFileSync(path.join(REPO_ROOT, "docs", page), "utf8");
  return [...text.matchAll(new RegExp(`<!-- ${marker} -->\\s*\\n\`\`\`[a-z]*\\n([\\s\\S]*?)\`\`\``, "g"))];
}

/** A shell block's command lines, without comments (`# …`) and blank lines. */
const commandLines = (text: string): string[] =>
  text
    .split("\n")
    .map((l) => l.replace(/(^|\s+)#.*$/, "").trim())
    .filter(Boolean);

/** A docs page's `<!-- guide:file NAME -->` and `<!-- guide:shell -->` blocks as steps, in the order the page gives. */
export function readSteps(page: string): GuideStep[] {
  return blocks(page, "guide:(?:file ([^\\s]+)|shell)").map((m) =>
    m[1] !== undefined ? { file: m[1], text: m[2] } : { commands: commandLines(m[2]) },
  );
}

/**
 * The commands of a docs page's published path (its `<!-- published:shell -->` blocks: what users run once a release
 * is out), which the release rehearsal (tests/engine/release/rehearsal.test.ts) follows; the guide blocks above are the
 * unreleased build's.
 */
export function readPublished(page: string): string[] {
  return blocks(page, "published:shell").flatMap((m) => commandLines(m[1]));
}

/** The text of docs/`page`'s first block marked `<!-- marker -->` (e.g. `guide:rotate`, `published:dependency`). */
export function readBlock(page: string, marker: string): string {
  const found = blocks(page, marker.replace(/\./g, "\\."))[0];
  if (found === undefined) throw new Error(`docs/${page} has no \`<!-- ${marker} -->\` block`);
  return found[1];
}

/** A docs page's guide for a test that writes every file first, then runs every command. */
export function readGuide(page: string): { files: Array<{ file: string; text: string }>; commands: string[] } {
  const steps = readSteps(page);
  return {
    files: steps.flatMap((s) => ("file" in s ? [s] : [])),
    commands: steps.flatMap((s) => ("commands" in s ? s.commands : [])),
  };
}

/**
 * Runs a docs page's commands with bash, as a user's terminal would, and keeps everything they printed for the
 * final scan for tokens.
 */
export class GuideShell {
  /** What the recorded commands printed, both streams. */
  printed = "";

  /**
   * Runs `command` in `cwd`; resolves with what it printed, or rejects with the end of it when it fails. With
   * `record` false the output is not kept: the test's own look at revealed secrets is not something a user's
   * command printed.
   */
  async run(command: string, cwd: string, env: NodeJS.ProcessEnv, record = true): Promise<string> {
    const ran = await run("bash", ["-c", command], { cwd, env }).catch((e: Error & Partial<Ran>) => {
      if (e.output === undefined) throw e; // bash did not start
      return e as Ran;
    });
    if (record) this.printed += ran.output;
    if (ran.code !== 0) throw new Error(`\`${command}\` exited ${ran.code}:\n${ran.output.slice(-6000)}`);
    return ran.output;
  }

  /** The stack's outputs in `cwd`: secrets as `[secret]`, or revealed (the test's own look, not recorded). */
  async outputs(cwd: string, env: NodeJS.ProcessEnv, reveal = false): Promise<Record<string, unknown>> {
    const out = await this.run(`pulumi stack output --json${reveal ? " --show-secrets" : ""}`, cwd, env, !reveal);
    return JSON.parse(out) as Record<string, unknown>;
  }
}

/**
 * A docs command as the test runs it, the substitutions being about the sandbox only: `pulumi login --local` logs
 * in to the temporary backend, `pulumi up` gets `--yes --non-interactive` (no terminal to confirm on), and
 * `pulumi config set KEY <example>` gets the sandbox's value of each key in `config` (the simulator's address and
 * the ids it seeded).
 */
export function sandboxed(command: string, backend: string, config: Record<string, string>): string {
  return command
    .replace(/^pulumi login --local$/, `pulumi login file://${backend}`)
    .replace(/^pulumi config set ([\w:]+) \S+$/, (line, key: string) =>
      key in config ? `pulumi config set ${key} ${config[key]}` : line,
    )
    .replace(/^pulumi up$/, "pulumi up --yes --non-interactive");
}

/**
 * What the program of docs/yaml.md and docs/java.md expects to exist in the service: a project with an app `web`, a
 * 50 GB volume and an API key. Returns their ids by the names of the page's config keys.
 */
export function seedPageObjects(sim: PimsSimulator): { appProjectId: string; appId: string; volumeId: string } {
  const project = sim.addProject({ name: "existing" });
  const app = sim.addApp(project.id, "web");
  const volume = sim.addVolume(project.id, { sizeGb: 50 });
  sim.addApiKey(project.id, { name: "ci-key" });
  return { appProjectId: project.id, appId: app.id, volumeId: volume.id };
}

/**
 * After a page is followed: no token (the stack's and every one the service issued) in plaintext in what its
 * commands printed, in the backend's files, or in the stack's config file, where `pims:token` is stored encrypted.
 */
export function expectNoTokenLeft(o: { printed: string; secrets: string[]; backend: string; project: string }): void {
  expect(o.printed.length).toBeGreaterThan(500);
  expectNoPlaintextSecrets(o.printed, o.secrets, "the output of the page's commands");
  expect(expectNoSecretsInFiles(o.backend, o.secrets)).toBeGreaterThan(3);
  const config = fs.readFileSync(path.join(o.project, "Pulumi.dev.yaml"), "utf8");
  expect(config).toContain("pims:token:\n    secure:");
  expectNoPlaintextSecrets(config, o.secrets, "Pulumi.dev.yaml");
}
