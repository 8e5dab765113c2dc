/**
 * The wire recorder: for every attempt the client makes, one JSON line with what the service's documentation leaves
 * unsaid (the status, the content type, the response header names, the shape of the body) and never a value. Turned
 * on by `ClientOptions.record` (the `PIMS_WIRE_RECORD` environment variable, the CLI's `--record`); the live test tier
 * writes one, and `scripts/live/compare-recording.ts` compares it with what the simulator sends.
 *
 * What is never written: the Authorization header or any header value but the content type's media type and charset,
 * ids (the path is templated by matching the ten documented routes; a member name equal to an id of the path becomes
 * that parameter's name), query values (names only), body values (JSON types only; plain text as its length class).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { AxiosAdapter, AxiosResponse, InternalAxiosRequestConfig } from "axios";
import { isPlainObject, isRfc3339 } from "./values";
import { warning } from "./log";

/**
 * The shape of a body or value, never the value:
 * - a primitive type: `null`, `boolean`, `integer`, `number`, `string`, or a string format: `string:date-time`
 *   (RFC 3339), `string:digits`, `string:empty`, `string:never` (the documented literal); alternatives joined by `|`;
 * - `empty` (no body) or `text:<length class>` (a body that is not JSON, e.g. `text:1-16`);
 * - an object: member name → shape, a trailing `?` on members only some elements of an array had;
 * - an array: `[]` when empty, else `[<union of the element shapes>]`;
 * - `{ "oneOf": [...] }` when one place held values of different kinds (e.g. an object in one element, null in
 *   another).
 */
export type Shape = string | Shape[] | { [member: string]: Shape };

/** One line of a recording: one HTTP attempt of the client and its answer, described without any value. */
export interface WireRecord {
  /** Version of this format. */
  v: 1;
  /** HTTP method, upper case. */
  method: string;
  /** The documented route the path matched, e.g. `/v2/projects/{project_id}/api-keys`; `(unmatched)` otherwise. */
  route: string;
  /** Names of the query parameters sent, sorted (never their values). */
  query: string[];
  /** HTTP status of the answer; 0 when there was none (connection dropped, timeout). */
  status: number;
  /** Error code when there was no answer (e.g. `ECONNRESET`). */
  error?: string;
  /** The answer's media type (and charset), lower case, e.g. `application/json; charset=utf-8`. */
  contentType?: string;
  /** Names of the answer's headers, lower case, sorted. */
  headers: string[];
  /** The shape of the answer's body (see {@link Shape}). */
  body: Shape;
}

/** Where records go: a file (one JSON line appended per record) or a function. */
export type WireSink = (record: WireRecord) => void;

/** The ten routes of the service's API, the only paths the client requests (the methods of PimsClient). */
export const DOCUMENTED_ROUTES: ReadonlyArray<{ method: string; route: string }> = [
  { method: "GET", route: "/v2/projects/{project_id}/api-keys" },
  { method: "POST", route: "/v2/projects/{project_id}/service-accounts" },
  { method: "DELETE", route: "/v2/projects/{project_id}/service-accounts/{service_account_id}" },
  { method: "PATCH", route: "/v2/projects/{project_id}/volumes/{volume_id}/resize" },
  { method: "POST", route: "/v2/projects" },
  { method: "GET", route: "/v2/projects/{project_id}/invoices" },
  { method: "GET", route: "/v2/projects/{project_id}/apps/{app_id}/logs" },
  { method: "GET", route: "/v2/projects/{project_id}/apps/{app_id}/builds/{build_id}/logs" },
  { method: "PATCH", route: "/v2/projects/{project_id}/apps/{app_id}/secrets" },
  { method: "DELETE", route: "/v2/projects/{project_id}/apps/{app_id}/runs/{run_id}" },
];

/** Route placeholder of a path that matches none of the documented routes. */
export const UNMATCHED_ROUTE = "(unmatched)";

const decode = (s: string): string => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

/**
 * The documented route `pathname` (relative to the base address, ids encoded) matches, and the ids it holds by
 * parameter name. Matching is by the route's literal segments, never by what an id looks like. A route of the same
 * method wins over one of another method with the same shape (there is none today).
 */
