#!/usr/bin/env node
/**
 * The plugin's entry point (`pulumi-resource-pims`). The engine starts it with its own address as the first argument
 * and reads the port of the gRPC service from the first line on stdout; everything else goes to stderr, which the
 * engine shows as diagnostics (the progress and warning lines the dynamic host shows TypeScript users).
 */
import { serve } from "./server";

async function main(argv: string[]): Promise<void> {
  const engineAddress = argv.find((a) => !a.startsWith("-"));
  const { port } = await serve(engineAddress);
  process.stdout.write(`${port}\n`);
}

main(process.argv.slice(2)).catch((e: unknown) => {
  process.stderr.write(`pulumi-resource-pims: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
