/** API keys of a project: `GET /v2/projects/{project_id}/api-keys` (the SDK's getApiKeys and the plugin's Invoke). */
import { readExpiry, type ApiKey } from "../client";
import { requireId, type ClientSource } from "./args";

/** Arguments of `getApiKeys`. */
export interface GetApiKeysArgs {
  /** Project whose API keys are listed, e.g. `p-1a2b3c4d`. */
  projectId: string;
}

/**
 * An API key as the service sends it, plus its expiry as a number. Safe to carry in an Output (no `Date`).
 *
 * `apiKey` is sensitive: `getApiKeysOutput` marks its whole result secret; with `getApiKeys` it is
 * the caller's job to keep the value out of logs and outputs (wrap it with `pulumi.secret`).
 */
export interface ApiKeyInfo extends ApiKey {
  /** True when the key never expires: `expiresAt` is `never` (any case), or 0 (as `expiresIn` 0 means). */
  neverExpires: boolean;
  /**
   * `expiresAt` in milliseconds since the epoch, read as RFC 3339, epoch seconds or epoch milliseconds (numbers or
   * digits); null when the key never expires or the date cannot be read.
   */
  expiresAtEpochMs: number | null;
}

/** Result of `getApiKeysOutput` and of the plugin's `pims:index:getApiKeys` (no `Date` values). */
export interface GetApiKeysOutputResult {
  /** The project's keys in the service's order: `expiresAt` ascending, keys that never expire last. */
  keys: ApiKeyInfo[];
}

/** The results that carry the key values: returned as secrets (the plugin) or as a secret Output (the SDK). */
export const API_KEYS_SECRET_RESULTS = ["keys"] satisfies Array<keyof GetApiKeysOutputResult>;

function apiKeyInfo(key: ApiKey): ApiKeyInfo {
  const expiry = readExpiry(key.expiresAt);
  return { ...key, neverExpires: expiry.never, expiresAtEpochMs: expiry.epochMs };
}

/** The project's API keys in the service's order, each with its expiry as a number. */
export async function run(args: GetApiKeysArgs, client: ClientSource): Promise<GetApiKeysOutputResult> {
  const projectId = requireId("getApiKeys", "projectId", args?.projectId);
  const keys = await (await client()).listApiKeys(projectId);
  return { keys: keys.map(apiKeyInfo) };
}
