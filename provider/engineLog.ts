/**
 * Where progress and warning lines go in a provider process the engine started. The lifecycle code writes them to the
 * one sink (./client/log.ts); here the sink sends each line to the engine's `Log` (`pulumirpc.Engine`, at the address
 * the engine gives the process, ./engineAddress) with its severity (progress: INFO, a warning: WARNING), so the CLI
 * marks warnings as warnings. The plugin (./plugin/server) runs each method in {@link inCall} with the resource's
 * URN, so the CLI shows the line under that resource; the dynamic-provider host (./index) is not told the URN, so its
 * lines belong to the stack. Each method answers only after its lines reached the engine. A line the engine cannot
 * take is written to stderr instead.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import * as grpc from "@grpc/grpc-js";
import * as enginerpc from "@pulumi/pulumi/proto/engine_grpc_pb";
import * as engineproto from "@pulumi/pulumi/proto/engine_pb";
import { useLogSink, type Severity } from "./client/log";

/** The call a line belongs to: its resource's URN ("" for a function or the provider) and the lines in flight. */
interface CallContext {
  urn: string;
  pending: Array<Promise<void>>;
}

const calls = new AsyncLocalStorage<CallContext>();

/** Runs one provider method for `urn` ("" when the host does not say), and waits for its lines to reach the engine. */
export async function inCall<T>(urn: string, fn: () => Promise<T>): Promise<T> {
  const context: CallContext = { urn, pending: [] };
  try {
    return await calls.run(context, fn);
  } finally {
    await Promise.all(context.pending);
  }
}

const SEVERITY: Record<Severity, engineproto.LogSeverity> = {
  progress: engineproto.LogSeverity.INFO,
  warning: engineproto.LogSeverity.WARNING,
};

/**
 * From now on, every line of the sink goes to the engine at `address` (on the current call's URN); returns the
 * function that puts the previous sink back.
 */
export function sendLinesToEngine(address: string): () => void {
  // The client is made by this package's @grpc/grpc-js from the service's description: @pulumi/pulumi's EngineClient
  // would refuse our credentials wherever a package manager installed two copies of grpc-js (it checks `instanceof`).
  const Engine = grpc.makeClientConstructor(enginerpc.EngineService, "Engine");
  const client = new Engine(address, grpc.credentials.createInsecure()) as unknown as enginerpc.EngineClient;
  const restore = useLogSink((severity, line) => {
    const context = calls.getStore();
    const req = new engineproto.LogRequest()
      .setSeverity(SEVERITY[severity])
      .setMessage(line)
      .setUrn(context?.urn ?? "");
    const sent = new Promise<void>((resolve) =>
      client.log(req, (err) => {
        if (err) process.stderr.write(`${line}\n`);
        resolve();
      }),
    );
    context?.pending.push(sent);
  });
  return () => {
    restore();
    client.close();
  };
}
