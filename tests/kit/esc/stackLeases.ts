/**
 * Issue 64's engine tier: a stack run on short-lived tokens, as `esc run acme/app/ci -- pulumi …` (or a stack config
 * importing the environment) runs it, through either host. examples/esc-leases/ is the source: the environment's
 * `fn::open::external` `url`, `request` and `environmentVariables` (esc/environment.yaml), the adapter's settings
 * (esc/adapter.env, loaded into its environment as `set -a; . adapter.env` does). The adapter is the function host
 * (`createEscRotator(...).handle`) in this process, its credential the simulator's admin token; ESC's opens are made by
 * ./caller. Each run gets a fresh lease after the previous one has expired on the service's clock (a run still using
 * it would be refused), the CLI runs with the lease in its environment only (no `pims:*` key in the stack config),
 * without `--run-program` and with every log on, and after each run no lease's token is anywhere (../leakScan).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { EXAMPLES_DIR, tempDir } from "../../../scripts/engine";
import { createEscRotator, inSeries, seriesMarker, type EscRotator, type Lease } from "../../../provider/escRotator";
import type { PimsSimulator } from "../../../simulator";
import { testClient } from "../sim/client";
import { resources } from "../engine/engine";
import type { EngineSuite } from "../engine/engineSuite";
import { withEnv } from "../env";
import { EngineLogs, expectNoTokenAnywhere } from "../secrets/leakScan";
import { expectNoPlaintextSecrets } from "../secrets/secrets";
import { writesOf } from "../sim/simulator";
import { EscCaller } from "./caller";

/** The open request of examples/esc-leases/esc/environment.yaml. */
export interface LeaseRequest {
  projectId: string;
  name: string;
  grants: string[];
  ttl: number;
}

/** examples/esc-leases/ as the tests read it. */
export interface EscLeasesExample {
  /** `fn::open::external`'s `url`: the open route's audience. */
  url: string;
  /** The environment (`org/project/env`): the one the adapter's allow-list names. */
  environment: string;
  request: LeaseRequest;
  /** `environmentVariables`: each name, and the value ESC gives it (`${pimsLease.response.<member>}` or a literal). */
  variables: Record<string, string>;
  /** esc/adapter.env: the adapter's environment. */
  adapterEnv: Record<string, string>;
}

const EXAMPLE_DIR = path.join(EXAMPLES_DIR, "esc-leases", "esc");

/** The `key: value` children of the block `key:` in a YAML text (flow lists `[a, b]`, whole numbers, plain text). */
function yamlBlock(text: string, key: string): Record<string, string | number | string[]> {
  const lines = text.split("\n");
  const at = lines.findIndex((l) => new RegExp(`^\\s*${key}:\\s*$`).test(l));
  if (at < 0) throw new Error(`examples/esc-leases/esc/environment.yaml has no ${key}: block`);
  const indent = (l: string) => l.length - l.trimStart().length;
  const out: Record<string, string | number | string[]> = {};
  const children = indent(lines[at + 1] ?? "");
  for (const line of lines.slice(at + 1)) {
    if (line.trim() === "" || indent(line) <= indent(lines[at])) break;
    if (indent(line) > children || /:\s*$/.test(line)) continue; // a nested block: read on its own
    const m = /^\s*([\w:]+): (.+)$/.exec(line);
    if (!m) throw new Error(`examples/esc-leases/esc/environment.yaml: cannot read ${JSON.stringify(line)}`);
    const v = m[2].trim();
    const list = /^\[(.*)\]$/.exec(v);
    out[m[1]] = list ? list[1].split(",").map((s) => s.trim()) : /^\d+$/.test(v) ? Number(v) : v;
  }
  return out;
}

/** Reads examples/esc-leases/esc/: the environment and the adapter's settings. */
export function readEscLeasesExample(): EscLeasesExample {
  const yaml = fs.readFileSync(path.join(EXAMPLE_DIR, "environment.yaml"), "utf8");
  const adapterEnv = Object.fromEntries(
    fs
      .readFileSync(path.join(EXAMPLE_DIR, "adapter.env"), "utf8")
      .split("\n")
      .filter((l) => l.trim() !== "" && !l.startsWith("#"))
      .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
  );
  const request = yamlBlock(yaml, "request") as unknown as LeaseRequest;
  const url = yamlBlock(yaml, "fn::open::external").url as string;
  const variables = yamlBlock(yaml, "environmentVariables") as Record<string, string>;
  return { url, environment: adapterEnv.PIMS_ESC_ALLOW, request, variables, adapterEnv };
}

