"""Rotating a PIMS service-account token with an overlap: keep_previous_token keeps the account a rotation replaces
(and its token) live until the next rotation, so every consumer that read the token before a `pulumi up` keeps
working until it reads the new one. Rotates on demand (a new rotationTrigger) and once the token's expiry minus
rotateBeforeExpiry has passed (at the next `pulumi up`: schedule it). See ../README.md.

Stack config: pims:baseUrl, pims:token (secret), projectId (an existing project), appName (default "web"), expiresIn
and rotateBeforeExpiry (seconds), rotationTrigger (optional), keepPreviousToken (default true).
"""

from datetime import datetime, timedelta

import pulumi
import pulumi_pims as pims

config = pulumi.Config()
project_id = config.require("projectId")
day = 24 * 3600



def number(key: str, default: int) -> int:
    value = config.get_int(key)
    return default if value is None else value


keep_previous = config.get_bool("keepPreviousToken")
ci = pims.ServiceAccount(
    "ci",
    project_id=project_id,
    name="ci-deployer",
    description="Deploys from CI; rotated by pulumi up, the previous token kept until the next rotation",
    grants=[project_id],
    expires_in=number("expiresIn", 30 * day),  # the token lives 30 days ...
    rotate_before_expiry=number("rotateBeforeExpiry", 20 * day),  # ... and is rotated with 20 days left
    rotation_trigger=config.get("rotationTrigger"),
    keep_previous_token=True if keep_previous is None else keep_previous,
)

# A consumer inside the stack: updated with the new token in the same `pulumi up`. Consumers outside the stack read
# `token` after each up; the token they held is `previousToken` now, valid until the next rotation.
pims.AppSecrets(
    "ci-token",
    project_id=project_id,
    app_id=f"{project_id}-{config.get('appName') or 'web'}",
    secrets={"PIMS_TOKEN": ci.token},
)


def rotates_after(args: list) -> str:
    """When the next `pulumi up` will rotate the token (expiry minus the window), or "never"."""
    expires_at, window = args
    if expires_at == "never" or window is None:
        return "never"
    at = datetime.fromisoformat(expires_at.replace("Z", "+00:00")) - timedelta(seconds=window)
    return at.strftime("%Y-%m-%dT%H:%M:%S.") + f"{at.microsecond // 1000:03d}Z"


pulumi.export("serviceAccountId", ci.service_account_id)
pulumi.export("tokenId", ci.token_id)
pulumi.export("tokenExpiresAt", ci.token_expires_at)
pulumi.export("rotatesAfter", pulumi.Output.all(ci.token_expires_at, ci.rotate_before_expiry).apply(rotates_after))
pulumi.export("token", ci.token)  # secret
# The token before the last rotation, still valid until the next one (absent before the first rotation).
pulumi.export("previousServiceAccountId", ci.previous_service_account_id)
pulumi.export("previousTokenExpiresAt", ci.previous_token_expires_at)
pulumi.export("previousToken", ci.previous_token)  # secret
