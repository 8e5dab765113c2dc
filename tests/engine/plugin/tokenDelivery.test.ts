/**
 * Issue 47 through the plugin: a YAML program whose three ServiceAccounts deliver their tokens (sealed to an age
 * recipient `age-keygen` made, a command reading its standard input, a file), each with `keepPreviousToken`, under the
 * real engine, the official YAML host and the simulator. Create, two overlapping rotations, refresh, an adoption of a
 * console account whose token the listing proves (delivered like a new one), destroy (0 live). Each sealed token is
 * opened with Debian's `age` CLI and works; the command received every token once, in order; the file holds the
 * newest, mode 0600. After every step, no issued token in any encoding in `pulumi stack export` (with and without
 * `--show-secrets`), the stack's config files, what `-v=11 --logtostderr --logflow` printed, the plugin's gRPC log or
 * the event log (tests/kit/secrets/leakScan.ts). A bad recipient is refused at preview with no call.
 *
 * Needs the pulumi CLI, the YAML host and `age` (Debian's package; .ci/run installs it): without them it fails.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { tempDir } from "../../../scripts/engine";
import { writeYamlProject } from "../../../scripts/engine/yaml";
import { useEngineStack } from "../../kit/engine/engineSuite";
import { ageDecrypt, ageIdentity } from "../../kit/tools/ageCli";
import {
  accountTokens,
  EngineLogs,
  expectNoTokenAnywhere,
  expectSealedAdoption,
  fingerprintOf,
} from "../../kit/secrets/leakScan";
import { consoleAccount, liveIds, writesOf } from "../../kit/sim/simulator";

const ACCOUNTS = ["sealed", "piped", "filed"] as const;

/** One account of the program: its delivery, the overlap on, rotated by the config `rotation`. */
const account = (name: string, delivery: string): string => `  ${name}:
    type: pims:index:ServiceAccount
    properties:
      projectId: \${projectId}
      name: yaml-${name}
      grants:
        - \${projectId}
      expiresIn: 2592000
      rotateBeforeExpiry: 1728000
      keepPreviousToken: true
      rotationTrigger: \${rotation}
      tokenDelivery:
${delivery}`;

/** The program; `extra` adds resources (the adopted account). */
const program = (extra = ""): string => `
config:
  projectId:
    type: string
  recipient:
    type: string
  sinkScript:
    type: string
  sinkLog:
    type: string
  tokenFile:
    type: string
  rotation:
    type: string
    default: r0
resources:
${account("sealed", "        ageRecipients:\n          - ${recipient}\n")}${account(
  "piped",
  "        command:\n          - sh\n          - ${sinkScript}\n          - ${sinkLog}\n",
)}${account("filed", "        file: ${tokenFile}\n")}${extra}
outputs:
  sealedToken: \${sealed.sealedToken}
  sealedFingerprint: \${sealed.tokenFingerprint}
`;

/** Where the tokens are delivered: outside the scratch directory (whose every file the kit scans for tokens). */
let sinks: string;
let sinkLog: string;
let tokenFile: string;
let age: { identity: string; recipient: string };
let projectId: string;
let workDir: string;
let logs: EngineLogs;

const suite = useEngineStack({
  scratchPrefix: "pims-e2e-delivery-",
  yamlHost: true,
  stack: async ({ sim, scratch }) => {
    projectId = sim.addProject({ name: "delivery-home" }).id;
    sinks = tempDir("pims-e2e-sinks-");
    age = ageIdentity(sinks);
    sinkLog = path.join(sinks, "sink.log");
    tokenFile = path.join(sinks, "token");
    const sinkScript = path.join(sinks, "sink.sh");
    // The sink records which account each token is for, and prints the token: the engine must show it redacted.
    fs.writeFileSync(
      sinkScript,
      't=$(cat); printf \'%s %s\\n\' "$PIMS_SERVICE_ACCOUNT_ID" "$t" >> "$1"; echo "sink received $t"\n',
    );
    // Outside the scratch too: the gRPC log holds the stack's own credential (Configure), which the kit's scan counts.
    logs = new EngineLogs(path.join(sinks, "logs"));
    workDir = writeYamlProject(path.join(scratch, "pims-delivery"), { name: "pims-delivery", program: program() });
    return {
      stackName: "dev",
      yaml: true,
      workDir,
      config: { projectId, recipient: age.recipient, sinkScript, sinkLog, tokenFile },
    };
  },
});
afterAll(() => fs.rmSync(sinks, { recursive: true, force: true }));

/** Each account's outputs after a step, as `--show-secrets` shows them. */
const shownAll = async (): Promise<Record<string, Record<string, unknown>>> =>
  Object.fromEntries(await Promise.all(ACCOUNTS.map(async (n) => [n, await suite.shown(n)] as const)));

/** The tokens the sink received: `[account id, token]`, in order. */
const sunk = (): string[][] =>
  fs.existsSync(sinkLog)
    ? fs
        .readFileSync(sinkLog, "utf8")
        .trim()
        .split("\n")
        .map((l) => l.split(" "))
    : [];

/** `pulumi up` with every log on: it succeeds; what it printed. */
async function up(): Promise<string> {
  suite.clearRequests();
  const r = await logs.cli(suite.stack, ["up", "--yes", "--skip-preview"]);
  if (r.code !== 0) throw new Error(`pulumi up failed (${r.code}): ${r.out.slice(-4000)}`);
  return r.out;
}

/** The step's scan: no issued token anywhere the stack's readers can reach. */
const scan = async (): Promise<void> =>
  void expect(await expectNoTokenAnywhere(suite.stack, logs, accountTokens(suite.sim))).toBeGreaterThanOrEqual(5);

