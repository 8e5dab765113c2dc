/**
 * The `quirky` dialect: where the service's documentation is silent, it answers differently from the `default`
 * dialect, in ways a real implementation of the same interface plausibly could. Every quirk is listed in README.md.
 */
import type { AccountState, AccountStore, ChosenAccountIds } from "./accounts";
import { NEVER } from "./accounts";
import type { SimBuild } from "./apps";
import { Dialect, type LogPageAnswer } from "./dialect";
import { type Reply, empty, json, raw } from "./reply";
import type { TokenLayout, TokenLayoutMode } from "./tokenLayouts";
import type { ApiKey, Invoice } from "./types";
import { HttpError, randomHex } from "./util";

/** Members no documentation mentions, added to every object the quirky dialect sends. */
function extras(kind: string): Record<string, unknown> {
  return { kind, etag: `W/"${randomHex(8)}"`, _meta: { region: "us-east-1", apiVersion: "2.7.1" } };
}

/** A plain-text answer as a JSON string with a trailing newline, as a framework that serializes every body sends it. */
function quoted(status: number, body: string): Reply {
  return raw(status, `${JSON.stringify(body)}\n`, "application/json; charset=utf-8");
}

/** JSON with a Content-Type that says it is plain text. */
function jsonAsText(status: number, body: unknown): Reply {
  return raw(status, JSON.stringify(body), "text/plain; charset=utf-8");
}

export class QuirkyDialect extends Dialect {
  readonly profile = "quirky";
  private nextNumericTokenId = 700_000_001;

  constructor(accounts: AccountStore, layoutMode: TokenLayoutMode = "roundRobin", layoutSeed?: number) {
    super(accounts, layoutMode, layoutSeed);
  }

  /** A layout with a numeric token id gets a token id made of digits, sent as a JSON number. */
  protected override chooseIds(layout: TokenLayout): ChosenAccountIds {
    return layout.id?.numeric ? { tokenId: String(this.nextNumericTokenId++) } : {};
  }

  protected override tokenExtras(state: AccountState): Record<string, unknown> {
    return { scopes: ["projects:*"], issuedAt: state.account.createdAt };
  }

  /** 200 instead of 201; an empty description as null; extra members. */
  protected accountAnswer(state: AccountState, token: unknown): Reply {
    const { account } = state;
    return json(200, {
      ...account,
      description: account.description === "" ? null : account.description,
      grants: [...account.grants],
      token,
      ...extras("ServiceAccount"),
    });
  }

  /** `principalId: null` on keys of no service account, `expiresAt: null` instead of `never`, extra members. */
  apiKeys(keys: ApiKey[]): Reply {
    return json(
      200,
      keys.map((k) => ({
        ...k,
        principalId: k.principalId ?? null,
        expiresAt: k.expiresAt === NEVER ? null : k.expiresAt,
        ...extras("ApiKey"),
      })),
    );
  }

  /** 204 with an empty body where the documentation promises a message. */
  serviceAccountDeleted(): Reply {
    return empty(204);
  }

  volumeResized(volumeId: string, newSizeGb: number): Reply {
    return quoted(200, `volume ${volumeId} resized to ${newSizeGb} GB`);
  }

  /** 200 instead of 201, and the new id as a JSON string with a trailing newline. */
  projectCreated(projectId: string): Reply {
    return quoted(200, projectId);
  }

  invoices(invoices: Invoice[]): Reply {
    return json(
      200,
      invoices.map((inv) => ({ ...inv, ...extras("Invoice") })),
    );
  }

  /** An empty page (200) instead of 204 when nothing matches; `nextPageToken: null` on the last page. */
  logPage(page: LogPageAnswer): Reply {
    return json(200, {
      hasMore: page.hasMore,
      logs: page.lines.map((line) => ({ ...line, ...extras("AppLogLine") })),
      nextPageToken: page.nextPageToken ?? null,
      ...extras("AppLogPage"),
    });
  }

  /** Numeric entry ids, extra members, and a text/plain Content-Type on a JSON body. */
  buildLogs(build: SimBuild): Reply {
    return jsonAsText(200, {
      app_id: build.appId,
      build_id: build.id,
      project_id: build.projectId,
      status: build.status,
      logs: build.logs.map((entry, i) => ({ ...entry, id: i + 1, ...extras("BuildLogEntry") })),
      ...extras("BuildLogs"),
    });
  }

  secretsUpdated(): Reply {
    return quoted(200, "secrets updated");
  }

  runCancelled(runId: string): Reply {
    return quoted(200, `run ${runId} cancelled`);
  }

  /** The generic answer of a web framework that knows no such route. */
  noRoute(): HttpError {
    return new HttpError(404, "Not Found");
  }
}
