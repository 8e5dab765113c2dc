"""The Python SDK's acceptance program (tests/engine/sdks/python.test.ts runs it as an inline program): a Project, two
ServiceAccounts (one rotated by replacement, one with keepPreviousToken), an AppSecrets holding a token, getApiKeys
in both forms, an explicit pims.Provider serving a second Project, and pims.config.

Stack config: projectId and appId (an existing project and app), triggerReplace and triggerOverlap (rotation
triggers: changing one rotates that account).
"""

import pulumi
import pulumi_pims as pims

config = pulumi.Config()
project_id = config.require("projectId")
day = 24 * 3600

project = pims.Project("team", name="python-sdk-team")

ci = pims.ServiceAccount(
    "ci",
    project_id=project_id,
    name="python-ci",
    description="rotated by replacement",
    grants=[project_id, project.project_id],
    expires_in=30 * day,
    rotation_trigger=config.get("triggerReplace"),
)

app = pims.ServiceAccount(
    "app",
    project_id=project_id,
    name="python-app",
    grants=[project_id],
    expires_in=30 * day,
    rotate_before_expiry=20 * day,
    rotation_trigger=config.get("triggerOverlap"),
    keep_previous_token=True,
)

pims.AppSecrets(
    "app-token",
    project_id=project_id,
    app_id=config.require("appId"),
    secrets={"PIMS_TOKEN": app.token},
)

# The plain form runs while the program runs (the project exists before the program starts); the _output form takes
# outputs and waits for the accounts, so its key list includes them.
keys_now = pims.get_api_keys(project_id=project_id)
keys_after = pims.get_api_keys_output(project_id=ci.project_id, opts=pulumi.InvokeOutputOptions(depends_on=[ci, app]))

# An explicit provider, configured from the stack's pims settings as read through pims.config and pulumi.Config.
explicit = pims.Provider(
    "explicit", base_url=pims.config.base_url, token=pulumi.Config("pims").require_secret("token")
)
pims.Project("via-explicit", name="python-sdk-explicit", opts=pulumi.ResourceOptions(provider=explicit))

pulumi.export("configBaseUrl", pims.config.base_url)
pulumi.export("projectId", project.project_id)
pulumi.export("ciAccountId", ci.service_account_id)
pulumi.export("appAccountId", app.service_account_id)
pulumi.export("appToken", app.token)
pulumi.export("appPreviousAccountId", app.previous_service_account_id)
pulumi.export("keyCountAtStart", len(keys_now.keys))
pulumi.export("keyNamesAfter", keys_after.apply(lambda r: sorted(k.name for k in r.keys)))
