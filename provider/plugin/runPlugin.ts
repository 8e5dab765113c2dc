/**
 * This package as a source-based plugin package (the top-level PulumiPlugin.yaml, `runtime: nodejs`), which is what
 * `pulumi package add <path or git URL>` makes of it: the engine asks the Node language host to run the package
 * directory as a plugin (`RunPlugin`), and the host runs `@pulumi/pulumi/cmd/run-plugin <package directory>
 * <plugin arguments>`, which `require()`s the package's `main` (the TypeScript SDK, bin/sdk/nodejs/index.js). What it
 * does with the module (Pulumi 3.259.0): component classes among the exports are hosted as a component provider;
 * an export that is itself a function is called and awaited; anything else, and the process simply ends.
 *
 * So the SDK's index asks {@link runPluginEntry} whether run-plugin is loading it as the plugin: only then does its
 * export become the function that starts the native provider (./main, the same plugin the launcher runs); a program
 * or a library importing the package gets the SDK as always.
 */

/** run-plugin's module that `require()`s the package directory (`@pulumi/pulumi/cmd/run-plugin/run.js`). */
const RUN_PLUGIN_RUNNER = /[\\/]@pulumi[\\/]pulumi[\\/]cmd[\\/]run-plugin[\\/]run\.js$/;

/**
 * Whether `mod` was loaded by run-plugin as the plugin itself: the process's main module is run-plugin's, and
 * `mod` is among the modules its runner required (Node records a module among its parent's `children` before
 * running it). A component package hosted by run-plugin that imports pulumi-pims is not: its own file required it.
 */
export function loadedByRunPlugin(mod: NodeJS.Module, main: NodeJS.Module | undefined = require.main): boolean {
  if (main === undefined) return false;
  return main.children.some((child) => RUN_PLUGIN_RUNNER.test(child.filename) && child.children.includes(mod));
}

/**
 * The plugin's entry when run-plugin is loading `mod` as the plugin, else undefined. run-plugin has replaced the
 * process's arguments with the plugin's (the engine's address last), as the launcher passes them to ./main.
 */
export function runPluginEntry(mod: NodeJS.Module): (() => Promise<void>) | undefined {
  if (!loadedByRunPlugin(mod)) return undefined;
  return async () => {
    const { main } = await import("./main");
    await main(process.argv.slice(2));
  };
}
