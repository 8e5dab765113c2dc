/**
 * Issue 55's peer-bug suite, rows 3 and 16, each through a TypeScript program (the dynamic provider) and a YAML
 * program (the plugin), against the simulator and the real engine.
 *
 * Row 3, an expired token taken for a deleted account (grafana/terraform-provider-grafana PR #1678 and issue #2734:
 * an expired token vanished from the listing, the provider reported it "deleted outside Terraform", with false drift
 * and nothing left to clean it up). What the user needs: `pulumi refresh` tells expired from deleted (the project's
 * API-key listing still shows the account, with its `expiresAt` passed on the service's clock) and says so in a
 * warning naming the resource, `pulumi preview` shows the rotation and says why (issue 63: a warning naming the account
 * and when its token expired on the service's clock; the plugin's diff names `tokenExpiresAt`, not an output the user
 * never changed), `pulumi up` makes a new account and token and deletes the expired one: no ghost in the state, no
 * stack output answering 401 "Token has expired".
 *
 * Row 16, clock skew (no public anchor): the local clock an hour ahead of or behind the service's. Expiry decisions
 * use the service's times (its `expiresAt`, its `Date` header): a window reached on the service's clock rotates the
 * token although ours says it is not, and one reached only on ours rotates nothing; refresh calls nothing expired
 * that the service does not. The simulator's clock is moved (`advanceClock`), ours is not.
 *
 * Needs the pulumi CLI and the YAML host: without them this suite fails, it never skips.
 */
import * as path from "node:path";
import * as pims from "pulumi-pims";
import { randomSecret } from "../../../scripts/engine";
import { writeYamlProject } from "../../../scripts/engine/yaml";
import { sleep } from "../../kit/engine/engine";
import { type EngineSuite, useEngineStack } from "../../kit/engine/engineSuite";
import { accountYaml, type OneAccount, through, useOneAccountStack } from "../../kit/engine/oneAccount";
import { liveIds, writesOf } from "../../kit/sim/simulator";
import { HOSTS, type Host } from "./table";

const HOUR = 3_600_000;

// ---- row 3 ---------------------------------------------------------------------------------------------------------

/** A one-hour token and no rotation window: nothing but a refresh can notice it expired. */
const expiring = (projectId: string): OneAccount => ({
  resource: "expiring",
  inputs: { projectId, name: "expiring", expiresIn: 3600 },
  outputs: { id: "serviceAccountId" },
});

/**
 * The scenario in either host: up, the token expires on the service's clock (ours does not move), refresh keeps the
 * account with a warning and marks it, preview plans the replacement, up rotates and deletes the expired account.
 */
