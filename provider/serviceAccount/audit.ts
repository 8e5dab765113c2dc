/**
 * The orphan notice. A `pulumi up` killed while POST /v2/projects/{project_id}/service-accounts is in flight leaves an
 * account the service created and no state holds: its one-time token was in the answer nobody received, so it cannot
 * be recovered, and the retried create makes a new account. When pulumi-pims next refreshes, rotates, replaces or
 * deletes a ServiceAccount, it looks at the run's listing of the project (./run) and names every live
 * account with the resource's name that no state of this run holds, with its id, creation time and the command that
 * deletes it, as a warning on that resource: the run goes on. It never deletes or adopts such an account: another
 * stack (or a provider instance of this stack with other credentials) may manage an account with the same name.
 */
import { NotFoundError } from "../client";
import type { AccountSeen } from "./listing";
import { listed, type ListingResult } from "./run";

/** Most accounts named one by one in a notice (the rest are counted, with the command that lists them). */
const MAX_SHOWN = 10;

/** Live accounts named `name` in the listing that `held` does not hold, oldest first. */
export function unheldAccounts(
  accounts: readonly AccountSeen[],
  name: string,
  held: ReadonlySet<string>,
): AccountSeen[] {
  return accounts.filter((a) => a.name === name && !held.has(a.id));
}

/** The notice for `found` (empty: none), worded for the case that another stack uses the same name. */
export function orphanNotice(projectId: string, name: string, found: readonly AccountSeen[]): string | undefined {
  if (found.length === 0) return undefined;
  const n = found.length;
  const list = `pims service-accounts list ${projectId} --state <(pulumi stack export)`;
  const lines = found
    .slice(0, MAX_SHOWN)
    .map(
      (a) =>
        `  ${a.id} (created ${a.createdAt || "at an unknown time"}): pims service-accounts delete ${projectId} ${a.id}`,
    );
  if (n > MAX_SHOWN) lines.push(`  …and ${n - MAX_SHOWN} more: ${list}`);
  const named = JSON.stringify(name);
  const [s, is] = n === 1 ? ["", "is"] : ["s", "are"];
  return [
    `pulumi-pims: service account ${named} in project ${projectId}: ${n} live account${s} named ${named} ${is} held ` +
      `by no state this run has seen (seen through GET /v2/projects/${projectId}/api-keys), oldest first:`,
    ...lines,
    "An interrupted `pulumi up` (a killed CI job, a double Ctrl-C) leaves such an account: the service created it, " +
      "and its token was in an answer nobody received, so it cannot be recovered and the next create made a new " +
      "account. pulumi-pims never deletes or adopts it. Another stack, or a pims.Provider of this stack with other " +
      `credentials, may manage an account with the same name: check with \`${list}\` in each such stack. ` +
      "If none holds it, delete it with the command above.",
  ].join("\n");
}

/**
 * What the run's listing tells about accounts named `name` that no state holds: the notice, a line saying why the
 * accounts could not be looked at, or nothing.
 */
export function auditLine(
  projectId: string,
  name: string,
  result: ListingResult,
  held: ReadonlySet<string>,
): string | undefined {
  if (!result.ok) {
    // A 404: the project is gone or the address is wrong; what the operation does next says so.
    if (result.error instanceof NotFoundError) return undefined;
    const why = result.error instanceof Error ? result.error.message : String(result.error);
    const named = JSON.stringify(name);
    return (
      `pulumi-pims: service account ${named} in project ${projectId}: could not look for accounts named ${named} ` +
      `that no state holds (left by an interrupted \`pulumi up\`): ${why}. Check later with ` +
      `\`pims service-accounts list ${projectId} --state <(pulumi stack export)\`.`
    );
  }
  return orphanNotice(projectId, name, unheldAccounts(listed(result.listing).byName.get(name) ?? [], name, held));
}
