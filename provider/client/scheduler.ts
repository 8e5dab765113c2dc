/**
 * One request scheduler per process, shared by every client in it. The Pulumi engine runs many resource operations at
 * once and has no per-provider cap, so throttling is ours: each attempt waits for a slot (a concurrency cap) and for
 * the pace (a request rate learnt from the service's 429 answers).
 *
 * - A 429 means the service did nothing, so the request goes back to its place in the queue and is repeated; it gives
 *   up only when it has been refused for longer than a time bound (`rateLimitTimeoutMs`), never after a small count.
 * - A 429 slows the whole process: the rate falls to a fraction of the pace that was refused (multiplicative
 *   decrease), everybody waits out the `Retry-After` (seconds or an HTTP date), then the rate climbs back towards the
 *   refused pace and slowly beyond it (additive increase); after a quiet period without 429 the limit is lifted.
 * - While throttled, a progress line at most every few seconds says how many requests wait and at what pace.
 *
 * Requests start in arrival order (FIFO); a refused request keeps its place. Clock and timers are injectable.
 */
import { parseRetryAfter, progressLine, rateLimitVerdict } from "./retry";
import { formatDuration, isPlainObject, wholeNumberProblem } from "./values";
import { progress } from "./log";

export interface SchedulerClock {
  /** Milliseconds since the epoch (an HTTP-date `Retry-After` is compared with it). */
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: SchedulerClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** The scheduler's two user settings: defaults and least values (provider/settings.ts documents and parses them). */
export const SCHEDULER_DEFAULTS = { maxConcurrency: 8, rateLimitTimeoutMs: 300_000 } as const;
export const SCHEDULER_MINIMUMS = { maxConcurrency: 1, rateLimitTimeoutMs: 0 } as const;

export interface SchedulerSettings {
  /** Requests in flight at once, process-wide. Default `SCHEDULER_DEFAULTS.maxConcurrency` (docs/settings.md). */
  maxConcurrency?: number;
  /** How long one request may be refused with 429 before it fails. Default `SCHEDULER_DEFAULTS.rateLimitTimeoutMs`. */
  rateLimitTimeoutMs?: number;
  /** Receives the progress lines (counts and pace only, never a header or a body). */
  onProgress?: (line: string) => void;
  /** Least time between two progress lines. Default 5000. */
  progressIntervalMs?: number;
}

export interface SchedulerOptions extends SchedulerSettings {
  clock?: SchedulerClock;
  /** After this long without a 429, the rate limit is lifted. Default 30000. */
  recoveryMs?: number;
  /** Pause after a 429 that carries no usable `Retry-After`. Default 1000. */
  defaultPauseMs?: number;
}

/** What a failed attempt says when the service refused it for rate: the raw `Retry-After` header, if any. */
export interface Throttle {
  retryAfter?: unknown;
}

export interface ScheduleInfo {
  method: string;
  path: string;
  /** Tells a 429 from other failures. Default: an error with `response.status` 429 (axios' shape). */
  throttled?: (error: unknown) => Throttle | undefined;
}

export interface SchedulerStats {
  inFlight: number;
  waiting: number;
  /** Allowed starts per second; Infinity when unlimited. */
  rate: number;
  /** Attempts started, repeats included. */
  started: number;
  /** Attempts the service refused with 429. */
  refused: number;
}

/** A request the service kept refusing with 429 for longer than the time bound; `cause` is the last refusal. */
export class RateLimitTimeoutError extends Error {
  readonly method: string;
  readonly path: string;
  readonly attempts: number;
  readonly waitedMs: number;
  /** Why it stopped, without the method and path, e.g. `still rate limited after 5 min 0 s (31 attempts); ...`. */
  readonly detail: string;
  override readonly cause: unknown;

  constructor(init: {
    method: string;
    path: string;
    attempts: number;
    waitedMs: number;
    detail: string;
    cause: unknown;
  }) {
    super(`${init.method} ${init.path}: ${init.detail}`);
    this.name = new.target.name;
    this.method = init.method;
    this.path = init.path;
    this.attempts = init.attempts;
    this.waitedMs = init.waitedMs;
    this.detail = init.detail;
    this.cause = init.cause;
  }
}

/** The default 429 test: an axios-shaped error whose response has status 429. */
export function throttleOf(error: unknown): Throttle | undefined {
  if (!isPlainObject(error) && !(error instanceof Error)) return undefined;
  const response = (error as { response?: unknown }).response;
  if (!isPlainObject(response) || response.status !== 429) return undefined;
  const headers = response.headers;
  return { retryAfter: isPlainObject(headers) ? headers["retry-after"] : undefined };
}

interface Item {
  seq: number;
  attempt: () => Promise<unknown>;
  info: ScheduleInfo;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
  attempts: number;
  /** When the service first refused this request. */
  firstRefusedAt?: number;
}

const MIN_RATE = 0.5;
const DECREASE = 0.7;
const TICK_MS = 1000;

export class Scheduler {
  private readonly clock: SchedulerClock;
  private readonly recoveryMs: number;
  private readonly defaultPauseMs: number;
  private maxConcurrency: number = SCHEDULER_DEFAULTS.maxConcurrency;
  private rateLimitTimeoutMs: number = SCHEDULER_DEFAULTS.rateLimitTimeoutMs;
  private progressIntervalMs = 5000;
  private onProgress: (line: string) => void = () => undefined;

