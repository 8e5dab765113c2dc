/**
 * The user-facing form of an error, shared by both hosts: the dynamic host's entry (./index) throws it, the plugin
 * (provider/plugin/server.ts) sends its message as the gRPC error.
 */

/**
 * The error a user sees, without a JavaScript stack: the dynamic-provider host prints a failure of check, diff, read
 * and delete as `${error}: ${error.stack}`, so `toString()` is the text before the first ": " and `stack` the rest,
 * and the line reads the message exactly once. Members the host reads (`id`, `properties`, `reasons` of an update
 * that stored a partial state) are kept.
 */
export function userFacing(e: unknown): Error {
  if (!(e instanceof Error)) return userFacing(new Error(String(e)));
  const message = e.message;
  const cut = message.indexOf(": ");
  const [head, rest] = cut > 0 ? [message.slice(0, cut), message.slice(cut + 2)] : ["pulumi-pims", message];
  const out = new Error(message);
  for (const k of ["id", "properties", "reasons"] as const)
    if (k in e) Object.assign(out, { [k]: (e as unknown as Record<string, unknown>)[k] });
  Object.defineProperty(out, "stack", { value: rest, writable: true, configurable: true, enumerable: false });
  Object.defineProperty(out, "toString", { value: () => head, enumerable: false });
  return out;
}
