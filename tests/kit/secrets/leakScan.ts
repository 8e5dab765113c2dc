/**
 * Issue 47's closing check, after every step of a plugin suite (tests/engine/plugin/tokenDelivery.test.ts, the Python
 * suite tests/engine/sdks/pythonDelivery.test.ts): the engine run with every log it has on (`-v=11 --logtostderr
 * --logflow`, the plugin's gRPC traffic in `PULUMI_DEBUG_GRPC`, the engine's `--event-log`), then no issued token in
 * any of them, nor in `pulumi stack export` with and without `--show-secrets`, nor in the stack's config files. Plus
 * the fingerprint a consumer of a delivered token checks (opening a sealed one: ../tools/ageCli).
 */
import { execFile } from "node:child_process";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { promisify } from "node:util";
import type { Stack } from "@pulumi/pulumi/automation";
import { ensureEngine } from "../../../scripts/engine";
import type { PimsSimulator } from "../../../simulator";
import type { EngineSuite } from "../engine/engineSuite";
import { ageDecrypt } from "../tools/ageCli";
import { writesOf } from "../sim/simulator";
import { expectNoPlaintextSecrets } from "./secrets";

const run = promisify(execFile);

/** The logs one suite's engine runs write, each appended to by every run, in a directory of their own. */
export class EngineLogs {
  readonly grpc: string;
  readonly events: string;
  /** What the CLI printed (stdout and stderr, `-v=11` included), every run. */
  private printed = "";

  constructor(readonly dir: string) {
    fs.mkdirSync(dir, { recursive: true });
    this.grpc = path.join(dir, "grpc.log");
    this.events = path.join(dir, "events.jsonl");
  }

  /** Everything the CLI printed since the suite began. */
  text(): string {
    return this.printed;
  }

  /** The gRPC log and the event log of every run (each run's are moved into one file each by {@link cli}). */
  files(): Array<{ where: string; text: string }> {
    return [`${this.grpc}.all`, `${this.events}.all`]
      .filter((f) => fs.existsSync(f))
      .map((f) => ({ where: path.basename(f), text: fs.readFileSync(f, "utf8") }));
  }

  /**
   * The CLI in the stack's project directory, as a user runs it, every log on: `pulumi <args> -v=11 --logtostderr
   * --logflow` (and `--event-log` for the commands that take it), the plugin's gRPC traffic logged. Resolves with
   * the exit code and what it printed; never rejects (the test says what it expects).
   */
  async cli(stack: Stack, args: string[]): Promise<{ code: number; out: string }> {
    const ws = stack.workspace as unknown as { workDir: string; envVars: Record<string, string> };
    const events = ["up", "refresh", "destroy", "preview", "import"].includes(args[0])
      ? ["--event-log", this.events]
      : [];
    const argv = [
      ...args,
      ...events,
      "--stack",
      stack.name,
      "--non-interactive",
      "-v=11",
      "--logtostderr",
      "--logflow",
    ];
    // `--event-log` is a flag of the debug commands (PULUMI_DEBUG_COMMANDS), as the Automation API runs them.
    const env = { ...process.env, ...ws.envVars, PULUMI_DEBUG_GRPC: this.grpc, PULUMI_DEBUG_COMMANDS: "true" };
    let result: { code: number; out: string };
    try {
      const r = await run(path.join(ensureEngine(), "pulumi"), argv, { cwd: ws.workDir, env, maxBuffer: 1 << 30 });
      result = { code: 0, out: r.stdout + r.stderr };
    } catch (e) {
      const r = e as { code?: number; stdout?: string; stderr?: string };
      result = { code: typeof r.code === "number" ? r.code : -1, out: `${r.stdout ?? ""}${r.stderr ?? ""}` };
    }
    this.record(result.out);
    return result;
  }

  /**
   * After a run made otherwise (the Python inline driver, given {@link driverEnv}): what it printed kept, its gRPC log
   * and event log moved into the suite's (a run may rewrite them).
   */
  record(printed: string): void {
    this.printed += printed;
    for (const f of [this.grpc, this.events]) {
      if (!fs.existsSync(f)) continue;
      fs.appendFileSync(`${f}.all`, fs.readFileSync(f));
      fs.rmSync(f);
    }
  }

