/**
 * The built package (`bin/`) as each kind of program loads it. Node's ES-module loader learns a CommonJS package's
 * names by reading its main file statically (cjs-module-lexer), so an ES module may see fewer names than `require()`
 * does: 0.4.0 lost every resource, function and `Provider` that way (sdk/nodejs/index.ts says why). Here: the names
 * an ES module sees equal `require()`'s; a named import of each of them loads; TypeScript compiled to ES modules
 * (`"module": "nodenext"`, `"type": "module"`) type-checks and runs with them; and loaded by
 * `@pulumi/pulumi/cmd/run-plugin` (`pulumi package add`) the same main still starts the plugin.
 * tests/engine/typescript/esModule.test.ts runs an ES-module program under the engine.
 */
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { buildIfStale } from "../../kit/jest/buildOnce";

const ROOT = path.resolve(__dirname, "..", "..", "..");
const NODE = process.execPath;
/**
 * Names of the ES-module namespace that `Object.keys(require(...))` does not list: the two Node adds to every CommonJS
 * module's, and TypeScript's `__esModule` marker, which is not enumerable on the CommonJS object.
 */
const NAMESPACE_ONLY = new Set(["default", "module.exports", "__esModule"]);

let scratch: string;
let requireNames: string[];

beforeAll(() => {
  buildIfStale();
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "pims-esm-unit-"));
  // The package resolved by name from a project outside the repository, as a user's program resolves it.
  fs.mkdirSync(path.join(scratch, "node_modules", "@pulumi"), { recursive: true });
  fs.symlinkSync(ROOT, path.join(scratch, "node_modules", "pulumi-pims"), "dir");
  fs.symlinkSync(
    path.join(ROOT, "node_modules", "@pulumi", "pulumi"),
    path.join(scratch, "node_modules", "@pulumi", "pulumi"),
    "dir",
  );
  fs.writeFileSync(path.join(scratch, "package.json"), JSON.stringify({ name: "esm-user", type: "module" }));
  requireNames = Object.keys(require(path.join(ROOT, "bin", "sdk", "nodejs", "index.js")) as object).sort();
}, 120_000);

afterAll(() => {
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

/** Runs an ES module in the scratch project; returns what it printed. */
function runModule(file: string, text: string): string {
  fs.writeFileSync(path.join(scratch, file), text);
  return execFileSync(NODE, [path.join(scratch, file)], { cwd: scratch, encoding: "utf8" });
}

test("require() sees the resources, the functions and Provider (what the ES-module names are compared to)", () => {
  expect(requireNames).toEqual(
    expect.arrayContaining(["Project", "ServiceAccount", "VolumeSize", "AppSecrets", "Provider", "PimsClient"]),
  );
  expect(requireNames).toEqual(expect.arrayContaining(["getApiKeys", "getApiKeysOutput", "cancelRun"]));
});

test("`import * as m` sees exactly the names require() sees", () => {
  const printed = runModule(
    "namespace.mjs",
    'import * as m from "pulumi-pims";\nconsole.log(JSON.stringify(Object.keys(m)));\n',
  );
  const esm = (JSON.parse(printed) as string[]).filter((n) => !NAMESPACE_ONLY.has(n)).sort();
  expect(requireNames.filter((n) => !esm.includes(n))).toEqual([]); // none missing
  expect(esm).toEqual(requireNames);
});

test("a named import of every name loads, each the same value as require()'s", () => {
  const printed = runModule(
    "named.mjs",
    [
      `import { ${requireNames.join(", ")} } from "pulumi-pims";`,
      'import { createRequire } from "node:module";',
      'const cjs = createRequire(import.meta.url)("pulumi-pims");',
      `const named = { ${requireNames.join(", ")} };`,
      "console.log(JSON.stringify(Object.keys(named).filter((k) => named[k] !== cjs[k])));",
    ].join("\n"),
  );
  expect(JSON.parse(printed)).toEqual([]);
});

test("TypeScript compiled to ES modules (nodenext): the named imports type-check and run", () => {
  const dir = path.join(scratch, "ts");
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: { module: "nodenext", moduleResolution: "nodenext", target: "es2022", strict: true },
      files: ["index.ts"],
    }),
  );
  fs.writeFileSync(
    path.join(dir, "index.ts"),
    [
      'import { AppSecrets, Project, Provider, ServiceAccount, VolumeSize, getApiKeysOutput } from "pulumi-pims";',
      'import type { ServiceAccountArgs } from "pulumi-pims";',
      'const args: ServiceAccountArgs = { projectId: "p-1a2b3c4d", name: "ci", grants: ["p-1a2b3c4d"], expiresIn: 0 };',
      "const values = [AppSecrets, Project, Provider, ServiceAccount, VolumeSize, getApiKeysOutput];",
      "console.log(JSON.stringify({ kinds: values.map((v) => typeof v), name: args.name }));",
    ].join("\n"),
  );
  const tsc = path.join(ROOT, "node_modules", "typescript", "bin", "tsc");
  try {
    execFileSync(NODE, [tsc, "-p", dir], { cwd: dir, encoding: "utf8" });
  } catch (e) {
    throw new Error(`tsc failed:\n${(e as { stdout?: string }).stdout ?? String(e)}`, { cause: e });
  }
  const printed = execFileSync(NODE, [path.join(dir, "index.js")], { cwd: scratch, encoding: "utf8" });
  expect(JSON.parse(printed)).toEqual({ kinds: Array(6).fill("function"), name: "ci" });
}, 120_000);

test("loaded by `@pulumi/pulumi/cmd/run-plugin` (pulumi package add), the same main starts the plugin", async () => {
  const runPlugin = path.join(ROOT, "node_modules", "@pulumi", "pulumi", "cmd", "run-plugin");
  // The plugin prints the port it serves on as its first line; the engine's address is never dialled before a call.
  const child = spawn(NODE, [runPlugin, ROOT, "127.0.0.1:1"], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  try {
    const firstLine = await new Promise<string>((resolve, reject) => {
      let out = "";
      let err = "";
      child.stdout.on("data", (b: Buffer) => {
        out += b.toString();
        if (out.includes("\n")) resolve(out.split("\n")[0]);
      });
      child.stderr.on("data", (b: Buffer) => (err += b.toString()));
      child.on("close", (code) => reject(new Error(`run-plugin exited ${code} before serving:\n${out}${err}`)));
    });
    expect(firstLine).toMatch(/^\d+$/);
  } finally {
    child.kill();
  }
}, 120_000);
