/**
 * Columnar, timestamp-sorted store of one app's log lines.
 *
 * Lines are kept as parallel arrays (numbers and the line text) instead of one object per line, so 100k lines
 * cost a few megabytes; containers and run ids are interned. Lines are ordered by (timestamp, seq), where seq
 * is the insertion counter, and a page cursor is that key: paging is a binary search to the cursor followed by
 * a linear scan, and stays correct when lines are appended between pages.
 */
import type { AppLogLine, LogDirection, LogStream } from "./types";

export interface LogInput {
  /** Milliseconds since the epoch. */
  ts: number;
  /** The timestamp text to return, when it is not `new Date(ts).toISOString()` (e.g. nanosecond precision). */
  tsText?: string;
  logId?: string;
  lineNumber?: number;
  containerId: string;
  containerName: string;
  runId: string;
  stream: LogStream;
  text: string;
}

export interface LogFilter {
  /** Only lines with a timestamp strictly after this (ms). */
  afterMs?: number;
  /** Only lines with a timestamp strictly before this (ms). */
  beforeMs?: number;
  /** Matches the container name or the container id. */
  container?: string;
  runId?: string;
  /** Case-sensitive substring of the line. */
  search?: string;
  stream?: LogStream;
}

/** Position of the last line returned: the next page starts strictly beyond it in the paging direction. */
export interface LogCursor {
  ts: number;
  seq: number;
}

export interface LogPageResult {
  lines: AppLogLine[];
  hasMore: boolean;
  /** Cursor of the last line in `lines`. */
  last?: LogCursor;
}

const STREAMS: readonly LogStream[] = ["stdout", "stderr"];

export class LogStore {
  private readonly ts: number[] = [];
  private readonly seq: number[] = [];
  private readonly lineNumber: number[] = [];
  private readonly container: number[] = [];
  private readonly run: number[] = [];
  private readonly stream: number[] = [];
  private readonly text: string[] = [];

  private readonly containers: Array<{ id: string; name: string }> = [];
  private readonly containerIndex = new Map<string, number>();
  private readonly runIds: string[] = [];
  private readonly runIndex = new Map<string, number>();
  /** Rarely used per-line values, keyed by seq. */
  private readonly logIdOverrides = new Map<number, string>();
  private readonly tsTextOverrides = new Map<number, string>();

  private nextSeq = 0;
  private sorted = true;

  constructor(
    readonly projectId: string,
    readonly appId: string,
  ) {}

  get size(): number {
    return this.ts.length;
  }

  /** Timestamp (ms) of the newest line, if any. */
  newestTs(): number | undefined {
    this.ensureSorted();
    return this.ts.length ? this.ts[this.ts.length - 1] : undefined;
  }

  /** Stores one line and returns it as the service would. */
  append(input: LogInput): AppLogLine {
    this.appendQuiet(input);
    return this.materialize(this.ts.length - 1);
  }

  /** Same as append, without building the returned object (for bulk generation). */
  appendQuiet(input: LogInput): void {
    const n = this.ts.length;
    if (n > 0 && input.ts < this.ts[n - 1]) this.sorted = false;
    const seq = this.nextSeq++;
    this.ts.push(input.ts);
    this.seq.push(seq);
    this.lineNumber.push(input.lineNumber ?? seq + 1);
    this.container.push(this.internContainer(input.containerId, input.containerName));
    this.run.push(this.internRun(input.runId));
    this.stream.push(STREAMS.indexOf(input.stream));
    this.text.push(input.text);
    if (input.logId !== undefined) this.logIdOverrides.set(seq, input.logId);
    if (input.tsText !== undefined) this.tsTextOverrides.set(seq, input.tsText);
  }

