/**
 * Issue 47 in Python: tests/engine/programs/python/delivery_program.py (two ServiceAccounts with `keepPreviousToken`,
 * one token sealed to an age recipient `age-keygen` made, one written to a file) run with the generated SDK as an
 * Automation API inline program (tests/engine/programs/python/inline.py) under the real CLI, the pims plugin and the
 * simulator: create, two rotations, refresh, the adoption of a console account whose token the listing proves (sealed
 * like a new one), destroy (0 live). Each sealed token opens with Debian's `age` CLI and works; the file holds the
 * newest. After every step, no issued token in any encoding in the exports (with and without `--show-secrets`), the
 * stack config, what the operation printed at `-v=11 --logtostderr --logflow`, the plugin's gRPC log
 * (`PULUMI_DEBUG_GRPC`) or the engine's events (tests/kit/secrets/leakScan.ts).
 *
 * Needs the pulumi CLI, python3 with PyPI (scripts/toolchain/ensure-python, cached) and `age`.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { engineEnv, tempDir } from "../../../scripts/engine";
import { ENGINE_SETUP_TIMEOUT_MS } from "../../kit/engine/engine";
import { useEngineStack } from "../../kit/engine/engineSuite";
import { ageDecrypt, ageIdentity } from "../../kit/tools/ageCli";
import {
  accountTokens,
  EngineLogs,
  expectNoTokenAnywhere,
  expectSealedAdoption,
  fingerprintOf,
} from "../../kit/secrets/leakScan";
import { run, writeProject } from "../../kit/languages/index";
import { installPythonSdk, PYTHON_INLINE_DRIVER } from "../../kit/languages/python";
import { consoleAccount, liveIds, writesOf } from "../../kit/sim/simulator";

const PROGRAM = path.join(__dirname, "..", "programs", "python", "delivery_program.py");

let python: string;
let workDir: string;
let projectId: string;
let sinks: string;
let tokenFile: string;
let age: { identity: string; recipient: string };
let logs: EngineLogs;

const suite = useEngineStack({
  scratchPrefix: "pims-e2e-python-delivery-",
  stack: async ({ sim, scratch }) => {
    projectId = sim.addProject({ name: "python-delivery" }).id;
    sinks = tempDir("pims-e2e-python-sinks-");
    age = ageIdentity(sinks);
    tokenFile = path.join(sinks, "token");
    // Outside the scratch too: the gRPC log holds the stack's own credential (Configure), which the kit's scan counts.
    logs = new EngineLogs(path.join(sinks, "logs"));
    workDir = path.join(scratch, "project");
    writeProject(workDir, "pims-python-delivery", "python", true);
    return { stackName: "dev", workDir, config: { projectId, recipient: age.recipient, tokenFile } };
  },
});
beforeAll(async () => {
  python = (await installPythonSdk(path.join(suite.scratch, "py"))).python;
}, ENGINE_SETUP_TIMEOUT_MS);
afterAll(() => fs.rmSync(sinks, { recursive: true, force: true }));

/** One operation of the program, every log on; its summary of changes. */
async function op(operation: "up" | "refresh" | "destroy"): Promise<Record<string, number>> {
  suite.clearRequests();
  const env = {
    ...process.env,
    ...engineEnv(path.join(suite.scratch, "backend"), suite.engineDir),
    ...logs.driverEnv(),
  };
  const ran = await run(python, [PYTHON_INLINE_DRIVER, workDir, "dev", operation, PROGRAM], { cwd: workDir, env });
  logs.record(ran.output);
  const line = ran.stdout.split("\n").find((l) => l.startsWith("RESULT "));
  if (!line) throw new Error(`no RESULT line from the driver:\n${ran.stdout.slice(-3000)}`);
  return (JSON.parse(line.slice("RESULT ".length)) as { changes: Record<string, number> }).changes;
}

const scan = async (): Promise<void> =>
  void expect(await expectNoTokenAnywhere(suite.stack, logs, accountTokens(suite.sim))).toBeGreaterThanOrEqual(5);

/** Both accounts' outputs; the sealed token opened with age and the file's, each checked against its fingerprint. */
async function delivered(): Promise<{ o: Record<string, Record<string, unknown>>; sealed: string; filed: string }> {
  const o = { sealed: await suite.shown("sealed"), filed: await suite.shown("filed") };
  const sealed = await ageDecrypt(o.sealed.sealedToken as string, age.identity);
  const filed = fs.readFileSync(tokenFile, "utf8");
  expect(fs.statSync(tokenFile).mode & 0o777).toBe(0o600);
  expect(o.sealed).toMatchObject({ token: "", tokenHeld: false, tokenFingerprint: fingerprintOf(sealed) });
  expect(o.filed).toMatchObject({ token: "", tokenHeld: false, tokenFingerprint: fingerprintOf(filed) });
  for (const t of [sealed, filed]) expect(await suite.tokenWorks(t, projectId)).toBe(true);
  return { o, sealed, filed };
}

let last: Awaited<ReturnType<typeof delivered>>;

describe("tokenDelivery from Python: sealed and file, through the generated SDK and the plugin", () => {
  test("create: both tokens delivered, neither held", async () => {
    expect(await op("up")).toEqual({ create: 3 });
    expect(writesOf(suite.sim)).toHaveLength(2);
    last = await delivered();
    const o = await suite.stack.outputs();
    expect(o.sealedFingerprint.value).toBe(fingerprintOf(last.sealed));
    expect(o.sealedDeliveredTo.value).toBe(`age:1 recipient ${age.recipient.slice(0, 12)}…`);
    expect(o.token).toEqual({ value: "", secret: true });
    await scan();
  });

  for (const rotation of ["r1", "r2"])
    test(`rotation ${rotation}: the new tokens delivered, the previous ones still valid`, async () => {
      await suite.stack.setConfig("rotation", { value: rotation });
      expect(await op("up")).toEqual({ update: 2, same: 1 });
      const next = await delivered();
      expect(next.o.sealed.previousSealedToken).toBe(last.o.sealed.sealedToken);
      expect(next.o.sealed.previousTokenFingerprint).toBe(fingerprintOf(last.sealed));
      expect(next.o.filed.previousTokenFingerprint).toBe(fingerprintOf(last.filed));
      for (const t of [last.sealed, last.filed]) expect(await suite.tokenWorks(t, projectId)).toBe(true);
      expect(liveIds(suite.sim, projectId)).toHaveLength(4);
      last = next;
      await scan();
    });

  test("refresh: nothing changes, nothing is written", async () => {
    expect(await op("refresh")).toEqual({ same: 3 });
    expect(writesOf(suite.sim)).toEqual([]);
    await scan();
  });

  test("adoption of a console account whose token the listing proves: sealed like a new one", async () => {
    const made = await consoleAccount(suite.sim, projectId, "console-ci");
    await suite.stack.setConfig("adoptId", { value: made.id });
    await expectSealedAdoption(suite, made, age.identity, async () =>
      expect(await op("up")).toEqual({ create: 1, same: 3 }),
    );
    await scan();
  });

  test("destroy: 0 live; no token in any file of the scratch either", async () => {
    expect(await op("destroy")).toEqual({ delete: 4 });
    expect(liveIds(suite.sim, projectId)).toEqual([]);
    await scan();
    expect(suite.expectNoSecrets().length).toBeGreaterThanOrEqual(7);
  });
});
