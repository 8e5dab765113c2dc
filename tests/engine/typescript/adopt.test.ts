/**
 * Adoption in TypeScript (issue 39), with the real engine and the simulator: the engine's `pulumi import` cannot reach
 * a dynamic resource, so a program names an account made in the console (no state holds it) in
 * `adoptServiceAccountId`. `up` adopts it without a POST (tokenHeld false, a warning), the next preview changes
 * nothing, two rotations take it over (the adopted account kept as previous, then deleted), destroy leaves nothing
 * live, and no token is in plaintext in the output or any file. The YAML side (the engine's import through the plugin)
 * is tests/engine/plugin/importYaml.test.ts.
 */
import * as path from "node:path";
import * as pims from "pulumi-pims";
import { useEngineStack } from "../../kit/engine/engineSuite";
import { consoleAccount, liveIds, writesOf } from "../../kit/sim/simulator";

let home: string; // the project the console account lives in
let adopted: { id: string; token: string };
let trigger = "r0";

const suite = useEngineStack({
  scratchPrefix: "pims-e2e-adopt-",
  stack: async ({ sim, scratch }) => {
    home = sim.addProject({ name: "console-home" }).id;
    adopted = await consoleAccount(sim, home, "console-ts");
    return {
      stackName: "ts",
      projectName: "pims-adopt",
      workDir: path.join(scratch, "ts"),
      program: async () => {
        const sa = new pims.ServiceAccount("adopted", {
          projectId: home,
          name: "console-ts",
          description: "made in the console",
          grants: [home],
          expiresIn: 7_776_000,
          keepPreviousToken: true,
          rotateBeforeExpiry: 3_888_000,
          rotationTrigger: trigger,
          adoptServiceAccountId: adopted.id,
        });
        return { id: sa.serviceAccountId, held: sa.tokenHeld };
      },
    };
  },
});

describe("adoptServiceAccountId, the dynamic resources' way to what pulumi import does", () => {
  test("up adopts without a POST; no change next; rotations take it over; destroy leaves nothing live", async () => {
    const { sim, stack: ts, engine: tsEngine } = suite;
    // the stack and the adopted account
    const outputs = await suite.up({ create: 2 });
    expect(writesOf(sim)).toEqual([]);
    expect(outputs.id.value).toBe(adopted.id);
    expect(outputs.held.value).toBe(false);
    expect(tsEngine.text()).toMatch(
      /warning: pulumi-pims: service account "console-ts" \(sa-\w+\) in project \S+ adopted without its token/,
    );
    await ts.preview({ ...tsEngine.opts, expectNoChanges: true });

    trigger = "r1";
    sim.clearRequests();
    await ts.up(tsEngine.opts);
    const first = await suite.shown("adopted");
    expect(first).toMatchObject({ previousServiceAccountId: adopted.id, tokenHeld: true });
    expect(writesOf(sim)).toEqual([`POST /v2/projects/${home}/service-accounts`]);
    expect(liveIds(sim, home)).toEqual(expect.arrayContaining([adopted.id, first.serviceAccountId as string]));

    trigger = "r2";
    sim.clearRequests();
    await ts.up(tsEngine.opts);
    const second = await suite.shown("adopted");
    expect(writesOf(sim)).toEqual([
      `POST /v2/projects/${home}/service-accounts`,
      `DELETE /v2/projects/${home}/service-accounts/${adopted.id}`,
    ]);
    await ts.destroy(tsEngine.opts);
    for (const id of [adopted.id, first.serviceAccountId, second.serviceAccountId])
      expect(liveIds(sim, home)).not.toContain(id);
    suite.expectNoSecrets();
  });
});
