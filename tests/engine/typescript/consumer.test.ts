/**
 * The consumer matrix: the packed package installed the way the guide "Use it in your own project"
 * (docs/installation-configuration.md) tells a user to, in a fresh project outside this repository, once per
 * `@pulumi/pulumi` version — the oldest this package supports (its peer range's floor), the one this repository
 * pins, and the newest the registry serves — then
 * `pulumi up`, a no-change `pulumi preview` and `pulumi destroy` with the real engine against the simulator.
 * Each install must hold exactly one copy of the SDK (`npm ls`).
 *
 * The files and commands come from that page itself (blocks marked `<!-- guide:file NAME -->` and
 * `<!-- guide:shell -->`), so the guide cannot rot. Three substitutions only, all about this test's sandbox:
 * `pulumi-pims` is the packed tarball and `@pulumi/pulumi` gets the version under test; `pulumi login --local`
 * logs in to a temporary `file://` backend; `pulumi up` gets `--yes` (no terminal to confirm on). The token reaches
 * the guide's commands as `PIMS_TOKEN` in the environment, as it would for a user.
 *
 * Needs the npm registry (CI has it) and the pulumi CLI (ensureEngine builds it when missing).
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { REPO_ROOT } from "../../../scripts/engine";
import { ENGINE_SETUP_TIMEOUT_MS } from "../../kit/engine/engine";
import { GuideShell, readGuide, sandboxed } from "../../kit/languages/guide";
import { npmUserEnv, packPackage } from "../../kit/languages/typescript";
import { expectNoPlaintextSecrets } from "../../kit/secrets/secrets";
import { useEngineScratch } from "../../kit/engine/engineSuite";

const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as {
  peerDependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** The floor of the peer range, e.g. `>=3.139.0 <4` → `3.139.0`. */
const OLDEST = /^>=\s*(\d+\.\d+\.\d+)/.exec(pkg.peerDependencies["@pulumi/pulumi"])?.[1];
const PINNED = pkg.devDependencies["@pulumi/pulumi"];

/** The guide a new user follows (docs/installation-configuration.md), whose blocks this test runs. */
const guide = readGuide("installation-configuration.md");

/** npm installs of a whole SDK, three times, on a loaded 2-core machine. */
const suite = useEngineScratch({ scratchPrefix: "pims-consumer-", testTimeoutMs: 15 * 60_000 });
let tarball: string;
/** Runs the guide's commands; keeps all they printed (scanned for the token at the end). */
const shell = new GuideShell();

beforeAll(() => {
  tarball = packPackage(suite.scratch);
}, ENGINE_SETUP_TIMEOUT_MS);

test("the guide has the files and the commands this test runs", () => {
  expect(guide.files.map((f) => f.file)).toEqual(["package.json", "tsconfig.json", "Pulumi.yaml", "index.ts"]);
  expect(guide.commands[0]).toMatch(/^npm install pulumi-pims @pulumi\/pulumi /);
  expect(guide.commands).toContain("pulumi up");
  expect(OLDEST).toBe("3.139.0");
});

const newest = (): string => execFileSync("npm", ["view", "@pulumi/pulumi", "version"], { encoding: "utf8" }).trim();

describe.each([
  ["the oldest supported", () => OLDEST ?? ""],
  ["the pinned", () => PINNED],
  ["the newest", newest],
])("a new project with %s @pulumi/pulumi", (_label, version) => {
  test("follows the guide: install, config, up; then a no-change preview and destroy; one SDK copy", async () => {
    const v = version();
    const dir = path.join(suite.scratch, `project-${v}`);
    const backend = path.join(suite.scratch, `backend-${v}`);
    fs.mkdirSync(dir, { recursive: true });
    fs.mkdirSync(backend, { recursive: true });
    for (const f of guide.files) fs.writeFileSync(path.join(dir, f.file), f.text);

    const env = npmUserEnv(suite.engineDir, backend, suite.sim.token);
    for (const command of guide.commands) {
      const local = command.replace(
        /^npm install pulumi-pims @pulumi\/pulumi /,
        `npm install --no-audit --no-fund ${tarball} @pulumi/pulumi@${v} `,
      );
      await shell.run(sandboxed(local, backend, { "pims:baseUrl": suite.sim.baseUrl }), dir, env);
    }

    // One copy of the SDK: the project's own, used by pulumi-pims too (`--parseable` prints one path per copy on
    // disk, a deduped use shares its path).
    const listed = await shell.run("npm ls @pulumi/pulumi --all --parseable 2>/dev/null", dir, env);
    const copies = new Set(
      listed
        .split("\n")
        .map((l) => l.trim())
        .filter((l) => l.endsWith(path.join("node_modules", "@pulumi", "pulumi"))),
    );
    expect([...copies]).toEqual([path.join(dir, "node_modules", "@pulumi", "pulumi")]);
    expect(
      JSON.parse(fs.readFileSync(path.join(dir, "node_modules", "@pulumi", "pulumi", "package.json"), "utf8")).version,
    ).toBe(v);
    expect(fs.existsSync(path.join(dir, "node_modules", "pulumi-pims", "node_modules", "@pulumi"))).toBe(false);

    const outputs = JSON.parse(await shell.run("pulumi stack output --json", dir, env)) as Record<string, unknown>;
    const projectId = outputs.projectId as string;
    expect(outputs.deployerToken).toBe("[secret]");
    expect(suite.sim.project(projectId)?.name).toBe("my-first-app");
    const [account, ...others] = suite.sim.serviceAccounts(projectId);
    expect(others).toEqual([]);
    expect(account).toMatchObject({ name: "deployer", grants: [projectId] });

    suite.sim.clearRequests();
    await shell.run("pulumi preview --expect-no-changes --non-interactive", dir, env);
    expect(suite.sim.requests).toEqual([]);

    await shell.run("pulumi destroy --yes --non-interactive", dir, env);
    expect(suite.sim.serviceAccounts(projectId)).toEqual([]);
    expect(suite.sim.deletedServiceAccounts()).toContain(account.id);
  });
});

test("no token appears in anything the guide's commands printed", () => {
  expect(shell.printed.length).toBeGreaterThan(500);
  expectNoPlaintextSecrets(
    shell.printed,
    [suite.sim.token, ...suite.sim.issuedSecrets()],
    "the output of the guide's commands",
  );
});
