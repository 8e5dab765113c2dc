/**
 * The route table and one small handler per endpoint: validation, state changes and errors live here; how a
 * success is worded (status, member names, plain text or JSON) is the dialect's choice (dialect.ts).
 */
import type { Dialect } from "./dialect";
import type { LogCursor, LogFilter } from "./logStore";
import type { Reply } from "./reply";
import type { NewServiceAccount, Principal, SimState } from "./state";
import type { LogDirection, LogStream } from "./types";
import { HttpError, badRequest, charCount, isPlainObject, parseRfc3339, unprocessable } from "./util";

export type { Reply };

export interface RouteContext {
  state: SimState;
  dialect: Dialect;
  limits: { maxPageSize: number; defaultPageSize: number };
  params: Record<string, string>;
  query: URLSearchParams;
  principal: Principal;
  /** The parsed JSON body; throws 400 when it is missing or malformed. */
  json(): unknown;
}

type Handler = (ctx: RouteContext) => Reply;

interface Route {
  method: string;
  segments: string[];
  handler: Handler;
}

export type RouteMatch =
  | { kind: "found"; handler: Handler; params: Record<string, string> }
  | { kind: "wrongMethod"; allowed: string[] }
  | { kind: "none" };

// ---- helpers for bodies and validation ----

function objectBody(ctx: RouteContext): Record<string, unknown> {
  const body = ctx.json();
  if (!isPlainObject(body)) throw unprocessable("request body must be a JSON object");
  return body;
}

function requiredField(body: Record<string, unknown>, field: string): unknown {
  const value = body[field];
  if (value === undefined || value === null) throw unprocessable(`${field} is required`);
  return value;
}

function stringWithLength(body: Record<string, unknown>, field: string, min: number, max: number): string {
  const value = requiredField(body, field);
  if (typeof value !== "string") throw unprocessable(`${field} must be a string`);
  const n = charCount(value);
  if (n < min || n > max) throw unprocessable(`${field} must be ${min} to ${max} characters`);
  return value;
}

function integerField(body: Record<string, unknown>, field: string): number {
  const value = requiredField(body, field);
  if (typeof value !== "number" || !Number.isInteger(value)) throw unprocessable(`${field} must be an integer`);
  return value;
}

// ---- GET /v2/projects/{project_id}/api-keys ----

const listApiKeys: Handler = (ctx) => ctx.dialect.apiKeys(ctx.state.apiKeys(ctx.params.projectId));

// ---- POST /v2/projects/{project_id}/service-accounts ----

const MAX_EXPIRES_IN = 31_536_000;
const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function validateServiceAccount(body: Record<string, unknown>, state: SimState): NewServiceAccount {
  const name = stringWithLength(body, "name", 1, 100);

  const rawDescription = body.description ?? "";
  if (typeof rawDescription !== "string") throw unprocessable("description must be a string");
  if (charCount(rawDescription) > 500) throw unprocessable("description must be at most 500 characters");

  const grants = requiredField(body, "grants");
  if (!Array.isArray(grants) || !grants.every((g): g is string => typeof g === "string")) {
    throw unprocessable("grants must be an array of strings");
  }
  if (grants.length < 1 || grants.length > 50) throw unprocessable("grants must have 1 to 50 entries");
  const seen = new Set<string>();
  grants.forEach((grant, i) => {
    if (!state.project(grant)) throw unprocessable(`grants[${i}] must be an existing project id (${grant} not found)`);
    if (seen.has(grant)) throw unprocessable(`grants must not contain duplicates (${grant})`);
    seen.add(grant);
  });

  const expiresIn = integerField(body, "expiresIn");
  if (expiresIn < 0 || expiresIn > MAX_EXPIRES_IN) {
    throw unprocessable(`expiresIn must be between 0 and ${MAX_EXPIRES_IN}`);
  }
  return { name, description: rawDescription, grants, expiresIn };
}

const createServiceAccount: Handler = (ctx) => {
  const { projectId } = ctx.params;
  ctx.state.requireProject(projectId);
  const request = validateServiceAccount(objectBody(ctx), ctx.state);
  return ctx.dialect.serviceAccountCreated((chosen) => ctx.state.createServiceAccount(projectId, request, chosen));
};

// ---- DELETE /v2/projects/{project_id}/service-accounts/{service_account_id} ----

