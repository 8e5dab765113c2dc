/**
 * Where the plugin's progress and warning lines go. The lifecycle code writes them with `console.warn` (the dynamic
 * host shows its stderr lines among the engine's diagnostics); a native plugin's stderr is not shown, so in the
 * plugin process each line becomes a `Log` call to the engine (`pulumirpc.Engine`, at the address the engine gives as
 * the plugin's first argument), as a warning on the URN of the resource whose method wrote it: the CLI shows it under
 * that resource, as TypeScript users see it. A line the engine cannot take is written to stderr instead.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { format } from "node:util";
import * as grpc from "@grpc/grpc-js";
import * as enginerpc from "@pulumi/pulumi/proto/engine_grpc_pb";
import * as engineproto from "@pulumi/pulumi/proto/engine_pb";

/** The call a line belongs to: its resource's URN ("" for a function or the provider) and the lines in flight. */
interface CallContext {
  urn: string;
  pending: Array<Promise<void>>;
}

const calls = new AsyncLocalStorage<CallContext>();

/** Runs one method of the plugin for `urn`, and waits for its lines to reach the engine before it answers. */
export async function inCall<T>(urn: string, fn: () => Promise<T>): Promise<T> {
  const context: CallContext = { urn, pending: [] };
  try {
    return await calls.run(context, fn);
  } finally {
    await Promise.all(context.pending);
  }
}

/**
 * From now on, `console.warn` in this process sends each line to the engine at `address` (a warning on the current
 * call's URN); returns the function that puts the previous `console.warn` back.
 */
export function sendWarningsToEngine(address: string): () => void {
  const client = new enginerpc.EngineClient(address, grpc.credentials.createInsecure());
  const previous = console.warn;
  console.warn = (...args: unknown[]): void => {
    const message = format(...args);
    const context = calls.getStore();
    const req = new engineproto.LogRequest()
      .setSeverity(engineproto.LogSeverity.WARNING)
      .setMessage(message)
      .setUrn(context?.urn ?? "");
    const sent = new Promise<void>((resolve) =>
      client.log(req, (err) => {
        if (err) previous(message);
        resolve();
      }),
    );
    context?.pending.push(sent);
  };
  return () => {
    console.warn = previous;
    client.close();
  };
}
