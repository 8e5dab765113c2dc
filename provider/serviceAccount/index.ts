/**
 * ServiceAccount: a service account (POST /v2/projects/{project_id}/service-accounts, DELETE
 * /v2/projects/{project_id}/service-accounts/{service_account_id}) and the one-time token returned when it is created.
 *
 * The service cannot update or read an account and returns the token's secret only once, so:
 * - a change of an input the service receives (or a reached rotation window) needs a new account. By default that is
 *   a replacement: the new account first, then the old one is deleted at the end of the same `pulumi up`.
 * - with `keepPreviousToken`, it is an in-place update instead (overlapping rotation): the new account becomes the
 *   current one, the current one is kept as the previous one, and only the account two rotations old is deleted. So
 *   two tokens are valid at every moment, and consumers outside the stack have a whole rotation period to move on.
 * - `rotateBeforeExpiry` is a local policy the service never sees: changing it alone is an update with no call;
 * - the tokens are carried unchanged through `update` and `read`;
 * - an account the stack did not create is taken over by `pulumi import` (the plugin: {@link
 *   ServiceAccountProvider.importById}) or `adoptServiceAccountId` (create): ./adopt.
 *
 * One job per file, in lifecycle order:
 * - ./index (this file): the provider class, each method in order (check, diff, create, read, update, delete), then
 *   the plugin's import and list;
 * - ./kind: its one declaration (provider/kinds.ts lists it);
 * - ./inputs: the inputs and their rules (check, and again before a create);
 * - ./deliveryRules: the `tokenDelivery` input, its type and rules;
 * - ./outputs: what the state holds, and the output, secret and computed key lists;
 * - ./rotation: when a token is due, which inputs need a new account, the overlap (previous and retired accounts);
 * - ./create: creating an account, and what a failed or lost create proves;
 * - ./newAccount: one account for the inputs, its token delivered, shared by create and update;
 * - ./delivery: where a new token goes instead of the state (`tokenDelivery`), and the fingerprint;
 * - ./seal: sealing a token to age recipients (loaded on first use);
 * - ./sink: the command and the file a token is handed to;
 * - ./refresh: refresh (read), against the project's API-key listing;
 * - ./delete: deletes and their 404s, the loop over the accounts a destroy or an update deletes, the own credential;
 * - ./run: what one run knows (the listing taken once per project, the accounts held), shared by create, refresh and
 *   delete;
 * - ./listing: accounts as the API-key listing shows them;
 * - ./audit: accounts no state holds (interrupted runs), named as warnings;
 * - ./adopt: import and adoption of accounts the stack did not create;
 * - ./list: the project's accounts for the protocol's `List` (`pulumi do … list`).
 */
import type * as pulumi from "@pulumi/pulumi";
import { emit, progress, warning } from "../client/log";
import { PimsProviderBase } from "../providerBase";
import { CreateLedger } from "./create";
import { invalidInputs, normalized, undeclared, validate, type ServiceAccountInputs } from "./inputs";
import { deleteAll, ownAccountIn, ownAccountMessage } from "./delete";
import { auditLine } from "./audit";
import { probeToken, refreshAccounts } from "./refresh";
import { heldIds, type ListingResult, runMemory } from "./run";
import {
  afterUpdate,
  needsUpdate,
  outputs,
  retireFailedMessage,
  rotationWarning,
  rotatedLine,
  rotationReasons,
  type FailedDelete,
} from "./rotation";
import type { Account, ServiceAccountOutputs } from "./outputs";
import { errorText, type PimsClient } from "../client";
import { adoptAccount, importAccount, importedFromOutputs, proveImported, type AdoptService } from "./adopt";
import type { Listable, ListPage, ListPageRequest } from "../capabilities";
import { pageOf } from "../paging";
import { listedAccounts, listedProject } from "./list";
import { deliveryPlanLine, settleHeld } from "./delivery";
import { newAccount } from "./newAccount";

export { MAX_EXPIRES_IN, validate } from "./inputs";
export type { ServiceAccountInputs } from "./inputs";
export { ROTATION_REASON } from "./rotation";
export { SERVICE_ACCOUNT_OUTPUT_KEYS, SERVICE_ACCOUNT_SECRET_OUTPUTS, type ServiceAccountOutputs } from "./outputs";

/**
 * An update that created an account (whose token must not be lost) but could not finish: the engine stores
 * `properties` as the resource's new state (tokens still secret) and fails the update with this message; the next
 * `pulumi up` updates the resource again, which finishes the job.
 */
