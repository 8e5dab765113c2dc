/**
 * A new account for the inputs (POST /v2/projects/{project_id}/service-accounts, through ./create), with what the
 * state keeps of it: the token's expiry on the service's clock, the measured clock skew, and the token delivered as
 * the inputs ask (./delivery) before anything returns. Create and the rotations of update share it.
 */
import { progress, warning } from "../client/log";
import type { PimsClient } from "../client";
import type { Settings } from "../settings";
import { createAccount, type CreateLedger } from "./create";
import { deleteAccount } from "./delete";
import { deliverNew } from "./delivery";
import type { ServiceAccountInputs } from "./inputs";
import type { Account } from "./outputs";
import { serviceNow, storedSkew, tokenExpiry } from "./rotation";
import { runMemory } from "./run";

/** What the provider lends a create: its settings, a client per call, its ledger of creates and its clock. */
export interface NewAccountContext {
  settings: Settings;
  client: () => PimsClient;
  ledger: CreateLedger;
  /** The provider's `now` (ms since the epoch): the rotation window's clock. */
  now: () => number;
}

/** Creates the account for these inputs: its outputs, token (or its delivery) included. */
export async function newAccount(ins: ServiceAccountInputs, ctx: NewAccountContext): Promise<Account> {
  const s = ctx.settings;
  const body = { name: ins.name, description: ins.description ?? "", grants: ins.grants, expiresIn: ins.expiresIn };
  const opts = { ledger: ctx.ledger, watchMs: s.lostCreateWatchMs, minDelayMs: s.minDelayMs, progress };
  const client = ctx.client();
  const a = await createAccount(client, ins.projectId, body, opts);
  runMemory().recordCreated(ins.projectId, a.id);
  // The service's clock against this provider's (`now`; the client measures against Date.now), for the window.
  const measured = client.serviceSkewMs();
  const clockSkewMs = storedSkew(measured === undefined ? undefined : measured + Date.now() - ctx.now());
  const tokenExpiresAt = tokenExpiry(
    a.token.expiresAt,
    ins.expiresIn,
    a.createdAt,
    serviceNow(ctx.now(), { clockSkewMs }),
  );
  const account = { serviceAccountId: a.id, createdAt: a.createdAt, createdByUserId: a.createdByUserId, clockSkewMs };
  const delivery = { ...account, name: ins.name, projectId: ins.projectId, tokenId: a.token.id, tokenExpiresAt };
  // Delivered before this returns (./delivery); a failed delivery deletes the account just created.
  const discard = async (): Promise<void> =>
    deleteAccount(ctx.client(), {
      projectId: ins.projectId,
      accountId: a.id,
      goneProjects: s.goneProjects,
      warn: warning,
    });
  const delivered = await deliverNew(ins.tokenDelivery, a.token.secret, delivery, discard);
  return { ...account, tokenId: a.token.id, tokenExpiresAt, ...delivered };
}
