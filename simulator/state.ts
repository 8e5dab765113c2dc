/** The simulator's in-memory state and the domain operations on it (no HTTP here). */
import {
  AccountStore,
  NEVER,
  expiryMs,
  type AccountState,
  type ChosenAccountIds,
  type NewServiceAccount,
  type Principal,
  type SeedServiceAccount,
  type SimServiceAccount,
} from "./accounts";
import {
  AppState,
  type GenerateLogsOptions,
  type LogSeedLine,
  type SimApp,
  type SimBuild,
  type SimRun,
  type SimRunStatus,
} from "./apps";
import type { LogStore } from "./logStore";
import type { ApiKey, AppLogLine, Invoice } from "./types";
import { notFound, randomHex } from "./util";

export type { AccountState, NewServiceAccount, Principal, SeedServiceAccount, SimServiceAccount };
export type { AppState, GenerateLogsOptions, LogSeedLine, SimApp, SimBuild, SimRun, SimRunStatus };

export type SecretsMode = "merge" | "replace";
export interface SimProject {
  id: string;
  name: string;
  /** Protected projects may have volumes above 1024 GB. */
  protected: boolean;
  createdAt: string;
}

export interface SimVolume {
  id: string;
  projectId: string;
  sizeGb: number;
}

interface ProjectState {
  record: SimProject;
  apps: Map<string, AppState>;
  volumes: Map<string, SimVolume>;
  invoices: Invoice[];
  apiKeys: ApiKey[];
}

export class SimState {
  secretsMode: SecretsMode;
  private clockOffsetMs = 0;
  private readonly projectsById = new Map<string, ProjectState>();
  readonly accounts: AccountStore;

  constructor(
    readonly adminToken: string,
    secretsMode: SecretsMode,
  ) {
    this.secretsMode = secretsMode;
    this.accounts = new AccountStore(adminToken, () => this.now());
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
    return this.accounts.authenticate(token);
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
    const id =
      p.id ??
      this.freshId(
        () => `p-${randomHex(8)}`,
        (c) => this.projectsById.has(c),
      );
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
    const app = new AppState(project.record.id, id, name, () => this.now());
    project.apps.set(id, app);
    return app;
  }

  addVolume(projectId: string, v: { id?: string; sizeGb: number }): SimVolume {
    const project = this.seedProject(projectId);
    const id =
      v.id ??
      (project.volumes.has("default-us-east-1")
        ? this.freshId(
            () => `vol-${randomHex(6)}-us-east-1`,
            (c) => project.volumes.has(c),
          )
        : "default-us-east-1");
    if (project.volumes.has(id)) throw new Error(`volume ${id} already exists in project ${projectId}`);
    const record: SimVolume = { id, projectId, sizeGb: v.sizeGb };
    project.volumes.set(id, record);
    return record;
  }

  resizeVolume(volume: SimVolume, newSizeGb: number): void {
    volume.sizeGb = newSizeGb;
  }

  // ---- runs, logs and builds (seeding) ----

  addRun(projectId: string, appId: string, r: { id?: string; status?: SimRunStatus } = {}): SimRun {
    return this.seedApp(projectId, appId).addRun(r);
  }

  addLogs(projectId: string, appId: string, lines: LogSeedLine[]): AppLogLine[] {
    return this.seedApp(projectId, appId).addLogs(lines);
  }

  generateLogs(projectId: string, appId: string, count: number, opts: GenerateLogsOptions = {}): void {
    this.seedApp(projectId, appId).generateLogs(count, opts);
  }

  addBuild(
    projectId: string,
    appId: string,
    b: { id?: string; status: string; logs?: Array<{ createdAt?: string; log: string }> },
  ): SimBuild {
    return this.seedApp(projectId, appId).addBuild(b);
  }

  setBuildStatus(projectId: string, appId: string, buildId: string, status: string, appendLogs: string[] = []): void {
    this.seedApp(projectId, appId).setBuildStatus(buildId, status, appendLogs);
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
    const accountKeys = this.accounts.apiKeys(projectId);
    return [...project.apiKeys, ...accountKeys].sort((a, b) => {
      const x = expiryMs(a.expiresAt);
      const y = expiryMs(b.expiresAt);
      return x === y ? 0 : x < y ? -1 : 1;
    });
  }

  // ---- service accounts ----

  /** Stores a new account for `POST /v2/projects/{project_id}/service-accounts`; the route renders the answer. */
  createServiceAccount(projectId: string, req: NewServiceAccount, chosen: ChosenAccountIds = {}): AccountState {
    this.requireProject(projectId);
    return this.accounts.store(projectId, req, chosen);
  }

  /**
   * Seeds a live service account, as if it had been created over HTTP, with a chosen id and token (for tests that
   * must match ids and tokens stored elsewhere, e.g. in a Pulumi state). Throws (a programming error, not an HTTP
   * error) when the project or a granted project does not exist, when the id was ever used, or when the token
   * secret is already a valid token.
   */
  addServiceAccount(s: SeedServiceAccount): SimServiceAccount {
    this.seedProject(s.projectId);
    const existing = s.id === undefined ? undefined : this.accounts.get(s.id);
    if (existing) throw new Error(`service account ${s.id} already exists${existing.deleted ? " (deleted)" : ""}`);
    const grants = s.grants ?? [s.projectId];
    for (const grant of grants) {
      if (!this.projectsById.has(grant))
        throw new Error(`granted project ${grant} does not exist; call addProject first`);
    }
    if (new Set(grants).size !== grants.length)
      throw new Error(`grants must not contain duplicates: ${grants.join(", ")}`);
    const expiresIn = s.expiresIn ?? 0;
    if (!Number.isInteger(expiresIn) || expiresIn < 0)
      throw new Error(`expiresIn must be a non-negative integer, got ${expiresIn}`);
    if (s.tokenSecret !== undefined) {
      if (s.tokenSecret === "") throw new Error("tokenSecret must not be empty");
      if (this.accounts.isLiveSecret(s.tokenSecret)) {
        throw new Error("tokenSecret is already the token of the admin or of a live service account");
      }
    }
    const request: NewServiceAccount = { name: s.name, description: s.description ?? "", grants, expiresIn };
    const chosen = { id: s.id, tokenId: s.tokenId, secret: s.tokenSecret };
    return this.accounts.view(this.accounts.store(s.projectId, request, chosen));
  }

  /** Deletes a live account of the project; 404 when there is none, 409 when it is the caller's own. */
  deleteServiceAccount(projectId: string, accountId: string, caller: Principal): void {
    this.requireProject(projectId);
    this.accounts.delete(projectId, accountId, caller);
  }

  /**
   * Removes a project as if it had been deleted outside any tool: every route under it answers 404 afterwards, and
   * the service accounts it owns are deleted (their tokens stop working, their API keys are gone).
   */
  removeProject(projectId: string): void {
    if (!this.projectsById.delete(projectId)) throw new Error(`project ${projectId} does not exist`);
    this.accounts.deleteAllOf(projectId);
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
    return this.accounts.live(projectId);
  }

  deletedServiceAccounts(): string[] {
    return this.accounts.deleted();
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
    return this.accounts.issuedSecrets();
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
