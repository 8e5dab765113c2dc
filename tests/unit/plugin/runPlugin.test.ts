/**
 * The package main as `pulumi package add` meets it (provider/plugin/runPlugin.ts): it becomes the plugin's entry
 * only when `@pulumi/pulumi/cmd/run-plugin` requires it as the plugin; any other import gets the SDK unchanged.
 * tests/engine/plugin/packageAdd.test.ts runs the whole path through the engine.
 */
import * as sdk from "../../../sdk/nodejs";
import { loadedByRunPlugin, runPluginEntry } from "../../../provider/plugin/runPlugin";

const RUNNER = "/p/node_modules/@pulumi/pulumi/cmd/run-plugin/run.js";
const fakeModule = (filename: string, children: NodeJS.Module[] = []): NodeJS.Module =>
  ({ filename, children }) as unknown as NodeJS.Module;

test("run-plugin's runner requiring the package main: the main is the plugin", () => {
  const main = fakeModule("/p/node_modules/@pulumi/pulumi/cmd/run-plugin/index.js");
  const mod = fakeModule("/p/bin/sdk/nodejs/index.js");
  main.children.push(fakeModule(RUNNER, [mod]));
  expect(loadedByRunPlugin(mod, main)).toBe(true);
  expect(loadedByRunPlugin(mod, fakeModule("C:\\p\\x.js", [fakeModule(RUNNER.replace(/\//g, "\\"), [mod])]))).toBe(
    true,
  );
});

test("a component package hosted by run-plugin that imports pulumi-pims, a program, a test: the SDK", () => {
  const mod = fakeModule("/p/node_modules/pulumi-pims/bin/sdk/nodejs/index.js");
  const component = fakeModule("/c/index.js", [mod]);
  const runPluginMain = fakeModule("/c/node_modules/@pulumi/pulumi/cmd/run-plugin/index.js", [
    fakeModule(RUNNER, [component]),
  ]);
  expect(loadedByRunPlugin(mod, runPluginMain)).toBe(false);
  // `@pulumi/pulumi/cmd/run` (how programs run) is not run-plugin.
  const programMain = fakeModule("/p/node_modules/@pulumi/pulumi/cmd/run/index.js", [
    fakeModule("/p/node_modules/@pulumi/pulumi/cmd/run/run.js", [mod]),
  ]);
  expect(loadedByRunPlugin(mod, programMain)).toBe(false);
  expect(loadedByRunPlugin(mod, undefined)).toBe(false);
  expect(runPluginEntry(module)).toBeUndefined();
});

test("what TypeScript programs import is the SDK: classes and functions, not a function", () => {
  expect(typeof sdk).toBe("object");
  expect(typeof sdk.ServiceAccount).toBe("function");
  expect(typeof sdk.Project).toBe("function");
  expect(typeof sdk.getApiKeys).toBe("function");
});
