/**
 * The process environment around a call or a suite: settings the provider reads at call time (PIMS_TIMEOUT_MS, …)
 * and the credentials a suite must run without (PIMS_TOKEN, PIMS_BASE_URL).
 */

type EnvVars = Record<string, string | undefined>;

/** Sets these variables (undefined removes one). */
function applyEnv(vars: EnvVars): void {
  for (const [k, x] of Object.entries(vars))
    if (x === undefined) delete process.env[k];
    else process.env[k] = x;
}

/**
 * Runs `fn` with these environment variables set (undefined removes one), then restores their previous values: for
 * settings the provider reads at call time (PIMS_TIMEOUT_MS, PIMS_MAX_RETRIES, …).
 */
export async function withEnv<T>(vars: EnvVars, fn: () => Promise<T>): Promise<T> {
  const before = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  applyEnv(vars);
  try {
    return await fn();
  } finally {
    applyEnv(before);
  }
}

/**
 * Jest hooks of the enclosing block: puts these variables back as they were when the block was declared (removing
 * those that were unset) after each test, or once after all of them: for tests that set or remove them themselves.
 */
export function restoreEnvAfter(when: "each" | "all", names: string[]): void {
  const before = Object.fromEntries(names.map((k) => [k, process.env[k]]));
  (when === "each" ? afterEach : afterAll)(() => applyEnv(before));
}

/**
 * Jest hooks of the enclosing block: these variables set (undefined removes one) before each test, or once before
 * all of them, and put back afterwards (restoreEnvAfter). `useEnv("all", { PIMS_TOKEN: undefined })` runs a suite
 * without credentials from the environment.
 */
export function useEnv(when: "each" | "all", vars: EnvVars): void {
  (when === "each" ? beforeEach : beforeAll)(() => applyEnv(vars));
  restoreEnvAfter(when, Object.keys(vars));
}
