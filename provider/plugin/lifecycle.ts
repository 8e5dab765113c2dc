/**
 * The resource methods of the plugin over the same provider objects the dynamic host runs (../registry, derived from
 * each kind's declaration in ../kinds): one implementation of each lifecycle, two hosts. This file only translates: the
 * engine's requests into the plain JSON each lifecycle method expects (secrets unwrapped, unknowns as the dynamic
 * host's marker, no `__provider`), and its answers back (secrets re-marked, unknown outputs in a preview, a detailed
 * diff).
 */
import type * as pulumi from "@pulumi/pulumi";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import type { ConfiguredSettings, SettingsOptions } from "../settings";
import { programConfigured } from "../providerBase";
import type { KindInstance } from "../kindDeclaration";
import { KIND_BY_NAME, type ResourceKind } from "../kinds";
import { instanceOf } from "../registry";
import { coerceInputs } from "./coerce";
import { listResponses } from "./list";
import { PLUGIN_SETTINGS_OPTIONS } from "./config";
import { kindOfToken, typeOfUrn } from "./tokens";
import { fromStruct, toStruct, UNKNOWN, type Props } from "./values";

/** An error the engine shows as it is (one line, no stack): unknown type, import refused, ... */
export class PluginError extends Error {}

/**
 * The stored outputs, with the state's inputs in place of what the service could not tell (`unreadInputs`, e.g. an
 * imported account's grants): those are compared with what the program declared at the last `pulumi up`, and not at
 * all until it declared them.
 */
function withDeclared(olds: Props, oldInputs: Props): Props {
  const unread = olds.unreadInputs;
  if (!Array.isArray(unread)) return olds;
  const out: Props = { ...olds };
  for (const k of unread) if (typeof k === "string") out[k] = oldInputs[k];
  return out;
}

/** The kind a request is about: the request's type, else the type in its URN. */
export function kindOf(req: { getUrn(): string; getType?(): string }): ResourceKind {
  const type = req.getType?.() || typeOfUrn(req.getUrn());
  const kind = kindOfToken(type);
  if (kind === undefined) throw new PluginError(`pulumi-pims: unknown resource type ${JSON.stringify(type)}`);
  return kind;
}

const union = (...sets: Iterable<string>[]): Set<string> => new Set(sets.flatMap((s) => [...s]));

/** Deep equality of plain JSON; arrays of strings compare as sets (the replace rule's reading, ../state). */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === UNKNOWN || b === UNKNOWN) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.every((x) => typeof x === "string") && b.every((x) => typeof x === "string"))
      return a.length === b.length && [...a].sort().every((x, i) => x === [...b].sort()[i]);
    return a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  }
  if (typeof a === "object" && a !== null && typeof b === "object" && b !== null && !Array.isArray(a)) {
    const [ka, kb] = [Object.keys(a), Object.keys(b)];
    const bo = b as Record<string, unknown>;
    return ka.length === kb.length && ka.every((k) => k in bo && sameValue((a as Record<string, unknown>)[k], bo[k]));
  }
  return a === b;
}

/** The lifecycle methods of one plugin process: a provider object per kind, configured once from Configure. */
export class NativeResources {
  private settings: ConfiguredSettings = {};
  private options: SettingsOptions = PLUGIN_SETTINGS_OPTIONS;
  private readonly providers = new Map<ResourceKind, Promise<KindInstance>>();

  /** The settings every kind's provider is configured with (before its first method, as the dynamic host does). */
  configure(settings: ConfiguredSettings, options: SettingsOptions = PLUGIN_SETTINGS_OPTIONS): void {
    this.settings = settings;
    this.options = options;
    this.providers.clear();
  }

  /**
   * The provider of a kind, configured, with the capabilities its kind declares. A failed configure repeats its error
   * on every call of that kind.
   */
  private instance(kind: ResourceKind): Promise<KindInstance> {
    let p = this.providers.get(kind);
    if (p === undefined) {
      const instance = instanceOf(kind);
      p = (async () => {
        instance.provider.configureWith(this.settings, this.options);
        return instance;
      })();
      p.catch(() => undefined); // observed: the rejection is rethrown to each caller
      this.providers.set(kind, p);
    }
    return p;
  }

  async check(req: provproto.CheckRequest): Promise<provproto.CheckResponse> {
    programConfigured(); // the program runs: the provider's settings are the current ones
    const kind = kindOf(req);
    const olds = fromStruct(req.getOlds());
    const news = fromStruct(req.getNews());
    const [before, after] = [coerceInputs(kind, olds.props), coerceInputs(kind, news.props)];
    const { provider: p } = await this.instance(kind);
    const result = p.check ? await p.check(before, after) : { inputs: after, failures: [] };
    const resp = new provproto.CheckResponse();
    resp.setInputs(toStruct((result.inputs ?? after) as Props, union(news.secretKeys, KIND_BY_NAME[kind].secret)));
    resp.setFailuresList((result.failures ?? []).map(checkFailure));
    return resp;
  }

