/**
 * The TypeScript runner. Environment: the pulumi CLI and Node 22 on PATH, nothing from this repository's
 * node_modules ({@link npmUserEnv}). SDK: from the repository (the npm package as npm would publish it,
 * {@link packPackage}) or from a registry (`npm install pulumi-pims` with ~/.npmrc's registry). Program: under its
 * host, `pulumi up` (the Node host of scripts/engine/language-host for the examples).
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { NODE_BIN, randomSecret, REPO_ROOT } from "../../../scripts/engine";
import type { Runner } from "./index";

/** Nothing beyond the engine's environment, whose PATH has Node 22 (NODE_BIN) and the Node host already. */
export const typescript: Runner = { language: "typescript", runs: "host", toolchain: () => ({ path: [], env: {} }) };

/**
 * The npm package as npm would publish it, packed into `dir`; returns the tarball's path. bin/ is built by the tier's
 * global setup; --ignore-scripts: `prepare` would rebuild bin/ (rm -rf, then tsc) under the engine tests running
 * beside the caller.
 */
export function packPackage(dir: string): string {
  const packed = execFileSync("npm", ["pack", "--silent", "--ignore-scripts", "--pack-destination", dir], {
    cwd: REPO_ROOT,
    encoding: "utf8",
  })
    .trim()
    .split("\n")
    .pop();
  const tarball = path.join(dir, packed ?? "");
  if (!packed || !fs.existsSync(tarball)) throw new Error(`npm pack wrote no tarball into ${dir}`);
  return tarball;
}

/**
 * A TypeScript or JavaScript user's machine: the pulumi CLI and Node 22 on PATH, nothing from this repository's
 * node_modules, the engine offline, its home in `backend`, and the token as `PIMS_TOKEN` (no base address in the
 * environment: the commands set `pims:baseUrl`).
 */
export function npmUserEnv(engineDir: string, backend: string, token: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: [engineDir, NODE_BIN, process.env.PATH ?? ""].join(path.delimiter),
    NODE_PATH: "",
    PULUMI_HOME: path.join(backend, ".pulumi-home"),
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    PULUMI_CONFIG_PASSPHRASE: randomSecret("passphrase-"),
    PIMS_TOKEN: token,
  };
  delete env.PIMS_BASE_URL;
  return env;
}
