/** The PIMS simulator: a real HTTP server on loopback with seeding, inspection and fault switches. */
export * from "./server";
