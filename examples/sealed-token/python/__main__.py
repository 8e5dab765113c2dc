"""A service-account token that never reaches the stack's state: token_delivery seals each new token to an age
recipient (`age-keygen` prints one) as the service returns it, so the state holds only the ciphertext (sealedToken,
which the stack's passphrase cannot open) and the token's fingerprint. Whoever holds the identity decrypts it with
`pulumi stack output sealedToken | age -d -i key.txt`. Rotated with an overlap (keep_previous_token): the previous
token stays valid, and its ciphertext stays in previousSealedToken, until the next rotation. See ../README.md.

Stack config: pims:baseUrl, pims:token (secret), projectId (an existing project), ageRecipient (age1...), expiresIn
and rotateBeforeExpiry (seconds), rotationTrigger (optional).
"""

import pulumi
import pulumi_pims as pims

config = pulumi.Config()
project_id = config.require("projectId")
day = 24 * 3600


def number(key: str, default: int) -> int:
    value = config.get_int(key)
    return default if value is None else value


ci = pims.ServiceAccount(
    "ci",
    project_id=project_id,
    name="ci-deployer",
    description="Deploys from CI; its token is sealed to the CI's age recipient, never held in the state",
    grants=[project_id],
    expires_in=number("expiresIn", 30 * day),  # the token lives 30 days ...
    rotate_before_expiry=number("rotateBeforeExpiry", 20 * day),  # ... and is rotated with 20 days left
    rotation_trigger=config.get("rotationTrigger"),
    keep_previous_token=True,
    # The token goes nowhere but into this ciphertext: `token` is "" in the state.
    token_delivery=pims.TokenDeliveryArgs(age_recipients=[config.require("ageRecipient")]),
)

pulumi.export("serviceAccountId", ci.service_account_id)
pulumi.export("tokenId", ci.token_id)
pulumi.export("tokenExpiresAt", ci.token_expires_at)
# First 16 hex digits of the token's SHA-256: a consumer compares `printf %s "$TOKEN" | sha256sum | cut -c1-16`.
pulumi.export("tokenFingerprint", ci.token_fingerprint)
pulumi.export("tokenDeliveredTo", ci.token_delivered_to)
pulumi.export("sealedToken", ci.sealed_token)  # not a secret: only the identity opens it
# The token before the last rotation, still valid until the next one (absent before the first rotation).
pulumi.export("previousServiceAccountId", ci.previous_service_account_id)
pulumi.export("previousTokenFingerprint", ci.previous_token_fingerprint)
pulumi.export("previousSealedToken", ci.previous_sealed_token)
