import type { Config } from "jest";

/**
 * Four tiers, one jest project each:
 * - rules: the repository's own rules (maps, file length, import direction, docs) — `npm run test:rules`
 * - unit: no network, no engine (seconds) — `npm run test:unit`
 * - sim: against the simulator on loopback — `npm run test:sim`
 * - engine: the real Pulumi engine (builds bin/ first when it is stale) — `npm run test:engine`
 * `npm test` runs all four.
 */
const ESM_ONLY = "(age-encryption|@noble|@scure)";
// Transpile only (tsconfig.jest.json: isolatedModules): `npm run typecheck` type-checks everything once, and ts-jest's
// language service, which a type-checking transform keeps alive, held every worker open past the end of the run.
const transform: Config["transform"] = {
  "^.+\\.ts$": ["ts-jest", { diagnostics: false, tsconfig: "<rootDir>/tsconfig.jest.json" }],
  // ES-module-only packages (age-encryption and the @noble/@scure packages it imports): Node loads them with require()
  // (provider/serviceAccount/seal.ts), jest's own module loader needs them turned into CommonJS first.
  [`/node_modules/${ESM_ONLY}/.+\\.js$`]: [
    "ts-jest",
    { diagnostics: false, tsconfig: { allowJs: true, isolatedModules: true, module: "commonjs", target: "ES2022" } },
  ],
};
const transformIgnorePatterns = [`/node_modules/(?!${ESM_ONLY}/)`];
const tier = (name: string, extra: Partial<Config> = {}): Config => ({
  displayName: name,
  testEnvironment: "node",
  roots: [`<rootDir>/tests/${name}`],
  testMatch: ["**/*.test.ts"],
  transform,
  transformIgnorePatterns,
  // Closes the inspector sessions @pulumi/pulumi's closure serializer leaves open (tests/kit/jest/inspectorSessions.ts).
  setupFilesAfterEnv: ["<rootDir>/tests/kit/jest/inspectorSessions.ts"],
  ...extra,
});

const config: Config = {
  testTimeout: 60_000,
  // e2e suites share one engine build and many processes: keep the machine (2 cores) from thrashing.
  maxWorkers: 2,
  reporters: ["<rootDir>/tests/kit/jest/summaryReporter.js", "default"],
  projects: [
    tier("rules"),
    tier("unit"),
    tier("sim", { globalSetup: "<rootDir>/tests/kit/jest/buildOnce.ts" }),
    tier("engine", { globalSetup: "<rootDir>/tests/kit/jest/buildOnce.ts" }),
  ],
};

export default config;
