/**
 * Secret hygiene of the typed client's errors: the token never appears in an error, whether the service, the network
 * or a timeout produced it, nor when a server message echoes the Authorization header.
 */
import { AuthError, NetworkError, NotFoundError, PimsClient, PimsError, TimeoutError } from "../../../provider/client";
import { closedPort, expectErrorFreeOf, useClientSuite, testClient, tinyServer, seedApp } from "../../kit/sim/client";
import { rejectionOf } from "../../kit/rejection";

const suite = useClientSuite();

describe("the token never appears in an error", () => {
  it("HTTP error: 401 with a bad token, and a 404 whose path and message carry the token", async () => {
    const badToken = "pims_admin_wrong_0123456789abcdef0123456789";
    const err401 = await rejectionOf(testClient(suite.sim, { token: badToken }).listInvoices("p-x"), AuthError);
    expectErrorFreeOf(err401, [badToken]);

    // A user who pastes the token where an id belongs: the path, the action and the service's message all hold it.
    const err404 = await rejectionOf(suite.client.listApiKeys(suite.sim.token), NotFoundError);
    expect(suite.sim.requests[1].path).toBe(`/v2/projects/${suite.sim.token}/api-keys`); // it did travel, as an id
    expectErrorFreeOf(err404, [suite.sim.token]);
    expect(err404.toString()).toBe(
      `listing API keys of project [REDACTED]: 404 project [REDACTED] not found (GET ` +
        `${suite.sim.baseUrl}/v2/projects/[REDACTED]/api-keys)`,
    );
  });

  it("network error: connection refused on a closed port", async () => {
    const closed = await closedPort();
    const token = "pims_admin_closed_port_0123456789abcdef";
    const c = new PimsClient({
      baseUrl: `http://127.0.0.1:${closed}`,
      token,
      retries: 1,
      minDelayMs: 1,
      maxDelayMs: 2,
    });
    const err = await rejectionOf(c.listApiKeys(token), NetworkError);
    expect(err).toMatchObject({ kind: "network", code: "ECONNREFUSED", attempts: 2 });
    expect(err.status).toBeUndefined();
    expect(err.toString()).toBe("listing API keys of project [REDACTED]: could not reach the service (ECONNREFUSED)");
    expectErrorFreeOf(err, [token]);
  });

  it("timeout: a delayed response beyond timeoutMs", async () => {
    const { projectId } = seedApp(suite.sim);
    suite.sim.addFault({ kind: "delay", delayMs: 2000 });
    const err = await rejectionOf(
      testClient(suite.sim, { timeoutMs: 100, retries: 0 }).listInvoices(projectId),
      TimeoutError,
    );
    expect(err).toBeInstanceOf(NetworkError);
    expect(err).toMatchObject({
      kind: "timeout",
      attempts: 1,
      method: "GET",
      path: `/v2/projects/${projectId}/invoices`,
    });
    expect(err.toString()).toBe(`listing invoices of project ${projectId}: timed out waiting for the service`);
    expectErrorFreeOf(err, [suite.sim.token]);
  });

  it("a server message echoing the Authorization header is scrubbed", async () => {
    const token = "pims_echoed_token_0123456789abcdef";
    const srv = await tinyServer((req, res) => {
      res.writeHead(500, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ message: `bad header: ${req.headers.authorization}` }));
    });
    try {
      const c = new PimsClient({ baseUrl: srv.baseUrl, token, retries: 0 });
      const err = await rejectionOf(c.listInvoices("p-1"), PimsError);
      expect(err.serverMessage).toBe("bad header: Bearer [REDACTED]");
      expectErrorFreeOf(err, [token]);
    } finally {
      await srv.close();
    }
  });
});
