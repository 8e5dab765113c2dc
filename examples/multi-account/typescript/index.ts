/**
 * Several PIMS accounts in one program, with `pims.Provider`.
 *
 * Bootstrap: the stack's token (`pims:token`, an account allowed to create projects) creates a project and an account
 * scoped to it. A `pims.Provider` built from that account's token manages the project from then on: a CI account, the
 * app's secrets, the volume size, and the read of the project's API keys all run as the project's own account. A
 * second provider talks to another PIMS service with its own token.
 *
 * Stack config (see README.md):
 *   pims:baseUrl, pims:token (secret)   the main service and the bootstrap token
 *   projectName                         name of the new project (default "team-<stack>")
 *   rotationTrigger                     change it to rotate the project's account (and so the scoped provider's token)
 *   appName                             an app deployed in the new project (apps cannot be created through the API):
 *                                       once set, its secrets are managed
 *   volumeSizeGb, volumeId              once volumeSizeGb is set, the project's volume (default "default-us-east-1")
 *                                       is grown to that size
 *   otherBaseUrl, otherToken (secret)   another PIMS service; with otherProjectId and otherAppName (default "web"):
 *                                       an app there gets the new project's id, and that project's invoices are read
 */
import * as pulumi from "@pulumi/pulumi";
import * as pims from "pulumi-pims";

const config = new pulumi.Config();
const day = 24 * 3600;

// 1. With the stack's token: the project, and an account that may use that project only.
const project = new pims.Project("project", { name: config.get("projectName") ?? `team-${pulumi.getStack()}` });
const projectId = project.projectId;

const deployer = new pims.ServiceAccount("deployer", {
  projectId,
  name: "project-deployer",
  description: "The project's own account: manages the project through a pims.Provider",
  grants: [projectId],
  expiresIn: 90 * day,
  rotationTrigger: config.get("rotationTrigger"),
});

// 2. A provider holding that account's token (the base address is the stack's pims:baseUrl). Rotating the account
//    updates this provider only: nothing it manages is replaced, and later operations use the new token.
const scoped = new pims.Provider("scoped", { token: deployer.token });

// 2a. The scoped account mints a CI account for its project.
const ci = new pims.ServiceAccount(
  "ci",
  { projectId, name: "ci", description: "Deploys the app from CI", grants: [projectId], expiresIn: 30 * day },
  { provider: scoped },
);

// 2b. The app's secrets, once the app is deployed in the project: the project's token and id.
const appName = config.get("appName");
const appSecrets =
  appName === undefined
    ? undefined
    : new pims.AppSecrets(
        "app-secrets",
        {
          projectId,
          appId: pulumi.interpolate`${projectId}-${appName}`,
          secrets: { PIMS_TOKEN: deployer.token, PIMS_PROJECT_ID: projectId },
        },
        { provider: scoped },
      );

// 2c. The project's volume, grown to volumeSizeGb.
const volumeSizeGb = config.getNumber("volumeSizeGb");
if (volumeSizeGb !== undefined) {
  new pims.VolumeSize(
    "volume",
    { projectId, volumeId: config.get("volumeId") ?? "default-us-east-1", sizeGb: volumeSizeGb },
    { provider: scoped },
  );
}

// 2d. A read with the same account (a secret Output: it carries the key values). `ci.projectId` is known once the CI
//     account exists, so its key is listed too.
const apiKeys = pims.getApiKeysOutput({ projectId: ci.projectId }, { provider: scoped });

// 3. Another PIMS service, with its own address and token.
const otherBaseUrl = config.get("otherBaseUrl");
let otherInvoiceIds: pulumi.Output<string[]> | undefined;
if (otherBaseUrl !== undefined) {
  const other = new pims.Provider("other", { baseUrl: otherBaseUrl, token: config.requireSecret("otherToken") });
  const otherProjectId = config.require("otherProjectId");
  new pims.AppSecrets(
    "other-app-secrets",
    {
      projectId: otherProjectId,
      appId: `${otherProjectId}-${config.get("otherAppName") ?? "web"}`,
      secrets: { UPSTREAM_PROJECT_ID: projectId },
    },
    { provider: other },
  );
  otherInvoiceIds = pims
    .getInvoicesOutput({ projectId: otherProjectId }, { provider: other })
    .apply((r) => r.invoices.map((i) => i.id));
}

export const newProjectId = projectId;
export const deployerId = deployer.serviceAccountId;
export const ciAccountId = ci.serviceAccountId;
/** Secret outputs: `pulumi stack output ciToken --show-secrets` prints it. */
export const ciToken = ci.token;
export const apiKeyNames = apiKeys.apply((r) => r.keys.map((k) => k.name)); // secret, as the whole read is
export const appSecretNames = appSecrets?.secretNames;
export const otherInvoices = otherInvoiceIds;
