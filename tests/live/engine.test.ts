/**
 * Live tier, one small stack through the real Pulumi engine (the built package, as the engine tier runs it): a
 * ServiceAccount named with the run's prefix and a getApiKeys read, taken through up → preview (no change) → rotation
 * (a new `rotationTrigger` replaces the account: the new token works, the old account is gone) → overlapping rotation
 * (`keepPreviousToken`: two rotations in place, the previous token valid until the next one) → destroy (nothing left).
 * The provider host and the program both append to the run's recording (PIMS_WIRE_RECORD). Skipped with
 * PIMS_LIVE_SKIP_ENGINE=1 (it needs the `pulumi` CLI: scripts/toolchain/ensure-pulumi finds or builds it).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import * as pims from "pulumi-pims";
import { createPimsStack, ensureEngine, tempDir } from "../../scripts/engine";
import { E2E_TIMEOUT_MS, ENGINE_SETUP_TIMEOUT_MS, EngineOutput } from "../kit/engine/engine";
import { accountsWithPrefix, deleteAccountsWithPrefix, deleteCommand, liveClient } from "../../scripts/live/accounts";
import { requireLiveSettings } from "../../scripts/live/settings";
import { Seen } from "../kit/live";
import { expectNoPlaintextSecrets, expectNoSecretsInFiles } from "../kit/secrets/secrets";

jest.setTimeout(E2E_TIMEOUT_MS);

const s = requireLiveSettings();
const client = liveClient(s);
const seen = new Seen();
seen.add(s.token, s.projectId);
/** The tokens seen: the state (which holds ids in plaintext) and the engine's output are scanned for these. */
const tokens: string[] = [s.token];
const name = `${s.prefix}stack`;
/** What the program declares; the steps change it. */
const settings: { rotationTrigger: string; keepPreviousToken?: boolean } = { rotationTrigger: "1" };
const suite = s.skipEngine ? describe.skip : describe;

function program(): Record<string, unknown> {
  const account = new pims.ServiceAccount("deployer", {
    projectId: s.projectId,
    name,
    description: "pulumi-pims live tier: safe to delete",
    grants: [s.projectId],
    expiresIn: 3600,
    rotationTrigger: settings.rotationTrigger,
    keepPreviousToken: settings.keepPreviousToken,
  });
  return {
    serviceAccountId: account.serviceAccountId,
    token: account.token,
    previousServiceAccountId: account.previousServiceAccountId,
    previousToken: account.previousToken,
    keyCount: pims.getApiKeysOutput({ projectId: account.projectId }).apply((r) => r.keys.length),
  };
}

/** Does this token authenticate with the service? */
async function tokenWorks(token: string): Promise<boolean> {
  return liveClient(s, token)
    .listApiKeys(s.projectId)
    .then(
      () => true,
      () => false,
    );
}

