/**
 * The PIMS simulator: a real HTTP server on loopback with seeding, inspection, profiles, faults and a rate limit
 * (README.md).
 */
export * from "./server";
