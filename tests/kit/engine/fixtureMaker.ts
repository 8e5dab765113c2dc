/**
 * What the two scripts that write the state-compatibility fixtures share: tests/fixtures/make-fixture.ts (the dynamic
 * resources, from a TypeScript program) and make-plugin-fixture.ts (the `pims` plugin, from a YAML program). Each
 * gives only its program and its names; the seeding, the two ups, the plaintext checks and the files are written here.
 * The fixtures are read back by tests/kit/engine/fixtures.ts.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import { randomSecret, tempDir } from "../../../scripts/engine";
import { PimsSimulator } from "../../../simulator";
import {
  FIXTURE_PORT,
  FIXTURE_PROJECT,
  FIXTURE_STACK,
  FIXTURES_DIR,
  TOKEN_PATTERN,
  type FixtureManifest,
} from "../../fixtures/fixtures";
import { exportEncrypted } from "./engine";

/** The objects both fixture makers seed in the simulator before `up` (only the project id differs). */
export type Seeded = FixtureManifest["seeded"];

/** What differs between the two fixture makers. */
export interface FixtureMaker {
  /** The script's name, for its error line: `make-fixture`. */
  script: string;
  /** The version that writes the state, and the folder under tests/fixtures: `v0.5.0` or `v0.5.0-plugin`. */
  version: string;
  folder: string;
  /** The seeded project's id (each host's fixtures have their own). */
  seededProjectId: string;
  /** The prefix of the type tokens the state must hold four of: `pulumi-nodejs:dynamic/pims:` or `pims:index:`. */
  typePrefix: string;
  /** The live accounts the simulator holds after the second up (the program's accounts and their previous ones). */
  liveAccounts: number;
  /** `plugin` for the plugin's fixtures; absent for the dynamic resources' (as every fixture before the plugin). */
  host?: "plugin";
  /**
   * The stack of every resource type in the fresh backend `backendDir`, configured for `sim`, and how to change the
   * `overlap` account's rotationTrigger so that the second `up` rotates it once.
   */
  open(a: { sim: PimsSimulator; seeded: Seeded; appId: string; apiKey: string; backendDir: string }): Promise<{
    stack: Stack;
    rotateOverlap(): Promise<void>;
  }>;
}

/**
 * Writes one state-compatibility fixture: refuses to rewrite a released version's folder (unless --force), seeds the
 * simulator on FIXTURE_PORT, runs `up`, rotates `overlap` with a second `up`, exports the stack with its secrets
 * encrypted and writes `state.json` and `fixture.json` only once no token or secret value is in plaintext and the
 * four resource types are there. Run as a script: exits 0, or 1 with the error.
 */
export function runFixtureMaker(maker: FixtureMaker): void {
  writeFixture(maker).then(
    () => process.exit(0),
    (e: unknown) => {
      process.stderr.write(`${maker.script}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      process.exit(1);
    },
  );
}

async function writeFixture(maker: FixtureMaker): Promise<void> {
  const repo = path.resolve(FIXTURES_DIR, "..", "..");
  const pulumiPackage = path.join(repo, "node_modules", "@pulumi", "pulumi", "package.json");
  const pulumiVersion = (JSON.parse(fs.readFileSync(pulumiPackage, "utf8")) as { version: string }).version;
  const outDir = path.join(FIXTURES_DIR, maker.folder);
  if (fs.existsSync(outDir) && !process.argv.includes("--force")) {
    throw new Error(
      `${path.relative(repo, outDir)} exists: a released version's fixture is never rewritten (use --force for ` +
        `the unreleased current version)`,
    );
  }
  const sim = await PimsSimulator.start({ port: FIXTURE_PORT });
  const backendDir = tempDir(`pims-${maker.folder}-fixture-`);
  try {
    const seeded = {
      projectId: maker.seededProjectId,
      volumeId: "default-us-east-1",
      volumeSizeGb: 50,
      appName: "web",
    };
    sim.addProject({ id: seeded.projectId, name: "compat-home" });
    sim.addVolume(seeded.projectId, { id: seeded.volumeId, sizeGb: seeded.volumeSizeGb });
    const appId = sim.addApp(seeded.projectId, seeded.appName).id;
    const apiKey = randomSecret("compat-api-key-");
    const { stack, rotateOverlap } = await maker.open({ sim, seeded, appId, apiKey, backendDir });

    const show = { onOutput: (s: string): boolean => process.stderr.write(s) };
    await stack.up(show);
    await rotateOverlap();
    const rotated = await stack.up(show);
    if (typeof rotated.outputs.overlapPreviousId?.value !== "string")
      throw new Error("the second up did not rotate `overlap` with a previous account");
    const live = sim.serviceAccounts(seeded.projectId).length;
    if (live !== maker.liveAccounts) throw new Error(`expected ${maker.liveAccounts} live accounts, found ${live}`);

    // The state as stored: `pulumi stack export` without --show-secrets.
    const state = exportEncrypted(stack) as unknown as { deployment: { resources?: Array<{ type: string }> } };
    const text = `${JSON.stringify(state, null, 2)}\n`;
    for (const secret of [...sim.issuedSecrets(), apiKey]) {
      if (text.includes(secret))
        throw new Error("a token or secret value is in plaintext in the exported state: not writing the fixture");
    }
    if (TOKEN_PATTERN.test(text))
      throw new Error("something token-shaped is in plaintext in the exported state: not writing the fixture");
    const types = [
      ...new Set((state.deployment.resources ?? []).map((r) => r.type).filter((t) => t.startsWith(maker.typePrefix))),
    ].sort();
    if (types.length !== 4) throw new Error(`expected the four resource types in the state, got ${types.join(", ")}`);

    const manifest: FixtureManifest = {
      version: maker.version,
      pulumi: pulumiVersion,
      createdAt: new Date().toISOString(),
      stackName: FIXTURE_STACK,
      projectName: FIXTURE_PROJECT,
      baseUrl: sim.baseUrl,
      seeded,
      types,
      ...(maker.host ? { host: maker.host } : {}),
    };
    fs.mkdirSync(outDir, { recursive: true });
    fs.writeFileSync(path.join(outDir, "state.json"), text);
    fs.writeFileSync(path.join(outDir, "fixture.json"), `${JSON.stringify(manifest, null, 2)}\n`);
    process.stderr.write(`\nwrote ${path.relative(repo, outDir)}/state.json and fixture.json\n`);
  } finally {
    await sim.stop();
    fs.rmSync(backendDir, { recursive: true, force: true });
  }
}
