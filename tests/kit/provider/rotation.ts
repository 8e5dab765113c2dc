/**
 * Driving a ServiceAccount's overlapping rotation (`keepPreviousToken`) against the simulator, for the rotation suites:
 * a provider on the simulator's clock, one rotation checked step by step against what the simulator holds, and the
 * texts (progress lines, error messages) the suites scan for secrets at the end.
 */
import { AuthError } from "../../../provider/client";
import { newRun } from "../../../provider/serviceAccount/run";
import { ServiceAccountProvider, type ServiceAccountOutputs } from "../../../provider/serviceAccount";
import { testClient } from "../sim/client";
import { useProviderSuite } from "./provider";
import { expectNoPlaintextSecrets } from "../secrets/secrets";
import { inputsFor, isPlainJson, loose, type LooseServiceAccountProvider, type Props } from "./serviceAccount";

/** A period of 20 s: a token is current for 20 s (expiresIn − window), then previous for 20 s, and valid for 60 s. */
export const LIFETIME = { expiresIn: 60, rotateBeforeExpiry: 40 };
/** The `__provider` member the engine's state carries. */
export const SHIM = "serialized-shim";

/** Jest hooks and helpers of a rotation suite (see the returned members). */
export function useRotationSuite() {
  /** The provider's rotation window follows the simulator clock, as token expiry on the service side does. */
  class SimClockProvider extends ServiceAccountProvider {
    constructor() {
      super({ now: () => suite.sim.now().getTime() });
    }
  }

  /** Every console.warn line (the progress lines) and error text of the file: scanned for secrets at the end. */
  const texts: string[] = [];
  const suite = useProviderSuite(SimClockProvider, {
    afterEachTest: (warn) => texts.push(...warn.mock.calls.map((args: unknown[]) => args.map(String).join(" "))),
  });

  const provider = (): LooseServiceAccountProvider => loose(suite.provider);
  const liveIds = (projectId: string): string[] =>
    suite.sim
      .serviceAccounts(projectId)
      .map((a) => a.id)
      .sort();
  /** Does GET /v2/projects/{project_id}/api-keys with this bearer token answer (true) or 401 (false)? */
  async function works(projectId: string, token: string | undefined): Promise<boolean> {
    if (token === undefined) throw new Error("no token");
    try {
      await testClient(suite.sim, { token, retries: 0 }).listApiKeys(projectId);
      return true;
    } catch (e) {
      if (e instanceof AuthError) return false;
      throw e;
    }
  }
  /** The simulator's request log as `METHOD path` lines. */
  const calls = (): string[] => suite.sim.requests.map((r) => `${r.method} ${r.path}`);
  const accountPath = (projectId: string, id?: string): string =>
    `/v2/projects/${projectId}/service-accounts${id ? `/${id}` : ""}`;
  const asState = (outs: ServiceAccountOutputs): Props => ({ ...outs, __provider: SHIM });

  /** Checked inputs, as the engine passes them to diff and update. */
  async function checked(news: Props): Promise<Props> {
    const r = await provider().check({}, news);
    expect(r.failures).toEqual([]);
    return { ...(r.inputs as Props | undefined), __provider: SHIM };
  }

  /** The error of a rejected promise; its message and stack join the secret scan. */
  async function rejection(p: Promise<unknown>): Promise<Error & { id?: string; properties?: Props }> {
    const outcome = await p.then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    if (!outcome) throw new Error("expected the promise to reject");
    texts.push(outcome.message, String(outcome.stack ?? ""));
    return outcome;
  }

  /**
   * One update in place, as the engine runs it: diff says update (never replace), then `update` in a run of its own
   * (a provider process of its own) with the request log cleared, so what it sent is all the log holds.
   */
  async function updateInPlace(id: string, state: Props, news: Props): Promise<ServiceAccountOutputs> {
    const p = provider();
    expect(await p.diff(id, state, news)).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    suite.sim.clearRequests();
    newRun(); // each step is an engine operation of its own: a provider process, a run
    return p.update(id, state, news);
  }

  /**
   * One rotation with the option on: diff says update (never replace), update makes exactly one POST and, when there
   * was a previous account, exactly one DELETE (of it, two rotations old). Afterwards the simulator holds exactly the
   * new and the former current account, the outputs point at their tokens, and the deleted account's token is refused.
   */
  async function rotate(
    projectId: string,
    id: string,
    state: Props,
    news: Props,
    reasons: string[],
  ): Promise<ServiceAccountOutputs> {
    const before = state as unknown as ServiceAccountOutputs;
    const outs = await updateInPlace(id, state, news);

    const old = before.previousServiceAccountId;
    expect(calls()).toEqual([
      `POST ${accountPath(projectId)}`,
      `GET /v2/projects/${projectId}/api-keys`, // the run's look for accounts no state holds
      ...(old ? [`DELETE ${accountPath(projectId, old)}`] : []),
    ]);
    expect(isPlainJson(outs)).toBe(true);
    expect(outs.serviceAccountId).not.toBe(before.serviceAccountId);
    expect(outs).toMatchObject({
      previousServiceAccountId: before.serviceAccountId,
      previousTokenId: before.tokenId,
      previousTokenExpiresAt: before.tokenExpiresAt,
      previousToken: before.token,
      keepPreviousToken: true,
    });
    expect(outs.retiredServiceAccountIds).toBeUndefined();
    expect(liveIds(projectId)).toEqual([outs.serviceAccountId, before.serviceAccountId].sort());
    const current = suite.sim.serviceAccounts(projectId).find((a) => a.id === outs.serviceAccountId);
    expect(outs.tokenId).toBe(current?.tokenId);
    // The quirky profile's epoch-seconds layouts drop the milliseconds of the expiry.
    expect(Math.abs(Date.parse(outs.tokenExpiresAt) - Date.parse(String(current?.tokenExpiresAt)))).toBeLessThan(1000);
    expect(suite.sim.issuedSecrets()).toContain(outs.token);
    expect(await works(projectId, outs.token)).toBe(true);
    expect(await works(projectId, outs.previousToken)).toBe(true);
    if (old) {
      expect(suite.sim.deletedServiceAccounts()).toContain(old);
      expect(await works(projectId, before.previousToken)).toBe(false);
    }
    // The progress line names the accounts, never a token.
    const line = suite.warn.mock.calls
      .map((a: unknown[]) => String(a[0]))
      .find((l) => l.includes(`new account ${outs.serviceAccountId}`));
    expect(line).toBe(
      `pulumi-pims: service account ${JSON.stringify(outs.name)} in project ${projectId}: rotated ` +
        `(${reasons.join(", ")}): new account ${outs.serviceAccountId}; ` +
        `previous account ${before.serviceAccountId} kept until the next rotation${old ? `, ${old} deleted` : ""}`,
    );
    // Right after the rotation nothing is due: the next up changes nothing.
    expect(await provider().diff(id, asState(outs), news)).toEqual({
      changes: false,
      replaces: [],
      deleteBeforeReplace: false,
    });
    return outs;
  }

  /** An account with the option on, created and rotated once by a new rotationTrigger: it has a previous account. */
  async function rotatedOnce(
    name: string,
  ): Promise<{ projectId: string; id: string; on: Props; outs: ServiceAccountOutputs; second: ServiceAccountOutputs }> {
    const projectId = suite.sim.addProject().id;
    const on = await checked(inputsFor(projectId, name, { ...LIFETIME, keepPreviousToken: true }));
    const { id, outs } = await provider().create(on);
    const second = await rotate(projectId, id, asState(outs), { ...on, rotationTrigger: "2" }, ["rotationTrigger"]);
    return { projectId, id, on, outs, second };
  }

  /**
   * Fails when an issued secret occurs in a recorded text; the minimum keeps the scan honest, and at least one
   * progress line of a rotation must have been read.
   */
  function expectNoSecretsSeen(minSecrets: number): void {
    const secrets = suite.sim.issuedSecrets();
    expect(secrets.length).toBeGreaterThanOrEqual(minSecrets);
    expect(texts.filter((t) => t.includes(": rotated ("))).not.toHaveLength(0);
    expectNoPlaintextSecrets(texts.join("\n"), secrets, "error messages and progress lines");
  }

  return {
    suite,
    texts,
    provider,
    liveIds,
    works,
    calls,
    accountPath,
    asState,
    checked,
    rejection,
    updateInPlace,
    rotate,
    rotatedOnce,
    expectNoSecretsSeen,
  };
}