  /** One page of matching lines, newest first for `backward`, oldest first for `forward`. */
  page(filter: LogFilter, direction: LogDirection, pageSize: number, cursor?: LogCursor): LogPageResult {
    this.ensureSorted();
    const matches = this.compile(filter);
    if (!matches) return { lines: [], hasMore: false };

    let lo = filter.afterMs === undefined ? 0 : this.lowerBound(filter.afterMs + 1, 0);
    let hi = filter.beforeMs === undefined ? this.ts.length : this.lowerBound(filter.beforeMs, 0);
    if (cursor && direction === "forward") lo = Math.max(lo, this.lowerBound(cursor.ts, cursor.seq + 1));
    if (cursor && direction === "backward") hi = Math.min(hi, this.lowerBound(cursor.ts, cursor.seq));

    const picked: number[] = [];
    let hasMore = false;
    const step = direction === "forward" ? 1 : -1;
    for (let i = direction === "forward" ? lo : hi - 1; i >= lo && i < hi; i += step) {
      if (!matches(i)) continue;
      if (picked.length === pageSize) {
        hasMore = true;
        break;
      }
      picked.push(i);
    }
    const lastIdx = picked[picked.length - 1];
    return {
      lines: picked.map((i) => this.materialize(i)),
      hasMore,
      last: lastIdx === undefined ? undefined : { ts: this.ts[lastIdx], seq: this.seq[lastIdx] },
    };
  }

  private materialize(i: number): AppLogLine {
    const seq = this.seq[i];
    const container = this.containers[this.container[i]];
    return {
      logId: this.logIdOverrides.get(seq) ?? `${this.appId}-log-${seq}`,
      appId: this.appId,
      projectId: this.projectId,
      containerId: container.id,
      containerName: container.name,
      runId: this.runIds[this.run[i]],
      lineNumber: this.lineNumber[i],
      logLine: this.text[i],
      stream: STREAMS[this.stream[i]],
      timestamp: this.tsTextOverrides.get(seq) ?? new Date(this.ts[i]).toISOString(),
    };
  }

  /** A predicate over row indexes, or undefined when nothing can match. */
  private compile(filter: LogFilter): ((i: number) => boolean) | undefined {
    const checks: Array<(i: number) => boolean> = [];
    if (filter.container !== undefined) {
      const wanted = new Set<number>();
      this.containers.forEach((c, idx) => {
        if (c.name === filter.container || c.id === filter.container) wanted.add(idx);
      });
      if (wanted.size === 0) return undefined;
      checks.push((i) => wanted.has(this.container[i]));
    }
    if (filter.runId !== undefined) {
      const run = this.runIndex.get(filter.runId);
      if (run === undefined) return undefined;
      checks.push((i) => this.run[i] === run);
    }
    if (filter.stream !== undefined) {
      const stream = STREAMS.indexOf(filter.stream);
      checks.push((i) => this.stream[i] === stream);
    }
    if (filter.search !== undefined) {
      const term = filter.search;
      checks.push((i) => this.text[i].includes(term));
    }
    return (i) => checks.every((check) => check(i));
  }

  /** First row index whose (ts, seq) key is >= (ts, seq). */
  private lowerBound(ts: number, seq: number): number {
    let lo = 0;
    let hi = this.ts.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const less = this.ts[mid] < ts || (this.ts[mid] === ts && this.seq[mid] < seq);
      if (less) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private ensureSorted(): void {
    if (this.sorted) return;
    const order = Array.from(this.ts.keys()).sort((a, b) => this.ts[a] - this.ts[b] || this.seq[a] - this.seq[b]);
    for (const column of [this.ts, this.seq, this.lineNumber, this.container, this.run, this.stream]) {
      const copy = order.map((i) => column[i]);
      copy.forEach((v, i) => (column[i] = v));
    }
    const texts = order.map((i) => this.text[i]);
    texts.forEach((v, i) => (this.text[i] = v));
    this.sorted = true;
  }

  private internContainer(id: string, name: string): number {
    const key = `${id}\u0000${name}`;
    let idx = this.containerIndex.get(key);
    if (idx === undefined) {
      idx = this.containers.push({ id, name }) - 1;
      this.containerIndex.set(key, idx);
    }
    return idx;
  }

  private internRun(runId: string): number {
    let idx = this.runIndex.get(runId);
    if (idx === undefined) {
      idx = this.runIds.push(runId) - 1;
      this.runIndex.set(runId, idx);
    }
    return idx;
  }
}
