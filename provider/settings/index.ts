/**
 * Every setting, by job: the table (./table), reading them and the credentials (./read), a client from them
 * (./clientFactory). Consumers import from here.
 */
export * from "./table";
export * from "./read";
export * from "./clientFactory";
