import type { Config } from "jest";

/**
 * The live tier (tests/live): against a real PIMS account, never part of `npm test` (jest.config.ts does not list
 * it). Run it with `npm run test:live`, whose gate (scripts/live/tier.ts) checks the environment first, names the run's
 * prefix and recording, and deletes what is left afterwards. One suite at a time: gentle on a real service's limits.
 */
const config: Config = {
  displayName: "live",
  testEnvironment: "node",
  roots: ["<rootDir>/tests/live"],
  testMatch: ["**/*.test.ts"],
  transform: { "^.+\\.ts$": ["ts-jest", { diagnostics: false, tsconfig: "<rootDir>/tsconfig.jest.json" }] },
  globalSetup: "<rootDir>/tests/kit/jest/buildOnce.ts",
  testTimeout: 120_000,
  maxWorkers: 1,
};

export default config;
