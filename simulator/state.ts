/** The simulator's in-memory state and the domain operations on it (no HTTP here). */
import type {
  ApiKey,
  AppLogLine,
  BuildLogEntry,
  Invoice,
  LogStream,
  ServiceAccount,
} from "../provider/client/types";
import { LogStore } from "./logStore";
import { HttpError, notFound, parseRfc3339, randomHex } from "./util";

export type SecretsMode = "merge" | "replace";
export type SimRunStatus = "running" | "finished" | "cancelled";

export interface SimProject {
  id: string;
  name: string;
  /** Protected projects may have volumes above 1024 GB. */
  protected: boolean;
  createdAt: string;
}

export interface SimApp {
  /** `${projectId}-${name}` */
  id: string;
  projectId: string;
  name: string;
  createdAt: string;
}

export interface SimVolume {
  id: string;
  projectId: string;
  sizeGb: number;
}

export interface SimRun {
  id: string;
  projectId: string;
  appId: string;
  status: SimRunStatus;
  createdAt: string;
}

export interface SimBuildLogEntry extends BuildLogEntry {
  id: string;
}

export interface SimBuild {
  id: string;
  projectId: string;
  appId: string;
  status: string;
  createdAt: string;
  logs: SimBuildLogEntry[];
}

/** A live service account as the simulator holds it (never with its secret). */
export type SimServiceAccount = Omit<ServiceAccount, "token"> & {
  tokenId: string;
  tokenExpiresAt: string;
  deleted?: false;
};

/** Who made a request. */
export type Principal = { kind: "admin" } | { kind: "serviceAccount"; accountId: string };

export interface LogSeedLine extends Partial<AppLogLine> {
  logLine: string;
}

export interface GenerateLogsOptions {
  /** Container names; lines rotate over them. Default `["web"]`. */
  containers?: string[];
  /** Run ids; the lines are split into consecutive blocks, one per run. Default: the app's newest run. */
  runIds?: string[];
  /** Timestamp of the first line. Default: so that the last line is at the simulator's now. */
  startTime?: Date;
  /** Milliseconds between lines. Default 1000. */
  stepMs?: number;
}

/** Validated body of operation 2. */
export interface NewServiceAccount {
  name: string;
  description: string;
  grants: string[];
  expiresIn: number;
}

/** What {@link SimState.addServiceAccount} seeds. */
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

interface AppState {
  record: SimApp;
  secrets: Record<string, string>;
  logs: LogStore;
  builds: Map<string, SimBuild>;
  runs: Map<string, SimRun>;
}

interface ProjectState {
  record: SimProject;
  apps: Map<string, AppState>;
  volumes: Map<string, SimVolume>;
  invoices: Invoice[];
  apiKeys: ApiKey[];
}

interface AccountState {
  account: Omit<ServiceAccount, "token">;
  tokenId: string;
  tokenExpiresAt: string;
  secret: string;
  deleted: boolean;
}

const NEVER = "never";
const DEFAULT_RUN_ID = "run-00000000";

/** Deterministic container id for a container name, e.g. `web` -> `ctr-web-3f2a9c`. */
function containerIdFor(appId: string, name: string): string {
  let h = 2166136261;
  for (const ch of `${appId}/${name}`) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
  return `ctr-${name}-${h.toString(16).padStart(8, "0").slice(0, 6)}`;
}

function expiryMs(expiresAt: string): number {
  return expiresAt === NEVER ? Infinity : (parseRfc3339(expiresAt) ?? Infinity);
}

export class SimState {
  secretsMode: SecretsMode;
  private clockOffsetMs = 0;
  private readonly projectsById = new Map<string, ProjectState>();
  /** Every account ever created, deleted ones included, by id. */
  private readonly accounts = new Map<string, AccountState>();
  private readonly accountIdBySecret = new Map<string, string>();
  private readonly issued: string[] = [];

  constructor(
    readonly adminToken: string,
    secretsMode: SecretsMode,
  ) {
    this.secretsMode = secretsMode;
    this.issued.push(adminToken);
  }

  // ---- clock ----

  now(): Date {
    return new Date(Date.now() + this.clockOffsetMs);
  }

