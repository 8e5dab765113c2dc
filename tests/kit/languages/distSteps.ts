/**
 * The steps every dist suite (./distTable) takes with its one stack, an inline program or the CLI's
 * ({@link distStack}): the stack's set-up ({@link initStack}), the first up that downloads the plugin, refresh, a
 * rotation in each mode, destroy and the token scan. The release directory, its server and the environment they run
 * in are in ./dist.
 */
import type { PimsSimulator } from "../../../simulator";
import { expectNoPlaintextSecrets, expectNoSecretsInFiles } from "../secrets/secrets";
import { archiveName, installedPlugins, VERSION, type DistServer, type stubNode } from "./dist";
import { inlineResult, run, type Changes, type InlineDriver, type Ran } from "./index";

/**
 * `pulumi stack init <stack>` in the project `dir`, then its config: `pims:baseUrl`, `pims:token` (a secret, passed
 * through the environment, never on a command line) and `config` (plain values).
 */
export async function initStack(
  dir: string,
  env: NodeJS.ProcessEnv,
  stack: string,
  service: { baseUrl: string; token: string },
  config: Record<string, string>,
): Promise<void> {
  const sh = (command: string, extra: NodeJS.ProcessEnv = {}): Promise<Ran> =>
    run("bash", ["-c", command], { cwd: dir, env: { ...env, ...extra } });
  await sh(`pulumi stack init ${stack}`);
  await sh(`pulumi config set pims:baseUrl ${service.baseUrl}`);
  await sh('pulumi config set --secret pims:token -- "$PIMS_TEST_TOKEN"', { PIMS_TEST_TOKEN: service.token });
  for (const [k, v] of Object.entries(config)) await sh(`pulumi config set ${k} ${v}`);
}

/** One dist suite's stack, as the shared steps below drive it. */
export interface DistStack {
  sim: PimsSimulator;
  /** The simulator's project holding the stack's accounts; the release's server (a request = a download); the stub. */
  projectId: string;
  server: DistServer;
  node: ReturnType<typeof stubNode>;
  /** The `file://` backend directory; the `PULUMI_HOME` the engine installs plugins into (empty at first). */
  backend: string;
  home: string;
  /** `pulumi <args>` in the project directory, with the suite's environment; resolves with its stdout. */
  pulumi(args: string[]): Promise<string>;
  /** `up`, `refresh` or `destroy` the suite's way (an inline program, or the CLI); resolves with its changes. */
  op(operation: "up" | "refresh" | "destroy"): Promise<Changes>;
  /** Everything the engine and the suite's commands printed so far. */
  printed(): string;
}

/**
 * The stack of a dist suite, its program in `dir` with `env` (whose PULUMI_HOME and backend the stack's are). With
 * `runProgram`, the program runs as an Automation API inline program (Go, Python: no language host for them can be
 * obtained here), which prints `RESULT {"changes": …}`; without, with the CLI (`pulumi up|refresh|destroy`, YAML),
 * its changes read from the stack's history. What every command printed is kept for the scan.
 */
