/**
 * Rotating a PIMS service-account token, two ways:
 *
 * - On demand: change `rotationTrigger` (any string, e.g. the month) and run `pulumi up`:
 *     pulumi config set rotationTrigger 2025-07 && pulumi up
 * - Before expiry: with `rotateBeforeExpiry` set, once the token's expiry minus that many seconds has passed, the
 *   next `pulumi up` replaces the account. Rotation happens only when `pulumi up` runs: schedule it (e.g. a daily
 *   CI job) well within the window.
 *
 * Either way the new account (and token) is created first, the consumers (here an app's secrets) are updated with
 * the new token, and only then is the old account deleted.
 *
 * Stack config: pims:baseUrl, pims:token (secret), projectId (an existing project), appName (an existing app of
 * that project, default "web"), expiresIn and rotateBeforeExpiry (seconds), rotationTrigger (optional).
 */
import * as pulumi from "@pulumi/pulumi";
import * as pims from "pulumi-pims";

const config = new pulumi.Config();
const projectId = config.require("projectId");
const day = 24 * 3600;

const ci = new pims.ServiceAccount("ci", {
  projectId,
  name: "ci-deployer",
  description: "Deploys from CI; rotated by pulumi up",
  grants: [projectId],
  expiresIn: config.getNumber("expiresIn") ?? 90 * day, // the token lives 90 days …
  rotateBeforeExpiry: config.getNumber("rotateBeforeExpiry") ?? 14 * day, // … and is replaced with 14 days left
  rotationTrigger: config.get("rotationTrigger"),
});

// The consumer of the token: updated with the new token before the old account is deleted.
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
  .apply(([expiresAt, window]) => (expiresAt === "never" || window === undefined ? "never" : new Date(Date.parse(expiresAt) - window * 1000).toISOString()));
export const token = ci.token; // secret
