/** What a route handler answers, before the server writes it. */
export type Reply = (
  | { kind: "json"; body: unknown }
  | { kind: "text"; body: string }
  /** A body sent verbatim with the given Content-Type. */
  | { kind: "raw"; body: string; contentType: string }
  | { kind: "empty" }
) & { status: number; headers?: Record<string, string> };

export const json = (status: number, body: unknown): Reply => ({ kind: "json", status, body });
export const text = (status: number, body: string): Reply => ({ kind: "text", status, body });
export const empty = (status: number): Reply => ({ kind: "empty", status });
export const raw = (status: number, body: string, contentType: string): Reply => ({
  kind: "raw",
  status,
  body,
  contentType,
});