  async diff(req: provproto.DiffRequest): Promise<provproto.DiffResponse> {
    programConfigured();
    const kind = kindOf(req);
    const olds = fromStruct(req.getOlds()).props;
    const news = fromStruct(req.getNews()).props;
    const oldInputs = fromStruct(req.getOldInputs()).props;
    const { provider: p } = await this.instance(kind);
    const result: pulumi.dynamic.DiffResult = p.diff
      ? await p.diff(req.getId(), withDeclared(olds, oldInputs), news)
      : { changes: undefined };
    return diffResponse(result, olds, news, Object.keys(oldInputs), KIND_BY_NAME[kind].memberDiffs);
  }

  async create(req: provproto.CreateRequest): Promise<provproto.CreateResponse> {
    const kind = kindOf(req);
    const news = fromStruct(req.getProperties());
    const secrets = union(news.secretKeys, KIND_BY_NAME[kind].secret);
    const resp = new provproto.CreateResponse();
    if (req.getPreview()) {
      // Nothing is sent at preview: the inputs, and each output only a create knows as unknown.
      const outs: Props = { ...news.props };
      for (const k of KIND_BY_NAME[kind].computedOnCreate) outs[k] = UNKNOWN;
      resp.setProperties(toStruct(outs, secrets));
      return resp;
    }
    const { provider: p } = await this.instance(kind);
    if (!p.create) throw new PluginError(`pulumi-pims: ${kind} cannot be created`);
    const result = await p.create(news.props);
    resp.setId(result.id);
    resp.setProperties(toStruct(result.outs as Props, secrets));
    return resp;
  }

  async read(req: provproto.ReadRequest): Promise<provproto.ReadResponse> {
    const kind = kindOf(req);
    const state = fromStruct(req.getProperties());
    const { provider: p, importable } = await this.instance(kind);
    const secret = union(state.secretKeys, KIND_BY_NAME[kind].secret);
    if (Object.keys(state.props).length === 0 && importable !== undefined) {
      // An import (`pulumi import`, the `import` option) sends only the id: the outputs and the inputs the program
      // is generated from. A refusal is an error, and nothing enters the state.
      const imported = await importable.importById(req.getId());
      return new provproto.ReadResponse()
        .setId(imported.id)
        .setProperties(toStruct(imported.props as Props, secret))
        .setInputs(toStruct(imported.inputs as Props, secret));
    }
    // Kinds that cannot be imported refuse it with their own message (the service cannot read the object).
    const result = p.read
      ? await p.read(req.getId(), Object.keys(state.props).length > 0 ? state.props : undefined)
      : { id: req.getId(), props: state.props };
    const resp = new provproto.ReadResponse();
    resp.setId(result.id ?? req.getId());
    resp.setProperties(toStruct((result.props ?? {}) as Props, union(state.secretKeys, KIND_BY_NAME[kind].secret)));
    const inputs = req.getInputs();
    if (inputs !== undefined && Object.keys(inputs.toJavaScript()).length > 0) {
      const i = fromStruct(inputs);
      resp.setInputs(toStruct(i.props, union(i.secretKeys, KIND_BY_NAME[kind].secret)));
    }
    return resp;
  }

  /** The provider protocol's List (./list): the messages of the stream, in order. */
  async list(req: provproto.ListRequest): Promise<provproto.ListResponse[]> {
    const kind = kindOfToken(req.getToken());
    if (kind === undefined)
      throw new PluginError(`pulumi-pims: unknown resource type ${JSON.stringify(req.getToken())}`);
    return listResponses(() => this.instance(kind), req);
  }

  async update(req: provproto.UpdateRequest): Promise<provproto.UpdateResponse> {
    const kind = kindOf(req);
    const olds = fromStruct(req.getOlds());
    olds.props = withDeclared(olds.props, fromStruct(req.getOldInputs()).props);
    const news = fromStruct(req.getNews());
    const secrets = union(olds.secretKeys, news.secretKeys, KIND_BY_NAME[kind].secret);
    const resp = new provproto.UpdateResponse();
    if (req.getPreview()) {
      const outs: Props = { ...olds.props, ...news.props };
      for (const k of KIND_BY_NAME[kind].computedOnUpdate) outs[k] = UNKNOWN;
      resp.setProperties(toStruct(outs, secrets));
      return resp;
    }
    const { provider: p } = await this.instance(kind);
    if (!p.update) throw new PluginError(`pulumi-pims: ${kind} cannot be updated`);
    try {
      const result = await p.update(req.getId(), olds.props, news.props);
      resp.setProperties(toStruct((result.outs ?? {}) as Props, secrets));
      return resp;
    } catch (e) {
      throw withSecretKeys(e, secrets);
    }
  }

