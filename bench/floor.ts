/**
 * The engine's floor (P7floor, bench/p7-floor.ts): a ServiceAccount whose dynamic provider answers every call at once
 * and makes no request. Its create makes up the answer the service would give (ids, a date and a token of the
 * simulator's shapes) and returns the 13 outputs P7's baseline returns (`naiveServiceAccountOutputs` of
 * bench/naive.ts; tests/unit/tooling/bench.test.ts checks that the two give the same keys). It has no check, diff, read
 * or delete: the provider host then passes the inputs through, lets the engine compare old and new inputs, gives a
 * refresh the state back as it is, and a delete only leaves the state. Declared through P7's baseline class
 * (`NaiveTypedServiceAccount`: every output key of pulumi-pims' class, the same secrets), so what a stack of these
 * costs is what the engine and the Node SDK charge any provider with those outputs.
 *
 * It is written out here rather than calling the baseline's code because the provider is serialized into every
 * resource's state twice (its `__provider`, in the inputs and the outputs) and each checkpoint rewrites the whole
 * state: a floor that carried the baseline's methods (3.2 KB) would charge itself for bytes pulumi-pims (a 1.0 KB shim,
 * P1) does not write. This one is 1.3 KB.
 */
import * as pulumi from "@pulumi/pulumi";
import { NaiveTypedServiceAccount } from "./naive";

type Props = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

// A plain require, as in bench/naive.ts: the closure serializer turns a captured module into `require(...)`.
const crypto = require("node:crypto") as typeof import("node:crypto");
const hex = (bytes: number): string => crypto.randomBytes(bytes).toString("hex");

export const floorServiceAccountProvider: pulumi.dynamic.ResourceProvider = {
  async create(inputs: Props) {
    const [id, tokenId, token] = [`sa-${hex(6)}`, `tok-${hex(8)}`, `pims_sa_${hex(20)}`];
    const tokenFingerprint = crypto.createHash("sha256").update(token).digest("hex").slice(0, 16);
    const at = new Date().toISOString();
    return {
      id,
      outs: {
        ...inputs,
        ...{ serviceAccountId: id, createdAt: at, createdByUserId: "u-admin", tokenId, tokenExpiresAt: "never" },
        ...{ token, tokenHeld: true, tokenFingerprint },
      },
    };
  },
};

/** ServiceAccount `name` of the floor: P7's baseline class with {@link floorServiceAccountProvider}. */
export function floorServiceAccount(name: string, args: Props): NaiveTypedServiceAccount {
  return new NaiveTypedServiceAccount(name, args, undefined, floorServiceAccountProvider);
}
