#!/usr/bin/env node
/**
 * The plugin's entry point (`pulumi-resource-pims`). The engine starts it with its own address as the first argument
 * and reads the port of the gRPC service from the first line on stdout. Progress and warning lines go to the engine's
 * Log, on the resource they are about (../engineLog).
 *
 * `@pulumi/pulumi` is a peer dependency, which `npm install --legacy-peer-deps` and yarn 1 leave out: it is checked
 * before anything that needs it is loaded, and when it is missing ./startupError tells the user, through the
 * engine, which command installs it.
 */
import * as path from "node:path";
import { errorText } from "../client/errors";
import { engineAddressOf } from "../engineAddress";
import { serveStartupError } from "./startupError";

/** This package's root (bin/provider/plugin/ is three levels below it). */
const PACKAGE_ROOT = path.resolve(__dirname, "..", "..", "..");

/**
 * The line that says how to install the missing peer dependency `@pulumi/pulumi`, or undefined when it resolves
 * from this package (as Node resolves it: this package's node_modules, then each parent's).
 */
export function missingPeerMessage(
  resolve: (spec: string) => string = (spec) => require.resolve(spec, { paths: [PACKAGE_ROOT] }),
  packageRoot: string = PACKAGE_ROOT,
): string | undefined {
  try {
    resolve("@pulumi/pulumi/package.json");
    return undefined;
  } catch {
    /* missing: say what to do below */
  }
  const parent = path.dirname(packageRoot);
  const global = /[\\/]lib[\\/]node_modules$/.test(parent);
  const where = path.basename(parent) === "node_modules" && !global ? ` in ${path.dirname(parent)}` : "";
  const command = global ? "npm install -g @pulumi/pulumi" : "npm install @pulumi/pulumi";
  return (
    `pulumi-resource-pims: run \`${command}\`${where}: the pims plugin needs its peer dependency @pulumi/pulumi, ` +
    "which is not installed (npm install --legacy-peer-deps and yarn 1 leave peer dependencies out)."
  );
}

/** Whether a process is alive (signal 0 tests without signalling). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Exits once the engine that started the plugin is gone. The engine starts each plugin in a process group of its
 * own, so a `kill -9` of `pulumi` (a CI timeout) does not reach the plugin: it is reparented and would keep running,
 * holding the provider's token. Every `intervalMs` the parent is checked (a new parent pid, or the old one gone);
 * the timer does not keep the process alive by itself.
 */
export function exitWhenOrphaned(intervalMs = 1000): NodeJS.Timeout {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid !== parent || !alive(parent)) process.exit(0);
  }, intervalMs);
  timer.unref();
  return timer;
}

/** Set in the release's self-contained executable (scripts/release/bundle.ts), which carries what it needs. */
declare const PIMS_BUNDLED_PACKAGE: object | undefined;

/** Starts the plugin (or, without `@pulumi/pulumi`, the plugin that says how to install it). */
export async function main(argv: readonly string[]): Promise<void> {
  exitWhenOrphaned();
  const missing = typeof PIMS_BUNDLED_PACKAGE === "undefined" ? missingPeerMessage() : undefined;
  if (missing !== undefined) {
    await serveStartupError(missing, argv);
    return;
  }
  const { sendLinesToEngine } = await import("../engineLog");
  const { serve } = await import("./server");
  const engineAddress = engineAddressOf(argv);
  if (engineAddress !== undefined) sendLinesToEngine(engineAddress);
  const { port } = await serve();
  process.stdout.write(`${port}\n`);
}

if (require.main === module)
  main(process.argv.slice(2)).catch((e: unknown) => {
    process.stderr.write(`pulumi-resource-pims: ${errorText(e)}\n`);
    process.exit(1);
  });
