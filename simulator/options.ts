/** The simulator's options, fault rules and request log entries, and how the environment sets their defaults. */
import type { SecretsMode } from "./state";
import { isSimulatorProfile, SIMULATOR_PROFILES, type SimulatorProfile } from "./dialect";
import type { RateLimit } from "./rateLimit";
import { isTokenLayoutMode, type TokenLayoutMode } from "./tokenLayouts";

export interface SimulatorOptions {
  /** How answers are worded where the service's docs are silent. Default: PIMS_SIM_PROFILE, else "default". */
  profile?: SimulatorProfile;
  /**
   * Layout of the token in service-account creation answers. Default: PIMS_SIM_TOKEN_LAYOUT, else "default" in the
   * default profile and "roundRobin" in the quirky one.
   */
  tokenLayout?: TokenLayoutMode;
  /** Seed of the PRNG for tokenLayout "random". Default 1. */
  tokenLayoutSeed?: number;
  /** A token bucket per bearer token; none by default. */
  rateLimit?: RateLimit;
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default: random `pims_admin_` + 32 hex. */
  token?: string;
  /** How `PATCH /v2/projects/{project_id}/apps/{app_id}/secrets` applies a body. Default "merge". */
  secretsMode?: SecretsMode;
  /** Largest accepted app logs pageSize. Default 1000. */
  maxPageSize?: number;
  /** App logs pageSize when none is given. Default 200. */
  defaultPageSize?: number;
}

export interface RequestLogEntry {
  method: string;
  /** The URL pathname. */
  path: string;
  query: Record<string, string>;
  /** Final status; 0 when the connection was dropped. */
  status: number;
  /** Arrival time, ms since the epoch (wall clock, not the simulator clock). */
  at: number;
  /** Parsed JSON body (the raw text when it is not JSON); absent when the request had none. */
  body?: unknown;
  /** For a fault with afterCommit: the status the handler produced before the fault replaced its answer. */
  handledStatus?: number;
  /** Whom the bearer token authenticated: `admin`, a service account's id, or absent for nobody (401). */
  principal?: string;
}

export interface FaultRule {
  method?: string;
  /** Matched against the URL pathname; a string is an exact pathname or a prefix ending in `*`. */
  path?: string | RegExp;
  kind: "status" | "rateLimit" | "delay" | "drop";
  /** For kind status; default 503. */
  status?: number;
  /** For status: the JSON body answered instead of `{"message":"injected fault"}` (e.g. 200 and `[]`). */
  body?: unknown;
  /** Retry-After header value for rateLimit; default "0". */
  retryAfter?: string;
  /** For delay: wait this long, then handle normally. */
  delayMs?: number;
  /**
   * For status and drop: run the handler first (the change is committed), then answer the status or drop the
   * connection instead of the handler's answer. Default false: the request fails before anything happens.
   */
  afterCommit?: boolean;
  /** How many matching requests it affects; default Infinity. */
  times?: number;
  /** 0..1, default 1; drawn from a PRNG seeded with `seed` so runs are reproducible. */
  probability?: number;
  seed?: number;
}

/** Counters since the start (or resetStats), independent of the request log. */
export interface SimulatorStats {
  /** Every request received. */
  requests: number;
  /** Requests refused with 429 by the rate limit (injected rateLimit faults not included). */
  refused: number;
  /** Requests per final status (0 = connection dropped). */
  byStatus: Record<number, number>;
}

/** The profile from PIMS_SIM_PROFILE when set; throws on an unknown name. */
export function profileFromEnv(env: NodeJS.ProcessEnv = process.env): SimulatorProfile | undefined {
  const value = env.PIMS_SIM_PROFILE?.trim();
  if (!value) return undefined;
  if (!isSimulatorProfile(value))
    throw new Error(`PIMS_SIM_PROFILE must be one of ${SIMULATOR_PROFILES.join(", ")}, got ${value}`);
  return value;
}

/** The token layout from PIMS_SIM_TOKEN_LAYOUT when set; throws on an unknown name. */
export function tokenLayoutFromEnv(env: NodeJS.ProcessEnv = process.env): TokenLayoutMode | undefined {
  const value = env.PIMS_SIM_TOKEN_LAYOUT?.trim();
  if (!value) return undefined;
  if (!isTokenLayoutMode(value)) throw new Error(`PIMS_SIM_TOKEN_LAYOUT is not a token layout: ${value}`);
  return value;
}
