/** API keys of a project: `GET /v2/projects/{project_id}/api-keys`. */
import type * as pulumi from "@pulumi/pulumi";
import * as core from "../../../provider/functions/apiKeys";
import type { ApiKeyInfo, GetApiKeysArgs, GetApiKeysOutputResult } from "../../../provider/functions/apiKeys";
import type { Inputs } from "../inputs";
import { callFunction, clientForProviderCall, loadPulumi, outputOf, type PimsCallOptions } from "./call";

export type { ApiKeyInfo, GetApiKeysArgs, GetApiKeysOutputResult };

/** Arguments of {@link getApiKeysOutput}: {@link GetApiKeysArgs} as Inputs. */
export type GetApiKeysOutputArgs = Inputs<GetApiKeysArgs>;

/** An API key returned by {@link getApiKeys}: {@link ApiKeyInfo} plus the expiry as a `Date`. */
export interface ApiKeyResult extends ApiKeyInfo {
  /** `expiresAt` as a Date; null when the key never expires or the date cannot be read. */
  expiresAtDate: Date | null;
}

/** Result of {@link getApiKeys}. */
export interface GetApiKeysResult {
  /** The project's keys in the service's order: `expiresAt` ascending, keys that never expire last. */
  keys: ApiKeyResult[];
}

/**
 * Lists the API keys of a project (`GET /v2/projects/{project_id}/api-keys`), in the service's order (`expiresAt`
 * ascending, `never` last).
 *
 * @remarks Each key's `apiKey` value is **sensitive**. This Promise form returns it in plain text: do not
 * export it as a stack output or log it without `pulumi.secret(...)`. Prefer {@link getApiKeysOutput} in Pulumi
 * programs: its result is a secret Output.
 *
 * @example
 * ```ts
 * import * as pims from "pulumi-pims";
 * const { keys } = await pims.getApiKeys({ projectId: "p-1a2b3c4d" });
 * const expiring = keys.filter((k) => k.expiresAtDate && k.expiresAtDate.getTime() < Date.now() + 7 * 86400_000);
 * console.log(expiring.map((k) => k.name));
 * ```
 */
export async function getApiKeys(args: GetApiKeysArgs, opts?: PimsCallOptions): Promise<GetApiKeysResult> {
  const run = () => core.run(args, () => clientForProviderCall(opts));
  const { keys } = await callFunction<GetApiKeysOutputResult>("getApiKeys", args, opts, run);
  return {
    keys: keys.map((info) => ({
      ...info,
      expiresAtDate: info.expiresAtEpochMs === null ? null : new Date(info.expiresAtEpochMs),
    })),
  };
}

/**
 * Output form of {@link getApiKeys}. The whole result is a **secret** Output (it carries the key values), so
 * anything derived from it stays encrypted in state and masked in the CLI's output.
 *
 * @example
 * ```ts
 * import * as pims from "pulumi-pims";
 * const keys = pims.getApiKeysOutput({ projectId: project.id });
 * export const keyNames = keys.apply((r) => r.keys.map((k) => k.name)); // secret too
 * ```
 */
export function getApiKeysOutput(
  args: GetApiKeysOutputArgs,
  opts?: PimsCallOptions,
): pulumi.Output<GetApiKeysOutputResult> {
  const out = outputOf(
    args,
    async (a) => {
      const { keys } = await getApiKeys(a, opts);
      // Dates do not survive an Output: drop expiresAtDate, keep expiresAtEpochMs.
      return { keys: keys.map(({ expiresAtDate: _dropped, ...info }) => info) };
    },
    opts,
  );
  return loadPulumi().secret(out);
}
