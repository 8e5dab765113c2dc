/** A fake clock and a fake rate-limited service for the scheduler's unit tests: no network, no sleep. */
import { Scheduler, type SchedulerClock } from "../../../provider/client/scheduler";

export const START = Date.parse("2030-01-01T00:00:00.000Z");

/** Timers run in time order as the test advances the clock; promise callbacks settle between them. */
export class FakeClock implements SchedulerClock {
  t = START;
  private nextId = 1;
  private timers: Array<{ id: number; at: number; fn: () => void }> = [];

  now(): number {
    return this.t;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.timers.push({ id, at: this.t + Math.max(0, ms), fn });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter((x) => x.id !== handle);
  }
  get pending(): number {
    return this.timers.length;
  }
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    for (;;) {
      await settle();
      const due = this.timers.filter((x) => x.at <= end).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.timers = this.timers.filter((x) => x !== due);
      this.t = Math.max(this.t, due.at);
      due.fn();
    }
    this.t = end;
    await settle();
  }
}

const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise<void>((r) => setImmediate(r));
};

/** An axios-shaped 429, as the client's HTTP layer throws it. */
export const refusal = (retryAfter?: string): Error =>
  Object.assign(new Error("Request failed with status code 429"), {
    response: { status: 429, headers: { "retry-after": retryAfter } },
  });

/** A guard that throws {@link refusal} (with this Retry-After) the first time it is called, and nothing after. */
export function refusedOnce(retryAfter?: string): () => void {
  let refused = false;
  return () => {
    if (refused) return;
    refused = true;
    throw refusal(retryAfter);
  };
}

/**
 * A rate-limited service on the fake clock: a token bucket (rate per second, burst), `latencyMs` per answer, 429 with
 * `Retry-After: 1` when the bucket is empty. Records what it saw.
 */
export class FakeService {
  tokens: number;
  at: number;
  inFlight = 0;
  maxInFlight = 0;
  accepted = 0;
  refused = 0;
  readonly starts: number[] = [];

  constructor(
    private readonly clock: FakeClock,
    private readonly limit: { rate: number; burst: number } | undefined,
    private readonly latencyMs = 10,
  ) {
    this.tokens = limit?.burst ?? 0;
    this.at = clock.now();
  }

  call = (id: number): Promise<number> => {
    this.starts.push(id);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    let allowed = true;
    if (this.limit) {
      const now = this.clock.now();
      this.tokens = Math.min(this.limit.burst, this.tokens + ((now - this.at) / 1000) * this.limit.rate);
      this.at = now;
      allowed = this.tokens >= 1;
      if (allowed) this.tokens -= 1;
    }
    return new Promise<number>((resolve, reject) => {
      this.clock.setTimeout(() => {
        this.inFlight--;
        if (allowed) {
          this.accepted++;
          resolve(id);
        } else {
          this.refused++;
          reject(refusal("1"));
        }
      }, this.latencyMs);
    });
  };
}

export const info = { method: "GET", path: "/v2/projects/p-1/api-keys" };

export function setup(options: ConstructorParameters<typeof Scheduler>[0] = {}) {
  const clock = new FakeClock();
  const lines: string[] = [];
  const scheduler = new Scheduler({ clock, onProgress: (l) => lines.push(l), ...options });
  return { clock, lines, scheduler };
}
