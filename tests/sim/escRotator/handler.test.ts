/**
 * The ESC rotation adapter as a function (`createEscRotator(...).handle`, what a serverless host calls): issue 54's
 * acceptance table (tests/kit/esc/table.ts) against the simulator, and the adapter's configuration errors.
 */
import { createEscRotator } from "../../../provider/escRotator";
import { PimsConfigurationError } from "../../../provider/configErrors";
import { testClient } from "../../kit/sim/client";
import { describeEscOpenTable } from "../../kit/esc/openTable";
import type { StartTarget } from "../../kit/esc/suite";
import { describeEscTable } from "../../kit/esc/table";
import { withEnv } from "../../kit/env";

/** The adapter as a serverless host holds it: one per instance, a new one after each restart. */
const asFunction: StartTarget = async ({ sim, caller, allow, bounds }) => {
  const lines: string[] = [];
  const rotator = createEscRotator({
    client: testClient(sim),
    jwksUrl: caller.jwksUrl,
    issuer: caller.issuer,
    audience: caller.audience,
    openAudience: caller.openAudience,
    ...bounds,
    allow,
    lostCreateWatchMs: 200,
    log: (line) => lines.push(line),
  });
  return {
    send: async (r) => {
      const answer = await rotator.handle("POST", r.headers, r.body);
      // What a host sends on the wire: the body as JSON text.
      const body = JSON.parse(JSON.stringify(answer.body)) as Record<string, unknown>;
      return { status: answer.status, body, headers: answer.headers ?? {} };
    },
    logs: () => lines.join("\n"),
    close: async () => undefined,
  };
};
describeEscTable("the adapter as a function", asFunction);
describeEscOpenTable("the adapter as a function: opens", asFunction);

describe("the adapter's settings", () => {
  test("no audience or allow-list: a configuration error naming the variables", async () => {
    const err = await withEnv(
      { PIMS_ESC_AUDIENCE: undefined, PIMS_ESC_OPEN_AUDIENCE: undefined, PIMS_ESC_ALLOW: undefined },
      async () => {
        try {
          createEscRotator({ client: {} as never });
        } catch (e) {
          return e;
        }
      },
    );
    expect(err).toBeInstanceOf(PimsConfigurationError);
    expect(String((err as Error).message)).toMatch(/PIMS_ESC_AUDIENCE or PIMS_ESC_OPEN_AUDIENCE.*PIMS_ESC_ALLOW/);
  });

  test("the two routes with one audience: a configuration error (a token could not say which route it is for)", () => {
    const same = "https://adapter.test/esc";
    expect(() =>
      createEscRotator({ client: {} as never, audience: same, openAudience: same, allow: ["acme"] }),
    ).toThrow(/same audience[\s\S]*PIMS_ESC_AUDIENCE and PIMS_ESC_OPEN_AUDIENCE/);
  });
});