  private readonly queue: Item[] = [];
  private seq = 0;
  private inFlight = 0;
  private started = 0;
  private refused = 0;
  /** Allowed starts per second (Infinity: no limit) and the pace last refused by the service. */
  private rate = Infinity;
  private ceiling: number | undefined;
  private lastDecreaseAt = -Infinity;
  private lastGrowAt = 0;
  private lastRefusalAt = -Infinity;
  private pausedUntil = -Infinity;
  private lastStartAt = -Infinity;
  /** Start times within the last second: the pace actually sent, for the first decrease. */
  private readonly recentStarts: number[] = [];
  private lastProgressAt = -Infinity;
  private timer: { handle: unknown; at: number } | undefined;

  constructor(options: SchedulerOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.recoveryMs = options.recoveryMs ?? 30_000;
    this.defaultPauseMs = options.defaultPauseMs ?? 1000;
    this.configure(options);
  }

  /**
   * Changes the settings given; the others stay. A user's values come parsed by provider/settings.ts (which names
   * where they were set); a direct caller's value that means nothing is a programming error: RangeError.
   */
  configure(settings: SchedulerSettings): void {
    const { maxConcurrency, rateLimitTimeoutMs, progressIntervalMs, onProgress } = settings;
    for (const field of ["maxConcurrency", "rateLimitTimeoutMs"] as const) {
      const v = settings[field];
      const problem = v === undefined ? undefined : wholeNumberProblem(v, field, SCHEDULER_MINIMUMS[field], "");
      if (problem !== undefined) throw new RangeError(problem);
    }
    if (maxConcurrency !== undefined) this.maxConcurrency = maxConcurrency;
    if (rateLimitTimeoutMs !== undefined) this.rateLimitTimeoutMs = rateLimitTimeoutMs;
    if (progressIntervalMs !== undefined) this.progressIntervalMs = Math.max(0, progressIntervalMs);
    if (onProgress !== undefined) this.onProgress = onProgress;
    this.pump();
  }

  get settings(): Required<Pick<SchedulerSettings, "maxConcurrency" | "rateLimitTimeoutMs" | "progressIntervalMs">> {
    return {
      maxConcurrency: this.maxConcurrency,
      rateLimitTimeoutMs: this.rateLimitTimeoutMs,
      progressIntervalMs: this.progressIntervalMs,
    };
  }

  stats(): SchedulerStats {
    this.adapt(this.clock.now());
    return {
      inFlight: this.inFlight,
      waiting: this.queue.length,
      rate: this.rate,
      started: this.started,
      refused: this.refused,
    };
  }

