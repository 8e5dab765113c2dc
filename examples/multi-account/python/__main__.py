"""Several PIMS accounts in one program, with `pims.Provider`.

Bootstrap: the stack's token (`pims:token`, an account allowed to create projects) creates a project and an account
scoped to it. A `pims.Provider` built from that account's token manages the project from then on: a CI account, the
app's secrets, the volume size, and the read of the project's API keys all run as the project's own account. A second
provider talks to another PIMS service with its own token. Stack config: see ../README.md.
"""

import pulumi
import pulumi_pims as pims

config = pulumi.Config()
day = 24 * 3600

# 1. With the stack's token: the project, and an account that may use that project only.
project = pims.Project("project", name=config.get("projectName") or f"team-{pulumi.get_stack()}")
project_id = project.project_id

deployer = pims.ServiceAccount(
    "deployer",
    project_id=project_id,
    name="project-deployer",
    description="The project's own account: manages the project through a pims.Provider",
    grants=[project_id],
    expires_in=90 * day,
    rotation_trigger=config.get("rotationTrigger"),
)

# 2. A provider holding that account's token (the base address is the stack's pims:baseUrl). Rotating the account
#    updates this provider only: nothing it manages is replaced, and later operations use the new token.
scoped = pims.Provider("scoped", token=deployer.token)

# 2a. The scoped account mints a CI account for its project.
ci = pims.ServiceAccount(
    "ci",
    project_id=project_id,
    name="ci",
    description="Deploys the app from CI",
    grants=[project_id],
    expires_in=30 * day,
    opts=pulumi.ResourceOptions(provider=scoped),
)

# 2b. The app's secrets, once the app is deployed in the project: the project's token and id.
app_name = config.get("appName")
app_secrets = None
if app_name is not None:
    app_secrets = pims.AppSecrets(
        "app-secrets",
        project_id=project_id,
        app_id=pulumi.Output.concat(project_id, "-", app_name),
        secrets={"PIMS_TOKEN": deployer.token, "PIMS_PROJECT_ID": project_id},
        opts=pulumi.ResourceOptions(provider=scoped),
    )

# 2c. The project's volume, grown to volumeSizeGb.
volume_size_gb = config.get_int("volumeSizeGb")
if volume_size_gb is not None:
    pims.VolumeSize(
        "volume",
        project_id=project_id,
        volume_id=config.get("volumeId") or "default-us-east-1",
        size_gb=volume_size_gb,
        opts=pulumi.ResourceOptions(provider=scoped),
    )

# 2d. A read with the same account (a secret Output: it carries the key values). `ci.project_id` is known once the CI
#     account exists, so its key is listed too.
api_keys = pims.get_api_keys_output(project_id=ci.project_id, opts=pulumi.InvokeOutputOptions(provider=scoped))

# 3. Another PIMS service, with its own address and token.
other_base_url = config.get("otherBaseUrl")
other_invoice_ids = None
if other_base_url is not None:
    other = pims.Provider("other", base_url=other_base_url, token=config.require_secret("otherToken"))
    other_project_id = config.require("otherProjectId")
    pims.AppSecrets(
        "other-app-secrets",
        project_id=other_project_id,
        app_id=f"{other_project_id}-{config.get('otherAppName') or 'web'}",
        secrets={"UPSTREAM_PROJECT_ID": project_id},
        opts=pulumi.ResourceOptions(provider=other),
    )
    other_invoice_ids = pims.get_invoices_output(
        project_id=other_project_id, opts=pulumi.InvokeOutputOptions(provider=other)
    ).apply(lambda r: [i.id for i in r.invoices])

pulumi.export("newProjectId", project_id)
pulumi.export("deployerId", deployer.service_account_id)
pulumi.export("ciAccountId", ci.service_account_id)
# Secret outputs: `pulumi stack output ciToken --show-secrets` prints it.
pulumi.export("ciToken", ci.token)
pulumi.export("apiKeyNames", api_keys.apply(lambda r: [k.name for k in r.keys]))  # secret, as the whole read is
if app_secrets is not None:
    pulumi.export("appSecretNames", app_secrets.secret_names)
if other_invoice_ids is not None:
    pulumi.export("otherInvoices", other_invoice_ids)
