/**
 * The soak suites' stacks: one simulator and the engine for the file, a throwaway backend per stack (removed at the
 * end), the provider host retrying fast, and everything the engine printed kept for the secret scans.
 */
import * as fs from "node:fs";
import type { Stack } from "@pulumi/pulumi/automation";
import { createPimsStack, ensureEngine, tempDir } from "../../../scripts/engine";
import { PimsSimulator } from "../../../simulator";

/** The soak suites' simulator and stacks (see useSoakSuite). */
export interface SoakSuite {
  /** The simulator, started once for the file. */
  readonly sim: PimsSimulator;
  /** Everything the engine printed (through `collect`): scanned for plaintext secrets. */
  readonly printed: string[];
  /** Pass as `onOutput`: keeps what the engine prints. */
  collect(s: string): void;
  /** A stack against the simulator; the provider host retries fast (PIMS_RETRY_MIN_DELAY_MS). */
  newStack(stackName: string, program: () => Promise<Record<string, unknown> | void>): Promise<Stack>;
  /** Resource ids in the exported state, by type suffix (e.g. "ServiceAccount"). */
  stateIds(stack: Stack, type: string): Promise<string[]>;
}

/** Jest hooks of a soak suite: the engine ensured and the simulator started before it, both cleaned up after. */
export function useSoakSuite(): SoakSuite {
  let sim: PimsSimulator | undefined;
  let engineDir = "";
  const backendDirs: string[] = [];
  const printed: string[] = [];
  const ready = (): PimsSimulator => {
    if (!sim) throw new Error("useSoakSuite: the simulator exists only inside tests");
    return sim;
  };
  beforeAll(async () => {
    engineDir = ensureEngine();
    sim = await PimsSimulator.start();
  });
  afterAll(async () => {
    await sim?.stop();
    for (const d of backendDirs) fs.rmSync(d, { recursive: true, force: true });
  });
  return {
    get sim() {
      return ready();
    },
    printed,
    collect: (s: string): void => {
      printed.push(s);
    },
    async newStack(stackName, program) {
      const backendDir = tempDir("pims-soak-");
      backendDirs.push(backendDir);
      return createPimsStack({
        stackName,
        projectName: "pims-soak",
        program,
        backendDir,
        baseUrl: ready().baseUrl,
        token: ready().token,
        engineDir,
        env: { PIMS_RETRY_MIN_DELAY_MS: "20", PIMS_LOST_CREATE_WATCH_MS: "2000" },
      });
    },
    async stateIds(stack, type) {
      const st = await stack.exportStack();
      const resources = (st.deployment as { resources?: Array<{ type: string; id?: string }> }).resources ?? [];
      return resources.filter((r) => r.type === `pulumi-nodejs:dynamic/pims:${type}`).map((r) => r.id ?? "");
    },
  };
}
