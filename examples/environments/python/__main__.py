"""One program for every environment. Each stack (dev, staging, prod) reads its own settings from
`Pulumi.<stack>.yaml` with `pulumi.Config()`: the environment's existing PIMS project, the size of its data volume,
the projects its deployer may access, the token's lifetime and rotation window, the app's log level.

    pulumi stack select dev && pulumi up
    pulumi stack select prod && pulumi up
"""

import pulumi
import pulumi_pims as pims

env = pulumi.get_stack()
config = pulumi.Config()

# The environment's existing project (it holds the app and the volume).
project_id = config.require("projectId")
app_id = f"{project_id}-{config.get('appName') or 'web'}"
day = 24 * 3600

# A deployer per environment (the service's recommended practice), rotated automatically: once fewer than
# `rotateDaysBeforeExpiry` days are left, the next `pulumi up` replaces it with a new account and token.
deployer = pims.ServiceAccount(
    "deployer",
    project_id=project_id,
    name=f"{env}-deployer",
    description=f"Deploys the {env} environment",
    grants=config.get_object("grants") or [project_id],
    expires_in=config.require_int("tokenLifetimeDays") * day,
    rotate_before_expiry=config.require_int("rotateDaysBeforeExpiry") * day,
)

# The data volume's size (volumes only grow).
volume = pims.VolumeSize(
    "data",
    project_id=project_id,
    volume_id=config.get("volumeId") or "default-us-east-1",
    size_gb=config.require_int("volumeSizeGb"),
)

# The app's secrets: the deployer's token, the log level and, when set (as a secret), the database URL.
secrets = {"PIMS_TOKEN": deployer.token, "LOG_LEVEL": config.get("logLevel") or "info"}
database_url = config.get_secret("databaseUrl")
if database_url is not None:
    secrets["DATABASE_URL"] = database_url
app_secrets = pims.AppSecrets("app-secrets", project_id=project_id, app_id=app_id, secrets=secrets)

# A read-only function: the project's API keys, listed once the deployer exists (`deployer.project_id` resolves after
# it is created), so its key is among them. The result is a secret output (it carries key values).
api_keys = pims.get_api_keys_output(project_id=deployer.project_id)

pulumi.export("environment", env)
pulumi.export("deployerId", deployer.service_account_id)
pulumi.export("deployerGrants", deployer.grants)
pulumi.export("tokenExpiresAt", deployer.token_expires_at)
pulumi.export("token", deployer.token)  # secret
pulumi.export("volumeSizeGb", volume.size_gb)
pulumi.export("appSecretNames", app_secrets.secret_names)
pulumi.export("apiKeyNames", api_keys.apply(lambda r: [k.name for k in r.keys]))  # secret (derived from a secret)