  async delete(req: provproto.DeleteRequest): Promise<void> {
    const kind = kindOf(req);
    const { provider: p } = await this.instance(kind);
    if (p.delete) await p.delete(req.getId(), fromStruct(req.getProperties()).props);
  }
}

/** A partial-state error (an update that created an account, then failed) carries which keys to store as secrets. */
function withSecretKeys(e: unknown, secrets: Set<string>): unknown {
  if (e instanceof Error && "properties" in e) Object.defineProperty(e, "secretKeys", { value: secrets });
  return e;
}

const checkFailure = (f: pulumi.dynamic.CheckFailure): provproto.CheckFailure => {
  const out = new provproto.CheckFailure();
  out.setProperty(f.property);
  out.setReason(f.reason);
  return out;
};

/** A known map (UNKNOWN, the preview's marker, is a string). */
const isMap = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A property path the engine parses (`secrets.NAME`, or `secrets["a-b"]` for other names). */
const memberPath = (key: string, name: string): string =>
  /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? `${key}.${name}` : `${key}[${JSON.stringify(name)}]`;

/**
 * The members of map `key` that were added, deleted or changed, one detailed-diff entry each: the preview names them
 * and shows each value as the state holds it (a secret map's values as `[secret]`).
 */
function memberDiffs(key: string, olds: Record<string, unknown>, news: Record<string, unknown>) {
  const K = provproto.PropertyDiff.Kind;
  const out = new Map<string, provproto.PropertyDiff.Kind>();
  for (const name of [...new Set([...Object.keys(olds), ...Object.keys(news)])].sort()) {
    const [inOld, inNew] = [name in olds, name in news];
    if (inOld && inNew && sameValue(olds[name], news[name])) continue;
    out.set(memberPath(key, name), !inOld ? K.ADD : !inNew ? K.DELETE : K.UPDATE);
  }
  return out;
}

/**
 * The engine's DiffResponse from a lifecycle `diff` (compared against the stored outputs, as the dynamic host does):
 * the replace keys, and a detailed diff of the inputs that changed (added, deleted, updated; `_REPLACE` when the
 * provider said so), so the CLI shows exactly what changes and why a resource is replaced. Maps named in `byMember`
 * (AppSecrets' `secrets`) are shown member by member when both sides are known: which names are added, changed or
 * removed.
 */
export function diffResponse(
  result: pulumi.dynamic.DiffResult,
  olds: Props,
  news: Props,
  oldInputKeys: readonly string[],
  byMember: readonly string[] = [],
): provproto.DiffResponse {
  const K = provproto.PropertyDiff.Kind;
  const resp = new provproto.DiffResponse();
  const C = provproto.DiffResponse.DiffChanges;
  resp.setChanges(result.changes === true ? C.DIFF_SOME : result.changes === false ? C.DIFF_NONE : C.DIFF_UNKNOWN);
  const replaces = [...(result.replaces ?? [])];
  resp.setReplacesList(replaces);
  resp.setDeletebeforereplace(result.deleteBeforeReplace === true);
  if (result.changes !== true) return resp;
  const detailed = resp.getDetaileddiffMap();
  for (const key of new Set([...Object.keys(news), ...oldInputKeys])) {
    const [inOld, inNew] = [key in olds && olds[key] !== undefined, key in news && news[key] !== undefined];
    const replace = replaces.includes(key);
    let kind: provproto.PropertyDiff.Kind | undefined;
    if (!inOld && inNew) kind = replace ? K.ADD_REPLACE : K.ADD;
    else if (inOld && !inNew) kind = replace ? K.DELETE_REPLACE : K.DELETE;
    else if (inOld && inNew && (!sameValue(olds[key], news[key]) || replace))
      kind = replace ? K.UPDATE_REPLACE : K.UPDATE;
    else if (replace) kind = K.UPDATE_REPLACE;
    if (kind === undefined) continue;
    const [o, n] = [olds[key], news[key]];
    if (kind === K.UPDATE && byMember.includes(key) && isMap(o) && isMap(n)) {
      for (const [path, k] of memberDiffs(key, o, n)) {
        const d = new provproto.PropertyDiff();
        d.setKind(k);
        d.setInputdiff(true);
        detailed.set(path, d);
      }
      continue;
    }
    const d = new provproto.PropertyDiff();
    d.setKind(kind);
    d.setInputdiff(true);
    detailed.set(key, d);
  }
  for (const key of replaces) {
    if (detailed.has(key)) continue;
    const d = new provproto.PropertyDiff();
    d.setKind(K.UPDATE_REPLACE);
    d.setInputdiff(true);
    detailed.set(key, d);
  }
  resp.setDiffsList([...detailed.keys()]);
  // With nothing to show (e.g. a rotation window reached), the engine's own comparison of the inputs is used.
  resp.setHasdetaileddiff(detailed.getLength() > 0);
  return resp;
}