  advanceClock(ms: number): void {
    this.clockOffsetMs += ms;
  }

  private nowIso(): string {
    return this.now().toISOString();
  }

  // ---- auth ----

  authenticate(token: string | undefined): Principal | undefined {
    if (token === undefined) return undefined;
    if (token === this.adminToken) return { kind: "admin" };
    const accountId = this.accountIdBySecret.get(token);
    const state = accountId === undefined ? undefined : this.accounts.get(accountId);
    if (!state || state.deleted || this.isExpired(state.tokenExpiresAt)) return undefined;
    return { kind: "serviceAccount", accountId: state.account.id };
  }

  private isExpired(expiresAt: string): boolean {
    return this.now().getTime() >= expiryMs(expiresAt);
  }

  // ---- lookups that fail with 404 (used by routes) ----

  requireProject(projectId: string): ProjectState {
    const project = this.projectsById.get(projectId);
    if (!project) throw notFound("project", projectId);
    return project;
  }

  requireApp(projectId: string, appId: string): AppState {
    const app = this.requireProject(projectId).apps.get(appId);
    if (!app) throw notFound("app", appId);
    return app;
  }

  requireVolume(projectId: string, volumeId: string): SimVolume {
    const volume = this.requireProject(projectId).volumes.get(volumeId);
    if (!volume) throw notFound("volume", volumeId);
    return volume;
  }

  requireBuild(projectId: string, appId: string, buildId: string): SimBuild {
    const build = this.requireApp(projectId, appId).builds.get(buildId);
    if (!build) throw notFound("build", buildId);
    return build;
  }

  requireRun(projectId: string, appId: string, runId: string): SimRun {
    const run = this.requireApp(projectId, appId).runs.get(runId);
    if (!run) throw notFound("run", runId);
    return run;
  }

  appLogs(projectId: string, appId: string): LogStore {
    return this.requireApp(projectId, appId).logs;
  }

  // ---- projects, apps, volumes ----

  addProject(p: { id?: string; name?: string; protected?: boolean } = {}): SimProject {
    const id = p.id ?? this.freshId(() => `p-${randomHex(8)}`, (c) => this.projectsById.has(c));
    if (this.projectsById.has(id)) throw new Error(`project ${id} already exists`);
    const record: SimProject = {
      id,
      name: p.name ?? `project-${id}`,
      protected: p.protected ?? false,
      createdAt: this.nowIso(),
    };
    this.projectsById.set(id, { record, apps: new Map(), volumes: new Map(), invoices: [], apiKeys: [] });
    return record;
  }

  addApp(projectId: string, appName: string): SimApp {
    const project = this.seedProject(projectId);
    const id = `${projectId}-${appName}`;
    return (project.apps.get(id) ?? this.createApp(project, id, appName)).record;
  }

  private createApp(project: ProjectState, id: string, name: string): AppState {
    const projectId = project.record.id;
    const app: AppState = {
      record: { id, projectId, name, createdAt: this.nowIso() },
      secrets: {},
      logs: new LogStore(projectId, id),
      builds: new Map(),
      runs: new Map(),
    };
    project.apps.set(id, app);
    return app;
  }

  addVolume(projectId: string, v: { id?: string; sizeGb: number }): SimVolume {
    const project = this.seedProject(projectId);
    const id =
      v.id ??
      (project.volumes.has("default-us-east-1")
        ? this.freshId(() => `vol-${randomHex(6)}-us-east-1`, (c) => project.volumes.has(c))
        : "default-us-east-1");
    if (project.volumes.has(id)) throw new Error(`volume ${id} already exists in project ${projectId}`);
    const record: SimVolume = { id, projectId, sizeGb: v.sizeGb };
    project.volumes.set(id, record);
    return record;
  }

  resizeVolume(volume: SimVolume, newSizeGb: number): void {
    volume.sizeGb = newSizeGb;
  }

  // ---- runs ----

  addRun(projectId: string, appId: string, r: { id?: string; status?: SimRunStatus } = {}): SimRun {
    const app = this.seedApp(projectId, appId);
    const id = r.id ?? this.freshId(() => `run-${randomHex(8)}`, (c) => app.runs.has(c));
    if (app.runs.has(id)) throw new Error(`run ${id} already exists in app ${appId}`);
    const record: SimRun = { id, projectId, appId, status: r.status ?? "running", createdAt: this.nowIso() };
    app.runs.set(id, record);
    return record;
  }

