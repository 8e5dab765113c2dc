/**
 * A service-account token that never reaches the stack's state: `tokenDelivery` seals each new token to an age
 * recipient (`age-keygen` prints one) as the service returns it, so the state holds only the ciphertext
 * (`sealedToken`, which the stack's passphrase cannot open) and the token's fingerprint. Whoever holds the identity
 * decrypts it:
 *
 *     pulumi stack output sealedToken | age -d -i key.txt
 *
 * Rotated with an overlap (`keepPreviousToken`): on demand (a new `rotationTrigger`) or once the token's expiry minus
 * `rotateBeforeExpiry` has passed (at the next `pulumi up`: schedule it). The previous token stays valid, and its
 * ciphertext stays in `previousSealedToken`, until the next rotation. `token` is "" in the state: nothing in the stack
 * can use the token itself (see ../README.md for the consumers' side).
 *
 * Stack config: pims:baseUrl, pims:token (secret), projectId (an existing project), ageRecipient (age1…), expiresIn
 * and rotateBeforeExpiry (seconds), rotationTrigger (optional).
 */
import * as pulumi from "@pulumi/pulumi";
import * as pims from "pulumi-pims";

const config = new pulumi.Config();
const projectId = config.require("projectId");
const day = 24 * 3600;

const ci = new pims.ServiceAccount("ci", {
  projectId,
  name: "ci-deployer",
  description: "Deploys from CI; its token is sealed to the CI's age recipient, never held in the state",
  grants: [projectId],
  expiresIn: config.getNumber("expiresIn") ?? 30 * day, // the token lives 30 days …
  rotateBeforeExpiry: config.getNumber("rotateBeforeExpiry") ?? 20 * day, // … and is rotated with 20 days left
  rotationTrigger: config.get("rotationTrigger"),
  keepPreviousToken: true,
  // The token goes nowhere but into this ciphertext: `token` is "" in the state.
  tokenDelivery: { ageRecipients: [config.require("ageRecipient")] },
});

export const serviceAccountId = ci.serviceAccountId;
export const tokenId = ci.tokenId;
export const tokenExpiresAt = ci.tokenExpiresAt;
/** First 16 hex digits of the token's SHA-256: a consumer compares `printf %s "$TOKEN" | sha256sum | cut -c1-16`. */
export const tokenFingerprint = ci.tokenFingerprint;
export const tokenDeliveredTo = ci.tokenDeliveredTo;
/** Not a secret: only the identity opens it. */
export const sealedToken = ci.sealedToken;
/** The token before the last rotation, still valid until the next one (absent before the first rotation). */
export const previousServiceAccountId = ci.previousServiceAccountId;
export const previousTokenFingerprint = ci.previousTokenFingerprint;
export const previousSealedToken = ci.previousSealedToken;
