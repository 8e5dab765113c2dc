/**
 * The engine's floor (P7floor, bench/p7-floor.ts): a ServiceAccount whose dynamic provider answers every call at once
 * and makes no request. Its create makes up the answer the service would give (ids, dates and a token of the same
 * shapes as the simulator's) and returns the same 13 outputs as P7's baseline (`naiveServiceAccountOutputs`); its
 * delete does nothing; it has no read, so a refresh gets its state back as it is. Declared through P7's baseline class
 * (`NaiveTypedServiceAccount`: every output key of pulumi-pims' class, the same secrets), so what a stack of these
 * costs is what the engine and the Node SDK charge any provider with those outputs.
 */
import * as pulumi from "@pulumi/pulumi";
import { naiveServiceAccountOutputs, naiveServiceAccountProvider, NaiveTypedServiceAccount } from "./naive";

type Props = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

// A plain require, as in bench/naive.ts: the closure serializer turns a captured module into `require(...)`.
const crypto = require("node:crypto") as typeof import("node:crypto");

export const floorServiceAccountProvider: pulumi.dynamic.ResourceProvider = {
  ...naiveServiceAccountProvider,
  async create(inputs: Props) {
    const hex = (bytes: number): string => crypto.randomBytes(bytes).toString("hex");
    const created = {
      id: `sa-${hex(6)}`,
      createdAt: new Date().toISOString(),
      createdByUserId: "u-admin",
      token: { id: `tok-${hex(8)}`, expiresAt: "never", secret: `pims_sa_${hex(20)}` },
    };
    return { id: created.id, outs: naiveServiceAccountOutputs(inputs, created) };
  },
  async delete() {
    // nothing to ask: the floor holds nothing anywhere
  },
};

/** ServiceAccount `name` of the floor: P7's baseline class with {@link floorServiceAccountProvider}. */
export function floorServiceAccount(name: string, args: Props): NaiveTypedServiceAccount {
  return new NaiveTypedServiceAccount(name, args, undefined, floorServiceAccountProvider);
}
