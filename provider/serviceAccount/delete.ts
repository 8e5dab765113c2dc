/**
 * Deleting a service account without dropping a live one from the state: DELETE
 * /v2/projects/{project_id}/service-accounts/{service_account_id}, where a 404 counts as "already deleted" only once
 * the service confirms it (the project's API-key listing), and a project the user names as deleted outside Pulumi;
 * and never the account whose token the provider is authenticated with. Also the loop over every account a resource
 * deletes (destroy, and the retired accounts of an update).
 */
import { type ApiKey, NotFoundError, type PimsClient, errorText, fingerprint } from "../client";
import type { ServiceAccountOutputs } from "./outputs";
import { accountsFromKeys } from "./listing";
import type { FailedDelete } from "./rotation";

/**
 * Deletes each account ({@link deleteAccount}; in order, once each) and returns those that failed, with why. No
 * account: no settings read, no client, no call. `c.goneProjects`: `pims:goneProjects`, else `PIMS_GONE_PROJECTS`.
 */
export async function deleteAll(
  projectId: string,
  ids: ReadonlyArray<string | undefined>,
  c: { goneProjects: () => ReadonlySet<string>; client: () => PimsClient; warn: (line: string) => void },
): Promise<FailedDelete[]> {
  const unique = new Set(ids.filter((x): x is string => typeof x === "string" && x !== ""));
  if (unique.size === 0) return [];
  const goneProjects = c.goneProjects();
  const client = c.client();
  const failed: FailedDelete[] = [];
  for (const accountId of unique) {
    try {
      await deleteAccount(client, { projectId, accountId, goneProjects, warn: c.warn });
    } catch (e) {
      failed.push({ id: accountId, error: errorText(e), cause: e });
    }
  }
  return failed;
}

/** Deletes the account; a 404 is accepted only when {@link confirmAccountGone} confirms it. */
export async function deleteAccount(
  client: PimsClient,
  c: { projectId: string; accountId: string; goneProjects: ReadonlySet<string>; warn: (line: string) => void },
): Promise<void> {
  try {
    await client.deleteServiceAccount(c.projectId, c.accountId);
  } catch (e) {
    if (!(e instanceof NotFoundError)) throw e;
    await confirmAccountGone(client, { ...c, notFound: e });
  }
}

export interface GoneCheck {
  projectId: string;
  accountId: string;
  /** The DELETE's 404. */
  notFound: NotFoundError;
  /** Projects the user confirms were deleted outside Pulumi (`pims:goneProjects`, parsed by provider/settings.ts). */
  goneProjects: ReadonlySet<string>;
  warn: (line: string) => void;
}

/**
 * Returns when the account is confirmed gone after its DELETE answered 404; throws otherwise, so the account stays in
 * the state. GET /v2/projects/{project_id}/api-keys decides: the project answers and no key belongs to the account →
 * gone; a key belongs to it → it is live. The listing 404s too → the project was deleted outside Pulumi or the base
 * address is wrong (every route 404s): only a project the user named in `pims:goneProjects` is accepted as gone.
 */
export async function confirmAccountGone(client: PimsClient, c: GoneCheck): Promise<void> {
  const base = client.baseUrl;
  const deleteUrl = `${c.notFound.method} ${base}${c.notFound.path}`;
  const listUrl = `GET ${base}/v2/projects/${encodeURIComponent(c.projectId)}/api-keys`;
  const head =
    `pulumi-pims: service account ${c.accountId} in project ${c.projectId} was kept in the state: ${deleteUrl} ` +
    "answered 404";
  let keys: ApiKey[];
  try {
    keys = await client.listApiKeys(c.projectId);
  } catch (e) {
    if (!(e instanceof NotFoundError)) {
      throw new Error(
        `${head}, and its absence could not be confirmed (${listUrl}: ` + `${errorText(e)}). Run the operation again.`,
        {
          cause: e,
        },
      );
    }
    if (c.goneProjects.has(c.projectId)) {
      c.warn(
        `pulumi-pims: service account ${c.accountId} was dropped from the state without a delete: project ` +
          `${c.projectId} answers 404 (${listUrl}) and is named in pims:goneProjects (or PIMS_GONE_PROJECTS) as ` +
          "deleted outside Pulumi.",
      );
      return;
    }
    throw new Error(
      `${head}, and so did ${listUrl}. Either project ${c.projectId} was deleted outside Pulumi (its accounts ` +
        `with it), or pims:baseUrl (${base}) does not point at the service (every route answers 404 there). ` +
        "If the base address is wrong, fix pims:baseUrl (or PIMS_BASE_URL) and run again. If you have confirmed " +
        `the project is gone, name it and run again: \`pulumi config set pims:goneProjects ${c.projectId}\` (a ` +
        "JSON list or comma-separated project ids; or the PIMS_GONE_PROJECTS environment variable): its accounts " +
        "are then dropped from the state with a warning.",
      { cause: e },
    );
  }
  if (accountsFromKeys(keys).some((a) => a.id === c.accountId)) {
    throw new Error(
      `${head}, but ${listUrl} still shows an API key of this account: it is live. Check pims:baseUrl and run the ` +
        "operation again.",
    );
  }
}

/**
 * The account among `ids` whose token is `credential` (compared by fingerprint: the state keeps the current and the
 * previous token's), or undefined. Deleting it would cut the rest of the run off the service, and every later run
 * that uses the same credential.
 */
export function ownAccountIn(
  o: Partial<ServiceAccountOutputs>,
  ids: readonly string[],
  credential: string,
): string | undefined {
  const inUse = fingerprint(credential);
  const held: Array<[unknown, string | undefined, string | undefined]> = [
    [o.serviceAccountId, o.tokenFingerprint, o.token],
    [o.previousServiceAccountId, o.previousTokenFingerprint, o.previousToken],
  ];
  for (const [accountId, stored, token] of held) {
    const fp = stored || fingerprint(token);
    if (typeof accountId === "string" && ids.includes(accountId) && fp !== "" && fp === inUse) return accountId;
  }
  return undefined;
}

/**
 * Why an account whose token is the provider's own credential was not deleted, and what to do (terraform-provider-
 * fivenines#16: a provider must refuse to delete the token it is authenticated with).
 */
export function ownAccountMessage(
  o: Partial<ServiceAccountOutputs>,
  accountId: string,
  during: "destroy" | "rotation" | "plan",
): string {
  const what = {
    destroy: "was not deleted",
    rotation: "was not retired",
    plan: "would be deleted by this plan, and its delete will be refused",
  }[during];
  return (
    `pulumi-pims: service account ${JSON.stringify(o.name ?? "")} (${accountId}) in project ${o.projectId} ${what}: ` +
    "its token is the credential this provider is authenticated with (same fingerprint), and deleting it would cut " +
    "this run and every later one off the service. Set another credential first (`pulumi config set --secret " +
    "pims:token <another account's token>`, then `pulumi up` so the state stores it, or `pulumi destroy " +
    "--run-program`), then run again; to keep the account, `pulumi state delete` the resource instead."
  );
}
