/**
 * Shared by the ServiceAccount test files (unit and sim): the provider's methods taking the loose JSON the engine
 * sends (tests feed malformed values on purpose), and checks of what the outputs look like.
 */
import { ServiceAccountProvider, type ServiceAccountOutputs } from "../../provider/serviceAccount";

export type Props = Record<string, unknown>;

/** The provider's lifecycle methods, typed for arbitrary JSON (what the dynamic-provider host may pass). */
export interface LooseServiceAccountProvider {
  readonly provider: ServiceAccountProvider;
  check(olds: object, news: object): ReturnType<ServiceAccountProvider["check"]>;
  diff(id: string, olds: object, news: object): ReturnType<ServiceAccountProvider["diff"]>;
  create(inputs: object): Promise<{ id: string; outs: ServiceAccountOutputs }>;
  read(id: string, props?: object): ReturnType<ServiceAccountProvider["read"]>;
  update(id: string, olds: object, news: object): Promise<ServiceAccountOutputs>;
  delete(id: string, props: object): Promise<void>;
}

export function loose(provider: ServiceAccountProvider): LooseServiceAccountProvider {
  return {
    provider,
    check: (olds, news) => provider.check(olds as never, news as never),
    diff: (id, olds, news) => provider.diff(id, olds as never, news as never),
    create: async (inputs) => {
      const r = await provider.create(inputs as never);
      if (!r.outs) throw new Error("create returned no outputs");
      return { id: r.id, outs: r.outs };
    },
    read: (id, props) => provider.read(id, props as never),
    update: async (id, olds, news) => {
      const r = await provider.update(id, olds as never, news as never);
      if (!r.outs) throw new Error("update returned no outputs");
      return r.outs;
    },
    delete: (id, props) => provider.delete(id, props as never),
  };
}

/** True when `v` survives JSON unchanged: no undefined anywhere, no Output/secret wrapper objects. */
export function isPlainJson(v: unknown): boolean {
  return JSON.stringify(JSON.parse(JSON.stringify(v))) === JSON.stringify(v) && deepPlain(v);
}
function deepPlain(v: unknown): boolean {
  if (v === undefined) return false;
  if (Array.isArray(v)) return v.every(deepPlain);
  if (typeof v === "object" && v !== null) {
    if (Object.getPrototypeOf(v) !== Object.prototype) return false;
    return Object.values(v).every(deepPlain);
  }
  return true;
}

/** The outputs with the token removed: the token may live only under `token` (the one secret output). */
export const withoutToken = (o: object): string => JSON.stringify({ ...o, token: "<removed>" });

/** Inputs of a small valid account. */
export const inputsFor = (projectId: string, name: string, extra: Props = {}): Props => ({
  projectId,
  name,
  description: "",
  grants: [projectId],
  expiresIn: 3600,
  ...extra,
});
