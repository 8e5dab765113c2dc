/**
 * Liberal reading of the service's answers: any JSON body or plain text, optional fields missing or null, unknown
 * fields ignored, numbers sent as strings, plain text with surrounding white space or JSON quotes.
 */
import type { ApiKey, AppLogLine, BuildLogEntry, Invoice, ServiceAccount } from "./types";
import { isPlainObject } from "./values";

export const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const optString = (v: unknown): string | undefined =>
  typeof v === "string" ? v : typeof v === "number" ? String(v) : undefined;
export const str = (v: unknown): string => optString(v) ?? "";
const num = (v: unknown): number =>
  typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v)) ? Number(v) : 0;

/** What a project id can look like: one word of at most 200 characters, no spaces, quotes, slashes or markup. */
export const PLAIN_ID = /^[^\s<>"'`/\\{}[\]]{1,200}$/;

/** JSON body, or undefined for an empty body (e.g. 204); a body that is not JSON is returned as trimmed text. */
export function parseJson(data: unknown): unknown {
  if (typeof data !== "string") return data ?? undefined;
  const t = data.trim();
  if (!t) return undefined;
  try {
    return JSON.parse(t);
  } catch {
    return t;
  }
}

/** A plain-text body, trimmed, with one level of JSON string quoting removed. */
export function plainText(data: unknown): string {
  const t = typeof data === "string" ? data.trim() : data === undefined || data === null ? "" : JSON.stringify(data);
  if (t.length >= 2 && t.startsWith('"') && t.endsWith('"')) {
    try {
      const v: unknown = JSON.parse(t);
      if (typeof v === "string") return v.trim();
    } catch {
      // not JSON: fall through
    }
  }
  return t;
}

/** The message of a `{ "message": "…" }` body, else the body as plain text (both forms answer deletes and cancels). */
export function messageOf(data: unknown): string {
  const body = parseJson(data);
  return isPlainObject(body) && typeof body.message === "string" ? body.message : plainText(data);
}

/** The service's own words in an error answer (`{ "message": "…" }`), or the start of a text body (proxy pages). */
export function serverMessage(data: unknown, statusText: string): string {
  const body = parseJson(data);
  if (isPlainObject(body) && typeof body.message === "string" && body.message) return body.message;
  if (typeof body === "string" && body) return body.length > 300 ? `${body.slice(0, 300)}…` : body;
  return statusText || "no message";
}

export function normalizeApiKey(v: unknown): ApiKey {
  const o = isPlainObject(v) ? v : {};
  const principalId = optString(o.principalId);
  return {
    id: str(o.id),
    name: str(o.name),
    description: str(o.description),
    apiKey: str(o.apiKey),
    projectId: str(o.projectId),
    ...(principalId ? { principalId } : {}),
    source: str(o.source),
    status: str(o.status),
    createdAt: str(o.createdAt),
    updatedAt: str(o.updatedAt),
    expiresAt: str(o.expiresAt) || "never",
  };
}

/** The account fields of a service-account record (the token is read separately: ./token). */
export function normalizeServiceAccount(v: unknown): ServiceAccount {
  const o = isPlainObject(v) ? v : {};
  return {
    id: str(o.id),
    name: str(o.name),
    description: str(o.description),
    projectId: str(o.projectId),
    grants: asArray(o.grants).filter((g): g is string => typeof g === "string"),
    createdAt: str(o.createdAt),
    createdByUserId: str(o.createdByUserId),
  };
}

export function normalizeInvoice(v: unknown): Invoice {
  const o = isPlainObject(v) ? v : {};
  return {
    id: str(o.id),
    accountCountry: str(o.accountCountry),
    accountName: str(o.accountName),
    amountDue: num(o.amountDue),
    currency: str(o.currency),
    createdAt: str(o.createdAt),
    fileUrl: str(o.fileUrl),
    paymentStatus: str(o.paymentStatus),
  };
}

export function normalizeLogLine(v: unknown): AppLogLine {
  const o = isPlainObject(v) ? v : {};
  return {
    logId: str(o.logId),
    appId: str(o.appId),
    projectId: str(o.projectId),
    containerId: str(o.containerId),
    containerName: str(o.containerName),
    runId: str(o.runId),
    lineNumber: num(o.lineNumber),
    logLine: str(o.logLine),
    stream: o.stream === "stderr" ? "stderr" : "stdout",
    timestamp: str(o.timestamp),
  };
}

export function normalizeBuildLogEntry(v: unknown): BuildLogEntry {
  if (typeof v === "string") return { createdAt: "", log: v };
  const o = isPlainObject(v) ? v : {};
  const id = optString(o.id);
  return { ...(id ? { id } : {}), createdAt: str(o.createdAt), log: str(o.log ?? o.message ?? o.line) };
}
