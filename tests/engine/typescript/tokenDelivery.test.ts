/**
 * Token delivery (issue 47) through the real engine and the dynamic-provider host. One stack holds three accounts with
 * `keepPreviousToken`, one per delivery mode: `sealed` (age recipients; its consumer opens the `sealedToken` output
 * with the real `age -d -i <identity>`), `command` (an argv appending each token it receives on stdin to a sink file;
 * its consumer reads the last line) and `file` (its consumer reads the file). Steps: create, four rotations under
 * consumers polling the service every 200 ms with the token they read (0 answers of 401), refresh, an adoption
 * (`adoptServiceAccountId` of an account whose token the listing proves: delivered to a file like a new one), destroy
 * (0 live). Every up runs at `-v=11 --logtostderr --logflow`; after every step no issued token, raw or encoded
 * (tests/kit/secrets/secrets.ts), is in `pulumi stack export` with or without `--show-secrets`, the stack config or
 * backend files, anything the engine printed, or the engine's events (the event log).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { EngineEvent, OutputMap } from "@pulumi/pulumi/automation";
import * as pims from "pulumi-pims";
import { fingerprint } from "../../../provider/client/token";
import { ageDecryptSync, ageIdentity } from "../../kit/tools/ageCli";
import { exportEncrypted } from "../../kit/engine/engine";
import { useEngineStack } from "../../kit/engine/engineSuite";
import { expectNoPlaintextSecrets, expectNoSecretsInFiles } from "../../kit/secrets/secrets";
import { consoleAccount, liveIds } from "../../kit/sim/simulator";
import { Consumer } from "../../kit/engine/consumer";

const ROTATIONS = 4;
const MODES = ["sealed", "command", "file"] as const;
type Mode = (typeof MODES)[number];

// Outside the scratch directory, which the closing scans read: the sinks hold tokens on purpose.
const sinks = fs.mkdtempSync(path.join(os.tmpdir(), "pims-e2e-delivery-sinks-"));
let identity = "";
const commandSink = path.join(sinks, "command-sink");
const tokenFile = path.join(sinks, "token");
const adoptedFile = path.join(sinks, "adopted-token");
let recipient = "";

const settings = { trigger: "0", adopt: undefined as string | undefined };
let home = "";

function program(): Record<string, unknown> {
  const common = { projectId: home, grants: [home], expiresIn: 3600, keepPreviousToken: true };
  const delivery: Record<Mode, pims.TokenDelivery> = {
    sealed: { ageRecipients: [recipient] },
    command: { command: ["sh", "-c", `cat >> "${commandSink}"; echo >> "${commandSink}"`], commandTimeoutSeconds: 30 },
    file: { file: tokenFile },
  };
  const out: Record<string, unknown> = {};
  for (const mode of MODES) {
    const a = new pims.ServiceAccount(mode, {
      ...common,
      name: `delivery-${mode}`,
      rotationTrigger: settings.trigger,
      tokenDelivery: delivery[mode],
    });
    Object.assign(out, {
      [`${mode}Id`]: a.serviceAccountId,
      [`${mode}Token`]: a.token,
      [`${mode}Fingerprint`]: a.tokenFingerprint,
      [`${mode}DeliveredTo`]: a.tokenDeliveredTo,
      [`${mode}Sealed`]: a.sealedToken,
      [`${mode}PreviousFingerprint`]: a.previousTokenFingerprint,
    });
  }
  if (settings.adopt !== undefined) {
    const adopted = new pims.ServiceAccount("adopted", {
      ...common,
      name: "console-made",
      description: "made in the console",
      adoptServiceAccountId: settings.adopt,
      tokenDelivery: { file: adoptedFile },
    });
    Object.assign(out, { adoptedFingerprint: adopted.tokenFingerprint, adoptedHeld: adopted.tokenHeld });
  }
  return out;
}

const lastLine = (file: string): string => fs.readFileSync(file, "utf8").split("\n").filter(Boolean).at(-1) ?? "";
const open = (sealed: unknown): string => ageDecryptSync(String(sealed), identity);

const consumers = {} as Record<Mode, Consumer>;
const events: EngineEvent[] = [];
const suite = useEngineStack({
  scratchPrefix: "pims-e2e-delivery-",
  stack: ({ sim, scratch }) => {
    ({ identity, recipient } = ageIdentity(sinks));
    home = sim.addProject({ name: "delivery-e2e" }).id;
    consumers.sealed = new Consumer(
      sim,
      () => home,
      (o) => open(o.sealedSealed.value),
    );
    consumers.command = new Consumer(
      sim,
      () => home,
      () => lastLine(commandSink),
    );
    consumers.file = new Consumer(
      sim,
      () => home,
      () => fs.readFileSync(tokenFile, "utf8"),
    );
    return {
      stackName: "delivery",
      projectName: "pims-e2e-delivery",
      workDir: scratch,
      program: async () => program(),
    };
  },
  stopAlso: () => [
    ...Object.values(consumers),
    { stop: async () => fs.rmSync(sinks, { recursive: true, force: true }) },
  ],
});
const { engine } = suite;
/** The verbose flags of every operation, and the engine's events kept for the scan. */
const verbose = { logVerbosity: 11, logToStdErr: true, logFlow: true, onEvent: (e: EngineEvent) => events.push(e) };

/**
 * The scan after every step (see the top of this file): the accounts' tokens. The provider's own credential
 * (`pims:token`, the simulator's admin token) is scanned for in the files and exports; at -v=9 and above the engine
 * itself logs it while it configures the provider (as it logs every secret value it marshals), so
 * the engine's output is scanned for the accounts' tokens only.
 */
