/**
 * The plugin when it cannot run: Node.js older than 22, or the peer dependency `@pulumi/pulumi` missing (as after
 * `npm install --legacy-peer-deps` or yarn 1). A plugin that dies before printing its port makes the engine (3.259.0)
 * print "Detected that … exited prematurely. This is *always* a bug in the provider" first, with the plugin's own
 * words dumped below it. So instead this process starts as a plugin does, and says what to do through the engine:
 *
 * - it sends the message to the engine's `Log` (`/pulumirpc.Engine/Log`, severity ERROR), so the CLI shows it as the
 *   first diagnostic, `error: pulumi-resource-pims: …`;
 * - it serves `pulumirpc.ResourceProvider` on 127.0.0.1, prints the port, and answers every method that would do
 *   work (`GetPluginInfo`, `GetSchema`, `Configure`, `Check`, `Create`, …) with FAILED_PRECONDITION and the same
 *   message, so the engine's own error line says it too; `Handshake` and the rest answer UNIMPLEMENTED, which the
 *   engine accepts; `Cancel` is acknowledged, so a plugin the engine closes after it is not "exited prematurely".
 *   (When a Python program fails, the engine may close it without `Cancel`: that block then follows the message.)
 *
 * It uses only `@grpc/grpc-js` and `google-protobuf` (this package's own dependencies) with hand-written bytes
 * instead of `@pulumi/pulumi`'s generated messages, and only JavaScript that Node.js 16 and later run, because that
 * is exactly what may be missing. The launcher (plugin/pulumi-resource-pims) runs it for an old Node with the message
 * in its `--message=` argument; ./main runs it when `@pulumi/pulumi` cannot be resolved.
 */
import * as grpc from "@grpc/grpc-js";
import { BinaryWriter } from "google-protobuf";
import { engineAddressOf } from "../engineAddress";

/** The `ResourceProvider` methods that answer with the message (every one that would need the real plugin). */
const FAILING_METHODS = [
  "GetPluginInfo",
  "GetSchema",
  "Parameterize",
  "CheckConfig",
  "DiffConfig",
  "Configure",
  "Invoke",
  "Call",
  "Check",
  "Diff",
  "Create",
  "Read",
  "Update",
  "Delete",
  "Construct",
];

/** Bytes in, bytes out: the requests are never read, the answers are errors or `google.protobuf.Empty`. */
const raw = (b: Buffer): Buffer => b;

function unaryMethod(service: string, name: string): grpc.MethodDefinition<Buffer, Buffer> {
  return {
    path: `/pulumirpc.${service}/${name}`,
    requestStream: false,
    responseStream: false,
    requestSerialize: raw,
    requestDeserialize: raw,
    responseSerialize: raw,
    responseDeserialize: raw,
  };
}

/** Sends `message` to the engine's Log as an ERROR; resolves either way (the RPC answers carry it too). */
function logToEngine(address: string, message: string): Promise<void> {
  // LogRequest: severity = 1 (enum, ERROR = 3), message = 2 (string).
  const writer = new BinaryWriter();
  writer.writeEnum(1, 3);
  writer.writeString(2, message);
  const request = Buffer.from(writer.getResultBuffer());
  const client = new grpc.Client(address, grpc.credentials.createInsecure());
  return new Promise((resolve) => {
    client.makeUnaryRequest("/pulumirpc.Engine/Log", raw, raw, request, { deadline: Date.now() + 10_000 }, () => {
      client.close();
      resolve();
    });
  });
}

/**
 * Serves the failing provider on 127.0.0.1 and prints its port on stdout (what the engine waits for). The process
 * lives until the engine ends it, as every plugin does.
 */
export async function serveStartupError(message: string, argv: readonly string[]): Promise<number> {
  process.stderr.write(`${message}\n`);
  const address = engineAddressOf(argv);
  if (address !== undefined) await logToEngine(address, message);

  const definition: Record<string, grpc.MethodDefinition<Buffer, Buffer>> = {};
  const implementation: grpc.UntypedServiceImplementation = {};
  for (const name of FAILING_METHODS) {
    definition[name] = unaryMethod("ResourceProvider", name);
    implementation[name] = (_call: unknown, callback: grpc.sendUnaryData<Buffer>) =>
      callback({ code: grpc.status.FAILED_PRECONDITION, details: message });
  }
  // Cancel is how the engine says it is done; acknowledged (google.protobuf.Empty has no bytes), the engine does not
  // report the plugin as one that "exited prematurely" when it closes it.
  definition.Cancel = unaryMethod("ResourceProvider", "Cancel");
  implementation.Cancel = (_call: unknown, callback: grpc.sendUnaryData<Buffer>) => callback(null, Buffer.alloc(0));

  const server = new grpc.Server();
  server.addService(definition, implementation);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  process.stdout.write(`${port}\n`);
  endWithTheEngine();
  return port;
}

/**
 * Nothing here is worth keeping alive: the process ends when its parent (the engine, or the language host that ran
 * it) is gone, and after {@link MAX_LIFETIME_MS} at the latest.
 */
const MAX_LIFETIME_MS = 15 * 60_000;
function endWithTheEngine(): void {
  const parent = process.ppid;
  const started = Date.now();
  setInterval(() => {
    if (process.ppid !== parent || Date.now() - started > MAX_LIFETIME_MS) process.exit(0);
  }, 1000).unref();
}

/** The launcher hands the message over as an argument (`--message=<text>`, ahead of the engine's), not a setting. */
const MESSAGE_FLAG = "--message=";
if (require.main === module) {
  const argv = process.argv.slice(2);
  const given = argv.find((a) => a.startsWith(MESSAGE_FLAG))?.slice(MESSAGE_FLAG.length);
  const message = given || "pulumi-resource-pims: the pims plugin cannot start.";
  serveStartupError(message, argv).catch(() => process.exit(1));
}
