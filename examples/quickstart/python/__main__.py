"""pulumi-pims quickstart: a new PIMS project, a service account for it, and an existing app's secrets holding the
account's token. The token is issued once, when the account is created, and stays a Pulumi secret throughout.

Stack config (see ../README.md): pims:baseUrl, pims:token (secret), appProjectId, appName (default "web"),
projectName (default "quickstart-<stack>"), rotationTrigger (change it to rotate the token).
"""

import pulumi
import pulumi_pims as pims

config = pulumi.Config()
app_project_id = config.require("appProjectId")
app_name = config.get("appName") or "web"

# 1. A new project. The service cannot rename or delete projects: `pulumi destroy` leaves it in the service.
project = pims.Project("project", name=config.get("projectName") or f"quickstart-{pulumi.get_stack()}")

# 2. A service account that may use the new project and the app's project. Any change replaces it (a new account and
#    token are created first, then the old account is deleted).
deployer = pims.ServiceAccount(
    "deployer",
    project_id=project.project_id,
    name="quickstart-deployer",
    description="Created by the pulumi-pims quickstart",
    grants=[project.project_id, app_project_id],
    expires_in=30 * 24 * 3600,  # 30 days
    rotation_trigger=config.get("rotationTrigger"),
)

# 3. The existing app gets the token (and the new project's id) as secrets; a rotation updates them before the old
#    account is deleted.
app_secrets = pims.AppSecrets(
    "app-secrets",
    project_id=app_project_id,
    app_id=f"{app_project_id}-{app_name}",
    secrets={
        "PIMS_TOKEN": deployer.token,
        "PIMS_PROJECT_ID": project.project_id,
    },
)

pulumi.export("projectId", project.project_id)
pulumi.export("serviceAccountId", deployer.service_account_id)
pulumi.export("tokenExpiresAt", deployer.token_expires_at)
# A secret output: `pulumi stack output token --show-secrets` prints it.
pulumi.export("token", deployer.token)
pulumi.export("appSecretNames", app_secrets.secret_names)
