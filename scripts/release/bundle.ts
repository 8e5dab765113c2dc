/**
 * The plugin as one CommonJS file: bin/provider/plugin/main.js (built by `npm run build`) and the packages it uses,
 * bundled by esbuild, for Node's single-executable applications (which load nothing from disk but Node's own
 * modules). What a bundle may hold is checked here: the plugin uses only the gRPC stubs of `@pulumi/pulumi`
 * (`@pulumi/pulumi/proto/*`), never its runtime (which a program's `require("@pulumi/pulumi")` in
 * provider/settings.ts would pull in: that call is left out and falls back as it does when the package is missing),
 * and never `typescript`. package.json's version and release setting are put in (provider/identity.ts reads
 * them from package.json otherwise). Bundles are cached by the hash of what goes in.
 */
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import * as esbuild from "esbuild";
import { CACHE_DIR, filesUnder, log } from "./common";

/** The package's facts the bundle carries (provider/identity.ts's PIMS_BUNDLED_PACKAGE). */
export function packageFacts(root: string): { version: string; release: { pluginDownloadURL: string } } {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as {
    version: string;
    release?: { pluginDownloadURL?: string };
  };
  return { version: pkg.version, release: { pluginDownloadURL: pkg.release?.pluginDownloadURL ?? "" } };
}

/** The packages a bundle must never hold, with why. */
const FORBIDDEN: readonly [RegExp, string][] = [
  [/node_modules\/@pulumi\/pulumi\/(?!proto\/)/, "the @pulumi/pulumi runtime (only its proto/ stubs are needed)"],
  [/node_modules\/typescript\//, "the TypeScript compiler"],
];

/** The inputs of a bundle, by package (`(own)` for this repository's code), in bytes. */
export function bytesByPackage(meta: esbuild.Metafile): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [file, { bytes }] of Object.entries(meta.inputs)) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file);
    const key = m ? m[1] : "(own)";
    out[key] = (out[key] ?? 0) + bytes;
  }
  return out;
}

/** A bundle: its file (in the cache) and the packages it holds. */
export interface Bundle {
  file: string;
  packages: string[];
}

/**
 * Bundles the built plugin (bin/ of `root`) into one file. Throws when bin/ is not built or when the bundle would
 * hold a forbidden package.
 */
export async function bundlePlugin(root: string): Promise<Bundle> {
  const entry = path.join(root, "bin", "provider", "plugin", "main.js");
  if (!fs.existsSync(entry)) throw new Error(`${entry} is missing: run \`npm run build\` first`);
  const facts = packageFacts(root);
  const hash = crypto.createHash("sha256");
  // What decides the bundle besides bin/ and the lockfile: the facts put in, the guard, esbuild's version.
  hash.update(JSON.stringify({ facts, guard: startupGuard(facts.version), esbuild: esbuild.version }));
  hash.update(fs.readFileSync(path.join(root, "package-lock.json")));
  const binDir = path.join(root, "bin", "provider");
  for (const f of filesUnder(binDir)) hash.update(f).update(fs.readFileSync(path.join(binDir, f)));
  const out = path.join(CACHE_DIR, "bundles", `plugin-${hash.digest("hex").slice(0, 16)}.js`);
  const listFile = `${out}.packages.json`;
  if (fs.existsSync(out) && fs.existsSync(listFile)) {
    log(`bundle: cached ${path.basename(out)}`);
    return { file: out, packages: JSON.parse(fs.readFileSync(listFile, "utf8")) as string[] };
  }
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: [path.relative(root, entry)],
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node22",
    write: false,
    outfile: out,
    metafile: true,
    legalComments: "none",
    logLevel: "warning",
    define: { PIMS_BUNDLED_PACKAGE: JSON.stringify(facts) },
    banner: { js: startupGuard(facts.version) },
    plugins: [
      {
        name: "no-pulumi-runtime",
        setup(build) {
          // Only the bare name: `@pulumi/pulumi/proto/...` stays bundled.
          build.onResolve({ filter: /^@pulumi\/pulumi$/ }, (args) => ({ path: args.path, external: true }));
        },
      },
    ],
  });
  for (const file of Object.keys(result.metafile.inputs))
    for (const [re, what] of FORBIDDEN)
      if (re.test(file)) throw new Error(`the plugin's bundle would hold ${what}: ${file}`);
  const sizes = Object.entries(bytesByPackage(result.metafile)).sort((a, b) => b[1] - a[1]);
  log(
    `bundle: ${sizes.length} packages, largest ${sizes
      .slice(0, 4)
      .map(([k, v]) => `${k} ${kb(v)}`)
      .join(", ")}`,
  );
  const packages = sizes.map(([k]) => k).sort();
  fs.writeFileSync(listFile, JSON.stringify(packages));
  const tmp = `${out}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, result.outputFiles[0].contents);
  fs.renameSync(tmp, out);
  log(`bundle: wrote ${path.basename(out)} (${kb(fs.statSync(out).size)})`);
  return { file: out, packages };
}

/**
 * Code run before anything else in the executable: an error the plugin does not handle (one thrown while its modules
 * load, before it can print its port, included) ends it with one clear first line on stderr, naming the plugin, its
 * version and platform, then the stack. The engine shows a plugin's stderr when the plugin exits before answering.
 */
function startupGuard(version: string): string {
  const who = `"pulumi-resource-pims ${version} (" + process.platform + "-" + process.arch + ")"`;
  // "use strict" first: the bundle's own directive is no longer one after this code.
  return [
    '"use strict";',
    'process.on("uncaughtException", (e) => {',
    `  process.stderr.write(${who} + " stopped: " + (e && e.message ? e.message : String(e)) + "\\n" +`,
    '    (e && e.stack ? e.stack + "\\n" : ""));',
    "  process.exit(1);",
    "});",
  ].join("\n");
}

const kb = (n: number): string => `${Math.round(n / 1024)} kB`;
