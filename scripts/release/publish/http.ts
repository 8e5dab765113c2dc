/**
 * The few HTTP requests publishing makes (Node's fetch): read a file to compare it, upload one. Every request has a
 * time limit; errors name the method and URL, never a credential.
 */
import { createHash } from "node:crypto";

/** Per-request limit: an upload of a 50 MB archive on a slow link still fits. */
const TIMEOUT_MS = 10 * 60_000;

export const sha256 = (b: Uint8Array | string): string => createHash("sha256").update(b).digest("hex");

/** Basic credentials as a header, when both parts are given. */
export function basicAuth(user: string | undefined, password: string | undefined): Record<string, string> {
  if (!user || !password) return {};
  return { authorization: `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}` };
}

/** A URL with any user-info removed, for messages. */
export const shown = (url: string): string => url.replace(/\/\/[^/@]*@/, "//");

/** GET: the body, or undefined on 404 (and 410); throws on anything else that is not a 2xx. */
export async function getBytes(url: string, headers: Record<string, string> = {}): Promise<Buffer | undefined> {
  const res = await fetch(url, { headers, redirect: "follow", signal: AbortSignal.timeout(TIMEOUT_MS) });
  if (res.status === 404 || res.status === 410) return undefined;
  if (!res.ok) throw new Error(`GET ${shown(url)} answered ${res.status} ${res.statusText}`);
  return Buffer.from(await res.arrayBuffer());
}

/** Sends `body` with `method` (PUT, POST); throws unless the answer is a 2xx. Returns the answer's text. */
export async function send(
  method: string,
  url: string,
  body: Uint8Array | string,
  headers: Record<string, string> = {},
): Promise<string> {
  const res = await fetch(url, { method, headers, body, signal: AbortSignal.timeout(TIMEOUT_MS) });
  const text = await res.text();
  if (!res.ok)
    throw new Error(`${method} ${shown(url)} answered ${res.status} ${res.statusText}: ${text.slice(0, 300)}`);
  return text;
}
