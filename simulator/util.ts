/** Small helpers shared by the simulator's modules. */
import { randomBytes } from "node:crypto";

/** An error that becomes an HTTP response `{ "message": ... }` with the given status. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const notFound = (kind: string, id: string): HttpError => new HttpError(404, `${kind} ${id} not found`);
export const unprocessable = (message: string): HttpError => new HttpError(422, message);
export const badRequest = (message: string): HttpError => new HttpError(400, message);

export function randomHex(chars: number): string {
  return randomBytes(Math.ceil(chars / 2))
    .toString("hex")
    .slice(0, chars);
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** Milliseconds since the epoch of an RFC 3339 timestamp, or undefined when it is not one. */
export function parseRfc3339(value: string): number | undefined {
  if (!RFC3339.test(value)) return undefined;
  const ms = Date.parse(value.replace(" ", "T"));
  return Number.isNaN(ms) ? undefined : ms;
}

/** Length in Unicode code points (what a user would call characters). */
export function charCount(value: string): number {
  let n = 0;
  for (const _ of value) n++;
  return n;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A small seeded PRNG (mulberry32): returns floats in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Matches a pathname against a pattern: exact string, prefix ending in `*`, or a RegExp; no pattern matches all. */
export function pathMatches(pattern: string | RegExp | undefined, pathname: string): boolean {
  if (pattern === undefined) return true;
  if (pattern instanceof RegExp) {
    pattern.lastIndex = 0;
    return pattern.test(pathname);
  }
  return pattern.endsWith("*") ? pathname.startsWith(pattern.slice(0, -1)) : pathname === pattern;
}

export function methodMatches(pattern: string | undefined, method: string): boolean {
  return pattern === undefined || pattern.toUpperCase() === method.toUpperCase();
}