export function distStack(o: {
  sim: PimsSimulator;
  projectId: string;
  server: DistServer;
  node: ReturnType<typeof stubNode>;
  dir: string;
  env: NodeJS.ProcessEnv;
  runProgram?: InlineDriver;
}): DistStack {
  let printed = "";
  const record = (ran: Ran): Ran => {
    printed += ran.stdout + ran.stderr;
    return ran;
  };
  const stack: DistStack = {
    sim: o.sim,
    projectId: o.projectId,
    server: o.server,
    node: o.node,
    backend: (o.env.PULUMI_BACKEND_URL ?? "").replace(/^file:\/\//, ""),
    home: o.env.PULUMI_HOME ?? "",
    pulumi: async (args) => record(await run("pulumi", args, { cwd: o.dir, env: o.env })).stdout,
    op: async (operation) => {
      if (o.runProgram) return inlineResult(record(await o.runProgram(operation))).changes;
      await stack.pulumi([operation, "--yes", "--non-interactive"]);
      return lastChanges(stack);
    },
    printed: () => printed,
  };
  return stack;
}

/** The outputs naming the two accounts: `ci` rotated by replacement, `app` with its previous account kept. */
export interface AccountOutputs {
  ci: string;
  app: string;
  appPrevious: string;
  /** A token output (it must be a secret). */
  token: string;
}

/** The stack's outputs as `pulumi stack output --json` prints them (secrets as `[secret]`). */
export async function stackOutputs(stack: DistStack): Promise<Record<string, unknown>> {
  return JSON.parse(await stack.pulumi(["stack", "output", "--json"])) as Record<string, unknown>;
}

/** The change summary of the stack's last operation, from `pulumi stack history`. */
export async function lastChanges(stack: DistStack): Promise<Changes> {
  const history = JSON.parse(await stack.pulumi(["stack", "history", "--json"])) as Array<{
    resourceChanges?: Changes;
  }>;
  return history[0]?.resourceChanges ?? {};
}

const liveAccounts = (stack: DistStack): string[] => stack.sim.serviceAccounts(stack.projectId).map((a) => a.id);

/** `POST …/service-accounts` and `DELETE …/service-accounts/{id}` the simulator answered since `from` requests. */
function accountCalls(sim: PimsSimulator, from: number): { created: number; deleted: number } {
  const calls = sim.requests.slice(from);
  return {
    created: calls.filter((r) => r.method === "POST" && /\/service-accounts$/.test(r.path)).length,
    deleted: calls.filter((r) => r.method === "DELETE" && /\/service-accounts\/[^/]+$/.test(r.path)).length,
  };
}

/**
 * The first `up` into an empty plugin cache: the engine downloads this platform's archive from the release's server
 * (once) and installs it; `created` resources are created; the token output is a secret; the simulator holds
 * exactly the two accounts the outputs name. With `install`, `pulumi install` downloads it first and `up` uses it.
 */
export async function firstUpDownloadsPlugin(
  stack: DistStack,
  created: number,
  names: AccountOutputs,
  install = false,
): Promise<void> {
  expect(installedPlugins(stack.home)).toEqual([]);
  if (install) {
    await stack.pulumi(["install"]);
    expect(stack.server.requests).toEqual([{ path: `GET /${archiveName()}`, status: 200 }]);
    expect(installedPlugins(stack.home)).toEqual([`resource-pims-v${VERSION}`]);
    expect(stack.node.calls()).toEqual([]);
  }
  expect(await stack.op("up")).toEqual({ create: created });
  const out = await stackOutputs(stack);
  expect(out[names.token]).toBe("[secret]");
  expect(stack.server.requests).toEqual([{ path: `GET /${archiveName()}`, status: 200 }]);
  expect(installedPlugins(stack.home)).toEqual([`resource-pims-v${VERSION}`]);
  expect(liveAccounts(stack).sort()).toEqual([out[names.ci], out[names.app]].sort());
}

/** A refresh finds every resource as the state has it: its one change kind is `same`. */
export async function refreshChangesNothing(stack: DistStack): Promise<void> {
  expect(Object.keys(await stack.op("refresh"))).toEqual(["same"]);
}

/**
 * A rotation in each mode, one `up` each, by setting a trigger in the stack's config: `replace` gives the ci account a
 * new id and deletes the old one (one create, one delete; the app untouched); `overlap` gives the app a new account and
 * keeps the old one live as the previous one (one create, no delete). The simulator then holds exactly the new ci
 * account and both app accounts.
 */
export async function rotationInEachMode(
  stack: DistStack,
  names: AccountOutputs,
  triggers: { replace: [key: string, value: string]; overlap: [key: string, value: string] },
): Promise<void> {
  const before = await stackOutputs(stack);
  let from = stack.sim.requests.length;
  await stack.pulumi(["config", "set", ...triggers.replace]);
  await stack.op("up");
  const replaced = await stackOutputs(stack);
  expect(replaced[names.ci]).not.toBe(before[names.ci]);
  expect(stack.sim.deletedServiceAccounts()).toContain(before[names.ci]);
  expect(replaced[names.app]).toBe(before[names.app]);
  expect(accountCalls(stack.sim, from)).toEqual({ created: 1, deleted: 1 });

  from = stack.sim.requests.length;
  await stack.pulumi(["config", "set", ...triggers.overlap]);
  await stack.op("up");
  const overlapped = await stackOutputs(stack);
  expect(overlapped[names.app]).not.toBe(before[names.app]);
  expect(overlapped[names.appPrevious]).toBe(before[names.app]);
  expect(accountCalls(stack.sim, from)).toEqual({ created: 1, deleted: 0 });
  expect(liveAccounts(stack).sort()).toEqual([replaced[names.ci], before[names.app], overlapped[names.app]].sort());
}

/**
 * `destroy` deletes the stack's `deleted` resources and leaves no live account; the plugin was downloaded once in
 * the whole run and `node` never called.
 */
export async function destroyLeavesNothing(stack: DistStack, deleted: number): Promise<void> {
  expect(await stack.op("destroy")).toEqual({ delete: deleted });
  expect(liveAccounts(stack)).toEqual([]);
  expect(stack.server.requests).toHaveLength(1);
  expect(stack.node.calls()).toEqual([]);
}

/**
 * No token in plaintext (the stack's and every one the simulator issued, at least the four of the two rotations) in
 * the exported state, the backend's files or anything the engine and the commands printed.
 */
export async function noPlaintextTokens(stack: DistStack): Promise<void> {
  const secrets = [stack.sim.token, ...stack.sim.issuedSecrets()];
  expect(stack.sim.issuedSecrets().length).toBeGreaterThanOrEqual(4);
  expectNoPlaintextSecrets(await stack.pulumi(["stack", "export"]), secrets, "the exported state");
  expect(expectNoSecretsInFiles(stack.backend, secrets)).toBeGreaterThan(2);
  expectNoPlaintextSecrets(stack.printed(), secrets, "what the engine and the pulumi commands printed");
}