/** What ESC puts in the environment of `esc run` for one lease: `${pimsLease.response.<member>}` filled in from it. */
export function leaseEnvironment(example: EscLeasesExample, lease: Lease, baseUrl: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(example.variables).map(([name, value]) => {
      const member = /^\$\{pimsLease\.response\.(\w+)\}$/.exec(value)?.[1];
      // The example's service address is a placeholder: the test's is the simulator's.
      if (member === undefined) return [name, name === "PIMS_BASE_URL" ? baseUrl : value];
      return [name, String(lease[member as keyof Lease])];
    }),
  );
}

/** The example's project (its id as the environment's `request` names it) in `sim`, for the stack to manage. */
export const addExampleProject = (sim: PimsSimulator): string =>
  sim.addProject({ id: readEscLeasesExample().request.projectId, name: "esc-leases" }).id;

/** The four runs, each under a fresh lease: what each does to the stack's account, `app`. */
const RUNS = {
  create: ["up", "--yes", "--skip-preview"],
  rotate: ["up", "--yes", "--skip-preview"],
  refresh: ["refresh", "--yes", "--skip-preview"],
  destroy: ["destroy", "--yes", "--skip-preview"],
};

/**
 * Registers, inside the caller's `describe`, the runs of a stack whose program declares one ServiceAccount `app` in
 * the project `addExampleProject` made (`grants` that project, `rotationTrigger` the config `rotation`), against
 * `suite`'s simulator: up (creates `app`), up with `rotation` changed (rotates it), refresh, destroy. `host` names the
 * tests (`typescript`, `yaml`).
 */