  // ---- logs ----

  addLogs(projectId: string, appId: string, lines: LogSeedLine[]): AppLogLine[] {
    const app = this.seedApp(projectId, appId);
    const runId = this.defaultRunId(app);
    return lines.map((line) => {
      const parsed = line.timestamp === undefined ? undefined : parseRfc3339(line.timestamp);
      if (line.timestamp !== undefined && parsed === undefined) {
        throw new Error(`invalid log timestamp ${line.timestamp}`);
      }
      const ts = parsed ?? Math.max(this.now().getTime(), (app.logs.newestTs() ?? -Infinity) + 1);
      const containerName = line.containerName ?? line.containerId ?? "web";
      return app.logs.append({
        ts,
        tsText: line.timestamp !== undefined && line.timestamp !== new Date(ts).toISOString() ? line.timestamp : undefined,
        logId: line.logId,
        lineNumber: line.lineNumber,
        containerId: line.containerId ?? containerIdFor(appId, containerName),
        containerName,
        runId: line.runId ?? runId,
        stream: line.stream ?? "stdout",
        text: line.logLine,
      });
    });
  }

  generateLogs(projectId: string, appId: string, count: number, opts: GenerateLogsOptions = {}): void {
    const app = this.seedApp(projectId, appId);
    const stepMs = opts.stepMs ?? 1000;
    const start = opts.startTime?.getTime() ?? this.now().getTime() - (count - 1) * stepMs;
    const containers = (opts.containers?.length ? opts.containers : ["web"]).map((name) => ({
      name,
      id: containerIdFor(appId, name),
    }));
    const runIds = opts.runIds?.length ? opts.runIds : [this.defaultRunId(app)];
    for (let i = 0; i < count; i++) {
      const container = containers[i % containers.length];
      const stream: LogStream = i % 10 === 9 ? "stderr" : "stdout";
      app.logs.appendQuiet({
        ts: start + i * stepMs,
        containerId: container.id,
        containerName: container.name,
        runId: runIds[Math.floor((i * runIds.length) / count)],
        stream,
        text:
          stream === "stderr"
            ? `error: simulated failure #${i}`
            : `GET /api/items/${i % 97} 200 ${(i * 7) % 50}ms (line ${i})`,
      });
    }
  }

  private defaultRunId(app: AppState): string {
    let newest: string | undefined;
    for (const id of app.runs.keys()) newest = id;
    return newest ?? DEFAULT_RUN_ID;
  }

  // ---- builds ----

  addBuild(
    projectId: string,
    appId: string,
    b: { id?: string; status: string; logs?: Array<{ createdAt?: string; log: string }> },
  ): SimBuild {
    const app = this.seedApp(projectId, appId);
    const id = b.id ?? this.freshId(() => `build-${randomHex(8)}`, (c) => app.builds.has(c));
    if (app.builds.has(id)) throw new Error(`build ${id} already exists in app ${appId}`);
    const record: SimBuild = { id, projectId, appId, status: b.status, createdAt: this.nowIso(), logs: [] };
    app.builds.set(id, record);
    for (const entry of b.logs ?? []) this.appendBuildLog(record, entry.log, entry.createdAt);
    return record;
  }

  setBuildStatus(projectId: string, appId: string, buildId: string, status: string, appendLogs: string[] = []): void {
    const build = this.seedApp(projectId, appId).builds.get(buildId);
    if (!build) throw new Error(`build ${buildId} does not exist in app ${appId}`);
    build.status = status;
    for (const log of appendLogs) this.appendBuildLog(build, log);
  }

  private appendBuildLog(build: SimBuild, log: string, createdAt?: string): void {
    build.logs.push({ id: `${build.id}-${build.logs.length + 1}`, createdAt: createdAt ?? this.nowIso(), log });
  }

  // ---- invoices and API keys ----

