/** Service accounts and their tokens: who may call the simulator, and the API keys the accounts show up as. */
import type { ApiKey, ServiceAccount } from "./types";
import { HttpError, notFound, parseRfc3339, randomHex } from "./util";

/** A live service account as the simulator holds it (never with its secret). */
export type SimServiceAccount = Omit<ServiceAccount, "token"> & {
  tokenId: string;
  tokenExpiresAt: string;
  deleted?: false;
};

/** Who made a request. */
export type Principal = { kind: "admin" } | { kind: "serviceAccount"; accountId: string };

/** Validated body of `POST /v2/projects/{project_id}/service-accounts`. */
export interface NewServiceAccount {
  name: string;
  description: string;
  grants: string[];
  expiresIn: number;
}

/** Ids and secret for a new account; fresh ones where absent. */
export interface ChosenAccountIds {
  id?: string;
  tokenId?: string;
  secret?: string;
}

export interface AccountState {
  account: Omit<ServiceAccount, "token">;
  tokenId: string;
  tokenExpiresAt: string;
  secret: string;
  deleted: boolean;
}

export const NEVER = "never";

/** What an account's key in the listing shows as `apiKey` (SimulatorServer.setApiKeyValues). */
export type ApiKeyValues = "masked" | "full" | "decoy";

/** Milliseconds since the epoch of an expiry (RFC 3339 or `never`); Infinity for `never`. */
export function expiryMs(expiresAt: string): number {
  return expiresAt === NEVER ? Infinity : (parseRfc3339(expiresAt) ?? Infinity);
}

export class AccountStore {
  /** Every account ever created, deleted ones included, by id. */
  private readonly accounts = new Map<string, AccountState>();
  private readonly accountIdBySecret = new Map<string, string>();
  private readonly issued: string[] = [];
  /** How long a new account's key stays out of the listing (a service whose listing lags behind its creates). */
  listingLagMs = 0;
  apiKeyValues: ApiKeyValues = "masked";

  constructor(
    readonly adminToken: string,
    private readonly now: () => Date,
  ) {
    this.issued.push(adminToken);
  }

  authenticate(token: string | undefined): Principal | undefined {
    if (token === undefined) return undefined;
    if (token === this.adminToken) return { kind: "admin" };
    const accountId = this.accountIdBySecret.get(token);
    const state = accountId === undefined ? undefined : this.accounts.get(accountId);
    if (!state || state.deleted || this.isExpired(state.tokenExpiresAt)) return undefined;
    return { kind: "serviceAccount", accountId: state.account.id };
  }

  isExpired(expiresAt: string): boolean {
    return this.now().getTime() >= expiryMs(expiresAt);
  }

  get(id: string): AccountState | undefined {
    return this.accounts.get(id);
  }

  /** True when the string is the admin token or the secret of a live account. */
  isLiveSecret(secret: string): boolean {
    return secret === this.adminToken || this.accountIdBySecret.has(secret);
  }

  /** Stores a new live account (ids and secret chosen or fresh) and registers its token. */
  store(projectId: string, req: NewServiceAccount, chosen: ChosenAccountIds): AccountState {
    const now = this.now();
    let id = chosen.id;
    while (id === undefined || (chosen.id === undefined && this.accounts.has(id))) id = `sa-${randomHex(12)}`;
    const state: AccountState = {
      account: {
        id,
        name: req.name,
        description: req.description,
        projectId,
        grants: [...req.grants],
        createdAt: now.toISOString(),
        createdByUserId: "u-admin",
      },
      tokenId: chosen.tokenId ?? `tok-${randomHex(16)}`,
      tokenExpiresAt: req.expiresIn === 0 ? NEVER : new Date(now.getTime() + req.expiresIn * 1000).toISOString(),
      secret: chosen.secret ?? `pims_sa_${randomHex(40)}`,
      deleted: false,
    };
    this.accounts.set(id, state);
    this.accountIdBySecret.set(state.secret, id);
    this.issued.push(state.secret);
    return state;
  }

  /**
   * Records a string the simulator sent that looks like a secret but is none (a decoy in a token layout), so the
   * secret scanners of the tests look for it too.
   */
  recordIssued(value: string): void {
    this.issued.push(value);
  }

  view(s: AccountState): SimServiceAccount {
    return { ...s.account, grants: [...s.account.grants], tokenId: s.tokenId, tokenExpiresAt: s.tokenExpiresAt };
  }

  /** Deletes a live account of the project; 404 when there is none, 409 when it is the caller's own. */
  delete(projectId: string, accountId: string, caller: Principal): void {
    const state = this.accounts.get(accountId);
    if (!state || state.deleted || state.account.projectId !== projectId) throw notFound("service account", accountId);
    if (caller.kind === "serviceAccount" && caller.accountId === accountId) {
      throw new HttpError(409, "cannot delete the service account used by this request");
    }
    this.markDeleted(state);
  }

  /** Deletes every live account the project owns (the project itself is going away). */
  deleteAllOf(projectId: string): void {
    for (const state of this.accounts.values())
      if (!state.deleted && state.account.projectId === projectId) this.markDeleted(state);
  }

  private markDeleted(state: AccountState): void {
    state.deleted = true;
    this.accountIdBySecret.delete(state.secret);
  }

  /** The API key each live account of the project shows up as. */
  apiKeys(projectId: string): ApiKey[] {
    return [...this.accounts.values()]
      .filter((s) => !s.deleted && s.account.projectId === projectId)
      .filter((s) => Date.parse(s.account.createdAt) <= this.now().getTime() - this.listingLagMs)
      .map((s): ApiKey => ({
        id: s.tokenId,
        name: s.account.name,
        description: s.account.description,
        apiKey: this.keyValue(s),
        projectId,
        principalId: s.account.id,
        source: "service_account",
        status: this.isExpired(s.tokenExpiresAt) ? "expired" : "active",
        createdAt: s.account.createdAt,
        updatedAt: s.account.createdAt,
        expiresAt: s.tokenExpiresAt,
      }));
  }

  private keyValue(s: AccountState): string {
    if (this.apiKeyValues === "full") return s.secret;
    if (this.apiKeyValues === "masked") return `pims_...${s.secret.slice(-4)}`;
    const decoy = `pims_sa_decoy_${s.secret.slice(-24)}`; // token-shaped, never accepted
    if (!this.issued.includes(decoy)) this.issued.push(decoy);
    return decoy;
  }

  live(projectId?: string): SimServiceAccount[] {
    return [...this.accounts.values()]
      .filter((s) => !s.deleted && (projectId === undefined || s.account.projectId === projectId))
      .map((s) => this.view(s));
  }

  deleted(): string[] {
    return [...this.accounts.values()].filter((s) => s.deleted).map((s) => s.account.id);
  }

  issuedSecrets(): string[] {
    return [...this.issued];
  }
}

/** What `SimState.addServiceAccount` (./state) seeds. */
export interface SeedServiceAccount {
  /** Default: a fresh `sa-` + 12 hex. Must never have been used. */
  id?: string;
  /** Project that owns the account; must exist. */
  projectId: string;
  name: string;
  /** Default "". */
  description?: string;
  /** Existing project ids, no duplicates. Default `[projectId]`. */
  grants?: string[];
  /** Token lifetime in seconds from now (simulator clock); 0 = never expires. Default 0. */
  expiresIn?: number;
  /** The token's secret, usable as a bearer token. Default: a fresh `pims_sa_` + 40 hex. */
  tokenSecret?: string;
  /** Default: a fresh `tok-` + 16 hex. */
  tokenId?: string;
}