export function matchRoute(method: string, pathname: string): { route: string; params: Record<string, string> } {
  const segs = pathname.split("?")[0].split("/");
  let found: { route: string; params: Record<string, string> } | undefined;
  for (const r of DOCUMENTED_ROUTES) {
    const parts = r.route.split("/");
    if (parts.length !== segs.length) continue;
    const params: Record<string, string> = {};
    const ok = parts.every((p, i) => {
      if (p.startsWith("{")) {
        if (segs[i] === "") return false;
        params[p.slice(1, -1)] = decode(segs[i]);
        return true;
      }
      return p === segs[i];
    });
    if (!ok) continue;
    if (r.method === method.toUpperCase()) return { route: r.route, params };
    found ??= { route: r.route, params };
  }
  return found ?? { route: UNMATCHED_ROUTE, params: {} };
}

/**
 * Length class of a text body: how long it is, coarsely (a length is not a value, but an exact one could hint at it).
 */
export function lengthClass(n: number): string {
  if (n === 0) return "0";
  let low = 1;
  for (const max of [16, 64, 256, 1024, 4096]) {
    if (n <= max) return `${low}-${max}`;
    low = max + 1;
  }
  return ">4096";
}

function stringShape(s: string): string {
  if (s === "") return "string:empty";
  if (s === "never") return "string:never";
  if (isRfc3339(s)) return "string:date-time";
  if (/^\d+$/.test(s)) return "string:digits";
  return "string";
}

/**
 * A member name as recorded: an id of the request path (a service could key a map by id) becomes its parameter name,
 * and an overlong name (more likely data than a name) becomes `{long-name}`.
 */
function memberName(name: string, ids: ReadonlyMap<string, string>): string {
  const param = ids.get(name);
  if (param !== undefined) return `{${param}}`;
  return name.length > 64 ? "{long-name}" : name;
}

/**
 * The shape of a parsed JSON value (see {@link Shape}); member names equal to a value of `ids` are replaced by `{key}`.
 */
export function shapeOf(value: unknown, ids: ReadonlyMap<string, string> = new Map()): Shape {
  if (value === null) return "null";
  if (typeof value === "boolean") return "boolean";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  if (typeof value === "string") return stringShape(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return [];
    return [value.map((v) => shapeOf(v, ids)).reduce(mergeShapes)];
  }
  if (isPlainObject(value)) {
    const out: Record<string, Shape> = {};
    for (const [k, v] of Object.entries(value)) {
      const name = memberName(k, ids);
      out[name] = name in out ? mergeShapes(out[name], shapeOf(v, ids)) : shapeOf(v, ids);
    }
    return out;
  }
  return "unknown";
}

type ObjectShape = { [member: string]: Shape };
const isOneOf = (s: Shape): s is { oneOf: Shape[] } =>
  isPlainObject(s) && Object.keys(s).length === 1 && Array.isArray(s.oneOf);
const bare = (name: string): string => (name.endsWith("?") ? name.slice(0, -1) : name);

/** The alternatives a shape stands for: the parts of a `a|b` primitive, the entries of a oneOf, else itself. */
function alternatives(s: Shape): Shape[] {
  if (typeof s === "string") return s.split("|");
  if (isOneOf(s)) return s.oneOf.flatMap(alternatives);
  return [s];
}

function mergeObjects(a: ObjectShape, b: ObjectShape): ObjectShape {
  const index = (o: ObjectShape): Map<string, { shape: Shape; optional: boolean }> =>
    new Map(Object.entries(o).map(([k, v]) => [bare(k), { shape: v, optional: k.endsWith("?") }]));
  const ia = index(a);
  const ib = index(b);
  const out: ObjectShape = {};
  for (const name of [...new Set([...ia.keys(), ...ib.keys()])].sort()) {
    const x = ia.get(name);
    const y = ib.get(name);
    const shape = x && y ? mergeShapes(x.shape, y.shape) : (x ?? y)!.shape;
    const optional = !x || !y || x.optional || y.optional;
    out[optional ? `${name}?` : name] = shape;
  }
  return out;
}

/**
 * The union of two shapes, as one shape: primitives joined (`string|null`), arrays by the union of their elements,
 * objects by the union of their members (a member missing on one side marked `?`), different kinds in a `oneOf`.
 */
export function mergeShapes(a: Shape, b: Shape): Shape {
  const prims = new Set<string>();
  let array: Shape[] | undefined;
  let object: ObjectShape | undefined;
  for (const alt of [...alternatives(a), ...alternatives(b)]) {
    if (typeof alt === "string") prims.add(alt);
    else if (Array.isArray(alt)) {
      if (array === undefined || array.length === 0) array = alt;
      else if (alt.length > 0) array = [mergeShapes(array[0], alt[0])];
    } else object = object === undefined ? alt : mergeObjects(object, alt);
  }
  const parts: Shape[] = [];
  if (prims.size > 0) parts.push([...prims].sort().join("|"));
  if (array !== undefined) parts.push(array);
  if (object !== undefined) parts.push(object);
  return parts.length === 1 ? parts[0] : { oneOf: parts };
}