export function describeLeaseRuns(suite: EngineSuite, host: string): void {
  const example = readEscLeasesExample();
  const marker = seriesMarker("open", example.environment, example.request);
  let caller: EscCaller;
  let adapter: EscRotator;
  let logs: EngineLogs;
  let logsDir = "";
  const adapterLog: string[] = [];
  const leases: Lease[] = [];
  /** `app`'s outputs after the last run, as `--show-secrets` shows them. */
  let app: Record<string, unknown> = {};

  beforeAll(async () => {
    caller = await EscCaller.start();
    // The adapter's settings from the example's file, as its environment; only Pulumi Cloud's keys are the caller's.
    adapter = await withEnv(example.adapterEnv, async () =>
      createEscRotator({
        client: testClient(suite.sim),
        jwksUrl: caller.jwksUrl,
        issuer: caller.issuer,
        log: (line) => adapterLog.push(line),
      }),
    );
    // Outside the scratch directory: at -v=11 the engine logs the stack's own account tokens (secret outputs).
    logsDir = tempDir("pims-e2e-esc-leases-logs-");
    logs = new EngineLogs(logsDir);
    // The credential comes from the environment alone: no pims:* key in the stack config.
    await suite.stack.removeAllConfig(["pims:token", "pims:baseUrl"]);
  });
  afterAll(async () => {
    await caller?.close();
    if (logsDir) fs.rmSync(logsDir, { recursive: true, force: true });
  });

  const p = example.request.projectId;
  const leaseIds = () =>
    suite.sim
      .serviceAccounts(p)
      .filter((a) => inSeries(marker, a.name))
      .map((a) => a.id);
  /** The project's accounts that are not leases: the stack's own. */
  const stackAccounts = () =>
    suite.sim
      .serviceAccounts(p)
      .filter((a) => !inSeries(marker, a.name))
      .map((a) => ({ id: a.id, name: a.name }));

  /** An open of the environment, as ESC makes it: the bare `request`, `aud` its `url`, from the allowed environment. */
  async function open(): Promise<Lease> {
    const [, ...env] = example.environment.split("/");
    const claims = { aud: example.url, current_env: example.environment, root_env: example.environment };
    const r = await caller.open(example.request, { claims: { ...claims, env: env.join("/") } });
    const answer = await adapter.handle("POST", r.headers, r.body);
    expect([answer.status, answer.body]).toEqual([200, expect.objectContaining({ ttl: example.request.ttl })]);
    return answer.body as Lease;
  }

  /**
   * One run: the previous lease expired on the service's clock (and refused), a fresh one opened (the only live lease
   * of the series: the open deleted the expired ones), the CLI run with it in its environment; then every call of the
   * run was made as that lease, the config holds no pims:* key, and no lease's token is anywhere the scan reads.
   */
  async function run(args: string[]): Promise<void> {
    const previous = leases.at(-1);
    if (previous) {
      suite.sim.advanceClock((previous.ttl + 60) * 1000);
      expect(await suite.tokenWorks(previous.token, p)).toBe(false);
    }
    const lease = await open();
    leases.push(lease);
    expect(leaseIds()).toEqual([lease.serviceAccountId]);
    const ws = suite.stack.workspace as unknown as { envVars: Record<string, string> };
    Object.assign(ws.envVars, leaseEnvironment(example, lease, suite.sim.baseUrl));
    expect(ws.envVars.PIMS_TOKEN).toBe(lease.token);

    expect(args).not.toContain("--run-program");
    suite.clearRequests();
    const r = await logs.cli(suite.stack, args);
    if (r.code !== 0) throw new Error(`pulumi ${args.join(" ")} exited ${r.code}: ${r.out.slice(-4000)}`);
    const principals = [...new Set(suite.sim.requests.map((q) => q.principal ?? `${q.method} ${q.path} refused`))];
    expect(principals).toEqual([lease.serviceAccountId]);

    expect(Object.keys(await suite.stack.getAllConfig()).filter((k) => k.startsWith("pims:"))).toEqual([]);
    const tokens = leases.map((l) => l.token);
    expect(await expectNoTokenAnywhere(suite.stack, logs, tokens)).toBeGreaterThanOrEqual(5);
    expectNoPlaintextSecrets(adapterLog.join("\n"), suite.sim.issuedSecrets(), "the adapter's log");
  }

  test(`${host}: up under a fresh lease creates the stack's account`, async () => {
    await run(RUNS.create);
    app = await suite.shown("app");
    expect(writesOf(suite.sim)).toEqual([`POST /v2/projects/${p}/service-accounts`]);
    expect(stackAccounts()).toEqual([{ id: app.serviceAccountId, name: "app" }]);
  });

  test(`${host}: up under the next lease (the first one dead) rotates it`, async () => {
    await suite.stack.setConfig("rotation", { value: "r1" });
    await run(RUNS.rotate);
    const rotated = await suite.shown("app");
    expect(rotated.serviceAccountId).not.toBe(app.serviceAccountId);
    expect(writesOf(suite.sim)).toEqual([
      `POST /v2/projects/${p}/service-accounts`,
      `DELETE /v2/projects/${p}/service-accounts/${String(app.serviceAccountId)}`,
    ]);
    expect(stackAccounts()).toEqual([{ id: rotated.serviceAccountId, name: "app" }]);
    app = rotated;
  });

  test(`${host}: refresh under the next lease reads the account, unchanged, with no write`, async () => {
    await run(RUNS.refresh);
    expect(await suite.shown("app")).toEqual(app);
    expect(writesOf(suite.sim)).toEqual([]);
    expect(stackAccounts()).toEqual([{ id: app.serviceAccountId, name: "app" }]);
  });

  test(`${host}: destroy still on the refresh's lease, expired: refused (401, PIMS_TOKEN named)`, async () => {
    const held = leases.at(-1) as Lease;
    suite.sim.advanceClock((held.ttl + 60) * 1000);
    suite.clearRequests();
    const r = await logs.cli(suite.stack, RUNS.destroy);
    expect(r.code).not.toBe(0);
    expect(r.out).toContain("401 invalid or missing bearer token (the token set in PIMS_TOKEN was refused");
    // Its calls, the DELETE among them, were all refused: the account is live, the state still holds it.
    expect(writesOf(suite.sim)).toEqual([`DELETE /v2/projects/${p}/service-accounts/${String(app.serviceAccountId)}`]);
    expect(suite.sim.requests.filter((q) => q.principal !== undefined || q.status !== 401)).toEqual([]);
    expect(stackAccounts()).toEqual([{ id: app.serviceAccountId, name: "app" }]);
    expect(await suite.shown("app")).toEqual(app);
    expect(await expectNoTokenAnywhere(suite.stack, logs, [held.token])).toBeGreaterThanOrEqual(5);
  });

  test(`${host}: destroy under the next lease deletes the stack's account, leaves its lease to expire`, async () => {
    await run(RUNS.destroy);
    expect(writesOf(suite.sim)).toEqual([`DELETE /v2/projects/${p}/service-accounts/${String(app.serviceAccountId)}`]);
    expect(stackAccounts()).toEqual([]);
    expect(leaseIds()).toEqual([leases.at(-1)?.serviceAccountId]);
    expect(resources(await suite.stack.exportStack()).filter((r) => r.type.endsWith(":ServiceAccount"))).toEqual([]);
    expect(leases).toHaveLength(4);
    expect(new Set(leases.map((l) => l.token)).size).toBe(4);
    // Every token the simulator issued (the leases', the stack's accounts', the admin's): none in the scratch's files.
    suite.expectNoSecrets();
  });
}