async function expectNoTokensAnywhere(step: string): Promise<void> {
  const secrets = suite.sim.issuedSecrets().filter((t) => t !== suite.sim.token);
  expect(secrets.length).toBeGreaterThan(0);
  expectNoPlaintextSecrets(engine.text(), secrets, `${step}: the engine's output at -v=11`);
  expect(expectNoSecretsInFiles(suite.scratch, suite.sim.issuedSecrets())).toBeGreaterThan(3); // backend, config
  expectNoPlaintextSecrets(JSON.stringify(exportEncrypted(suite.stack)), secrets, `${step}: pulumi stack export`);
  const shown = JSON.stringify(await suite.stack.exportStack()); // --show-secrets
  expectNoPlaintextSecrets(shown, secrets, `${step}: pulumi stack export --show-secrets`);
  expectNoPlaintextSecrets(JSON.stringify(events), secrets, `${step}: the engine's events`);
}

async function up(changes: Record<string, number>): Promise<OutputMap> {
  suite.clearRequests();
  const res = await suite.stack.up({ ...engine.opts, ...verbose });
  expect(res.summary.result).toBe("succeeded");
  expect(res.summary.resourceChanges).toEqual(changes);
  return res.outputs;
}

/** Fingerprints of the tokens each mode's account was given, in order. */
const given: Record<Mode, string[]> = { sealed: [], command: [], file: [] };
function recordFingerprints(o: OutputMap): void {
  for (const mode of MODES) {
    expect(o[`${mode}Token`].value).toBe("");
    given[mode].push(o[`${mode}Fingerprint`].value as string);
  }
}

describe("token delivery through the real engine (dynamic host)", () => {
  test("create: each mode delivered; the consumers start with the delivered tokens", async () => {
    const o = await up({ create: 4 });
    recordFingerprints(o);
    expect(o.sealedDeliveredTo.value).toBe(`age:1 recipient ${recipient.slice(0, 12)}…`);
    expect(o.commandDeliveredTo.value).toBe("command:sh -c …");
    expect(o.fileDeliveredTo.value).toBe(`file:${tokenFile}`);
    for (const mode of MODES) {
      consumers[mode].take(o);
      expect(fingerprint(consumers[mode].token)).toBe(o[`${mode}Fingerprint`].value);
      consumers[mode].start();
    }
    expect(fs.statSync(tokenFile).mode & 0o777).toBe(0o600);
    await expectNoTokensAnywhere("create");
  });

  test(`${ROTATIONS} rotations: new token delivered before each up ends; no consumer 401`, async () => {
    for (let i = 1; i <= ROTATIONS; i++) {
      settings.trigger = String(i);
      const o = await up({ update: 3, same: 1 });
      recordFingerprints(o);
      for (const mode of MODES) {
        expect(o[`${mode}PreviousFingerprint`].value).toBe(given[mode].at(-2));
        await consumers[mode].reread(o);
        expect(fingerprint(consumers[mode].token)).toBe(o[`${mode}Fingerprint`].value);
        expect(liveIds(suite.sim, home).filter((id) => id === o[`${mode}Id`].value)).toHaveLength(1);
      }
      await expectNoTokensAnywhere(`rotation ${i}`);
    }
    for (const c of Object.values(consumers)) await c.stop();
    for (const mode of MODES) {
      expect(consumers[mode].others).toEqual([]);
      expect(consumers[mode].outcomes.length).toBeGreaterThan(ROTATIONS);
      expect(consumers[mode].count("401")).toBe(0);
    }
    // The command received every token once, in order; the file holds the newest; the sealed one opens to a token.
    const received = fs.readFileSync(commandSink, "utf8").split("\n").filter(Boolean);
    expect(received.map(fingerprint)).toEqual(given.command);
    expect(fingerprint(fs.readFileSync(tokenFile, "utf8"))).toBe(given.file.at(-1));
    expect(await suite.tokenWorks(consumers.sealed.token, home)).toBe(true);
    expect(liveIds(suite.sim, home)).toHaveLength(2 * MODES.length);
  });

  test("refresh: no change, no token needed", async () => {
    const res = await suite.stack.refresh({ ...engine.opts, ...verbose });
    expect(res.summary.result).toBe("succeeded");
    expect(res.summary.resourceChanges).toEqual({ same: 4 });
    await expectNoTokensAnywhere("refresh");
  });

  test("adoption: the token the listing proves is delivered like a new one (a file), never held", async () => {
    suite.sim.setApiKeyValues("full"); // the listing shows the key: a call proves it
    const made = await consoleAccount(suite.sim, home, "console-made");
    settings.adopt = made.id;
    const o = await up({ create: 1, same: 4 });
    expect(o.adoptedHeld.value).toBe(false);
    expect(o.adoptedFingerprint.value).toBe(fingerprint(made.token));
    expect(fs.readFileSync(adoptedFile, "utf8")).toBe(made.token);
    suite.sim.setApiKeyValues("masked");
    await expectNoTokensAnywhere("adoption");
  });

  test("destroy: every account deleted, none live", async () => {
    const res = await suite.stack.destroy({ ...engine.opts, ...verbose });
    expect(res.summary.result).toBe("succeeded");
    expect(liveIds(suite.sim, home)).toEqual([]);
    await expectNoTokensAnywhere("destroy");
  });
});