  /**
   * Runs `attempt` when a slot and the pace allow, and again (in its place in the queue) each time it fails with a
   * 429, until the time bound. Any other outcome is returned or thrown as is.
   */
  schedule<T>(attempt: () => Promise<T>, info: ScheduleInfo): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({
        seq: this.seq++,
        attempt,
        info,
        resolve: resolve as (v: unknown) => void,
        reject,
        attempts: 0,
      });
      this.pump();
    });
  }

  /** Starts every request that a slot and the pace allow now, and arms one timer for the next. */
  private pump(): void {
    const now = this.clock.now();
    this.adapt(now);
    while (this.queue.length > 0 && this.inFlight < this.maxConcurrency) {
      const at = Math.max(this.pausedUntil, this.rate === Infinity ? -Infinity : this.lastStartAt + 1000 / this.rate);
      if (now < at) break;
      this.start(this.queue.shift() as Item, now);
    }
    this.progress(now);
    this.arm(now);
  }

  private arm(now: number): void {
    let at = Infinity;
    if (this.queue.length > 0 && this.inFlight < this.maxConcurrency) {
      at = Math.max(this.pausedUntil, this.rate === Infinity ? -Infinity : this.lastStartAt + 1000 / this.rate);
      // During a long pause, wake up to say so.
      if (this.throttling(now)) at = Math.min(at, this.lastProgressAt + this.progressIntervalMs);
    }
    if (this.timer && this.timer.at === at) return;
    if (this.timer) this.clock.clearTimeout(this.timer.handle);
    this.timer = undefined;
    if (at === Infinity) return;
    const handle = this.clock.setTimeout(
      () => {
        this.timer = undefined;
        this.pump();
      },
      Math.max(0, at - now),
    );
    this.timer = { handle, at };
  }

  private start(item: Item, now: number): void {
    this.inFlight++;
    this.started++;
    item.attempts++;
    this.lastStartAt = now;
    this.recentStarts.push(now);
    while (this.recentStarts.length > 0 && this.recentStarts[0] <= now - 1000) this.recentStarts.shift();
    const promise = (async () => item.attempt())(); // a synchronous throw becomes a rejection
    promise.then(
      (value) => this.finish(() => item.resolve(value)),
      (error) => this.finish(() => this.failed(item, now, error)),
    );
  }

  private finish(then: () => void): void {
    this.inFlight--;
    then();
    this.pump();
  }

  private failed(item: Item, startedAt: number, error: unknown): void {
    const throttle = (item.info.throttled ?? throttleOf)(error);
    if (!throttle) return item.reject(error);
    const now = this.clock.now();
    this.refused++;
    this.lastRefusalAt = now;
    // One decrease per refused pace: answers to requests sent before the last decrease say nothing new, and neither do
    // those sent in its very instant (at start-up, the successes of a burst start more requests just before the
    // burst's refusals are read; cutting again for them left 0.49 × the pace sent, below what the service allows).
    if (startedAt > this.lastDecreaseAt) {
      const sent =
        this.rate === Infinity ? Math.max(MIN_RATE, this.recentStarts.filter((t) => t > now - 1000).length) : this.rate;
      this.ceiling = sent;
      this.rate = Math.max(MIN_RATE, sent * DECREASE);
      this.lastDecreaseAt = now;
      this.lastGrowAt = now;
    }
    item.firstRefusedAt ??= now;
    const verdict = rateLimitVerdict({
      waitedMs: now - item.firstRefusedAt,
      retryAfterMs: parseRetryAfter(throttle.retryAfter, now),
      boundMs: this.rateLimitTimeoutMs,
      attempts: item.attempts,
      defaultPauseMs: this.defaultPauseMs,
    });
    if (!verdict.repeat) {
      const { method, path } = item.info;
      return item.reject(
        new RateLimitTimeoutError({
          method,
          path,
          attempts: item.attempts,
          waitedMs: now - item.firstRefusedAt,
          detail: verdict.detail,
          cause: error,
        }),
      );
    }
    this.pausedUntil = Math.max(this.pausedUntil, now + verdict.waitMs);
    // Back to its place: ahead of every request that arrived after it.
    let i = 0;
    while (i < this.queue.length && this.queue[i].seq < item.seq) i++;
    this.queue.splice(i, 0, item);
  }

  /** Climbs back: quickly up to the refused pace, then slowly beyond it; lifts the limit after a quiet period. */
  private adapt(now: number): void {
    if (this.rate === Infinity) return;
    if (now - this.lastRefusalAt >= this.recoveryMs) {
      this.rate = Infinity;
      this.ceiling = undefined;
      return;
    }
    // Grows only while the pace holds requests back (they wait with a slot free): an idle allowance proves nothing.
    const held = this.queue.length > 0 && this.inFlight < this.maxConcurrency;
    for (let n = 0; now - this.lastGrowAt >= TICK_MS && n < 1000; n++) {
      this.lastGrowAt += TICK_MS;
      if (!held) continue;
      const ceiling = this.ceiling ?? this.rate;
      this.rate =
        this.rate < ceiling
          ? Math.min(ceiling, this.rate + Math.max(1, (ceiling - this.rate) / 2))
          : this.rate + Math.max(0.5, this.rate * 0.05);
    }
  }

  private throttling(now: number): boolean {
    return this.rate !== Infinity || now < this.pausedUntil;
  }

  private progress(now: number): void {
    if (this.queue.length === 0 || !this.throttling(now) || now - this.lastProgressAt < this.progressIntervalMs) return;
    this.lastProgressAt = now;
    const pace = this.rate === Infinity ? "no pace limit" : `pace ${this.rate.toFixed(1)} requests/s`;
    const pause = now < this.pausedUntil ? `; resuming in ${formatDuration(this.pausedUntil - now)}` : "";
    const waiting = `${this.queue.length} request${this.queue.length === 1 ? "" : "s"} waiting`;
    this.onProgress(
      progressLine(
        "pulumi-pims",
        "requests to the service",
        `rate limited (HTTP 429, ${this.refused} refused so far)`,
        `${waiting}, ${this.inFlight} in flight, ${pace}${pause}`,
      ),
    );
  }
}

let shared: Scheduler | undefined;

/**
 * The process's scheduler (the one piece of module state in the provider code): every client of a process shares it,
 * so the cap and the pace hold for all resources of a stack together. Its lines are progress (./log), until
 * `configure({ onProgress })` says otherwise.
 */
export function processScheduler(): Scheduler {
  shared ??= new Scheduler({ onProgress: progress });
  return shared;
}
