/** Shared test helpers: a simulator per suite, configured providers, and the plaintext-secret scanner. */
import type * as pulumi from "@pulumi/pulumi";
import { PimsSimulator, type SimulatorOptions } from "./simulator";
import { PimsClient, type ClientOptions } from "../provider/client";

export async function startSimulator(opts: SimulatorOptions = {}): Promise<PimsSimulator> {
  return PimsSimulator.start(opts);
}

/** A client against the simulator with fast retries (tests must not sleep for seconds). */
export function testClient(sim: PimsSimulator, extra: Partial<ClientOptions> = {}): PimsClient {
  return new PimsClient({ baseUrl: sim.baseUrl, token: sim.token, minDelayMs: 5, maxDelayMs: 20, maxRetryAfterMs: 50, timeoutMs: 5000, ...extra });
}

/** The ConfigureRequest the dynamic-provider host would pass, from a plain stack-config map. */
export function configureRequest(config: Record<string, string | undefined>): pulumi.dynamic.ConfigureRequest {
  return {
    config: {
      get: (key: string) => config[key],
      require: (key: string) => {
        const v = config[key];
        if (v === undefined) throw new Error(`missing required configuration key ${key}`);
        return v;
      },
    },
  };
}

/** Config for a provider talking to `sim`. */
export function simConfig(sim: PimsSimulator): Record<string, string> {
  return { "pims:token": sim.token, "pims:baseUrl": sim.baseUrl };
}

/**
 * Every secret in `secrets` that occurs in `text` (empty = clean). Secrets shorter than 8 characters are
 * ignored (they would match by chance).
 */
export function findPlaintextSecrets(text: string, secrets: Iterable<string>): string[] {
  const hits: string[] = [];
  for (const s of secrets) if (s && s.length >= 8 && text.includes(s)) hits.push(s);
  return hits;
}

/** Fails the test, without printing the secret itself, when any secret occurs in `text`. */
export function expectNoPlaintextSecrets(text: string, secrets: Iterable<string>, where: string): void {
  const hits = findPlaintextSecrets(text, secrets);
  if (hits.length > 0) {
    throw new Error(`${hits.length} secret value(s) found in plaintext in ${where} (first begins ${JSON.stringify(hits[0].slice(0, 6))}…)`);
  }
}
