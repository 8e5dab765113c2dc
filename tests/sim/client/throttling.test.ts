/**
 * Many concurrent calls against the simulator's rate limit (a token bucket per bearer token: 20 requests/s, bursts of
 * 20, 429 with Retry-After beyond that), through clients that share one request scheduler: every call succeeds, each
 * account is created once, and only a small share of the requests is refused — the requests sent before the first
 * 429 came back, and few after.
 */
import { PimsClient } from "../../../provider/client";
import { processScheduler, Scheduler } from "../../../provider/client/scheduler";
import { startSimulator } from "../../kit/sim/simulator";

const CALLS = 150;
const RATE = 20;

async function run(form: "seconds" | "date", scheduler: Scheduler | undefined, lines: string[]): Promise<void> {
  const sim = await startSimulator({ rateLimit: { rate: RATE, burst: RATE, retryAfter: form } });
  try {
    const project = sim.addProject({ name: "throttled" });
    // Three clients, as three resources would have: they share the scheduler.
    const clients = [0, 1, 2].map(() => new PimsClient({ baseUrl: sim.baseUrl, token: sim.token, scheduler }));
    const started = Date.now();
    const created = await Promise.all(
      Array.from({ length: CALLS }, (_, i) =>
        clients[i % clients.length].createServiceAccount(project.id, {
          name: `sa-${i}`,
          grants: [project.id],
          expiresIn: 0,
        }),
      ),
    );
    const seconds = (Date.now() - started) / 1000;
    const { requests, refused } = sim.stats();
    const ideal = (CALLS - RATE) / RATE; // the burst at once, then the rate
    console.log(
      `throttling (Retry-After in ${form}): ${CALLS} calls, ${requests} requests, ${refused} refused ` +
        `(${((100 * refused) / requests).toFixed(1)} %), ` +
        `${seconds.toFixed(1)} s for an ideal ${ideal.toFixed(1)} s (× ${(seconds / ideal).toFixed(2)}), ` +
        `${lines.length} progress lines`,
    );
    expect(created.map((sa) => sa.name).sort()).toEqual(Array.from({ length: CALLS }, (_, i) => `sa-${i}`).sort());
    expect(sim.serviceAccounts(project.id)).toHaveLength(CALLS); // each created once: a 429 did nothing
    expect(requests).toBe(CALLS + refused);
    // At most the 8 requests in flight when the first 429 came back, and a few pace probes after.
    expect(refused).toBeLessThanOrEqual(15);
    expect(refused / requests).toBeLessThanOrEqual(0.1);
    expect(seconds / ideal).toBeLessThanOrEqual(1.5);
    // While throttled: a line every few seconds at most, never one per request, never the token.
    expect(lines.length).toBeGreaterThanOrEqual(1);
    expect(lines.length).toBeLessThanOrEqual(Math.ceil(seconds / 5) + 1);
    for (const line of lines) expect(line).not.toContain(sim.token);
  } finally {
    await sim.stop();
  }
}

describe(`${CALLS} concurrent creates against a limit of ${RATE} requests/s`, () => {
  it("clients without a scheduler of their own share the process's (Retry-After in seconds)", async () => {
    const lines: string[] = [];
    processScheduler().configure({ onProgress: (line) => lines.push(line) });
    try {
      await run("seconds", undefined, lines);
      expect(processScheduler().stats()).toMatchObject({
        inFlight: 0,
        waiting: 0,
        started: CALLS + processScheduler().stats().refused,
      });
    } finally {
      processScheduler().configure({ onProgress: (line) => console.warn(line) });
    }
  });

  it("Retry-After as an HTTP date", async () => {
    const lines: string[] = [];
    await run("date", new Scheduler({ onProgress: (line) => lines.push(line) }), lines);
  });
});
