/**
 * Rotating a PIMS service-account token with an overlap: `keepPreviousToken: true` keeps the account a rotation
 * replaces (and its token) live until the next rotation, so every consumer that read the token before a `pulumi up`
 * (running app instances, other stacks, CI jobs) keeps working until it reads the new one. Two triggers:
 *
 * - On demand: change `rotationTrigger` (any string, e.g. the month) and run `pulumi up`:
 *     pulumi config set rotationTrigger 2025-07 && pulumi up
 * - Before expiry: once the token's expiry minus `rotateBeforeExpiry` has passed, the next `pulumi up` rotates it.
 *   Rotation happens only when `pulumi up` runs: schedule it (e.g. a daily CI job).
 *
 * A rotation creates one account (the new `token`), keeps the one before it as `previousToken`, and deletes the one
 * two rotations old. The defaults suit a daily `pulumi up` that may miss four runs: a token lives 30 days, is rotated
 * with 20 days left (current for ~10 days, then previous for ~10 days), so it still has ~10 days left when its
 * successor is rotated (and a 7-day expiry alarm stays quiet while rotation works). With the option on,
 * `rotateBeforeExpiry` must be at least half of `expiresIn`.
 *
 * `keepPreviousToken: false` (stack config) gives the replacement of 0.1.0: the old account is deleted in the same
 * `pulumi up`, and anything outside the stack still holding its token gets 401.
 *
 * Stack config: pims:baseUrl, pims:token (secret), projectId (an existing project), appName (an existing app of
 * that project, default "web"), expiresIn and rotateBeforeExpiry (seconds), rotationTrigger (optional),
 * keepPreviousToken (default true).
 */
import * as pulumi from "@pulumi/pulumi";
import * as pims from "pulumi-pims";

const config = new pulumi.Config();
const projectId = config.require("projectId");
const day = 24 * 3600;

const ci = new pims.ServiceAccount("ci", {
  projectId,
  name: "ci-deployer",
  description: "Deploys from CI; rotated by pulumi up, the previous token kept until the next rotation",
  grants: [projectId],
  expiresIn: config.getNumber("expiresIn") ?? 30 * day, // the token lives 30 days …
  rotateBeforeExpiry: config.getNumber("rotateBeforeExpiry") ?? 20 * day, // … and is rotated with 20 days left
  rotationTrigger: config.get("rotationTrigger"),
  keepPreviousToken: config.getBoolean("keepPreviousToken") ?? true,
});

// A consumer inside the stack: updated with the new token in the same `pulumi up`. Consumers outside the stack read
// `token` after each up; the token they held is `previousToken` now, valid until the next rotation.
new pims.AppSecrets("ci-token", {
  projectId,
  appId: `${projectId}-${config.get("appName") ?? "web"}`,
  secrets: { PIMS_TOKEN: ci.token },
});

export const serviceAccountId = ci.serviceAccountId;
export const tokenId = ci.tokenId;
export const tokenExpiresAt = ci.tokenExpiresAt;
/** When the next `pulumi up` will rotate the token (expiry minus the window), or "never". */
export const rotatesAfter = pulumi
  .all([ci.tokenExpiresAt, ci.rotateBeforeExpiry])
  .apply(([expiresAt, window]) =>
    expiresAt === "never" || window === undefined
      ? "never"
      : new Date(Date.parse(expiresAt) - window * 1000).toISOString(),
  );
export const token = ci.token; // secret
/** The token before the last rotation, still valid until the next one (absent before the first rotation). */
export const previousServiceAccountId = ci.previousServiceAccountId;
export const previousTokenExpiresAt = ci.previousTokenExpiresAt;
export const previousToken = ci.previousToken; // secret
