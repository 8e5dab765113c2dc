/**
 * Awaited outcomes: the error a promise rejects with, failing the test when it resolves instead.
 */

/**
 * The rejection of `p`; when `cls` is given it must be an instance of `cls` (fails the test when `p` resolves).
 */
export async function rejectionOf<T extends Error = Error>(
  p: Promise<unknown>,
  cls?: abstract new (...args: never[]) => T,
): Promise<T> {
  const outcome = await p.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  if (outcome.ok) {
    throw new Error(
      `expected ${cls ? `a ${cls.name}` : "the call to fail"}, got a result: ${JSON.stringify(outcome.value)}`,
    );
  }
  if (cls) expect(outcome.error).toBeInstanceOf(cls);
  return outcome.error as T;
}