async function expiredAccountScenario(suite: EngineSuite, projectId: string, host: Host): Promise<void> {
  const { sim, stack, engine } = suite;
  await stack.up(engine.opts);
  const first = await suite.shown("expiring");
  const [id, token] = [first.serviceAccountId as string, first.token as string];
  expect(await suite.tokenWorks(token, projectId)).toBe(true);

  sim.advanceClock(2 * HOUR); // the service's clock passes the token's expiry; the local clock does not
  expect(await suite.tokenWorks(token, projectId)).toBe(false); // 401: what every consumer now gets

  sim.clearRequests();
  const refresh = await stack.refresh(engine.opts);
  expect(refresh.summary.result).toBe("succeeded");
  const said = refresh.stdout + refresh.stderr;
  expect(said).toMatch(
    new RegExp(
      `service account "expiring" \\(${id}\\) in project ${projectId}: its token has expired: GET \\S+/api-keys`,
    ),
  );
  expect(said).toMatch(/not deleted outside the stack.*the next `pulumi up` creates a new account and token/s);
  expect(said).not.toMatch(/no longer shows it/); // never "deleted outside"
  expect(writesOf(sim)).toEqual([]); // refresh deletes nothing
  expect(liveIds(sim, projectId)).toEqual([id]);
  expect(await suite.shown("expiring")).toMatchObject({ serviceAccountId: id, token, retiredServiceAccountIds: [id] });

  const preview = await stack.preview(engine.opts);
  expect(preview.changeSummary).toMatchObject({ replace: 1 });
  // The preview says why: the account, and when its token expired on the service's clock (ours never moved).
  const planned = preview.stdout + preview.stderr;
  expect(planned).toContain(
    `warning: pulumi-pims: service account "expiring" (${id}) in project ${projectId} is replaced (tokenExpiresAt): ` +
      `its token expired at ${String(first.tokenExpiresAt)} on the service's clock`,
  );
  expect(planned).not.toContain("serviceAccountId"); // not an output the user never changed
  // The plugin's detailed diff names the expiry (the dynamic host has none: the engine shows no key).
  if (host === "yaml") expect(planned).toMatch(/expiring\s+replace\s+\[diff: ~tokenExpiresAt\]/);

  sim.clearRequests();
  const up = await stack.up(engine.opts);
  expect(up.summary.resourceChanges).toMatchObject({ replace: 1 });
  const after = await suite.shown("expiring");
  expect(after.serviceAccountId).not.toBe(id);
  expect(after).not.toHaveProperty("retiredServiceAccountIds"); // no ghost in the state
  expect(writesOf(sim)).toEqual([
    `POST /v2/projects/${projectId}/service-accounts`,
    `DELETE /v2/projects/${projectId}/service-accounts/${id}`,
  ]);
  expect(liveIds(sim, projectId)).toEqual([after.serviceAccountId]); // no ghost in the service
  expect(await suite.tokenWorks(after.token as string, projectId)).toBe(true);
  await stack.preview({ ...engine.opts, expectNoChanges: true });
  suite.expectNoSecrets();
}

for (const host of HOSTS)
  describe(`row 3 ${through(host)}`, () => {
    const { suite, home } = useOneAccountStack({
      host,
      project: "pims-peer-expired",
      account: (_suite, projectId) => expiring(projectId),
    });

    test(`row 3, ${host}: refresh says expired (not deleted), the preview says why, up rotates, no ghost`, () =>
      expiredAccountScenario(suite, home(), host));
  });

// ---- row 16 --------------------------------------------------------------------------------------------------------

/**
 * Two services: the stack's (sims[0]) an hour ahead of this machine, the explicit provider's (sims[1]) an hour behind.
 * `ahead`: a 2 h token rotated 5 s before expiry... of 7200 s, so due 5 s after its creation on the service's clock,
 * an hour later on ours. `behind`: a 3000 s token, window 2000 s: due 1000 s after its creation on the service's
 * clock, and already expired (and due) on ours.
 */
const AHEAD = { expiresIn: 7200, rotateBeforeExpiry: 7195 };
const BEHIND = { expiresIn: 3000, rotateBeforeExpiry: 2000 };

/** One of the two accounts in YAML, its project from the stack config (`aheadProjectId`, `behindProjectId`). */
const skewAccount = (name: "ahead" | "behind", window: typeof AHEAD, options?: Record<string, string>): string =>
  accountYaml(name, { projectId: `\${${name}ProjectId}`, name, ...window }, options);

const SKEW_YAML = `
config:
  aheadProjectId:
    type: string
  behindProjectId:
    type: string
  behindBaseUrl:
    type: string
  behindToken:
    type: string
    secret: true
resources:
  behindProvider:
    type: pulumi:providers:pims
    properties:
      baseUrl: \${behindBaseUrl}
      token: \${behindToken}
${skewAccount("ahead", AHEAD)}${skewAccount("behind", BEHIND, { provider: "${behindProvider}" })}`;

interface SkewProjects {
  ahead: string;
  behind: string;
  behindToken: string;
}

/** Seeds both services and moves their clocks: sims[0] an hour ahead of ours, sims[1] an hour behind. */
function skewedServices(suite: EngineSuite): SkewProjects {
  const [a, b] = suite.sims;
  const behindToken = randomSecret("pims_sa_behind_");
  const behind = b.addProject({ name: "behind" }).id;
  b.addServiceAccount({ projectId: behind, name: "admin-behind", tokenSecret: behindToken });
  a.advanceClock(HOUR);
  b.advanceClock(-HOUR);
  return { ahead: a.addProject({ name: "ahead" }).id, behind, behindToken };
}