const deleteServiceAccount: Handler = (ctx) => {
  const { projectId, accountId } = ctx.params;
  ctx.state.deleteServiceAccount(projectId, accountId, ctx.principal);
  return ctx.dialect.serviceAccountDeleted(accountId);
};

// ---- PATCH /v2/projects/{project_id}/volumes/{volume_id}/resize ----

const MIN_VOLUME_GB = 50;
const MAX_UNPROTECTED_VOLUME_GB = 1024;

const resizeVolume: Handler = (ctx) => {
  const { projectId, volumeId } = ctx.params;
  const volume = ctx.state.requireVolume(projectId, volumeId);
  const newSizeGb = integerField(objectBody(ctx), "newSizeGb");
  if (newSizeGb < MIN_VOLUME_GB) throw unprocessable(`newSizeGb must be at least ${MIN_VOLUME_GB}`);
  if (newSizeGb < volume.sizeGb) {
    throw unprocessable(`newSizeGb must not be smaller than the current size (${volume.sizeGb} GB)`);
  }
  if (newSizeGb > MAX_UNPROTECTED_VOLUME_GB && !ctx.state.requireProject(projectId).record.protected) {
    throw new HttpError(403, `volumes above ${MAX_UNPROTECTED_VOLUME_GB} GB require a protected project`);
  }
  ctx.state.resizeVolume(volume, newSizeGb);
  return ctx.dialect.volumeResized(volumeId, newSizeGb);
};

// ---- POST /v2/projects ----

const createProject: Handler = (ctx) => {
  const name = stringWithLength(objectBody(ctx), "name", 2, 50);
  return ctx.dialect.projectCreated(ctx.state.addProject({ name }).id);
};

// ---- GET /v2/projects/{project_id}/invoices ----

const listInvoices: Handler = (ctx) => ctx.dialect.invoices(ctx.state.invoices(ctx.params.projectId));

// ---- GET /v2/projects/{project_id}/apps/{app_id}/logs ----

interface LogsRequest {
  filter: LogFilter;
  direction: LogDirection;
  pageSize: number;
  cursor?: LogCursor;
}

function encodeCursor(direction: LogDirection, cursor: LogCursor): string {
  return Buffer.from(JSON.stringify({ d: direction, t: cursor.ts, s: cursor.seq })).toString("base64url");
}

function decodeCursor(token: string, direction: LogDirection): LogCursor {
  const invalid = badRequest("nextToken is invalid");
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
  } catch {
    throw invalid;
  }
  if (!isPlainObject(decoded)) throw invalid;
  const { d, t, s } = decoded;
  if (d !== direction || typeof t !== "number" || !Number.isFinite(t) || !Number.isInteger(s)) throw invalid;
  return { ts: t, seq: s as number };
}

function parseLogsQuery(query: URLSearchParams, limits: RouteContext["limits"]): LogsRequest {
  const param = (name: string): string | undefined => {
    const value = query.get(name);
    return value === null || value === "" ? undefined : value;
  };
  const date = (name: string): number | undefined => {
    const value = param(name);
    if (value === undefined) return undefined;
    const ms = parseRfc3339(value);
    if (ms === undefined) throw badRequest(`${name} must be an RFC 3339 timestamp`);
    return ms;
  };
  const oneOf = <T extends string>(name: string, allowed: readonly T[]): T | undefined => {
    const value = param(name);
    if (value === undefined) return undefined;
    if (!(allowed as readonly string[]).includes(value)) {
      throw badRequest(`${name} must be one of: ${allowed.join(", ")}`);
    }
    return value as T;
  };

  const direction = oneOf<LogDirection>("direction", ["forward", "backward"]) ?? "backward";
  const rawPageSize = param("pageSize");
  let pageSize = limits.defaultPageSize;
  if (rawPageSize !== undefined) {
    pageSize = /^\d+$/.test(rawPageSize) ? Number(rawPageSize) : NaN;
    if (!(pageSize >= 1 && pageSize <= limits.maxPageSize)) {
      throw badRequest(`pageSize must be an integer between 1 and ${limits.maxPageSize}`);
    }
  }
  const token = param("nextToken");
  return {
    filter: {
      afterMs: date("afterDate"),
      beforeMs: date("beforeDate"),
      container: param("container"),
      runId: param("runId"),
      search: param("search"),
      stream: oneOf<LogStream>("stream", ["stdout", "stderr"]),
    },
    direction,
    pageSize,
    cursor: token === undefined ? undefined : decodeCursor(token, direction),
  };
}

