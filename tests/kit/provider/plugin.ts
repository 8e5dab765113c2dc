/**
 * The plugin's gRPC service in this process, and a client from the same protobuf stubs: what the engine does, without
 * the engine. Requests are built from plain JSON; answers are read back as plain JSON with their secret keys.
 */
import * as grpc from "@grpc/grpc-js";
import * as anyproto from "google-protobuf/google/protobuf/any_pb";
import * as emptyproto from "google-protobuf/google/protobuf/empty_pb";
import * as structproto from "google-protobuf/google/protobuf/struct_pb";
import * as provrpc from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import * as statusproto from "@pulumi/pulumi/proto/status_pb";
import { serve } from "../../../provider/plugin/server";
import { SECRET_SIG, SECRET_VALUE } from "../../../provider/plugin/values";
import type { PimsSimulator } from "../../../simulator";
import { recordWarnings } from "./provider";
import { expectNoPlaintextSecrets } from "../secrets/secrets";
import { startSimulator } from "../sim/simulator";

export type Json = Record<string, unknown>;

/** A Struct from plain JSON (undefined members dropped). */
export const struct = (o: Json): structproto.Struct =>
  structproto.Struct.fromJavaScript(JSON.parse(JSON.stringify(o)) as Record<string, structproto.JavaScriptValue>);

/** `v` as the engine sends a secret. */
export const secretOf = (v: unknown): Json => ({ [SECRET_SIG]: SECRET_VALUE, value: v });

/** The keys of `o` whose values are secret envelopes. */
export const secretKeysOf = (o: Json): string[] =>
  Object.keys(o)
    .filter((k) => typeof o[k] === "object" && o[k] !== null && (o[k] as Json)[SECRET_SIG] === SECRET_VALUE)
    .sort();

/** `o` with secret envelopes replaced by their values (top level). */
export const revealed = (o: Json): Json =>
  Object.fromEntries(Object.entries(o).map(([k, v]) => [k, secretKeysOf({ v }).length ? (v as Json).value : v]));

export const urnOf = (kind: string, name: string): string => `urn:pulumi:dev::yamlproj::pims:index:${kind}::${name}`;
export const providerUrn = (name = "default"): string => `urn:pulumi:dev::yamlproj::pulumi:providers:pims::${name}`;

type Method = keyof provrpc.IResourceProviderClient;

/** A running plugin service and a client talking to it over loopback. */
export class PluginUnderTest {
  private constructor(
    private readonly server: grpc.Server,
    readonly client: provrpc.ResourceProviderClient,
  ) {}

  static async start(): Promise<PluginUnderTest> {
    const { server, port } = await serve();
    const client = new provrpc.ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    return new PluginUnderTest(server, client);
  }

  async stop(): Promise<void> {
    this.client.close();
    await new Promise<void>((resolve) => this.server.tryShutdown(() => resolve()));
  }

  /** One unary call; rejects with the grpc ServiceError. */
  call<Res>(method: Method, req: unknown): Promise<Res> {
    return new Promise((resolve, reject) => {
      const fn = (this.client[method] as (...a: unknown[]) => unknown).bind(this.client);
      fn(req, (err: grpc.ServiceError | null, res: Res) => (err ? reject(err) : resolve(res)));
    });
  }

  /** CheckConfig then Configure with the provider's inputs (as the engine does for a default provider). */
  async configure(inputs: Json, urn = providerUrn()): Promise<provproto.CheckResponse> {
    const checked = await this.call<provproto.CheckResponse>(
      "checkConfig",
      new provproto.CheckRequest().setUrn(urn).setNews(struct(inputs)).setOlds(struct({})),
    );
    const req = new provproto.ConfigureRequest().setArgs(checked.getInputs()).setAcceptsecrets(true);
    await this.call("configure", req);
    return checked;
  }

  check(kind: string, news: Json, olds: Json = {}): Promise<provproto.CheckResponse> {
    const req = new provproto.CheckRequest().setUrn(urnOf(kind, "r")).setType(`pims:index:${kind}`);
    return this.call("check", req.setNews(struct(news)).setOlds(struct(olds)));
  }

  diff(kind: string, id: string, olds: Json, news: Json, oldInputs: Json = {}): Promise<provproto.DiffResponse> {
    const req = new provproto.DiffRequest().setUrn(urnOf(kind, "r")).setId(id);
    return this.call("diff", req.setOlds(struct(olds)).setNews(struct(news)).setOldInputs(struct(oldInputs)));
  }

  create(kind: string, props: Json, preview = false): Promise<provproto.CreateResponse> {
    const req = new provproto.CreateRequest().setUrn(urnOf(kind, "r")).setType(`pims:index:${kind}`);
    return this.call("create", req.setProperties(struct(props)).setPreview(preview));
  }

  read(kind: string, id: string, props: Json, inputs: Json = {}): Promise<provproto.ReadResponse> {
    const req = new provproto.ReadRequest().setUrn(urnOf(kind, "r")).setId(id);
    return this.call("read", req.setProperties(struct(props)).setInputs(struct(inputs)));
  }

  update(
    kind: string,
    id: string,
    olds: Json,
    news: Json,
    preview = false,
    oldInputs: Json = {},
  ): Promise<provproto.UpdateResponse> {
    const req = new provproto.UpdateRequest().setUrn(urnOf(kind, "r")).setId(id).setPreview(preview);
    return this.call("update", req.setOlds(struct(olds)).setNews(struct(news)).setOldInputs(struct(oldInputs)));
  }

  delete(kind: string, id: string, props: Json): Promise<emptyproto.Empty> {
    const req = new provproto.DeleteRequest().setUrn(urnOf(kind, "r")).setId(id);
    return this.call("delete", req.setProperties(struct(props)));
  }

