/**
 * `pulumi-resource-pims`: the engine's `pulumirpc.ResourceProvider` gRPC service, served with `@grpc/grpc-js` and the
 * protobuf stubs `@pulumi/pulumi` ships. The engine starts the plugin, reads the port it prints on stdout, then calls:
 * GetPluginInfo, GetSchema, CheckConfig / DiffConfig / Configure (the provider's settings: ./config), the resource
 * methods (./lifecycle, over the same provider objects the dynamic host runs), Invoke (./invoke), Cancel.
 */
import * as grpc from "@grpc/grpc-js";
import * as anyproto from "google-protobuf/google/protobuf/any_pb";
import * as emptyproto from "google-protobuf/google/protobuf/empty_pb";
import * as plugproto from "@pulumi/pulumi/proto/plugin_pb";
import * as provrpc from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import * as statusproto from "@pulumi/pulumi/proto/status_pb";
import { userFacing } from "../userFacing";
import { inCall } from "../engineLog";
import type { ConfiguredSettings } from "../settings";
import { configArgs, configFailures, configureOptions, pluginSettings, SECRET_CONFIG_KEYS } from "./config";
import { invoke } from "./invoke";
import { diffResponse, NativeResources } from "./lifecycle";
import { packageVersion } from "./tokens";
import { fromStruct, toStruct, type Props } from "./values";
import schemaJson from "../schema.json";

/**
 * The schema GetSchema returns: provider/schema.json as `npm run schema` wrote it (at this package's version, which
 * GetPluginInfo reports too). A static import, which tsc copies into bin/ and a bundler inlines.
 */
const schemaText = (): string => JSON.stringify(schemaJson);

type Unary<Req, Res> = (call: grpc.ServerUnaryCall<Req, Res>, callback: grpc.sendUnaryData<Res>) => void;

/**
 * The gRPC error for a failed method: the message the user sees (one line, no stack: `userFacing`), and for an update
 * that stored a partial state (an account was created, a delete failed) the engine's ErrorResourceInitFailed detail,
 * which makes it store `properties` as the resource's state and fail the update with the message.
 */
export function grpcError(e: unknown): grpc.ServiceError {
  const err = userFacing(e);
  const metadata = new grpc.Metadata();
  const partial = err as Error & { id?: string; properties?: Props; reasons?: string[] };
  if (typeof partial.id === "string" && partial.id !== "" && partial.properties !== undefined) {
    const secretKeys = (e as { secretKeys?: Set<string> }).secretKeys ?? new Set<string>();
    const detail = new provproto.ErrorResourceInitFailed();
    detail.setId(partial.id);
    detail.setProperties(toStruct(partial.properties, secretKeys));
    detail.setReasonsList(partial.reasons ?? [err.message]);
    const any = new anyproto.Any();
    any.pack(detail.serializeBinary(), "pulumirpc.ErrorResourceInitFailed");
    const status = new statusproto.Status();
    status.setCode(grpc.status.UNKNOWN);
    status.setMessage(err.message);
    status.addDetails(any);
    metadata.add("grpc-status-details-bin", Buffer.from(status.serializeBinary()));
  }
  return Object.assign(new Error(err.message), { code: grpc.status.UNKNOWN, details: err.message, metadata });
}

/**
 * A method from an async function: its result, or its error as {@link grpcError}. Its warning lines are attributed to
 * the request's URN (../engineLog).
 */
function unary<Req, Res>(fn: (req: Req) => Promise<Res>): Unary<Req, Res> {
  return (call, callback) => {
    const urn = (call.request as { getUrn?(): string }).getUrn?.() ?? "";
    inCall(urn, () => fn(call.request)).then(
      (res) => callback(null, res),
      (e: unknown) => callback(grpcError(e), null),
    );
  };
}

const unimplemented =
  (name: string): Unary<unknown, unknown> =>
  (_call, callback) =>
    callback({ code: grpc.status.UNIMPLEMENTED, details: `${name} is not implemented by pulumi-resource-pims` }, null);

/** The service implementation: one per plugin process (one per provider instance of the program). */
export class PimsProviderServer {
  private readonly resources = new NativeResources();
  /** The settings of the last Configure (before any: the stack config and the environment). */
  private settings: ConfiguredSettings = pluginSettings({});

