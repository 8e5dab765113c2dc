/**
 * The process environment around one call: settings the provider reads at call time (PIMS_TIMEOUT_MS, …).
 */

/**
 * Runs `fn` with these environment variables set (undefined removes one), then restores their previous values: for
 * settings the provider reads at call time (PIMS_TIMEOUT_MS, PIMS_MAX_RETRIES, …).
 */
export async function withEnv<T>(vars: Record<string, string | undefined>, fn: () => Promise<T>): Promise<T> {
  const before = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const apply = (v: Record<string, string | undefined>): void => {
    for (const [k, x] of Object.entries(v))
      if (x === undefined) delete process.env[k];
      else process.env[k] = x;
  };
  apply(vars);
  try {
    return await fn();
  } finally {
    apply(before);
  }
}
