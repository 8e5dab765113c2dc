#!/usr/bin/env node
// Checks what `npm pack` would ship (run by `npm run lint`, so by CI): only what a user needs — compiled code with
// its types, README, LICENSE, CHANGELOG, PulumiPlugin.yaml and package.json — no tests, no source maps, nothing
// from the simulator, and the whole package under a stated size. Needs a built bin/ (npm ci builds it).
"use strict";
const { execFileSync } = require("node:child_process");
const path = require("node:path");

/**
 * Largest unpacked size of the package, in bytes (0.1.0: 355 kB with source maps; 0.2.0 about 400 kB of code and
 * types; the native plugin, its schema and the functions it shares with the SDK bring it to about 610 kB; 0.4.0 ships
 * the plugin's schema as provider/schema.json, 37 kB, which GetSchema serves, plus the run-plugin entry and the
 * startup-error plugin of the launcher: 700 kB; the schema's examples (every example project in every language, so
 * the registry and the SDKs' doc comments show them) bring the schema to 116 kB and the package to 810 kB; the
 * functions' examples (getAppLogs, getBuildLogs in five languages) and the config block rendered from the settings
 * table bring the schema to 144 kB and the package to 870 kB; token delivery (sealing, the command and file sinks),
 * the provider's List and the sealed-token example in every language bring the schema to 156 kB and the package to
 * 980 kB; 0.7.0's ESC rotation adapter (provider/escRotator, the CLI's `esc-rotator serve`, about 50 kB) and the
 * peer-bug behaviour (expiry, the provider's own credential, clock skew, proven imports) bring it to 1,085 kB. The
 * limit leaves about 6 % for growth; past it, look at what grew first).
 */
const MAX_UNPACKED_BYTES = 1125 * 1024;
const ALLOWED = [
  /^bin\/(cli|provider|sdk)\/.+\.(js|d\.ts)$/,
  /^bin\/provider\/schema\.json$/,
  /^(README\.md|LICENSE|CHANGELOG\.md|PulumiPlugin\.yaml|package\.json)$/,
  /^plugin\/pulumi-resource-pims$/,
];
const REQUIRED = [
  "README.md",
  "LICENSE",
  "CHANGELOG.md",
  "PulumiPlugin.yaml",
  "bin/sdk/nodejs/index.js",
  "bin/sdk/nodejs/index.d.ts",
  "bin/provider/index.js",
  "bin/cli/pims.js",
  "bin/provider/plugin/main.js",
  "bin/provider/plugin/startupError.js",
  "bin/provider/schema.json",
  "plugin/pulumi-resource-pims",
];

const root = path.resolve(__dirname, "..", "..");
const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
  cwd: root,
  encoding: "utf8",
  stdio: ["ignore", "pipe", "ignore"],
});
const [pack] = JSON.parse(out);
const files = pack.files.map((f) => f.path);
const problems = [];
for (const f of files) if (!ALLOWED.some((re) => re.test(f))) problems.push(`ships ${f}, which a user does not need`);
for (const f of REQUIRED) if (!files.includes(f)) problems.push(`does not ship ${f}`);
if (pack.unpackedSize > MAX_UNPACKED_BYTES)
  problems.push(`unpacks to ${pack.unpackedSize} bytes, over the limit of ${MAX_UNPACKED_BYTES}`);
if (problems.length > 0) {
  console.error(`npm pack check failed:\n  ${problems.join("\n  ")}`);
  process.exit(1);
}
console.log(`npm pack check: ${files.length} files, ${pack.unpackedSize} bytes unpacked (limit ${MAX_UNPACKED_BYTES})`);
