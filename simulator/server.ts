/**
 * PimsSimulator: a real HTTP server (node:http) that implements the PIMS interface with in-memory state, two
 * profiles of wording (dialect.ts), fault injection, a rate limit and a request log, for tests, the benchmark and
 * local demos. See README.md.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { DefaultDialect, type Dialect, type SimulatorProfile } from "./dialect";
import { Faults } from "./faults";
import {
  profileFromEnv,
  tokenLayoutFromEnv,
  type FaultRule,
  type RequestLogEntry,
  type SimulatorOptions,
  type SimulatorStats,
} from "./options";
import { QuirkyDialect } from "./quirky";
import { RateLimiter, type RateLimit } from "./rateLimit";
import { RequestPipeline } from "./pipeline";
import {
  type GenerateLogsOptions,
  type LogSeedLine,
  type SecretsMode,
  type SeedServiceAccount,
  type SimApp,
  type SimBuild,
  type SimProject,
  type SimRun,
  type SimRunStatus,
  type SimServiceAccount,
  type SimVolume,
  SimState,
} from "./state";
import type { TokenLayoutMode, TokenLayoutName } from "./tokenLayouts";
import type { ApiKey, AppLogLine, Invoice } from "./types";
import { methodMatches, pathMatches, randomHex } from "./util";

export type {
  FaultRule,
  RateLimit,
  RequestLogEntry,
  SimulatorOptions,
  SimulatorProfile,
  SimulatorStats,
  TokenLayoutMode,
  TokenLayoutName,
};
export type {
  GenerateLogsOptions,
  LogSeedLine,
  SecretsMode,
  SeedServiceAccount,
  SimApp,
  SimBuild,
  SimProject,
  SimRun,
  SimRunStatus,
  SimServiceAccount,
  SimVolume,
};
export { profileFromEnv, tokenLayoutFromEnv } from "./options";
export { READABLE_TOKEN_LAYOUT_NAMES, TOKEN_LAYOUTS, UNREADABLE_TOKEN_LAYOUT_NAMES } from "./tokenLayouts";

export class PimsSimulator {
  readonly baseUrl: string;
  readonly token: string;
  readonly requests: RequestLogEntry[] = [];
  readonly profile: SimulatorProfile;

  private readonly state: SimState;
  private readonly dialect: Dialect;
  private readonly faultSet = new Faults();
  private readonly rateLimiter: RateLimiter;
  private readonly pipeline: RequestPipeline;
  private stopped = false;

  private constructor(
    private readonly server: Server,
    host: string,
    token: string,
    opts: SimulatorOptions,
  ) {
    const { port } = server.address() as AddressInfo;
    this.baseUrl = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
    this.token = token;
    this.state = new SimState(token, opts.secretsMode ?? "merge");
    this.profile = opts.profile ?? profileFromEnv() ?? "default";
    const layout = opts.tokenLayout ?? tokenLayoutFromEnv();
    const accounts = this.state.accounts;
    this.dialect =
      this.profile === "quirky"
        ? new QuirkyDialect(accounts, layout, opts.tokenLayoutSeed)
        : new DefaultDialect(accounts, layout, opts.tokenLayoutSeed);
    this.rateLimiter = new RateLimiter(opts.rateLimit);
    const limits = { maxPageSize: opts.maxPageSize ?? 1000, defaultPageSize: opts.defaultPageSize ?? 200 };
    const { state, dialect, faultSet: faults, rateLimiter, requests } = this;
    this.pipeline = new RequestPipeline({ state, dialect, faults, rateLimiter, limits, requests });
    server.on("request", (req, res) => void this.pipeline.handle(req, res));
  }

  /**
   * Starts a simulator on a free port (or `port`). The profile comes from the option, else PIMS_SIM_PROFILE, else
   * "default"; an unknown value in the environment is an error.
   */
  static async start(opts: SimulatorOptions = {}): Promise<PimsSimulator> {
    profileFromEnv();
    tokenLayoutFromEnv();
    const host = opts.host ?? "127.0.0.1";
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(opts.port ?? 0, host, () => {
        server.off("error", reject);
        resolve();
      });
    });
    return new PimsSimulator(server, host, opts.token ?? `pims_admin_${randomHex(32)}`, opts);
  }

  /** Closes the server and every open socket (keep-alive ones included); pending delayed requests are dropped. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.pipeline.cancelDelays();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await closed;
  }

  // ---- seeding ----

  addProject(p?: { id?: string; name?: string; protected?: boolean }): SimProject {
    return this.state.addProject(p);
  }
  addApp(projectId: string, appName: string): SimApp {
    return this.state.addApp(projectId, appName);
  }
  addVolume(projectId: string, v: { id?: string; sizeGb: number }): SimVolume {
    return this.state.addVolume(projectId, v);
  }
  addRun(projectId: string, appId: string, r?: { id?: string; status?: SimRunStatus }): SimRun {
    return this.state.addRun(projectId, appId, r);
  }
  addLogs(projectId: string, appId: string, lines: LogSeedLine[]): AppLogLine[] {
    return this.state.addLogs(projectId, appId, lines);
  }
  generateLogs(projectId: string, appId: string, count: number, opts?: GenerateLogsOptions): void {
    this.state.generateLogs(projectId, appId, count, opts);
  }
  addBuild(
    projectId: string,
    appId: string,
    b: { id?: string; status: string; logs?: Array<{ createdAt?: string; log: string }> },
  ): SimBuild {
    return this.state.addBuild(projectId, appId, b);
  }
  setBuildStatus(projectId: string, appId: string, buildId: string, status: string, appendLogs?: string[]): void {
    this.state.setBuildStatus(projectId, appId, buildId, status, appendLogs);
  }
  addInvoice(projectId: string, inv?: Partial<Invoice>): Invoice {
    return this.state.addInvoice(projectId, inv);
  }
  addApiKey(projectId: string, k?: Partial<ApiKey>): ApiKey {
    return this.state.addApiKey(projectId, k);
  }
  /**
   * Seeds a live service account with a chosen id and token secret (both optional), as if
   * `POST /v2/projects/{project_id}/service-accounts` had created it: it is listed by serviceAccounts() and by the
   * API-key list, its secret is a valid bearer token (and counted in issuedSecrets()), and
   * `DELETE /v2/projects/{project_id}/service-accounts/{id}` deletes it. Returns the stored view (without the secret).
   */
  addServiceAccount(s: SeedServiceAccount): SimServiceAccount {
    return this.state.addServiceAccount(s);
  }
  setSecretsMode(mode: SecretsMode): void {
    this.state.secretsMode = mode;
  }

  // ---- inspection ----

  clearRequests(): void {
    this.requests.length = 0;
  }
  countRequests(filter: { method?: string; path?: string | RegExp } = {}): number {
    return this.requests.filter((r) => methodMatches(filter.method, r.method) && pathMatches(filter.path, r.path))
      .length;
  }
  projects(): SimProject[] {
    return this.state.projects();
  }
  project(id: string): SimProject | undefined {
    return this.state.project(id);
  }
  serviceAccounts(projectId?: string): SimServiceAccount[] {
    return this.state.serviceAccounts(projectId);
  }
  deletedServiceAccounts(): string[] {
    return this.state.deletedServiceAccounts();
  }
  volumes(projectId?: string): SimVolume[] {
    return this.state.volumes(projectId);
  }
  volume(projectId: string, volumeId: string): SimVolume | undefined {
    return this.state.volume(projectId, volumeId);
  }
  appSecrets(projectId: string, appId: string): Record<string, string> {
    return this.state.appSecrets(projectId, appId);
  }
  runs(): SimRun[] {
    return this.state.runs();
  }
  builds(): SimBuild[] {
    return this.state.builds();
  }
  issuedSecrets(): string[] {
    return this.state.issuedSecrets();
  }
  /** The token layout a service account created over HTTP was answered with. */
  tokenLayoutOf(accountId: string): TokenLayoutName | undefined {
    return this.dialect.tokenLayoutOf(accountId);
  }
  stats(): SimulatorStats {
    return this.pipeline.stats();
  }
  resetStats(): void {
    this.pipeline.resetStats();
  }

  // ---- profile, faults, rate limit and clock ----

  /** Layout of the token in later service-account creation answers (see README.md). */
  setTokenLayout(mode: TokenLayoutMode, seed?: number): void {
    this.dialect.setTokenLayout(mode, seed);
  }
  addFault(rule: FaultRule): void {
    this.faultSet.add(rule);
  }
  clearFaults(): void {
    this.faultSet.clear();
  }
  /** Sets (or with undefined removes) the rate limit; every bucket starts full. */
  setRateLimit(limit: RateLimit | undefined): void {
    this.rateLimiter.set(limit);
  }
  rateLimit(): RateLimit | undefined {
    return this.rateLimiter.current;
  }
  /**
   * Removes a project as if it had been deleted outside any tool: every route under it answers 404 afterwards; the
   * service accounts it owns are deleted (their tokens stop working, their API keys are gone).
   */
  removeProject(projectId: string): void {
    this.state.removeProject(projectId);
  }
  now(): Date {
    return this.state.now();
  }
  /** A listing that lags: accounts created less than `ms` ago (simulator clock) are left out of their API keys. */
  setListingLag(ms: number): void {
    this.state.accounts.listingLagMs = ms;
  }
  /** What an account's key shows as `apiKey` (the seed does not say): masked (default), full token, or a decoy. */
  setApiKeyValues(mode: "masked" | "full" | "decoy"): void {
    this.state.accounts.apiKeyValues = mode;
  }
  advanceClock(ms: number): void {
    this.state.advanceClock(ms);
  }
}