class PartialUpdateError extends Error {
  constructor(
    message: string,
    readonly id: string,
    readonly properties: Record<string, unknown>,
    readonly reasons: string[] = [message],
  ) {
    super(message);
  }
}

// ---- provider -------------------------------------------------------------------------------------------

export class ServiceAccountProvider
  extends PimsProviderBase
  implements pulumi.dynamic.ResourceProvider<ServiceAccountInputs, ServiceAccountOutputs>, Listable
{
  private readonly now: () => number;
  /** This instance's own creates (one instance serves every ServiceAccount of a provider process). */
  private readonly ledger = new CreateLedger();

  /** @param options.now Current time in ms since the epoch, for the rotation window. Default `Date.now`. */
  constructor(options: { now?: () => number } = {}) {
    super();
    this.now = options.now ?? Date.now;
  }

  // ---- check ----
  /** Validates every rule without a call; returns the normalized inputs. */
  async check(
    olds: ServiceAccountInputs,
    news: ServiceAccountInputs,
  ): Promise<pulumi.dynamic.CheckResult<ServiceAccountInputs>> {
    return { inputs: normalized(news ?? ({} as ServiceAccountInputs)), failures: validate(news, olds) };
  }

  // ---- diff ----
  /**
   * A changed (or unknown) input the service receives, or a reached rotation window, needs a new account: a
   * replacement (create-before-delete), or with `keepPreviousToken` an in-place rotation (but a new project still
   * replaces). A new window or option alone, a previous account to drop, or retired accounts to delete: an update.
   * No call.
   */
  async diff(_id: string, olds: ServiceAccountOutputs, news: ServiceAccountInputs): Promise<pulumi.dynamic.DiffResult> {
    const after = normalized(news);
    runMemory().hold(olds?.projectId, heldIds(olds, _id)); // the accounts this state holds are no orphans
    if (importedFromOutputs(_id, olds)) return { changes: true, replaces: [], deleteBeforeReplace: false };
    const rotate = rotationReasons(olds, after, this.now());
    const missing = (["grants", "expiresIn"] as const).filter((k) => undeclared(after[k]));
    if (rotate.length > 0 && missing.length > 0)
      throw new Error(
        `pulumi-pims: service account ${JSON.stringify(after.name)} (${olds.serviceAccountId ?? _id}) needs a new ` +
          `account (${rotate.join(", ")}) but the program declares no ${missing.join(" or ")}: the service could ` +
          "not tell them when the account was imported, and the new account is created with them. Declare them.",
      );
    const replaces = after.keepPreviousToken === true ? rotate.filter((k) => k === "projectId") : rotate;
    const plan = deliveryPlanLine(olds, after, rotate.length > 0);
    if (plan) progress(plan);
    const dying = rotationWarning({ olds, ins: after, reasons: rotate, replaces, id: _id });
    if (dying) warning(dying); // the user should act: set keepPreviousToken, or rotateBeforeExpiry
    // A replacement deletes every account held; an overlapping rotation the previous one: never the provider's own.
    const doomed =
      replaces.length > 0 ? heldIds(olds, _id) : rotate.length > 0 ? heldIds({ ...olds, serviceAccountId: "" }) : [];
    const own = this.ownAccount(olds, doomed);
    if (own !== undefined) warning(ownAccountMessage(olds, own, "plan"));
    return { changes: rotate.length > 0 || needsUpdate(olds, after), replaces, deleteBeforeReplace: false };
  }

  // ---- create ----
  /** Creates the account (./create: nothing left live that nobody holds); the id is the account id. */
  async create(inputs: ServiceAccountInputs): Promise<pulumi.dynamic.CreateResult<ServiceAccountOutputs>> {
    const failures = validate(inputs);
    if (failures.length > 0) throw invalidInputs(failures);
    const ins = normalized(inputs);
    if (typeof ins.adoptServiceAccountId === "string")
      return adoptAccount(ins, ins.adoptServiceAccountId, this.service()); // ./adopt: no POST
    const account = await this.newAccount(ins);
    return { id: account.serviceAccountId, outs: outputs({ ...ins, ...account }) };
  }

  // ---- read ----
  /**
   * Refresh: the run's listing of the project decides (./refresh): accounts it still shows keep their
   * stored outputs exactly, tokens included; accounts it positively no longer shows are dropped (a gone current account
   * takes the resource out of the state); anything uncertain is kept, with why. Also names accounts no state holds
   * (./audit). Without stored state (the dynamic host's import) it is refused: the plugin imports with
   * {@link importById}, TypeScript adopts with `adoptServiceAccountId`.
   */
  async read(id: string, props?: ServiceAccountOutputs): Promise<pulumi.dynamic.ReadResult<ServiceAccountOutputs>> {
    if (props && typeof props.projectId === "string" && typeof props.token === "string") {
      const { projectId } = props;
      runMemory().hold(projectId, heldIds(props, id));
      const listing = await this.look(projectId); // missing credentials too: a failed look, kept with why
      let credentials = { baseUrl: "", token: "" };
      try {
        credentials = this.credentials();
      } catch {
        // missing credentials: the failed look says so, and everything is kept
      }
      const { baseUrl, token: ownToken } = credentials;
      const out = await refreshAccounts(
        id,
        { ...props },
        {
          listing,
          run: runMemory(),
          listUrl: `GET ${baseUrl}/v2/projects/${projectId}/api-keys`,
          lagMs: this.settings().listingLagMs,
          probe: (token) => probeToken(this.probeClient(token), projectId),
          ownToken,
          refused: this.staleCredentialNote("refresh"),
        },
      );
      out.lines.forEach((line) => emit(line.severity, line.text));
      if (listing.ok) this.audit(projectId, [props.name], listing); // a failed look is said once, above
      return out.id === "" ? { id: "" } : { id, props: out.props as unknown as ServiceAccountOutputs };
    }
    throw new Error(
      `pulumi-pims: cannot read service account ${id}: no state to start from. In YAML, Python, Go and Java use ` +
        "`pulumi import pims:index:ServiceAccount <name> <projectId>/<serviceAccountId>`; in TypeScript (a dynamic " +
        "resource, which the engine's import cannot reach) declare the ServiceAccount with `adoptServiceAccountId`.",
    );
  }

  // ---- update ----
  /**
   * With `keepPreviousToken` and a rotation due (see diff): one new account (POST), the current one kept as the
   * previous one, the one before it deleted. Otherwise no new account: the settings are stored, a previous account is
   * deleted when the option is off, and retired accounts are deleted. Every token is kept. When a delete fails after a
   * new account was created, the new state is stored anyway (the update fails; the next `pulumi up` finishes).
   */
  async update(
    id: string,
    olds: ServiceAccountOutputs,
    news: ServiceAccountInputs,
  ): Promise<pulumi.dynamic.UpdateResult<ServiceAccountOutputs>> {
    const ins = normalized(news);
    if (importedFromOutputs(id, olds)) {
      return { outs: await proveImported(id, olds, ins, this.service()) };
    }
    const reasons = rotationReasons(olds, ins, this.now());
    const rotate = ins.keepPreviousToken === true && reasons.length > 0;
    runMemory().hold(olds.projectId, heldIds(olds, id));
    const created = rotate ? await this.newAccount(ins) : undefined;
    const planned = afterUpdate(olds, ins, created);
    const next = await settleHeld(planned.next); // switched to a delivery mode: the held tokens leave the state
    const own = this.ownAccount(olds, planned.retire); // never retired while this provider authenticates with it
    const retire = planned.retire.filter((r) => r !== own);
    if (created || retire.length > 0)
      this.audit(olds.projectId, [olds.name, ins.name], await this.look(olds.projectId));
    const failed = await this.deleteAll(olds.projectId, retire);
    if (own !== undefined) failed.push({ id: own, error: ownAccountMessage(olds, own, "rotation"), cause: undefined });
    const outs = outputs({ ...next, retiredServiceAccountIds: failed.map((f) => f.id) });
    const kept = next.previousServiceAccountId ?? olds.serviceAccountId;
    if (created) progress(rotatedLine(ins, reasons, created, kept, retire, failed));
    if (failed.length === 0) return { outs };
    const message = retireFailedMessage(ins.name, olds.projectId, created, failed);
    const provider = (news as unknown as Record<string, unknown>).__provider;
    throw new PartialUpdateError(message, id, { ...outs, __provider: provider });
  }

  // ---- delete ----
  /**
   * DELETE .../service-accounts/{id} of every account the resource holds, oldest first: retired ones, the previous one,
   * the current one. A 404 counts only once the service confirms it (./delete). When one fails, the
   * resource stays in the state with every account (those deleted are confirmed gone on the next try).
   */
  async delete(id: string, props: ServiceAccountOutputs): Promise<void> {
    const projectId: unknown = props?.projectId;
    if (typeof projectId !== "string" || projectId === "")
      throw new Error(`pulumi-pims: cannot delete service account ${id}: its projectId is missing from the state`);
    const ids = heldIds(props, id);
    runMemory().hold(projectId, ids);
    const own = this.ownAccount(props, ids);
    if (own !== undefined) throw new Error(ownAccountMessage(props, own, "destroy"));
    if (!this.settings().goneProjects.has(projectId)) this.audit(projectId, [props.name], await this.look(projectId));
    const failed = await this.deleteAll(projectId, ids);
    if (failed.length === 1) throw this.explainRefusal(failed[0].cause, "destroy"); // the delete's own error
    if (failed.length > 1) {
      const detail = failed.map((f) => `${f.id}: ${errorText(this.explainRefusal(f.cause, "destroy"))}`);
      const all = detail.join("; ");
      throw new Error(`pulumi-pims: deleting service accounts of ${id} in project ${projectId} failed: ${all}`);
    }
  }

  // ---- import and list (the plugin's capabilities) ----
  /**
   * `pulumi import` through the plugin, id `<projectId>/<serviceAccountId>` (./adopt): the account as the project's
   * API-key listing shows it, and the inputs the program is generated from. Nothing is created or deleted.
   */
  async importById(
    importId: string,
  ): Promise<{ id: string; props: ServiceAccountOutputs; inputs: Partial<ServiceAccountInputs> }> {
    return importAccount(importId, this.service());
  }

  /**
   * The provider protocol's `List` (`pulumi do pims:ServiceAccount list --project-id p-…`): the project's accounts,
   * each id as `pulumi import` takes it (./list), from the API-key listing read afresh for each page (never the run's
   * memory: pages of a long-lived process see the service as it is). A refusal is the listing's error, in the
   * service's words.
   */
  async list(inputs: Record<string, unknown>, page: ListPageRequest): Promise<ListPage> {
    const projectId = listedProject(inputs);
    return pageOf(listedAccounts(projectId, await this.client().listApiKeys(projectId)), inputs, page);
  }

  // ---- what the methods share ----
  /** What ./adopt borrows: the run's listing, its address, a client sending an account's own token. */
  private service(): AdoptService {
    return { look: (p) => this.look(p), url: (p) => this.listUrl(p), probe: (t) => this.probeClient(t) };
  }

  /**
   * A client sending an account's own token, to prove it works (./adopt, ./refresh): one retry, shown like every
   * other; a refusal names that token, not the provider's.
   */
  private probeClient(token: string): PimsClient {
    return this.client({ retries: 1, tokenSource: "the project's API-key listing (the account's own token)" }, token);
  }

  /** The listing's address, for messages. */
  private listUrl(projectId: string): string {
    let baseUrl = "";
    try {
      baseUrl = this.credentials().baseUrl;
    } catch {
      // missing credentials: the failed listing says so
    }
    return `GET ${baseUrl}/v2/projects/${projectId}/api-keys`;
  }

  /** The account among `ids` whose token is this provider's credential (./delete `ownAccountIn`), if any. */
  private ownAccount(o: Partial<ServiceAccountOutputs>, ids: readonly string[]): string | undefined {
    try {
      return ownAccountIn(o, ids, this.credentials().token);
    } catch {
      return undefined; // no credential: the delete's own error says so
    }
  }

  /** ./delete `deleteAll`, with this provider's settings and client. */
  private async deleteAll(projectId: string, ids: ReadonlyArray<string | undefined>): Promise<FailedDelete[]> {
    const c = { goneProjects: () => this.settings().goneProjects, client: () => this.client(), warn: warning };
    return deleteAll(projectId, ids, c);
  }

  /** The run's one listing of the project (./run), shared by every resource; never throws. */
  private async look(projectId: string): Promise<ListingResult> {
    try {
      const client = this.client();
      return await runMemory().listing(client, this.credentials().token, projectId);
    } catch (error) {
      return { ok: false, error };
    }
  }

  /** Names the accounts with these names (once each) that no state of the run holds (./audit). */
  private audit(projectId: string, names: unknown[], listing: ListingResult): void {
    for (const name of new Set(names.filter((n): n is string => typeof n === "string"))) {
      const line = auditLine(projectId, name, listing, runMemory().heldIn(projectId));
      if (line) warning(line); // an account no state holds: the user decides what to do with it
    }
  }

  /** ./newAccount, with this provider's settings, client, ledger and clock. */
  private async newAccount(ins: ServiceAccountInputs): Promise<Account> {
    const ctx = { settings: this.settings(), client: () => this.client(), ledger: this.ledger, now: this.now };
    return newAccount(ins, ctx);
  }
}