const appLogs: Handler = (ctx) => {
  const store = ctx.state.appLogs(ctx.params.projectId, ctx.params.appId);
  const { filter, direction, pageSize, cursor } = parseLogsQuery(ctx.query, ctx.limits);
  const page = store.page(filter, direction, pageSize, cursor);
  const nextPageToken = page.hasMore && page.last ? encodeCursor(direction, page.last) : undefined;
  return ctx.dialect.logPage({ lines: page.lines, hasMore: page.hasMore, nextPageToken });
};

// ---- GET /v2/projects/{project_id}/apps/{app_id}/builds/{build_id}/logs ----

const buildLogs: Handler = (ctx) => {
  const { projectId, appId, buildId } = ctx.params;
  return ctx.dialect.buildLogs(ctx.state.requireBuild(projectId, appId, buildId));
};

// ---- PATCH /v2/projects/{project_id}/apps/{app_id}/secrets ----

const updateSecrets: Handler = (ctx) => {
  const { projectId, appId } = ctx.params;
  ctx.state.requireApp(projectId, appId);
  const body = ctx.json();
  if (!isPlainObject(body)) {
    throw unprocessable("request body must be a JSON object mapping secret names to string values");
  }
  for (const [key, value] of Object.entries(body)) {
    if (!SECRET_NAME.test(key))
      throw unprocessable(`secret name ${JSON.stringify(key)} must match ${SECRET_NAME.source}`);
    if (typeof value !== "string") throw unprocessable(`secret ${key} must be a string`);
  }
  ctx.state.updateSecrets(projectId, appId, body as Record<string, string>);
  return ctx.dialect.secretsUpdated();
};

// ---- DELETE /v2/projects/{project_id}/apps/{app_id}/runs/{run_id} ----

const cancelRun: Handler = (ctx) => {
  const { projectId, appId, runId } = ctx.params;
  const run = ctx.state.requireRun(projectId, appId, runId);
  if (run.status !== "running") {
    throw new HttpError(409, `run ${runId} has already finished (status: ${run.status})`);
  }
  run.status = "cancelled";
  return ctx.dialect.runCancelled(runId);
};

// ---- the table ----

function route(method: string, pattern: string, handler: Handler): Route {
  return { method, segments: pattern.split("/").slice(1), handler };
}

const ROUTES: readonly Route[] = [
  route("GET", "/v2/projects/:projectId/api-keys", listApiKeys),
  route("POST", "/v2/projects/:projectId/service-accounts", createServiceAccount),
  route("DELETE", "/v2/projects/:projectId/service-accounts/:accountId", deleteServiceAccount),
  route("PATCH", "/v2/projects/:projectId/volumes/:volumeId/resize", resizeVolume),
  route("POST", "/v2/projects", createProject),
  route("GET", "/v2/projects/:projectId/invoices", listInvoices),
  route("GET", "/v2/projects/:projectId/apps/:appId/logs", appLogs),
  route("GET", "/v2/projects/:projectId/apps/:appId/builds/:buildId/logs", buildLogs),
  route("PATCH", "/v2/projects/:projectId/apps/:appId/secrets", updateSecrets),
  route("DELETE", "/v2/projects/:projectId/apps/:appId/runs/:runId", cancelRun),
];

function matchSegments(pattern: string[], actual: string[]): Record<string, string> | undefined {
  if (pattern.length !== actual.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i].startsWith(":")) {
      if (actual[i] === "") return undefined;
      params[pattern[i].slice(1)] = actual[i];
    } else if (pattern[i] !== actual[i]) {
      return undefined;
    }
  }
  return params;
}

/** Finds the route for a request; throws 400 for a pathname with malformed percent-encoding. */
export function matchRoute(method: string, pathname: string): RouteMatch {
  let segments: string[];
  try {
    segments = pathname.split("/").slice(1).map(decodeURIComponent);
  } catch {
    throw badRequest("malformed percent-encoding in path");
  }
  const allowed: string[] = [];
  for (const candidate of ROUTES) {
    const params = matchSegments(candidate.segments, segments);
    if (!params) continue;
    if (candidate.method === method) return { kind: "found", handler: candidate.handler, params };
    allowed.push(candidate.method);
  }
  return allowed.length ? { kind: "wrongMethod", allowed } : { kind: "none" };
}
