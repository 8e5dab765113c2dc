/** Reading requests and writing replies on node:http. */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Reply } from "./reply";

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

export function requestUrl(req: IncomingMessage): URL {
  const target = req.url ?? "/";
  try {
    // Concatenate rather than resolve, so a pathname like `//x` is not read as a host.
    return target.startsWith("/") ? new URL(`http://simulator.invalid${target}`) : new URL(target);
  } catch {
    return new URL("http://simulator.invalid/");
  }
}

export function bearerToken(req: IncomingMessage): string | undefined {
  const match = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? "");
  return match ? match[1].trim() : undefined;
}

/** Writes a reply unless the response is already gone. */
export function writeReply(res: ServerResponse, reply: Reply): void {
  if (res.destroyed || res.writableEnded) return;
  if (reply.kind === "empty") {
    res.writeHead(reply.status, reply.headers).end();
    return;
  }
  const body = reply.kind === "json" ? JSON.stringify(reply.body) : reply.body;
  const contentType =
    reply.kind === "raw"
      ? reply.contentType
      : reply.kind === "json"
        ? "application/json; charset=utf-8"
        : "text/plain; charset=utf-8";
  res.writeHead(reply.status, {
    ...reply.headers,
    "Content-Type": contentType,
    "Content-Length": Buffer.byteLength(body),
  });
  res.end(body);
}
