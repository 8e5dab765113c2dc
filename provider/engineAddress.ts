/**
 * The engine's gRPC address, as a provider process is told it. Kept apart from ./engineLog (which loads gRPC and the
 * engine's protocol) so the plugin's startup-error path, which runs without `@pulumi/pulumi`, can use it.
 */

/** The engine's address among a plugin's arguments (`--logtostderr`, `-v=N`, `--tracing X` may come first). */
export function engineAddressOf(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--tracing") i += 1;
    else if (!argv[i].startsWith("-")) return argv[i];
  }
  return undefined;
}

/** The script the engine runs as the TypeScript dynamic-provider host (`@pulumi/pulumi/cmd/dynamic-provider`). */
const DYNAMIC_HOST = /[\\/]@pulumi[\\/]pulumi[\\/]cmd[\\/]dynamic-provider([\\/]index\.js)?$/;

/**
 * The engine's address when this process is the dynamic-provider host (its main script, given the engine's address
 * as its arguments by the engine); undefined anywhere else (a program, the CLI, a test, the plugin).
 */
export function dynamicHostEngineAddress(
  mainScript: string | undefined = require.main?.filename,
  argv: readonly string[] = process.argv,
): string | undefined {
  if (mainScript === undefined || !DYNAMIC_HOST.test(mainScript)) return undefined;
  return engineAddressOf(argv.slice(2));
}
