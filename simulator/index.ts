/** The PIMS simulator: a real HTTP server on loopback; seeding, inspection, profiles, faults, rate limit (README). */
export * from "./server";
