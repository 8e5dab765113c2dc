#!/usr/bin/env node
/**
 * The plugin's entry point (`pulumi-resource-pims`). The engine starts it with its own address as the first argument
 * and reads the port of the gRPC service from the first line on stdout. Progress and warning lines go to the engine's
 * Log, on the resource they are about (./engineLog).
 */
import { sendWarningsToEngine } from "./engineLog";
import { serve } from "./server";
import { errorText } from "../client";

/** The engine's address among the plugin's arguments (`--logtostderr`, `-v=N`, `--tracing X` may come first). */
export function engineAddressOf(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--tracing") i += 1;
    else if (!argv[i].startsWith("-")) return argv[i];
  }
  return undefined;
}

async function main(argv: string[]): Promise<void> {
  const engineAddress = engineAddressOf(argv);
  if (engineAddress !== undefined) sendWarningsToEngine(engineAddress);
  const { port } = await serve(engineAddress);
  process.stdout.write(`${port}\n`);
}

if (require.main === module)
  main(process.argv.slice(2)).catch((e: unknown) => {
    process.stderr.write(`pulumi-resource-pims: ${errorText(e)}\n`);
    process.exit(1);
  });
