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

/** Node's fetch fails with "fetch failed" alone; what happened is on its `cause` chain (code, syscall, address). */
interface NetCause {
  name?: string;
  code?: string;
  message?: string;
  address?: string;
  port?: number;
  socket?: { remoteAddress?: string; remotePort?: number };
  cause?: unknown;
}

/**
 * What a request that got no answer met, in words a user can act on: each cause's code and message (connection
 * refused, reset, closed by the other side, DNS, TLS) and the address it was connected or connecting to.
 */
export function networkCause(e: unknown): string {
  const parts: string[] = [];
  let address: string | undefined;
  for (
    let c = e as NetCause | undefined, depth = 0;
    c && typeof c === "object" && depth < 5;
    c = c.cause as NetCause, depth++
  ) {
    if (c.name === "TimeoutError") parts.push(`no answer within ${TIMEOUT_MS / 60_000} minutes`);
    else if (c.message && c.message !== "fetch failed")
      parts.push(c.code && !c.message.includes(c.code) ? `${c.code}: ${c.message}` : c.message);
    else if (c.code) parts.push(c.code);
    const host = c.address ?? c.socket?.remoteAddress;
    const port = c.port ?? c.socket?.remotePort;
    if (host !== undefined && address === undefined) address = port === undefined ? host : `${host}:${port}`;
  }
  const what = parts.length > 0 ? [...new Set(parts)].join(": ") : String(e);
  return address === undefined || what.includes(address) ? what : `${what} (${address})`;
}

/** fetch, with a request that got no answer named by its cause instead of "fetch failed". */
async function request(method: string, url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, { ...init, method, signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (e) {
    throw new Error(`${method} ${shown(url)} failed: ${networkCause(e)}`, { cause: e });
  }
}

/** The body of an answer, with a connection lost while reading it named like a failed request. */
async function body(method: string, url: string, res: Response): Promise<Buffer> {
  try {
    return Buffer.from(await res.arrayBuffer());
  } catch (e) {
    throw new Error(`${method} ${shown(url)} answered ${res.status} but its body was cut: ${networkCause(e)}`, {
      cause: e,
    });
  }
}

/** GET: the body, or undefined on 404 (and 410); throws on anything else that is not a 2xx. */
export async function getBytes(url: string, headers: Record<string, string> = {}): Promise<Buffer | undefined> {
  const res = await request("GET", url, { headers, redirect: "follow" });
  const bytes = await body("GET", url, res);
  if (res.status === 404 || res.status === 410) return undefined;
  if (!res.ok) throw new Error(`GET ${shown(url)} answered ${res.status} ${res.statusText}`);
  return bytes;
}

/** Sends `body` with `method` (PUT, POST); throws unless the answer is a 2xx. Returns the answer's text. */
export async function send(
  method: string,
  url: string,
  bytes: Uint8Array | string,
  headers: Record<string, string> = {},
): Promise<string> {
  const res = await request(method, url, { headers, body: bytes });
  const text = (await body(method, url, res)).toString("utf8");
  if (!res.ok)
    throw new Error(`${method} ${shown(url)} answered ${res.status} ${res.statusText}: ${text.slice(0, 300)}`);
  return text;
}
