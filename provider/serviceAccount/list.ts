/**
 * Listing a project's service accounts: the provider protocol's `List` (`pulumi do pims:ServiceAccount list
 * --project-id p-…`), whose ids `pulumi import` takes as they are. The service has no listing of accounts: the
 * project's API-key listing (GET /v2/projects/{project_id}/api-keys), the one refresh and import read, shows each live
 * account by its key's `principalId` (./listing). One object per account: id `<projectId>/<serviceAccountId>` (./adopt
 * `parseImportId`), named as its key is (the name an import gives it). The keys' `apiKey` values are never read here.
 */
import { ArgumentError } from "../client";
import { idProblem } from "../checks";
import type { ListedObject } from "../capabilities";
import { accountsFromKeys, type KeyView } from "./listing";

/** The schema's `listInputs` of ServiceAccount: the project whose accounts are listed. */
export const SERVICE_ACCOUNT_LIST_INPUTS = ["projectId"] as const;

/** The project a listing is for, or an ArgumentError naming `projectId` (before any request). */
export function listedProject(inputs: Record<string, unknown>): string {
  const problem = idProblem("projectId", inputs.projectId);
  if (problem !== undefined)
    throw new ArgumentError("pulumi-pims: listing service accounts", "projectId", problem.slice("projectId ".length));
  return inputs.projectId as string;
}

/** One listed object per account the keys show, its id the one `pulumi import` takes. */
export function listedAccounts(projectId: string, keys: readonly KeyView[]): ListedObject[] {
  return accountsFromKeys(keys).map((a) => ({ id: `${projectId}/${a.id}`, name: a.name }));
}
