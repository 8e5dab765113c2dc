/**
 * Liberal parsing of odd-but-valid answers the simulator never gives, from a tiny real HTTP server on loopback:
 * quoted plain text, empty bodies, null and unknown fields, numbers as strings, other token layouts.
 */
import { NotFoundError, PimsClient, PimsError, UnreadableTokenError } from "../../../provider/client";
import { collectLines, expectErrorFreeOf, fixed, tinyServer, type TinyServer } from "../../kit/sim/client";
import { rejectionOf } from "../../kit/rejection";

describe("liberal parsing (tiny real server)", () => {
  let srv: TinyServer | undefined;
  afterEach(async () => {
    await srv?.close();
    srv = undefined;
  });
  const TOKEN = "tiny_server_token_0123456789";
  const tinyClient = (s: TinyServer) => new PimsClient({ baseUrl: `${s.baseUrl}/`, token: TOKEN, retries: 0 });

  it.each([
    ["a JSON-quoted id with whitespace around it", '  "p-12345678"\n'],
    ["plain text with whitespace and CRLF", "\r\n  p-12345678 \r\n"],
    ["plain text exactly", "p-12345678"],
  ])("createProject parses %s", async (_name, body) => {
    srv = await tinyServer(fixed(201, body, "text/plain"));
    expect(await tinyClient(srv).createProject({ name: "x1" })).toBe("p-12345678");
    expect(srv.requests).toEqual([
      { method: "POST", url: "/v2/projects", authorization: `Bearer ${TOKEN}`, body: '{"name":"x1"}' },
    ]);
  });

  it("createProject with an empty body is an error naming the problem", async () => {
    srv = await tinyServer(fixed(201, "   \n", "text/plain"));
    const err = await rejectionOf(tinyClient(srv).createProject({ name: "x1" }), PimsError);
    expect(err.toString()).toBe('creating project "x1": 201 the response carried no project id');
  });

  it("createProject accepts a JSON object carrying the id", async () => {
    srv = await tinyServer(fixed(201, JSON.stringify({ id: "p-0000abcd", name: "x1" })));
    expect(await tinyClient(srv).createProject({ name: "x1" })).toBe("p-0000abcd");
  });

  it("createProject refuses a body that is not an id (an HTML page from a wrong baseUrl), token redacted", async () => {
    srv = await tinyServer((req, res) => {
      res.writeHead(200, { "Content-Type": "text/html" });
      res.end(`<html><body>Welcome! header was ${req.headers.authorization}</body></html>`);
    });
    const err = await rejectionOf(tinyClient(srv).createProject({ name: "x1" }), PimsError);
    expect(err.toString()).toMatch(
      /^creating project "x1": 200 unexpected response, expected a project id, got "<html><body>Welcome! header was Bearer \[REDACTED\]/,
    );
    expectErrorFreeOf(err, [TOKEN]);
  });

  it("a 200 whose body is not the expected shape is an error, not an empty result", async () => {
    srv = await tinyServer(fixed(200, "<!doctype html><title>Console</title>", "text/html"));
    const c = tinyClient(srv);
    const keys = await rejectionOf(c.listApiKeys("p-1"), PimsError);
    const page = '"<!doctype html><title>Console</title>"';
    expect(keys.toString()).toBe(
      "listing API keys of project p-1: 200 unexpected response, expected a JSON array, got 37 characters of text",
    );
    expect(keys.kind).toBe("http");
    expect((await rejectionOf(c.listInvoices("p-1"), PimsError)).serverMessage).toBe(
      `unexpected response, expected a JSON array, got ${page}`,
    );
    expect((await rejectionOf(c.getAppLogsPage("p-1", "a-1"), PimsError)).serverMessage).toBe(
      `unexpected response, expected a JSON log page, got ${page}`,
    );
    expect((await rejectionOf(c.getBuildLogs("p-1", "a-1", "b-1"), PimsError)).serverMessage).toBe(
      `unexpected response, expected a JSON build logs object, got ${page}`,
    );
    const sa = await rejectionOf(
      c.createServiceAccount("p-1", { name: "ci", grants: ["p-1"], expiresIn: 0 }),
      PimsError,
    );
    expect(sa.serverMessage).toBe(
      "unexpected response, expected a JSON service account object, got 37 characters of text",
    );
    await srv.close();
    srv = await tinyServer(fixed(200, JSON.stringify({ message: "not a list" })));
    expect((await rejectionOf(tinyClient(srv).listInvoices("p-1"), PimsError)).serverMessage).toBe(
      "unexpected response, expected a JSON array, got a JSON object",
    );
  });

  it("an unexpected body that carries secrets is never quoted in the error", async () => {
    const apiKey = "pims_live_key_0123456789abcdef";
    const oneTime = "pims_sa_onetime_0123456789abcdef";
    srv = await tinyServer((req, res) => {
      res.writeHead(req.method === "POST" ? 201 : 200, { "Content-Type": "text/plain" });
      res.end(req.method === "POST" ? oneTime : `{"keys":[{"apiKey":"${apiKey}"}]}`);
    });
    const c = tinyClient(srv);
    const keys = await rejectionOf(c.listApiKeys("p-1"), PimsError);
    expect(keys.serverMessage).toBe("unexpected response, expected a JSON array, got a JSON object");
    const sa = await rejectionOf(
      c.createServiceAccount("p-1", { name: "ci", grants: ["p-1"], expiresIn: 0 }),
      PimsError,
    );
    expect(sa.serverMessage).toBe(
      `unexpected response, expected a JSON service account object, got ${oneTime.length} characters of text`,
    );
    for (const err of [keys, sa]) expectErrorFreeOf(err, [apiKey, oneTime, TOKEN]);
  });

  it("createProject through the `adapter` option (a JSON-quoted id)", async () => {
    const seen: string[] = [];
    const c = new PimsClient({
      baseUrl: "http://pims.invalid",
      token: TOKEN,
      retries: 0,
      adapter: async (config) => {
        seen.push(`${config.method?.toUpperCase()} ${config.baseURL}${config.url} ${String(config.data)}`);
        return { data: ' "p-abcdef01"\n', status: 201, statusText: "Created", headers: {}, config };
      },
    });
    expect(await c.createProject({ name: "via-adapter" })).toBe("p-abcdef01");
    expect(seen).toEqual(['POST http://pims.invalid/v2/projects {"name":"via-adapter"}']);
  });

  it("api keys with null optional fields and unknown fields", async () => {
    srv = await tinyServer(
      fixed(
        200,
        JSON.stringify([
          {
            id: "k1",
            name: "one",
            description: null,
            apiKey: "pims_...abcd",
            projectId: "p-1",
            principalId: null,
            source: "user",
            status: "active",
            createdAt: "2024-01-01T00:00:00Z",
            updatedAt: null,
            expiresAt: null,
            brandNewField: { nested: [1, 2] },
          },
          {
            id: "k2",
            name: "two",
            apiKey: "pims_...ef01",
            projectId: "p-1",
            principalId: "sa-1",
            expiresAt: "2030-01-01T00:00:00Z",
            extra: true,
          },
        ]),
      ),
    );
    const keys = await tinyClient(srv).listApiKeys("p-1");
    expect(keys).toEqual([
      {
        id: "k1",
        name: "one",
        description: "",
        apiKey: "pims_...abcd",
        projectId: "p-1",
        source: "user",
        status: "active",
        createdAt: "2024-01-01T00:00:00Z",
        updatedAt: "",
        expiresAt: "never",
      },
      {
        id: "k2",
        name: "two",
        description: "",
        apiKey: "pims_...ef01",
        projectId: "p-1",
        principalId: "sa-1",
        source: "",
        status: "",
        createdAt: "",
        updatedAt: "",
        expiresAt: "2030-01-01T00:00:00Z",
      },
    ]);
    for (const k of keys) for (const v of Object.values(k)) expect(v).not.toBeNull();
  });

  it("logs: a 204, and a 200 with an empty body, are empty last pages", async () => {
    srv = await tinyServer(fixed(204, ""));
    const c = tinyClient(srv);
    expect(await c.getAppLogsPage("p-1", "a-1")).toEqual({ hasMore: false, logs: [] });
    expect(await collectLines(c, "p-1", "a-1", {}, 5)).toEqual([]);
    await srv.close();
    srv = await tinyServer(fixed(200, ""));
    expect(await tinyClient(srv).getAppLogsPage("p-1", "a-1")).toEqual({ hasMore: false, logs: [] });
  });

  it("logs: hasMore without a nextPageToken, or the same token again, does not loop", async () => {
    const line = {
      logId: "l1",
      appId: "a-1",
      projectId: "p-1",
      containerId: "c",
      containerName: "web",
      runId: "r",
      lineNumber: "7",
      logLine: "x",
      stream: "stdout",
      timestamp: "t",
    };
    srv = await tinyServer(fixed(200, JSON.stringify({ hasMore: true, logs: [line] })));
    const page = await tinyClient(srv).getAppLogsPage("p-1", "a-1");
    expect(page).toEqual({ hasMore: false, logs: [{ ...line, lineNumber: 7 }] });
    await srv.close();

    srv = await tinyServer(fixed(200, JSON.stringify({ hasMore: true, logs: [line], nextPageToken: "same" })));
    const lines = await collectLines(tinyClient(srv), "p-1", "a-1", { pageSize: 100 }, 100);
    expect(lines).toHaveLength(2); // first page (no token), then "same" once; a repeated token ends the walk
    expect(srv.requests.map((r) => r.url)).toEqual([
      "/v2/projects/p-1/apps/a-1/logs?pageSize=100",
      "/v2/projects/p-1/apps/a-1/logs?pageSize=100&nextToken=same",
    ]);
  });

  it("invoices: an empty body is an empty list; amounts as strings become numbers", async () => {
    srv = await tinyServer(fixed(200, ""));
    expect(await tinyClient(srv).listInvoices("p-1")).toEqual([]);
    await srv.close();
    srv = await tinyServer(
      fixed(200, JSON.stringify([{ id: "in_1", amountDue: "1999", currency: "usd", unknown: 1 }])),
    );
    expect(await tinyClient(srv).listInvoices("p-1")).toEqual([
      {
        id: "in_1",
        accountCountry: "",
        accountName: "",
        amountDue: 1999,
        currency: "usd",
        createdAt: "",
        fileUrl: "",
        paymentStatus: "",
      },
    ]);
  });

  it("service account token with alternate member names (value, expires_at)", async () => {
    srv = await tinyServer(
      fixed(
        201,
        JSON.stringify({
          id: "sa-1",
          name: "ci",
          projectId: "p-1",
          grants: ["p-1"],
          token: { token_id: "t-1", value: "s3cr3t-value-123", expires_at: "2030-01-01T00:00:00Z" },
        }),
      ),
    );
    const sa = await tinyClient(srv).createServiceAccount("p-1", { name: "ci", grants: ["p-1"], expiresIn: 60 });
    expect(sa.token).toEqual({ id: "t-1", secret: "s3cr3t-value-123", expiresAt: "2030-01-01T00:00:00Z" });
    expect(sa).toMatchObject({ id: "sa-1", description: "", createdByUserId: "" });
  });

  it("token as a bare string; a response naming the account without a token is UnreadableTokenError", async () => {
    srv = await tinyServer(fixed(201, JSON.stringify({ id: "sa-1", name: "ci", token: "bare-secret-0123" })));
    expect(
      (await tinyClient(srv).createServiceAccount("p-1", { name: "ci", grants: ["p-1"], expiresIn: 0 })).token.secret,
    ).toBe("bare-secret-0123");
    await srv.close();
    srv = await tinyServer(fixed(201, JSON.stringify({ id: "sa-1", name: "ci", token: { id: "t-1" } })));
    const err = await rejectionOf(
      tinyClient(srv).createServiceAccount("p 1", { name: "ci", grants: ["p-1"], expiresIn: 0 }),
      UnreadableTokenError,
    );
    expect(err).toMatchObject({ accountId: "sa-1", members: ["id"], status: 201 });
    expect(err.toString()).toBe(
      'creating service account "ci" in project p 1: 201 the response names service account "sa-1" but no token ' +
        "secret could be identified in it " +
        '(members of its token object: "id"; values not shown). The account exists and its token is lost; please ' +
        "report these member names to the pulumi-pims maintainers",
    );
    expect(err.path).toBe("/v2/projects/p%201/service-accounts");
    await srv.close();
    // No account id either: nothing says an account exists, so the answer is only ambiguous.
    srv = await tinyServer(fixed(200, JSON.stringify({ name: "ci", token: { id: "t-1" } })));
    const ambiguous = await rejectionOf(
      tinyClient(srv).createServiceAccount("p-1", { name: "ci", grants: ["p-1"], expiresIn: 0 }),
      PimsError,
    );
    expect(ambiguous).not.toBeInstanceOf(UnreadableTokenError);
    expect(ambiguous.toString()).toBe(
      'creating service account "ci" in project p-1: 200 the response carried no token',
    );
  });

  it("delete and cancel accept a JSON {message} or plain text; build logs accept string entries", async () => {
    srv = await tinyServer((req, res) => {
      if (req.url?.includes("/builds/")) {
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ status: "ready", logs: ["plain line", { message: "as message", createdAt: "t1" }] }));
      } else if (req.url?.includes("/runs/")) {
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ message: "cancellation requested" }));
      } else {
        res.writeHead(200, { "Content-Type": "text/plain" });
        res.end("deleted\n");
      }
    });
    const c = tinyClient(srv);
    expect(await c.deleteServiceAccount("p-1", "sa-1")).toEqual({ message: "deleted" });
    expect(await c.cancelRun("p-1", "a-1", "r-1")).toBe("cancellation requested");
    expect(await c.getBuildLogs("p-1", "a-1", "b-1")).toEqual({
      app_id: "a-1",
      build_id: "b-1",
      project_id: "p-1",
      status: "ready",
      logs: [
        { createdAt: "", log: "plain line" },
        { createdAt: "t1", log: "as message" },
      ],
    });
  });

  it("an error body that is not JSON becomes the server message (truncated)", async () => {
    srv = await tinyServer(fixed(404, `<html>${"x".repeat(400)}</html>`, "text/html"));
    const err = await rejectionOf(tinyClient(srv).listInvoices("p-1"), NotFoundError);
    expect(err.serverMessage).toHaveLength(301);
    expect(err.serverMessage?.endsWith("…")).toBe(true);
    await srv.close();
    srv = await tinyServer(fixed(404, ""));
    const empty = await rejectionOf(tinyClient(srv).listInvoices("p-1"), NotFoundError);
    expect(empty.toString()).toBe(
      `listing invoices of project p-1: 404 Not Found (GET ${srv.baseUrl}/v2/projects/p-1/invoices)`,
    );
  });
});
