/**
 * The ESC rotation adapter as a function (`createEscRotator(...).handle`, what a serverless host calls): issue 54's
 * acceptance table (tests/kit/esc/table.ts) against the simulator, and the adapter's configuration errors.
 */
import { createEscRotator } from "../../../provider/escRotator";
import { PimsConfigurationError } from "../../../provider/configErrors";
import { testClient } from "../../kit/sim/client";
import { describeEscTable } from "../../kit/esc/table";
import { withEnv } from "../../kit/env";

describeEscTable("the adapter as a function", async ({ sim, caller, allow }) => {
  const lines: string[] = [];
  const rotator = createEscRotator({
    client: testClient(sim),
    jwksUrl: caller.jwksUrl,
    issuer: caller.issuer,
    audience: caller.audience,
    allow,
    lostCreateWatchMs: 200,
    log: (line) => lines.push(line),
  });
  return {
    send: async (r) => {
      const answer = await rotator.handle("POST", r.headers, r.body);
      // What a host sends on the wire: the body as JSON text.
      return { status: answer.status, body: JSON.parse(JSON.stringify(answer.body)) as Record<string, unknown> };
    },
    logs: () => lines.join("\n"),
    close: async () => undefined,
  };
});

describe("the adapter's settings", () => {
  test("no audience or allow-list: a configuration error naming both variables", async () => {
    const err = await withEnv({ PIMS_ESC_AUDIENCE: undefined, PIMS_ESC_ALLOW: undefined }, async () => {
      try {
        createEscRotator({ client: {} as never });
      } catch (e) {
        return e;
      }
    });
    expect(err).toBeInstanceOf(PimsConfigurationError);
    expect(String((err as Error).message)).toMatch(/PIMS_ESC_AUDIENCE.*PIMS_ESC_ALLOW/);
  });
});