/** The shape of a body as received (raw text): `empty`, a JSON shape, or `text:<length class>` when it is not JSON. */
export function bodyShape(text: unknown, ids: ReadonlyMap<string, string> = new Map()): Shape {
  const s = typeof text === "string" ? text : text === undefined || text === null ? "" : JSON.stringify(text);
  if (s.trim() === "") return "empty";
  try {
    return shapeOf(JSON.parse(s), ids);
  } catch {
    return `text:${lengthClass(s.trim().length)}`;
  }
}

/** Media type and charset of a Content-Type value, lower case; other parameters (a boundary, …) dropped. */
export function mediaType(value: unknown): string | undefined {
  if (typeof value !== "string" || value.trim() === "") return undefined;
  const [type, ...params] = value.split(";").map((p) => p.trim().toLowerCase());
  const charset = params.find((p) => p.startsWith("charset="));
  return charset ? `${type}; ${charset}` : type;
}

function headerNames(headers: unknown): string[] {
  if (typeof headers !== "object" || headers === null) return [];
  const h = headers as { toJSON?: () => unknown };
  const plain = typeof h.toJSON === "function" ? h.toJSON() : headers;
  return isPlainObject(plain) ? [...new Set(Object.keys(plain).map((k) => k.toLowerCase()))].sort() : [];
}

/**
 * The record of one attempt: `res` the answer (also the one of a non-2xx the transport rejected), `code` when none
 * came.
 */
export function describeExchange(
  config: Pick<InternalAxiosRequestConfig, "method" | "url" | "params">,
  res?: Pick<AxiosResponse, "status" | "headers" | "data">,
  code?: string,
): WireRecord {
  const method = (config.method ?? "get").toUpperCase();
  const { route, params } = matchRoute(method, config.url ?? "");
  const ids = new Map(Object.entries(params).map(([name, id]) => [id, name]));
  const query = isPlainObject(config.params) ? Object.keys(config.params).sort() : [];
  const headers = res?.headers as { get?: (n: string) => unknown; [k: string]: unknown } | undefined;
  const contentType = mediaType(
    typeof headers?.get === "function" ? headers.get("content-type") : headers?.["content-type"],
  );
  return {
    v: 1,
    method,
    route,
    query,
    status: res?.status ?? 0,
    ...(!res && code ? { error: /^[A-Z0-9_]{1,40}$/.test(code) ? code : "error" } : {}),
    ...(contentType ? { contentType } : {}),
    headers: headerNames(res?.headers),
    body: res ? bodyShape(res.data, ids) : "empty",
  };
}

/**
 * A sink that appends each record to `file` as one JSON line, with one write per line (several processes — the
 * Pulumi provider host and the program — may append to the same file). A relative path is resolved now, against
 * the current directory. A write that fails is reported once, as a warning (./log), and never fails the request.
 */
export function fileSink(file: string): WireSink {
  const target = path.resolve(file);
  let warned = false;
  return (record) => {
    try {
      fs.appendFileSync(target, JSON.stringify(record) + "\n");
    } catch (e) {
      if (!warned) warning(`pulumi-pims: cannot write the wire recording to ${target}: ${(e as Error).message}`);
      warned = true;
    }
  };
}

/**
 * Wraps the client's transport so every attempt (retries and repeated 429s included) is recorded in `record` (a file
 * or a sink); no recorder: the transport itself. Recording never changes or fails the request.
 */
export function recordingAdapter(transport: AxiosAdapter, record: string | WireSink | undefined): AxiosAdapter {
  if (record === undefined || record === "") return transport;
  const sink = typeof record === "string" ? fileSink(record) : record;
  const write = (r: () => WireRecord): void => {
    try {
      sink(r());
    } catch {
      // a recorder must never break a request
    }
  };
  return async (config) => {
    try {
      const res = await transport(config);
      write(() => describeExchange(config, res));
      return res;
    } catch (e) {
      const err = e as { response?: AxiosResponse; code?: string };
      write(() => describeExchange(config, err.response, err.code));
      throw e;
    }
  };
}
