import type { Config } from "jest";

const config: Config = {
  testEnvironment: "node",
  roots: ["<rootDir>/tests"],
  testMatch: ["**/*.test.ts"],
  transform: { "^.+\\.ts$": ["ts-jest", { diagnostics: false }] },
  testTimeout: 60_000,
  // e2e suites share one engine build and many processes: keep the machine (2 cores) from thrashing.
  maxWorkers: 2,
  reporters: ["<rootDir>/tests/summaryReporter.js", "default"],
};

export default config;