suite("a small stack through the real engine", () => {
  let stack: Stack | undefined;
  let scratch: string | undefined;
  let destroyed = false;
  const engine = new EngineOutput();
  let current: { id: string; token: string } | undefined;
  const now = (): { id: string; token: string } => {
    if (!current) throw new Error("up failed");
    return current;
  };

  beforeAll(async () => {
    const engineDir = ensureEngine();
    scratch = tempDir("pims-live-engine-");
    stack = await createPimsStack({
      stackName: "live",
      projectName: "pims-live",
      workDir: scratch,
      program: async () => program(),
      backendDir: path.join(scratch, "backend"),
      baseUrl: s.baseUrl,
      token: s.token,
      engineDir,
      // The provider host is a child of the CLI: hand it the recording too.
      env: s.recording ? { PIMS_WIRE_RECORD: s.recording } : {},
    });
  }, ENGINE_SETUP_TIMEOUT_MS);

  afterAll(async () => {
    try {
      if (stack && !destroyed)
        await stack
          .destroy({ ...engine.opts })
          .catch((e: unknown) => console.error(`destroy in teardown failed: ${String(e)}`));
      const left = await deleteAccountsWithPrefix(client, s.projectId, name, current ? [current.id] : []);
      for (const l of left)
        console.error(`not deleted: ${l.name} (${l.reason}); delete it with: ${deleteCommand(s, l.id)}`);
      expect(left).toEqual([]);
      seen.expectNotIn(s.recording);
      expectNoPlaintextSecrets(engine.text(), tokens, "the engine's output");
      if (scratch) expectNoSecretsInFiles(path.join(scratch, "backend"), tokens);
    } finally {
      if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
    }
  }, ENGINE_SETUP_TIMEOUT_MS);

  test("up creates the account; its token works; the key listing shows it", async () => {
    const res = await stack!.up(engine.opts);
    expect(res.summary.result).toBe("succeeded");
    current = { id: res.outputs.serviceAccountId.value as string, token: res.outputs.token.value as string };
    seen.add(current.id, current.token);
    tokens.push(current.token);
    expect(res.outputs.token.secret).toBe(true);
    expect(await tokenWorks(current.token)).toBe(true);
    expect(await accountsWithPrefix(client, s.projectId, name)).toEqual([{ id: current.id, name }]);
  });

  test("preview shows no change", async () => {
    const res = await stack!.preview(engine.opts);
    expect(res.changeSummary).toEqual({ same: 2 });
  });

  test("a new rotationTrigger replaces the account: the new token works, the old account is deleted", async () => {
    const old = now();
    settings.rotationTrigger = "2";
    const res = await stack!.up(engine.opts);
    expect(res.summary.resourceChanges).toMatchObject({ replace: 1 });
    current = { id: res.outputs.serviceAccountId.value as string, token: res.outputs.token.value as string };
    seen.add(current.id, current.token);
    tokens.push(current.token);
    expect(current.id).not.toBe(old.id);
    expect(await tokenWorks(current.token)).toBe(true);
    expect(await accountsWithPrefix(client, s.projectId, name)).toEqual([{ id: current.id, name }]);
    expect(await tokenWorks(old.token)).toBe(false);
  });

  test("overlapping rotation: on with no new token; each rotation in place keeps the previous one a turn", async () => {
    const first = now();
    const up = async (): Promise<{
      id: string;
      token: string;
      previousId: unknown;
      previous: unknown;
      replaced: number;
    }> => {
      const res = await stack!.up(engine.opts);
      expect(res.summary.result).toBe("succeeded");
      const o = res.outputs;
      const next = { id: o.serviceAccountId.value as string, token: o.token.value as string };
      seen.add(next.id, next.token);
      tokens.push(next.token);
      expect(o.token.secret).toBe(true);
      if (o.previousToken?.value !== undefined) expect(o.previousToken.secret).toBe(true);
      current = next;
      return {
        ...next,
        previousId: o.previousServiceAccountId?.value,
        previous: o.previousToken?.value,
        replaced: res.summary.resourceChanges?.replace ?? 0,
      };
    };
    settings.keepPreviousToken = true;
    const on = await up(); // switching on: an update with no call
    expect([on.id, on.previousId, on.replaced]).toEqual([first.id, undefined, 0]);
    settings.rotationTrigger = "3";
    const second = await up();
    expect([second.previousId, second.previous, second.replaced]).toEqual([first.id, first.token, 0]);
    expect([await tokenWorks(first.token), await tokenWorks(second.token)]).toEqual([true, true]);
    settings.rotationTrigger = "4";
    const third = await up();
    expect([third.previousId, third.previous, third.replaced]).toEqual([second.id, second.token, 0]);
    expect([await tokenWorks(first.token), await tokenWorks(second.token), await tokenWorks(third.token)]).toEqual([
      false,
      true,
      true,
    ]);
    const live = (await accountsWithPrefix(client, s.projectId, name)).map((a) => a.id).sort();
    expect(live).toEqual([second.id, third.id].sort());
  });

  test("destroy deletes the account: nothing with the prefix is left", async () => {
    const res = await stack!.destroy(engine.opts);
    destroyed = true;
    expect(res.summary.result).toBe("succeeded");
    expect(await accountsWithPrefix(client, s.projectId, name)).toEqual([]);
  });
});
