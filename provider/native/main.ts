#!/usr/bin/env node
/**
 * The plugin's entry point (`pulumi-resource-pims`). The engine starts it with its own address as the first argument
 * and reads the port of the gRPC service from the first line on stdout. Progress and warning lines go to the engine's
 * Log, on the resource they are about (./engineLog).
 */
import { sendWarningsToEngine } from "./engineLog";
import { serve } from "./server";

/** The engine's address among the plugin's arguments (`--logtostderr`, `-v=N`, `--tracing X` may come first). */
export function engineAddressOf(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--tracing") i += 1;
    else if (!argv[i].startsWith("-")) return argv[i];
  }
  return undefined;
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

async function main(argv: string[]): Promise<void> {
  exitWhenOrphaned();
  const engineAddress = engineAddressOf(argv);
  if (engineAddress !== undefined) sendWarningsToEngine(engineAddress);
  const { port } = await serve(engineAddress);
  process.stdout.write(`${port}\n`);
}

if (require.main === module)
  main(process.argv.slice(2)).catch((e: unknown) => {
    process.stderr.write(`pulumi-resource-pims: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  });