/** What each delivery holds now, checked against the outputs: the sealed token opens, the sink's and file's work. */
async function expectDelivered(o: Record<string, Record<string, unknown>>): Promise<Record<string, string>> {
  const sealed = await ageDecrypt(o.sealed.sealedToken as string, age.identity);
  const piped = sunk().at(-1) ?? [];
  const filed = fs.readFileSync(tokenFile, "utf8");
  const tokens = { sealed, piped: piped[1], filed };
  expect(piped[0]).toBe(o.piped.serviceAccountId);
  expect(fs.statSync(tokenFile).mode & 0o777).toBe(0o600);
  for (const name of ACCOUNTS) {
    expect(o[name]).toMatchObject({ token: "", tokenHeld: false, tokenFingerprint: fingerprintOf(tokens[name]) });
    expect(await suite.tokenWorks(tokens[name], projectId)).toBe(true);
  }
  expect(o.sealed.tokenDeliveredTo).toBe(`age:1 recipient ${age.recipient.slice(0, 12)}…`);
  expect(o.piped.tokenDeliveredTo).toBe("command:sh " + path.join(sinks, "sink.sh") + " …");
  expect(o.filed.tokenDeliveredTo).toBe(`file:${tokenFile}`);
  return tokens;
}

let before: Record<string, Record<string, unknown>>;
let tokens: Record<string, string>;

describe("tokenDelivery through the pims plugin (YAML): sealed, command, file", () => {
  test("a bad age recipient is refused at preview, naming the field, with no call", async () => {
    await suite.stack.setConfig("recipient", { value: "age1notarecipient" });
    suite.clearRequests();
    const r = await logs.cli(suite.stack, ["preview"]);
    expect(r.code).not.toBe(0);
    expect(r.out).toMatch(/tokenDelivery\.ageRecipients\[0\]/);
    expect(suite.calls()).toEqual([]);
    await suite.stack.setConfig("recipient", { value: age.recipient });
  });

  test("create: each token delivered, none held; the sealed one opens with age and works", async () => {
    const out = await up();
    expect(writesOf(suite.sim)).toEqual(Array(3).fill(`POST /v2/projects/${projectId}/service-accounts`));
    before = await shownAll();
    tokens = await expectDelivered(before);
    expect(sunk()).toHaveLength(1);
    expect(out).toContain("sink received [redacted]");
    const o = await suite.stack.outputs();
    expect(o.sealedFingerprint).toEqual({ value: fingerprintOf(tokens.sealed), secret: false });
    await scan();
  });

  for (const rotation of ["r1", "r2"])
    test(`rotation ${rotation}: new tokens delivered first, the previous ones kept valid`, async () => {
      await suite.stack.setConfig("rotation", { value: rotation });
      await up();
      const after = await shownAll();
      const next = await expectDelivered(after);
      for (const name of ACCOUNTS) {
        expect(after[name].serviceAccountId).not.toBe(before[name].serviceAccountId);
        expect(after[name]).toMatchObject({
          previousServiceAccountId: before[name].serviceAccountId,
          previousTokenFingerprint: before[name].tokenFingerprint,
          previousToken: "",
        });
        expect(next[name]).not.toBe(tokens[name]);
        expect(await suite.tokenWorks(tokens[name], projectId)).toBe(true); // the previous one: still valid
      }
      expect(after.sealed.previousSealedToken).toBe(before.sealed.sealedToken);
      const deletes = rotation === "r1" ? 0 : 3;
      expect(writesOf(suite.sim).filter((w) => w.startsWith("DELETE "))).toHaveLength(deletes);
      expect(liveIds(suite.sim, projectId)).toHaveLength(6);
      [before, tokens] = [after, next];
      await scan();
    });

  test("the command received every token once, in order; the file holds the newest", () => {
    expect(sunk().map(([id]) => id)).toEqual(
      [...new Set(sunk().map(([id]) => id))], // each account once
    );
    expect(sunk()).toHaveLength(3);
    expect(fs.readFileSync(tokenFile, "utf8")).toBe(tokens.filed);
  });

  test("refresh: no change, no token needed, nothing delivered", async () => {
    const sinkBefore = sunk().length;
    suite.clearRequests();
    const r = await logs.cli(suite.stack, ["refresh", "--yes"]);
    expect(r.code).toBe(0);
    expect(writesOf(suite.sim)).toEqual([]);
    expect(await shownAll()).toEqual(before);
    expect(sunk()).toHaveLength(sinkBefore);
    await scan();
  });

  test("adoption of a console account whose token the listing proves: sealed like a new one, no POST", async () => {
    const made = await consoleAccount(suite.sim, projectId, "console-ci");
    await expectSealedAdoption(suite, made, age.identity, async () => {
      writeYamlProject(workDir, {
        name: "pims-delivery",
        program: program(`  adopted:
    type: pims:index:ServiceAccount
    properties:
      projectId: \${projectId}
      name: console-ci
      description: made in the console
      grants:
        - \${projectId}
      expiresIn: 7776000
      adoptServiceAccountId: ${made.id}
      tokenDelivery:
        ageRecipients:
          - \${recipient}
`),
      });
      await up();
    });
    await scan();
  });

  test("destroy: every account deleted, 0 live; nothing anywhere, nor in any file of the scratch", async () => {
    suite.clearRequests();
    const r = await logs.cli(suite.stack, ["destroy", "--yes"]);
    expect(r.code).toBe(0);
    expect(liveIds(suite.sim, projectId)).toEqual([]);
    await scan();
    expect(suite.expectNoSecrets().length).toBeGreaterThanOrEqual(10);
  });
});
