/**
 * Running the real engine: its timeouts, the output it printed, the state it stored (encrypted as stored, or
 * revealed as `--show-secrets` renders it), and the built `pims` CLI beside it.
 */
import { execFile, execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { promisify } from "node:util";
import type { Deployment, Stack } from "@pulumi/pulumi/automation";
import { specialSecretSig, specialSigKey } from "@pulumi/pulumi/runtime";
import { ensureEngine, NODE_BIN, REPO_ROOT } from "../../../scripts/engine";
import type { Fixture } from "../../fixtures/fixtures";

/** Per test: a handful of engine operations of seconds each, on a loaded 2-core machine. */
export const E2E_TIMEOUT_MS = 10 * 60_000;
/** For the beforeAll that may have to build the engine from source (several minutes; waits for a parallel build). */
export const ENGINE_SETUP_TIMEOUT_MS = 30 * 60_000;

/** The key and value that mark a secret in Pulumi state (`{ [SECRET_SIG]: SECRET_VALUE, ciphertext }`). */
export const SECRET_SIG = specialSigKey;
export const SECRET_VALUE = specialSecretSig;

/** Everything the engine printed (stdout and stderr) across operations, for the secret scans. */
export class EngineOutput {
  private readonly chunks: string[] = [];
  /** Pass to up/preview/refresh/destroy. */
  readonly opts = {
    onOutput: (s: string): void => void this.chunks.push(s),
    onError: (s: string): void => void this.chunks.push(s),
  };
  text(): string {
    return this.chunks.join("");
  }
}

/**
 * The stack's state as stored, secrets encrypted (`pulumi stack export`, without `--show-secrets`). Note that the
 * Automation API's `stack.exportStack()` passes `--show-secrets`: it returns the secrets in plaintext (as
 * `{ [SECRET_SIG]: SECRET_VALUE, plaintext: "<JSON>" }`), which is what the tests use to compare values.
 */
export function exportEncrypted(stack: Stack): Deployment {
  const ws = stack.workspace as unknown as { workDir: string; envVars: Record<string, string> };
  const out = execFileSync(
    path.join(ensureEngine(), "pulumi"),
    ["stack", "export", "--stack", stack.name, "--non-interactive"],
    {
      cwd: ws.workDir,
      env: { ...process.env, ...ws.envVars },
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  return JSON.parse(out) as Deployment;
}

/** A value as `stack.exportStack()` (`--show-secrets`) renders it: secrets decrypted, at any depth. */
export function revealed(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(revealed);
  if (typeof v === "object" && v !== null) {
    const o = v as Record<string, unknown>;
    if (o[SECRET_SIG] === SECRET_VALUE && typeof o.plaintext === "string") return revealed(JSON.parse(o.plaintext));
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, revealed(x)]));
  }
  return v;
}

/** A resource of the deployment, by type suffix (e.g. `pims:ServiceAccount`) and name. */
export interface StateResource {
  urn: string;
  type: string;
  id?: string;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
}

/** A deployment as `stack.exportStack()` returns it, or a state fixture's state.json. */
export type State = Deployment | Fixture["state"];

/** Every resource of a state. */
export function resources(d: State): StateResource[] {
  return (d.deployment as { resources?: StateResource[] }).resources ?? [];
}

/** The resources of one type token (e.g. `pims:index:ServiceAccount`). */
export const resourcesOfType = (d: State, type: string): StateResource[] => resources(d).filter((r) => r.type === type);

/** The one resource of a type token (fails when there are none or several). */
export function onlyResourceOfType(d: State, type: string): StateResource {
  const found = resourcesOfType(d, type);
  if (found.length !== 1) throw new Error(`expected one ${type} in the state, found ${found.length}`);
  return found[0];
}

export function resource(deployment: State, typeSuffix: string, name: string): StateResource {
  const r = resources(deployment).find((x) => x.type.endsWith(typeSuffix) && x.urn.endsWith(`::${name}`));
  if (!r) throw new Error(`no ${typeSuffix} named ${name} in the state`);
  return r;
}

/** A resource's outputs as `stack.exportStack()` (`--show-secrets`) returns them, secrets in plaintext. */
export async function shownOutputs(stack: Stack, typeSuffix: string, name: string): Promise<Record<string, unknown>> {
  const r = resource(await stack.exportStack(), typeSuffix, name);
  return Object.fromEntries(Object.entries(r.outputs ?? {}).map(([k, v]) => [k, revealed(v)]));
}

/** True when `v` is an encrypted secret as the state stores it. */
export function isEncryptedSecret(v: unknown): boolean {
  if (typeof v !== "object" || v === null) return false;
  const o = v as Record<string, unknown>;
  return o[SECRET_SIG] === SECRET_VALUE && typeof o.ciphertext === "string" && o.ciphertext.length > 0;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * The built `pims` CLI (bin/cli/pims.js) with this service's address and token, run asynchronously (the simulator
 * serves from the test's process): its stdout and stderr. Rejects when it exits non-zero.
 */
export async function pimsCli(
  args: string[],
  service: { baseUrl: string; token: string },
): Promise<{ stdout: string; stderr: string }> {
  return promisify(execFile)(path.join(NODE_BIN, "node"), [path.join(REPO_ROOT, "bin", "cli", "pims.js"), ...args], {
    env: { ...process.env, PIMS_TOKEN: service.token, PIMS_BASE_URL: service.baseUrl },
    encoding: "utf8",
  });
}

/**
 * Writes a TypeScript project of the package into `dir` (created): its `Pulumi.yaml` (runtime nodejs), `index.ts`, the
 * rotation example's `package.json` and `tsconfig.json`, and this repository's `node_modules` linked, so the program
 * imports `pulumi-pims` as a user's does. Returns `dir`.
 */
export function writeTypeScriptProject(dir: string, p: { name: string; program: string }): string {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), `name: ${p.name}\nruntime: nodejs\n`);
  fs.writeFileSync(path.join(dir, "index.ts"), p.program);
  for (const f of ["package.json", "tsconfig.json"])
    fs.copyFileSync(path.join(REPO_ROOT, "examples", "rotation", "typescript", f), path.join(dir, f));
  fs.symlinkSync(path.join(REPO_ROOT, "node_modules"), path.join(dir, "node_modules"), "dir");
  return dir;
}