  /** The handlers, by method name of `ResourceProviderService`. */
  handlers(): grpc.UntypedServiceImplementation {
    const r = this.resources;
    return {
      handshake: unimplemented("Handshake"),
      parameterize: unimplemented("Parameterize"),
      getSchema: unary(async (req: provproto.GetSchemaRequest) => {
        if (req.getVersion() !== 0) throw new Error(`pulumi-pims: unsupported schema version ${req.getVersion()}`);
        return new provproto.GetSchemaResponse().setSchema(schemaText());
      }),
      getPluginInfo: unary(async () => new plugproto.PluginInfo().setVersion(packageVersion())),
      checkConfig: unary(async (req: provproto.CheckRequest) => this.checkConfig(req)),
      diffConfig: unary(async (req: provproto.DiffRequest) => this.diffConfig(req)),
      configure: unary(async (req: provproto.ConfigureRequest) => this.configure(req)),
      invoke: unary(async (req: provproto.InvokeRequest) => invoke(req, this.settings)),
      call: unimplemented("Call"),
      check: unary((req: provproto.CheckRequest) => r.check(req)),
      diff: unary((req: provproto.DiffRequest) => r.diff(req)),
      create: unary((req: provproto.CreateRequest) => r.create(req)),
      read: unary((req: provproto.ReadRequest) => r.read(req)),
      list: (call: grpc.ServerWritableStream<provproto.ListRequest, provproto.ListResponse>) =>
        void inCall("", () => r.list(call.request)).then(
          (messages) => {
            for (const m of messages) call.write(m);
            call.end();
          },
          (e: unknown) => call.emit("error", grpcError(e)),
        ),
      update: unary((req: provproto.UpdateRequest) => r.update(req)),
      delete: unary(async (req: provproto.DeleteRequest) => {
        await r.delete(req);
        return new emptyproto.Empty();
      }),
      construct: unimplemented("Construct"),
      cancel: unary(async () => new emptyproto.Empty()),
      // The engine's address matters only to the log sink, which main.ts points at the first argument; an attached
      // plugin (PULUMI_DEBUG_PROVIDERS) keeps writing its lines to stderr.
      attach: unary(async () => new emptyproto.Empty()),
      // No other ecosystem's names map onto this provider's: an empty mapping is the correct answer.
      getMapping: unary(async () => new provproto.GetMappingResponse()),
      getMappings: unary(async () => new provproto.GetMappingsResponse()),
    };
  }

  /** The provider's inputs checked (failures name the setting and the rule); the token returned as a secret. */
  private async checkConfig(req: provproto.CheckRequest): Promise<provproto.CheckResponse> {
    const news = fromStruct(req.getNews());
    const resp = new provproto.CheckResponse();
    resp.setInputs(toStruct(news.props, [...news.secretKeys, ...SECRET_CONFIG_KEYS]));
    resp.setFailuresList(
      configFailures(news.props, req.getUrn()).map((f) =>
        new provproto.CheckFailure().setProperty(f.property).setReason(f.reason),
      ),
    );
    return resp;
  }

  /** A changed setting is an update of the provider alone: nothing it serves is replaced (as in TypeScript). */
  private async diffConfig(req: provproto.DiffRequest): Promise<provproto.DiffResponse> {
    const olds = fromStruct(req.getOldInputs()?.getFieldsMap().getLength() ? req.getOldInputs() : req.getOlds());
    const news = fromStruct(req.getNews());
    const changed = Object.keys(news.props).some(
      (k) => JSON.stringify(news.props[k]) !== JSON.stringify(olds.props[k]),
    );
    const removed = Object.keys(olds.props).some((k) => !(k in news.props));
    return diffResponse({ changes: changed || removed, replaces: [] }, olds.props, news.props, Object.keys(olds.props));
  }

  /** Reads the settings once for every later call; says the plugin takes secrets and previews. */
  private async configure(req: provproto.ConfigureRequest): Promise<provproto.ConfigureResponse> {
    this.settings = pluginSettings(configArgs(fromStruct(req.getArgs()).props, req.getVariablesMap().toArray()));
    this.resources.configure(this.settings, configureOptions(req.getUrn() ?? ""));
    const resp = new provproto.ConfigureResponse();
    resp.setAcceptsecrets(true);
    resp.setSupportspreview(true);
    resp.setAcceptresources(false);
    resp.setAcceptoutputs(false);
    return resp;
  }
}

/** Starts the service on 127.0.0.1 (a free port) and returns the server and its port. */
export async function serve(): Promise<{ server: grpc.Server; port: number }> {
  const server = new grpc.Server({ "grpc.max_receive_message_length": 400 * 1024 * 1024 });
  server.addService(provrpc.ResourceProviderService, new PimsProviderServer().handlers());
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  return { server, port };
}
