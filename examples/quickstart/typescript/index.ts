/**
 * pulumi-pims quickstart: a new PIMS project, a service account for it, and an existing app's secrets holding the
 * account's token. The token is issued once, when the account is created, and stays a Pulumi secret throughout.
 *
 * Stack config (see README.md):
 *   pims:baseUrl            the PIMS address
 *   pims:token              (secret) a PIMS token allowed to create projects and service accounts
 *   appProjectId            project of the existing app that receives the token, e.g. p-1a2b3c4d
 *   appName                 that app's name (default "web"); its id is `<appProjectId>-<appName>`
 *   projectName             name of the new project (default "quickstart-<stack>")
 *   rotationTrigger         change it (any string) to rotate the token: a new account replaces the old one
 */
import * as pulumi from "@pulumi/pulumi";
import * as pims from "pulumi-pims";

const config = new pulumi.Config();
const appProjectId = config.require("appProjectId");
const appName = config.get("appName") ?? "web";

// 1. A new project. The service cannot rename or delete projects: `pulumi destroy` leaves it in the service.
const project = new pims.Project("project", {
  name: config.get("projectName") ?? `quickstart-${pulumi.getStack()}`,
});

// 2. A service account that may use the new project and the app's project. Any change replaces it (a new
//    account and token are created first, then the old account is deleted).
const deployer = new pims.ServiceAccount("deployer", {
  projectId: project.projectId,
  name: "quickstart-deployer",
  description: "Created by the pulumi-pims quickstart",
  grants: [project.projectId, appProjectId],
  expiresIn: 30 * 24 * 3600, // 30 days
  rotationTrigger: config.get("rotationTrigger"),
});

// 3. The existing app gets the token (and the new project's id) as secrets; a rotation updates them before the
//    old account is deleted.
const appSecrets = new pims.AppSecrets("app-secrets", {
  projectId: appProjectId,
  appId: `${appProjectId}-${appName}`,
  secrets: {
    PIMS_TOKEN: deployer.token,
    PIMS_PROJECT_ID: project.projectId,
  },
});

export const projectId = project.projectId;
export const serviceAccountId = deployer.serviceAccountId;
export const tokenExpiresAt = deployer.tokenExpiresAt;
/** A secret output: `pulumi stack output token --show-secrets` prints it. */
export const token = deployer.token;
export const appSecretNames = appSecrets.secretNames;
