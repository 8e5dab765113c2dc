/**
 * The wire recorder (provider/client/recorder): route templating by the ten documented routes, body shapes that
 * keep member names and types and drop every value, and the transport wrapper that writes one line per attempt.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import {
  AxiosError,
  AxiosHeaders,
  type AxiosAdapter,
  type AxiosResponse,
  type InternalAxiosRequestConfig,
} from "axios";
import {
  DOCUMENTED_ROUTES,
  UNMATCHED_ROUTE,
  bodyShape,
  describeExchange,
  matchRoute,
  mergeShapes,
  recordingAdapter,
  type WireRecord,
} from "../../../provider/client/recorder";
import { expectNoPlaintextSecrets } from "../../kit/secrets/secrets";

const SECRET = "pims_sa_0123456789abcdef0123456789abcdef";
const KEY_VALUE = "ak_live_fedcba9876543210fedcba9876543210";
const PROJECT = "p-1a2b3c4d";
const ACCOUNT = "sa-7f3e9a01b2c4";

function response(
  status: number,
  body: string,
  headers: Record<string, string> = { "content-type": "application/json; charset=utf-8" },
): AxiosResponse<string> {
  return {
    status,
    statusText: "",
    data: body,
    headers: new AxiosHeaders(headers),
    config: {} as InternalAxiosRequestConfig,
  };
}
const config = (method: string, url: string, params: Record<string, string> = {}): InternalAxiosRequestConfig =>
  ({
    method,
    url,
    params,
    headers: new AxiosHeaders({ Authorization: `Bearer ${SECRET}` }),
  }) as InternalAxiosRequestConfig;

describe("matchRoute", () => {
  test("each documented route is matched by its own literal segments; its ids are returned by parameter name", () => {
    for (const r of DOCUMENTED_ROUTES) {
      const ids: Record<string, string> = {};
      const concrete = r.route.replace(/\{([a-z_]+)\}/g, (_m, name: string) => (ids[name] = `${name}-x%2Fy-1`));
      const m = matchRoute(r.method, concrete);
      expect(m.route).toBe(r.route);
      expect(m.params).toEqual(Object.fromEntries(Object.keys(ids).map((k) => [k, `${k}-x/y-1`])));
    }
  });

  test("a path no documented route has is (unmatched), whatever its ids look like", () => {
    expect(matchRoute("GET", `/v2/projects/${PROJECT}/secrets`).route).toBe(UNMATCHED_ROUTE);
    expect(matchRoute("GET", `/v2/projects/${PROJECT}/apps//logs`).route).toBe(UNMATCHED_ROUTE);
    expect(matchRoute("GET", `/v3/projects/${PROJECT}/api-keys`).route).toBe(UNMATCHED_ROUTE);
  });
});

describe("body shapes", () => {
  test("an array's elements are summarized as one shape: members only some have are marked ?, kinds are joined", () => {
    const shape = bodyShape(
      JSON.stringify([
        { id: "a", expiresAt: "2030-01-01T00:00:00Z", principalId: "x" },
        { id: "b", expiresAt: "never", principalId: null },
        { id: "c", expiresAt: null, extra: { n: 1.5 } },
      ]),
    );
    expect(shape).toEqual([
      {
        expiresAt: "null|string:date-time|string:never",
        "extra?": { n: "number" },
        id: "string",
        "principalId?": "null|string",
      },
    ]);
  });

  test("different kinds in one place become a oneOf; plain text is a length class; no body is empty", () => {
    expect(mergeShapes({ a: "string" }, "null")).toEqual({ oneOf: ["null", { a: "string" }] });
    expect(mergeShapes(["integer"], [])).toEqual(["integer"]);
    expect(bodyShape("p-1a2b3c4d")).toBe("text:1-16");
    expect(bodyShape(`"p-1a2b3c4d"\n`)).toBe("string");
    expect(bodyShape("x".repeat(100))).toBe("text:65-256");
    expect(bodyShape("  ")).toBe("empty");
    expect(bodyShape(undefined)).toBe("empty");
  });
});

describe("describeExchange never records a value", () => {
  const bodies: Array<{
    what: string;
    method: string;
    url: string;
    status: number;
    body: string;
    params?: Record<string, string>;
  }> = [
    {
      what: "a create answer with the one-time token",
      method: "post",
      url: `/v2/projects/${PROJECT}/service-accounts`,
      status: 201,
      body: JSON.stringify({
        id: ACCOUNT,
        name: "deployer-secret-name",
        projectId: PROJECT,
        grants: [PROJECT],
        token: { accessToken: SECRET, tokenId: "tok-123456789", expiresAt: 1767225600 },
      }),
    },
    {
      what: "an API key listing",
      method: "get",
      url: `/v2/projects/${PROJECT}/api-keys`,
      status: 200,
      body: JSON.stringify([
        {
          id: "key-123456789",
          apiKey: KEY_VALUE,
          principalId: ACCOUNT,
          projectId: PROJECT,
          name: "deployer",
          expiresAt: "never",
        },
      ]),
    },
    {
      what: "an error naming the account",
      method: "delete",
      url: `/v2/projects/${PROJECT}/service-accounts/${ACCOUNT}`,
      status: 404,
      body: JSON.stringify({ message: `service account ${ACCOUNT} not found` }),
    },
    { what: "a plain-text body that is a secret", method: "post", url: "/v2/projects", status: 201, body: SECRET },
    {
      what: "a map keyed by the path's id",
      method: "get",
      url: `/v2/projects/${PROJECT}/invoices`,
      status: 200,
      body: JSON.stringify({ [PROJECT]: [{ id: "inv-123456789" }] }),
    },
    {
      what: "a log page requested with a page token",
      method: "get",
      url: `/v2/projects/${PROJECT}/apps/${PROJECT}-web/logs`,
      status: 200,
      params: { nextToken: SECRET, search: KEY_VALUE },
      body: JSON.stringify({
        hasMore: true,
        nextPageToken: SECRET,
        logs: [{ logLine: `token=${SECRET}`, lineNumber: 3 }],
      }),
    },
  ];

  test.each(bodies)("$what", ({ method, url, status, body, params }) => {
    const record = describeExchange(
      config(method, url, params),
      response(status, body, {
        "content-type": "application/json",
        "x-request-id": SECRET,
        "set-cookie": `s=${KEY_VALUE}`,
      }),
    );
    const text = JSON.stringify(record);
    expectNoPlaintextSecrets(
      text,
      [SECRET, KEY_VALUE, PROJECT, ACCOUNT, "tok-123456789", "key-123456789", "inv-123456789", "deployer-secret-name"],
      "a wire record",
    );
    expect(text).not.toMatch(/Bearer|authorization/i);
    expect(record.route).not.toContain(PROJECT);
    expect(record.headers).toEqual(["content-type", "set-cookie", "x-request-id"]);
    expect(record.query).toEqual(Object.keys(params ?? {}).sort());
  });

  test("the shapes keep the member names and types (the token layout a service uses is visible)", () => {
    const r = describeExchange(
      config("post", `/v2/projects/${PROJECT}/service-accounts`),
      response(200, bodies[0].body),
    );
    expect(r).toEqual<WireRecord>({
      v: 1,
      method: "POST",
      route: "/v2/projects/{project_id}/service-accounts",
      query: [],
      status: 200,
      contentType: "application/json; charset=utf-8",
      headers: ["content-type"],
      body: {
        id: "string",
        name: "string",
        projectId: "string",
        grants: ["string"],
        token: { accessToken: "string", tokenId: "string", expiresAt: "integer" },
      },
    });
    const keyed = describeExchange(config("get", `/v2/projects/${PROJECT}/invoices`), response(200, bodies[4].body));
    expect(keyed.body).toEqual({ "{project_id}": [{ id: "string" }] });
  });
});

describe("recordingAdapter", () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), "pims-recorder-"))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  test("appends one line per attempt to a file, answers and refusals alike, passing both through as is", async () => {
    const file = path.join(dir, "wire.jsonl");
    const answers = [
      response(429, JSON.stringify({ message: "slow down" }), { "retry-after": "1" }),
      response(200, JSON.stringify([{ apiKey: KEY_VALUE }])),
    ];
    const inner: AxiosAdapter = async (c) => {
      const res = answers.shift()!;
      if (res.status >= 300) throw new AxiosError("refused", "ERR_BAD_REQUEST", c, undefined, res);
      return res;
    };
    const adapter = recordingAdapter(inner, file);
    const c = config("get", `/v2/projects/${PROJECT}/api-keys`);
    const refused = await adapter(c).catch((e: unknown) => e);
    expect((refused as AxiosError).response?.status).toBe(429);
    const ok = await adapter(c);
    expect(ok.data).toBe(JSON.stringify([{ apiKey: KEY_VALUE }]));
    const lines = fs
      .readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as WireRecord);
    expect(lines.map((l) => [l.status, l.headers, l.body])).toEqual([
      [429, ["retry-after"], { message: "string" }],
      [200, ["content-type"], [{ apiKey: "string" }]],
    ]);
    expectNoPlaintextSecrets(fs.readFileSync(file, "utf8"), [KEY_VALUE, PROJECT, SECRET], "the recording");
  });

  test("an attempt without an answer is recorded with its error code; a throwing sink never fails it", async () => {
    const seen: WireRecord[] = [];
    const dropped = recordingAdapter(
      async (c) => Promise.reject(new AxiosError("socket hang up", "ECONNRESET", c)),
      (r) => seen.push(r),
    );
    await expect(dropped(config("delete", `/v2/projects/${PROJECT}/apps/a/runs/r`))).rejects.toThrow("socket hang up");
    expect(seen).toEqual([
      {
        v: 1,
        method: "DELETE",
        route: "/v2/projects/{project_id}/apps/{app_id}/runs/{run_id}",
        query: [],
        status: 0,
        error: "ECONNRESET",
        headers: [],
        body: "empty",
      },
    ]);

    const broken = recordingAdapter(
      async () => response(200, "ok"),
      () => {
        throw new Error("disk full");
      },
    );
    await expect(broken(config("get", `/v2/projects/${PROJECT}/invoices`))).resolves.toMatchObject({ status: 200 });
    expect(recordingAdapter(inertAdapter, undefined)).toBe(inertAdapter);
  });
});

const inertAdapter: AxiosAdapter = async () => response(200, "");
