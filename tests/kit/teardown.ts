/**
 * Teardown after a suite: its simulators stopped and its scratch directory removed, whatever beforeAll got to start.
 */
import * as fs from "node:fs";

/** After a suite: stops its simulators and removes its scratch directory (either may be unset if beforeAll failed). */
export async function tearDown(
  servers: Array<{ stop(): Promise<void> } | undefined>,
  scratch: string | undefined,
): Promise<void> {
  for (const server of servers) await server?.stop();
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
}
