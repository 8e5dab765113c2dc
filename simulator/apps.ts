/** One app's records in the simulator: its secrets, log lines, builds and runs, and how tests seed them. */
import { LogStore } from "./logStore";
import type { AppLogLine, BuildLogEntry, LogStream } from "./types";
import { parseRfc3339, randomHex } from "./util";

export type SimRunStatus = "running" | "finished" | "cancelled";

export interface SimApp {
  /** `${projectId}-${name}` */
  id: string;
  projectId: string;
  name: string;
  createdAt: string;
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

const DEFAULT_RUN_ID = "run-00000000";

/** Deterministic container id for a container name, e.g. `web` -> `ctr-web-3f2a9c`. */
function containerIdFor(appId: string, name: string): string {
  let h = 2166136261;
  for (const ch of `${appId}/${name}`) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
  return `ctr-${name}-${h.toString(16).padStart(8, "0").slice(0, 6)}`;
}

function freshId(make: () => string, taken: (candidate: string) => boolean): string {
  for (;;) {
    const candidate = make();
    if (!taken(candidate)) return candidate;
  }
}

export class AppState {
  readonly record: SimApp;
  secrets: Record<string, string> = {};
  readonly logs: LogStore;
  readonly builds = new Map<string, SimBuild>();
  readonly runs = new Map<string, SimRun>();

  constructor(
    projectId: string,
    id: string,
    name: string,
    private readonly now: () => Date,
  ) {
    this.record = { id, projectId, name, createdAt: now().toISOString() };
    this.logs = new LogStore(projectId, id);
  }

  addRun(r: { id?: string; status?: SimRunStatus } = {}): SimRun {
    const id =
      r.id ??
      freshId(
        () => `run-${randomHex(8)}`,
        (c) => this.runs.has(c),
      );
    if (this.runs.has(id)) throw new Error(`run ${id} already exists in app ${this.record.id}`);
    const { projectId, id: appId } = this.record;
    const record: SimRun = { id, projectId, appId, status: r.status ?? "running", createdAt: this.now().toISOString() };
    this.runs.set(id, record);
    return record;
  }

  addLogs(lines: LogSeedLine[]): AppLogLine[] {
    const runId = this.defaultRunId();
    return lines.map((line) => {
      const parsed = line.timestamp === undefined ? undefined : parseRfc3339(line.timestamp);
      if (line.timestamp !== undefined && parsed === undefined) {
        throw new Error(`invalid log timestamp ${line.timestamp}`);
      }
      const ts = parsed ?? Math.max(this.now().getTime(), (this.logs.newestTs() ?? -Infinity) + 1);
      const containerName = line.containerName ?? line.containerId ?? "web";
      return this.logs.append({
        ts,
        tsText:
          line.timestamp !== undefined && line.timestamp !== new Date(ts).toISOString() ? line.timestamp : undefined,
        logId: line.logId,
        lineNumber: line.lineNumber,
        containerId: line.containerId ?? containerIdFor(this.record.id, containerName),
        containerName,
        runId: line.runId ?? runId,
        stream: line.stream ?? "stdout",
        text: line.logLine,
      });
    });
  }

  generateLogs(count: number, opts: GenerateLogsOptions = {}): void {
    const stepMs = opts.stepMs ?? 1000;
    const start = opts.startTime?.getTime() ?? this.now().getTime() - (count - 1) * stepMs;
    const containers = (opts.containers?.length ? opts.containers : ["web"]).map((name) => ({
      name,
      id: containerIdFor(this.record.id, name),
    }));
    const runIds = opts.runIds?.length ? opts.runIds : [this.defaultRunId()];
    for (let i = 0; i < count; i++) {
      const container = containers[i % containers.length];
      const stream: LogStream = i % 10 === 9 ? "stderr" : "stdout";
      this.logs.appendQuiet({
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

  private defaultRunId(): string {
    let newest: string | undefined;
    for (const id of this.runs.keys()) newest = id;
    return newest ?? DEFAULT_RUN_ID;
  }

  addBuild(b: { id?: string; status: string; logs?: Array<{ createdAt?: string; log: string }> }): SimBuild {
    const id =
      b.id ??
      freshId(
        () => `build-${randomHex(8)}`,
        (c) => this.builds.has(c),
      );
    if (this.builds.has(id)) throw new Error(`build ${id} already exists in app ${this.record.id}`);
    const { projectId, id: appId } = this.record;
    const record: SimBuild = { id, projectId, appId, status: b.status, createdAt: this.now().toISOString(), logs: [] };
    this.builds.set(id, record);
    for (const entry of b.logs ?? []) this.appendBuildLog(record, entry.log, entry.createdAt);
    return record;
  }

  setBuildStatus(buildId: string, status: string, appendLogs: string[] = []): void {
    const build = this.builds.get(buildId);
    if (!build) throw new Error(`build ${buildId} does not exist in app ${this.record.id}`);
    build.status = status;
    for (const log of appendLogs) this.appendBuildLog(build, log);
  }

  private appendBuildLog(build: SimBuild, log: string, createdAt?: string): void {
    build.logs.push({
      id: `${build.id}-${build.logs.length + 1}`,
      createdAt: createdAt ?? this.now().toISOString(),
      log,
    });
  }
}
