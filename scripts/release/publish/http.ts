/**
 * The few HTTP requests publishing makes (Node's fetch): read a file to compare it, upload one. Every request has a
 * time limit; errors name the method and URL, never a credential.
 */
/** Per-request limit: an upload of a 50 MB archive on a slow link still fits. */
const TIMEOUT_MS = 10 * 60_000;

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
  const chain: NetCause[] = [];
  for (let c: unknown = e; c !== null && typeof c === "object" && chain.length < 5; c = (c as NetCause).cause)
    chain.push(c);
  const parts = chain.flatMap((c) => {
    if (c.name === "TimeoutError") return [`no answer within ${TIMEOUT_MS / 60_000} minutes`];
    if (c.message && c.message !== "fetch failed")
      return [c.code && !c.message.includes(c.code) ? `${c.code}: ${c.message}` : c.message];
    return c.code ? [c.code] : [];
  });
  const at = chain.find((c) => (c.address ?? c.socket?.remoteAddress) !== undefined);
  const host = at?.address ?? at?.socket?.remoteAddress;
  const port = at?.port ?? at?.socket?.remotePort;
  const address = host === undefined ? undefined : port === undefined ? host : `${host}:${port}`;
  const what = parts.length > 0 ? [...new Set(parts)].join(": ") : String(e);
  return address === undefined || what.includes(address) ? what : `${what} (${address})`;
}

/** Methods whose repeat leaves what one would: a PUT of the same bytes to the same address, a read. */
const IDEMPOTENT = new Set(["GET", "HEAD", "PUT"]);
/** A connection lost before any answer: reset, closed by the other side, written after it closed. */
const LOST = new Set(["ECONNRESET", "UND_ERR_SOCKET", "EPIPE"]);
const lostConnection = (e: unknown): boolean =>
  LOST.has(String(((e as NetCause | undefined)?.cause as NetCause | undefined)?.code ?? ""));

/**
 * fetch, with a request that got no answer named by its cause instead of "fetch failed". A registry closes a kept-alive
 * connection after a few idle seconds; when this process was busy meanwhile (an `npm publish` or `twine upload` run
 * in between, minutes on a machine whose caches are cold), the next request goes out on the closed connection and
 * fails before the registry reads it. An idempotent request that lost its connection so is sent once more, on a new
 * one; a timeout never is (the first may still be running).
 */
async function request(method: string, url: string, init: RequestInit): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fetch(url, { ...init, method, signal: AbortSignal.timeout(TIMEOUT_MS) });
    } catch (e) {
      if (attempt === 1 && IDEMPOTENT.has(method) && lostConnection(e)) continue;
      throw new Error(`${method} ${shown(url)} failed: ${networkCause(e)}`, { cause: e });
    }
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