  invoke(tok: string, args: Json): Promise<provproto.InvokeResponse> {
    return this.call("invoke", new provproto.InvokeRequest().setTok(tok).setArgs(struct(args)));
  }

  /**
   * One List call (a server stream) for `pims:index:<kind>`: every message, read as the engine reads them (results,
   * then a continuation, or `computed`); rejects with the grpc ServiceError.
   */
  list(kind: string, query: Json, page: { limit?: number; pageSize?: number; continuation?: string } = {}) {
    const req = new provproto.ListRequest().setToken(`pims:index:${kind}`).setQuery(struct(query));
    req
      .setLimit(page.limit ?? 0)
      .setPageSize(page.pageSize ?? 0)
      .setContinuationToken(page.continuation ?? "");
    return new Promise<ListAnswer>((resolve, reject) => {
      const answer: ListAnswer = { items: [], computed: false, messages: [] };
      const stream = this.client.list(req);
      stream.on("data", (m: provproto.ListResponse) => {
        answer.messages.push(JSON.stringify(m.toObject()));
        const result = m.getResult();
        if (result) answer.items.push({ id: result.getId(), name: result.getName() });
        if (m.hasContinuation()) answer.continuation = m.getContinuation()?.getContinuationToken();
        if (m.hasComputed()) answer.computed = true;
      });
      stream.on("error", reject);
      stream.on("end", () => resolve(answer));
    });
  }
}

/** What a List stream said: its results in order, its continuation, whether it was `computed`, every message. */
export interface ListAnswer {
  items: Array<{ id: string; name: string }>;
  continuation?: string;
  computed: boolean;
  /** Each message as JSON, for the secret scan. */
  messages: string[];
}

/** The JSON of a response's Struct. */
export const jsonOf = (s: structproto.Struct | undefined): Json => s?.toJavaScript() ?? {};

/** The engine's partial-state detail of a failed create or update (ErrorResourceInitFailed), if the error has one. */
export function partialState(err: grpc.ServiceError): { id: string; properties: Json; reasons: string[] } | undefined {
  const bin = err.metadata?.get("grpc-status-details-bin")[0];
  if (bin === undefined) return undefined;
  const status = statusproto.Status.deserializeBinary(new Uint8Array(bin as Buffer));
  const any = status.getDetailsList()[0] as anyproto.Any | undefined;
  if (any === undefined || !any.getTypeUrl().endsWith("pulumirpc.ErrorResourceInitFailed")) return undefined;
  const d = provproto.ErrorResourceInitFailed.deserializeBinary(any.getValue_asU8());
  return { id: d.getId(), properties: jsonOf(d.getProperties()), reasons: d.getReasonsList() };
}

/**
 * A test file's simulator and plugin, configured for it (CheckConfig and Configure with its token and address), with
 * the credentials of the environment removed and retries quick; `stop` stops both and restores the environment.
 */
export async function startPluginWithSimulator(): Promise<{
  sim: PimsSimulator;
  plugin: PluginUnderTest;
  stop(): Promise<void>;
}> {
  const savedEnv = { ...process.env };
  process.env.PIMS_RETRY_MIN_DELAY_MS = "5";
  for (const k of ["PIMS_TOKEN", "PIMS_BASE_URL", "PULUMI_CONFIG"]) delete process.env[k];
  const sim = await startSimulator();
  const plugin = await PluginUnderTest.start();
  await plugin.configure({ token: sim.token, baseUrl: sim.baseUrl });
  const stop = async (): Promise<void> => {
    process.env = savedEnv;
    await plugin.stop();
    await sim.stop();
  };
  return { sim, plugin, stop };
}

/** The plugin suites' simulator and plugin, started once for the file (see usePluginSuite). */
export interface PluginSuite {
  readonly sim: PimsSimulator;
  readonly plugin: PluginUnderTest;
  /** Every answer and message a test chose to keep, and every warning line: scanned by expectNoSecretsSeen. */
  readonly seen: string[];
  /** console.warn of the current test: silenced, its lines kept for the scan. */
  warnings(): jest.SpyInstance;
  /** Fails when a warning line carried the simulator's token or one of `secrets` outside a secret envelope. */
  expectNoSecretsSeen(secrets: string[]): void;
}

/** The text with every secret envelope's value masked: what the engine stores encrypted is not plaintext. */
export const masked = (text: string): string =>
  text.replace(
    new RegExp(`\\{"${SECRET_SIG}":"${SECRET_VALUE}","value":("(?:[^"\\\\]|\\\\.)*"|\\{[^}]*\\})\\}`, "g"),
    "[secret]",
  );

/**
 * Jest hooks of a plugin suite: the plugin and a simulator started for the file (startPluginWithSimulator), the
 * simulator's faults cleared before each test, console.warn silenced and recorded for the scan at the end.
 */
export function usePluginSuite(): PluginSuite {
  let started: { sim: PimsSimulator; plugin: PluginUnderTest; stop(): Promise<void> } | undefined;
  const seen: string[] = [];
  const ready = (): { sim: PimsSimulator; plugin: PluginUnderTest } => {
    if (!started) throw new Error("usePluginSuite: the plugin exists only inside tests");
    return started;
  };
  beforeAll(async () => {
    started = await startPluginWithSimulator();
  });
  afterAll(() => started?.stop());
  beforeEach(() => ready().sim.clearFaults());
  const warnings = recordWarnings(seen);
  return {
    get sim() {
      return ready().sim;
    },
    get plugin() {
      return ready().plugin;
    },
    seen,
    warnings,
    expectNoSecretsSeen(secrets: string[]): void {
      expectNoPlaintextSecrets(seen.map(masked).join("\n"), [ready().sim.token, ...secrets], "answers");
    },
  };
}
