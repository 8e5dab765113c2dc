/**
 * The object Pulumi serializes into every resource's state (`__provider`). It is deliberately tiny and holds
 * no credential: its only method, `configure`, runs first in the dynamic-provider host (the host always calls
 * it before any other method), `require()`s the installed `pulumi-pims` package and puts the real provider's
 * methods on this object. So destroy and refresh run the installed code, not code frozen in state, and the
 * token is read only at call time (from configure()'s stack config or the environment).
 */
/* eslint-disable @typescript-eslint/no-require-imports -- the shim require()s the installed package at call time */
import type * as pulumi from "@pulumi/pulumi";

import type { ResourceKind } from "../../provider/kinds";

export type { ResourceKind };

/** Module the shim loads at call time: the package's compiled provider entry point. */
export const PROVIDER_MODULE = "pulumi-pims/bin/provider";

const shims = new Map<ResourceKind, pulumi.dynamic.ResourceProvider>();

/** One shim per kind, so Pulumi serializes it once per program (it caches by object identity). */
export function providerShim(kind: ResourceKind): pulumi.dynamic.ResourceProvider {
  let shim = shims.get(kind);
  if (!shim) {
    shim = makeShim(kind);
    shims.set(kind, shim);
  }
  return shim;
}

/**
 * The shim's text is stored twice per resource (inputs and outputs) and the engine rewrites the whole state after
 * every step, so its body stays short and holds no comment (a comment inside a function is serialized with it).
 * `require(m)` runs at call time, not at import: the installed package's code runs, not code stored in the state.
 */
function makeShim(kind: ResourceKind): pulumi.dynamic.ResourceProvider {
  const m = PROVIDER_MODULE;
  const shim = {
    async configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
      let impl: pulumi.dynamic.ResourceProvider;
      try {
        const entry = require(m) as { newProvider(kind: ResourceKind): pulumi.dynamic.ResourceProvider };
        impl = entry.newProvider(kind);
      } catch (e) {
        throw new Error(
          `pulumi-pims: cannot load ${m}: ${(e as Error).message}. Install pulumi-pims in this Pulumi project (npm install pulumi-pims).`,
          {
            cause: e,
          },
        );
      }
      Object.assign(this, impl);
      if (impl.configure) await impl.configure(req);
    },
  };
  return shim as unknown as pulumi.dynamic.ResourceProvider;
}