  addInvoice(projectId: string, inv: Partial<Invoice> = {}): Invoice {
    const project = this.seedProject(projectId);
    const id = inv.id ?? `in_${randomHex(16)}`;
    const invoice: Invoice = {
      id,
      accountCountry: "US",
      accountName: "Demo Account",
      amountDue: 1999,
      currency: "usd",
      createdAt: this.nowIso(),
      fileUrl: `https://invoices.example.com/${id}.pdf`,
      paymentStatus: "paid",
      ...inv,
    };
    project.invoices.push(invoice);
    return invoice;
  }

  invoices(projectId: string): Invoice[] {
    return this.requireProject(projectId).invoices;
  }

  addApiKey(projectId: string, k: Partial<ApiKey> = {}): ApiKey {
    const project = this.seedProject(projectId);
    const now = this.nowIso();
    const key: ApiKey = {
      id: `key-${randomHex(8)}`,
      name: `key-${project.apiKeys.length + 1}`,
      description: "",
      apiKey: `pims_...${randomHex(4)}`,
      projectId,
      source: "user",
      status: "active",
      createdAt: now,
      updatedAt: now,
      expiresAt: NEVER,
      ...k,
    };
    project.apiKeys.push(key);
    return key;
  }

  /** Keys of a project (seeded ones, then one per live service account), by expiresAt ascending, `never` last. */
  apiKeys(projectId: string): ApiKey[] {
    const project = this.requireProject(projectId);
    const accountKeys = [...this.accounts.values()]
      .filter((s) => !s.deleted && s.account.projectId === projectId)
      .map((s): ApiKey => ({
        id: s.tokenId,
        name: s.account.name,
        description: s.account.description,
        apiKey: `pims_...${s.secret.slice(-4)}`,
        projectId,
        principalId: s.account.id,
        source: "service_account",
        status: this.isExpired(s.tokenExpiresAt) ? "expired" : "active",
        createdAt: s.account.createdAt,
        updatedAt: s.account.createdAt,
        expiresAt: s.tokenExpiresAt,
      }));
    return [...project.apiKeys, ...accountKeys].sort((a, b) => {
      const x = expiryMs(a.expiresAt);
      const y = expiryMs(b.expiresAt);
      return x === y ? 0 : x < y ? -1 : 1;
    });
  }

  // ---- service accounts ----

  createServiceAccount(projectId: string, req: NewServiceAccount): ServiceAccount {
    this.requireProject(projectId);
    const state = this.storeAccount(projectId, req, {});
    const { account, tokenId: id, secret, tokenExpiresAt: expiresAt } = state;
    return { ...account, grants: [...account.grants], token: { id, secret, expiresAt } };
  }

  /**
   * Seeds a live service account, as if operation 2 had created it, with a chosen id and token (for tests that
   * must match ids and tokens stored elsewhere, e.g. in a Pulumi state). Throws (a programming error, not an HTTP
   * error) when the project or a granted project does not exist, when the id was ever used, or when the token
   * secret is already a valid token.
   */
  addServiceAccount(s: SeedServiceAccount): SimServiceAccount {
    this.seedProject(s.projectId);
    if (s.id !== undefined && this.accounts.has(s.id)) {
      throw new Error(`service account ${s.id} already exists${this.accounts.get(s.id)?.deleted ? " (deleted)" : ""}`);
    }
    const grants = s.grants ?? [s.projectId];
    for (const grant of grants) {
      if (!this.projectsById.has(grant)) throw new Error(`granted project ${grant} does not exist; call addProject first`);
    }
    if (new Set(grants).size !== grants.length) throw new Error(`grants must not contain duplicates: ${grants.join(", ")}`);
    const expiresIn = s.expiresIn ?? 0;
    if (!Number.isInteger(expiresIn) || expiresIn < 0) throw new Error(`expiresIn must be a non-negative integer, got ${expiresIn}`);
    if (s.tokenSecret !== undefined) {
      if (s.tokenSecret === "") throw new Error("tokenSecret must not be empty");
      if (s.tokenSecret === this.adminToken || this.accountIdBySecret.has(s.tokenSecret)) {
        throw new Error("tokenSecret is already the token of the admin or of a live service account");
      }
    }
    const request: NewServiceAccount = { name: s.name, description: s.description ?? "", grants, expiresIn };
    return this.view(this.storeAccount(s.projectId, request, { id: s.id, tokenId: s.tokenId, secret: s.tokenSecret }));
  }

