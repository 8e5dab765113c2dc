"""The Python program of tests/engine/sdks/pythonDelivery.test.ts (issue 47): two ServiceAccounts whose tokens are
delivered instead of held, both rotated with an overlap by the config `rotation`: one sealed to an age recipient,
one written to a file; with the config `adoptId`, a console account adopted and its proven token sealed too.
"""

import pulumi
import pulumi_pims as pims

config = pulumi.Config()
project_id = config.require("projectId")
recipient = config.require("recipient")


def account(name: str, delivery: pims.TokenDeliveryArgs) -> pims.ServiceAccount:
    return pims.ServiceAccount(
        name,
        project_id=project_id,
        name=f"py-{name}",
        grants=[project_id],
        expires_in=2592000,
        rotate_before_expiry=1728000,
        keep_previous_token=True,
        rotation_trigger=config.get("rotation") or "r0",
        token_delivery=delivery,
    )


sealed = account("sealed", pims.TokenDeliveryArgs(age_recipients=[recipient]))
filed = account("filed", pims.TokenDeliveryArgs(file=config.require("tokenFile")))

adopt_id = config.get("adoptId")
if adopt_id:
    pims.ServiceAccount(
        "adopted",
        project_id=project_id,
        name="console-ci",
        description="made in the console",
        grants=[project_id],
        expires_in=7776000,
        adopt_service_account_id=adopt_id,
        token_delivery=pims.TokenDeliveryArgs(age_recipients=[recipient]),
    )

pulumi.export("sealedToken", sealed.sealed_token)
pulumi.export("sealedFingerprint", sealed.token_fingerprint)
pulumi.export("sealedDeliveredTo", sealed.token_delivered_to)
pulumi.export("sealedPreviousFingerprint", sealed.previous_token_fingerprint)
pulumi.export("filedFingerprint", filed.token_fingerprint)
pulumi.export("token", sealed.token)  # "" (a secret output still)