/**
 * The scenario in either host: the skew stored with each account; a refresh marks nothing expired; once 5 s passed
 * (both clocks), the preview plans one replacement and the up rotates `ahead` on its service and nothing on `behind`'s.
 */
async function skewScenario(suite: EngineSuite, p: SkewProjects): Promise<void> {
  const { stack, engine } = suite;
  const [a, b] = suite.sims;
  await stack.up(engine.opts);
  const ahead = await suite.shown("ahead");
  const behind = await suite.shown("behind");
  expect(Math.abs((ahead.clockSkewMs as number) - HOUR)).toBeLessThan(5_000);
  expect(Math.abs((behind.clockSkewMs as number) + HOUR)).toBeLessThan(5_000);

  // Refresh: `behind` expired 10 min ago on our clock, but not on its service's: nothing marked, nothing said.
  const refresh = await stack.refresh(engine.opts);
  expect(refresh.stdout + refresh.stderr).not.toMatch(/has expired/);
  expect(await suite.shown("behind")).toEqual(behind);
  expect(await suite.shown("ahead")).toEqual(ahead);

  await sleep(6_000); // both clocks move on: `ahead` is now inside its window on its service's clock
  const preview = await stack.preview(engine.opts);
  expect(preview.changeSummary).toMatchObject({ replace: 1 });

  a.clearRequests();
  b.clearRequests();
  const up = await stack.up(engine.opts);
  expect(up.summary.resourceChanges).toMatchObject({ replace: 1 });
  expect(writesOf(a)).toEqual([
    `POST /v2/projects/${p.ahead}/service-accounts`,
    `DELETE /v2/projects/${p.ahead}/service-accounts/${String(ahead.serviceAccountId)}`,
  ]);
  expect(writesOf(b)).toEqual([]); // `behind` was due on our clock only: untouched
  expect(liveIds(b, p.behind)).toContain(behind.serviceAccountId);
  expect((await suite.shown("behind")).token).toBe(behind.token);
  suite.expectNoSecrets([p.behindToken]);
}

describe("row 16 through the dynamic provider", () => {
  let p: SkewProjects;
  const suite = useEngineStack({
    scratchPrefix: "pims-peer-skew-ts-",
    simulators: 2,
    stack: (s) => {
      p = skewedServices(s);
      const behindUrl = s.sims[1].baseUrl;
      return {
        stackName: "dev",
        projectName: "pims-peer-skew",
        workDir: path.join(s.scratch, "ts"),
        program: async () => {
          const provider = new pims.Provider("behindProvider", { baseUrl: behindUrl, token: p.behindToken });
          const common = (projectId: string) => ({ projectId, grants: [projectId] });
          new pims.ServiceAccount("ahead", { ...common(p.ahead), name: "ahead", ...AHEAD });
          new pims.ServiceAccount("behind", { ...common(p.behind), name: "behind", ...BEHIND }, { provider });
          return {};
        },
      };
    },
  });

  test("row 16, typescript: ±1 h skew changes nothing: the window and expiry are judged on the service's clock", () =>
    skewScenario(suite, p));
});

describe("row 16 through the plugin", () => {
  let p: SkewProjects;
  const suite = useEngineStack({
    scratchPrefix: "pims-peer-skew-yaml-",
    simulators: 2,
    yamlHost: true,
    stack: (s) => {
      p = skewedServices(s);
      const workDir = writeYamlProject(path.join(s.scratch, "yaml"), { name: "pims-peer-skew", program: SKEW_YAML });
      const config = {
        aheadProjectId: p.ahead,
        behindProjectId: p.behind,
        behindBaseUrl: s.sims[1].baseUrl,
        behindToken: { value: p.behindToken, secret: true },
      };
      return { stackName: "dev", yaml: true, workDir, config };
    },
  });

  test("row 16, yaml: ±1 h skew changes nothing: the window and expiry are judged on the service's clock", () =>
    skewScenario(suite, p));
});
