/**
 * An app outside the stack during rotation suites: it calls the simulator every 200 ms
 * (GET /v2/projects/{project_id}/api-keys) with the token it holds; after each `pulumi up` it first makes one call with
 * that token (so the outcome right after the up is always observed), then takes the new token where its `read`
 * finds it (a stack output, a delivered file, a sealed output opened).
 */
import type { OutputMap } from "@pulumi/pulumi/automation";
import { AuthError, errorText } from "../../../provider/client";
import type { PimsSimulator } from "../../../simulator";
import { testClient } from "../sim/client";
import { sleep } from "./engine";

/** Outcome of one consumer call: `ok`, `401`, or another failure (which fails the test: the service is healthy). */
export type Outcome = "ok" | "401" | "other";

export class Consumer {
  token = "";
  readonly outcomes: Outcome[] = [];
  /** Outcome of the call made right after each up, with the token held during it. */
  readonly afterUp: Outcome[] = [];
  /** What each `other` outcome was (shown when the test fails). */
  readonly others: string[] = [];
  private running = false;
  private loop: Promise<void> = Promise.resolve();

  constructor(
    private readonly sim: PimsSimulator,
    private readonly projectId: () => string,
    private readonly read: (outputs: OutputMap) => string,
  ) {}

  async call(): Promise<Outcome> {
    try {
      // A generous timeout: a loaded machine must not pass for a token problem (a call that times out is `other`).
      await testClient(this.sim, { token: this.token, retries: 0, timeoutMs: 30_000 }).listApiKeys(this.projectId());
      return "ok";
    } catch (e) {
      if (e instanceof AuthError) return "401";
      this.others.push(errorText(e));
      return "other";
    }
  }

  start(): void {
    this.running = true;
    this.loop = (async () => {
      while (this.running) {
        this.outcomes.push(await this.call());
        await sleep(200);
      }
    })();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  /** After an up: one call with the token held, then the new token. */
  async reread(outputs: OutputMap): Promise<void> {
    const outcome = await this.call();
    this.outcomes.push(outcome);
    this.afterUp.push(outcome);
    this.take(outputs);
  }

  /** Takes the token where `read` finds it (the first one: before the consumer starts). */
  take(outputs: OutputMap): void {
    this.token = this.read(outputs);
  }

  /** How many calls had this outcome. */
  count(outcome: Outcome): number {
    return this.outcomes.filter((x) => x === outcome).length;
  }
}