  /** The environment that turns every log on for tests/engine/programs/python/inline.py. */
  driverEnv(): Record<string, string> {
    return { PULUMI_DEBUG_GRPC: this.grpc, PIMS_INLINE_VERBOSE: "11", PIMS_INLINE_EVENT_LOG: this.events };
  }
}

/** The state, as `pulumi stack export` prints it, with and without `--show-secrets`. */
export async function stackExports(stack: Stack): Promise<Array<{ where: string; text: string }>> {
  const ws = stack.workspace as unknown as { workDir: string; envVars: Record<string, string> };
  const env = { ...process.env, ...ws.envVars };
  const out = [];
  for (const extra of [[], ["--show-secrets"]]) {
    const argv = ["stack", "export", ...extra, "--stack", stack.name, "--non-interactive"];
    const r = await run(path.join(ensureEngine(), "pulumi"), argv, { cwd: ws.workDir, env, maxBuffer: 1 << 28 });
    out.push({ where: `pulumi stack export ${extra.join(" ")}`.trim(), text: r.stdout });
  }
  return out;
}

/** The stack's config files (`Pulumi.<stack>.yaml`, `Pulumi.yaml`) in its project directory. */
export function configFiles(stack: Stack): Array<{ where: string; text: string }> {
  const ws = stack.workspace as unknown as { workDir: string };
  return fs
    .readdirSync(ws.workDir)
    .filter((f) => /^Pulumi(\..+)?\.ya?ml$/.test(f))
    .map((f) => ({ where: f, text: fs.readFileSync(path.join(ws.workDir, f), "utf8") }));
}

/**
 * After a step: no token of `tokens`, in any encoding, in the exports, the config files, what the CLI printed, the
 * gRPC log or the event log. Fails naming the place, never the token. Returns how many places were read.
 */
export async function expectNoTokenAnywhere(
  stack: Stack,
  logs: EngineLogs,
  tokens: readonly string[],
): Promise<number> {
  // A scan of logs that were never written would prove nothing.
  expect(logs.files().map((f) => [f.where, f.text.length > 0])).toEqual([
    ["grpc.log.all", true],
    ["events.jsonl.all", true],
  ]);
  const places = [
    ...(await stackExports(stack)),
    ...configFiles(stack),
    { where: "what the CLI printed (-v=11 --logtostderr --logflow)", text: logs.text() },
    ...logs.files(),
  ];
  // expectNoPlaintextSecrets looks for every encoding of each token (secretForms: raw, base64, hex, JSON-escaped).
  for (const p of places) expectNoPlaintextSecrets(p.text, tokens, p.where);
  return places.length;
}

/** What `tokenFingerprint` must be: the first 16 hex digits of the token's SHA-256. */
export const fingerprintOf = (token: string): string =>
  crypto.createHash("sha256").update(token, "utf8").digest("hex").slice(0, 16);

/**
 * The tokens of the accounts a simulator issued (not its admin token: that is the stack's own credential, `pims:token`,
 * which the user gave and which `--show-secrets` and the engine's verbose logs show by design).
 */
export const accountTokens = (sim: PimsSimulator): string[] => sim.issuedSecrets().filter((t) => t !== sim.token);

/**
 * The adoption step both plugin suites end with: `up` (the program now declares `adopted` with
 * `adoptServiceAccountId` and sealed delivery) while the listing shows full key values, so the console account's token
 * is proven; then no write was made, the state holds no token, and the sealed token opens to the console's.
 */
export async function expectSealedAdoption(
  suite: EngineSuite,
  made: { id: string; token: string },
  identity: string,
  up: () => Promise<unknown>,
): Promise<void> {
  suite.sim.setApiKeyValues("full");
  try {
    await up();
  } finally {
    suite.sim.setApiKeyValues("masked");
  }
  expect(writesOf(suite.sim)).toEqual([]);
  const o = await suite.shown("adopted");
  expect(o).toMatchObject({ serviceAccountId: made.id, token: "", tokenFingerprint: fingerprintOf(made.token) });
  expect(await ageDecrypt(o.sealedToken as string, identity)).toBe(made.token);
}