  /** Stores a new live account (ids and secret chosen or fresh) and registers its token. */
  private storeAccount(
    projectId: string,
    req: NewServiceAccount,
    chosen: { id?: string; tokenId?: string; secret?: string },
  ): AccountState {
    const now = this.now();
    const id = chosen.id ?? this.freshId(() => `sa-${randomHex(12)}`, (c) => this.accounts.has(c));
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

  private view(s: AccountState): SimServiceAccount {
    return { ...s.account, grants: [...s.account.grants], tokenId: s.tokenId, tokenExpiresAt: s.tokenExpiresAt };
  }

  /** Deletes a live account of the project; 404 when there is none, 409 when it is the caller's own. */
  deleteServiceAccount(projectId: string, accountId: string, caller: Principal): void {
    this.requireProject(projectId);
    const state = this.accounts.get(accountId);
    if (!state || state.deleted || state.account.projectId !== projectId) throw notFound("service account", accountId);
    if (caller.kind === "serviceAccount" && caller.accountId === accountId) {
      throw new HttpError(409, "cannot delete the service account used by this request");
    }
    state.deleted = true;
    this.accountIdBySecret.delete(state.secret);
  }

  // ---- secrets ----

  updateSecrets(projectId: string, appId: string, secrets: Record<string, string>): void {
    const app = this.requireApp(projectId, appId);
    app.secrets = this.secretsMode === "merge" ? { ...app.secrets, ...secrets } : { ...secrets };
  }

  // ---- inspection ----

  projects(): SimProject[] {
    return [...this.projectsById.values()].map((p) => p.record);
  }

  project(id: string): SimProject | undefined {
    return this.projectsById.get(id)?.record;
  }

  serviceAccounts(projectId?: string): SimServiceAccount[] {
    return [...this.accounts.values()]
      .filter((s) => !s.deleted && (projectId === undefined || s.account.projectId === projectId))
      .map((s) => this.view(s));
  }

  deletedServiceAccounts(): string[] {
    return [...this.accounts.values()].filter((s) => s.deleted).map((s) => s.account.id);
  }

  volumes(projectId?: string): SimVolume[] {
    return [...this.projectsById.values()]
      .filter((p) => projectId === undefined || p.record.id === projectId)
      .flatMap((p) => [...p.volumes.values()]);
  }

  volume(projectId: string, volumeId: string): SimVolume | undefined {
    return this.projectsById.get(projectId)?.volumes.get(volumeId);
  }

  appSecrets(projectId: string, appId: string): Record<string, string> {
    const app = this.projectsById.get(projectId)?.apps.get(appId);
    if (!app) throw new Error(`app ${appId} does not exist in project ${projectId}`);
    return { ...app.secrets };
  }

  runs(): SimRun[] {
    return this.allApps().flatMap((a) => [...a.runs.values()]);
  }

  builds(): SimBuild[] {
    return this.allApps().flatMap((a) => [...a.builds.values()]);
  }

  issuedSecrets(): string[] {
    return [...this.issued];
  }

  // ---- helpers ----

  private allApps(): AppState[] {
    return [...this.projectsById.values()].flatMap((p) => [...p.apps.values()]);
  }

  /** A project for seeding: a programming error (thrown, not an HTTP error) when it does not exist. */
  private seedProject(projectId: string): ProjectState {
    const project = this.projectsById.get(projectId);
    if (!project) throw new Error(`project ${projectId} does not exist; call addProject first`);
    return project;
  }

  /** An app for seeding, created on first use (its name is the app id without the `${projectId}-` prefix). */
  private seedApp(projectId: string, appId: string): AppState {
    const project = this.seedProject(projectId);
    const prefix = `${projectId}-`;
    const name = appId.startsWith(prefix) ? appId.slice(prefix.length) : appId;
    return project.apps.get(appId) ?? this.createApp(project, appId, name);
  }

  private freshId(make: () => string, taken: (candidate: string) => boolean): string {
    for (;;) {
      const candidate = make();
      if (!taken(candidate)) return candidate;
    }
  }
}
