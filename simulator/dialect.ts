/**
 * How the simulator words its answers. The routes decide what happens (validation, state changes, errors); a
 * dialect decides how the result is written where the service's documentation is silent: success codes, member
 * names of the service-account token, null versus absent, extra members, the form of plain-text bodies. The
 * `default` dialect is the one the client was first written against; `quirky` (quirky.ts) differs wherever it can.
 */
import type { AccountState, AccountStore, ChosenAccountIds } from "./accounts";
import type { SimBuild } from "./apps";
import { type Reply, empty, json, text } from "./reply";
import {
  TokenLayoutPicker,
  renderToken,
  type TokenLayout,
  type TokenLayoutMode,
  type TokenLayoutName,
} from "./tokenLayouts";
import type { ApiKey, AppLogLine, AppLogPage, Invoice } from "./types";
import { HttpError, randomHex } from "./util";

/**
 * How the simulator answers where the service's documentation is silent. `default`: the shapes the client was
 * first written against. `quirky`: other plausible shapes (see simulator/README.md).
 */
export type SimulatorProfile = "default" | "quirky";

export const SIMULATOR_PROFILES: readonly SimulatorProfile[] = ["default", "quirky"];

export function isSimulatorProfile(value: string): value is SimulatorProfile {
  return (SIMULATOR_PROFILES as readonly string[]).includes(value);
}

/** One page of app logs as the routes computed it. */
export interface LogPageAnswer {
  lines: AppLogLine[];
  hasMore: boolean;
  nextPageToken?: string;
}

/** Creates the account with the ids the dialect chose (or fresh ones). */
export type CreateAccount = (chosen: ChosenAccountIds) => AccountState;

export abstract class Dialect {
  abstract readonly profile: SimulatorProfile;
  protected readonly layouts: TokenLayoutPicker;

  constructor(
    protected readonly accounts: AccountStore,
    layoutMode: TokenLayoutMode,
    layoutSeed?: number,
  ) {
    this.layouts = new TokenLayoutPicker(layoutMode, layoutSeed);
  }

  setTokenLayout(mode: TokenLayoutMode, seed?: number): void {
    this.layouts.setMode(mode, seed);
  }

  tokenLayoutOf(accountId: string): TokenLayoutName | undefined {
    return this.layouts.layoutOf(accountId);
  }

  /** `POST /v2/projects/{project_id}/service-accounts`: picks the token layout, creates, answers. */
  serviceAccountCreated(create: CreateAccount): Reply {
    const layout = this.layouts.pick();
    const state = create(this.chooseIds(layout));
    this.layouts.remember(state.account.id, layout);
    const decoy = layout.unreadable === "twoSecrets" ? this.decoy() : undefined;
    const token = renderToken(
      layout,
      { id: state.tokenId, secret: state.secret, expiresAt: state.tokenExpiresAt },
      this.tokenExtras(state),
      decoy,
    );
    return this.accountAnswer(state, token);
  }

  private decoy(): string {
    const value = `pims_sa_${randomHex(40)}`;
    this.accounts.recordIssued(value);
    return value;
  }

  protected chooseIds(_layout: TokenLayout): ChosenAccountIds {
    return {};
  }
  protected tokenExtras(_state: AccountState): Record<string, unknown> {
    return {};
  }

  protected abstract accountAnswer(state: AccountState, token: unknown): Reply;
  abstract apiKeys(keys: ApiKey[]): Reply;
  abstract serviceAccountDeleted(accountId: string): Reply;
  abstract volumeResized(volumeId: string, newSizeGb: number): Reply;
  abstract projectCreated(projectId: string): Reply;
  abstract invoices(invoices: Invoice[]): Reply;
  abstract logPage(page: LogPageAnswer): Reply;
  abstract buildLogs(build: SimBuild): Reply;
  abstract secretsUpdated(): Reply;
  abstract runCancelled(runId: string): Reply;
  /** The error for a path no route matches. */
  abstract noRoute(method: string, pathname: string): HttpError;
}

export class DefaultDialect extends Dialect {
  readonly profile = "default";

  constructor(accounts: AccountStore, layoutMode: TokenLayoutMode = "default", layoutSeed?: number) {
    super(accounts, layoutMode, layoutSeed);
  }

  protected accountAnswer(state: AccountState, token: unknown): Reply {
    return json(201, { ...state.account, grants: [...state.account.grants], token });
  }
  apiKeys(keys: ApiKey[]): Reply {
    return json(200, keys);
  }
  serviceAccountDeleted(accountId: string): Reply {
    return json(200, { message: `service account ${accountId} deleted` });
  }
  volumeResized(volumeId: string, newSizeGb: number): Reply {
    return text(200, `volume ${volumeId} resized to ${newSizeGb} GB`);
  }
  projectCreated(projectId: string): Reply {
    return text(201, projectId);
  }
  invoices(invoices: Invoice[]): Reply {
    return json(200, invoices);
  }
  logPage(page: LogPageAnswer): Reply {
    // With no matching lines the real service answers 204 with an empty body.
    if (page.lines.length === 0) return empty(204);
    const body: AppLogPage = { hasMore: page.hasMore, logs: page.lines };
    if (page.nextPageToken !== undefined) body.nextPageToken = page.nextPageToken;
    return json(200, body);
  }
  buildLogs(build: SimBuild): Reply {
    return json(200, {
      app_id: build.appId,
      build_id: build.id,
      project_id: build.projectId,
      status: build.status,
      logs: build.logs.map((entry) => ({ ...entry })),
    });
  }
  secretsUpdated(): Reply {
    return text(200, "secrets updated");
  }
  runCancelled(runId: string): Reply {
    return text(200, `run ${runId} cancelled`);
  }
  noRoute(method: string, pathname: string): HttpError {
    return new HttpError(404, `no route for ${method} ${pathname}`);
  }
}
