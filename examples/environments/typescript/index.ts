/**
 * One program for every environment. Each stack (dev, staging, prod) reads its own settings from
 * `Pulumi.<stack>.yaml` with `new pulumi.Config()`: the environment's existing PIMS project, the size of its
 * data volume, the projects its deployer may access, the token's lifetime and rotation window, the app's log level.
 *
 *   pulumi stack select dev && pulumi up
 *   pulumi stack select prod && pulumi up
 */
import * as pulumi from "@pulumi/pulumi";
import * as pims from "pulumi-pims";

const env = pulumi.getStack();
const config = new pulumi.Config();

/** The environment's existing project (it holds the app and the volume). */
const projectId = config.require("projectId");
const appId = `${projectId}-${config.get("appName") ?? "web"}`;
const day = 24 * 3600;

// A deployer per environment (the service's recommended practice), rotated automatically: once fewer than
// `rotateDaysBeforeExpiry` days are left, the next `pulumi up` replaces it with a new account and token.
const deployer = new pims.ServiceAccount("deployer", {
  projectId,
  name: `${env}-deployer`,
  description: `Deploys the ${env} environment`,
  grants: config.getObject<string[]>("grants") ?? [projectId],
  expiresIn: config.requireNumber("tokenLifetimeDays") * day,
  rotateBeforeExpiry: config.requireNumber("rotateDaysBeforeExpiry") * day,
});

// The data volume's size (volumes only grow).
const volume = new pims.VolumeSize("data", {
  projectId,
  volumeId: config.get("volumeId") ?? "default-us-east-1",
  sizeGb: config.requireNumber("volumeSizeGb"),
});

// The app's secrets: the deployer's token, the log level and, when set (as a secret), the database URL.
const secrets: Record<string, pulumi.Input<string>> = {
  PIMS_TOKEN: deployer.token,
  LOG_LEVEL: config.get("logLevel") ?? "info",
};
const databaseUrl = config.getSecret("databaseUrl");
if (databaseUrl !== undefined) secrets.DATABASE_URL = databaseUrl;
const appSecrets = new pims.AppSecrets("app-secrets", { projectId, appId, secrets });

// A read-only function: the project's API keys, listed once the deployer exists (`deployer.projectId` resolves
// after it is created), so its key is among them. The result is a secret output (it carries key values).
const apiKeys = pims.getApiKeysOutput({ projectId: deployer.projectId });

export const environment = env;
export const deployerId = deployer.serviceAccountId;
export const deployerGrants = deployer.grants;
export const tokenExpiresAt = deployer.tokenExpiresAt;
export const token = deployer.token; // secret
export const volumeSizeGb = volume.sizeGb;
export const appSecretNames = appSecrets.secretNames;
export const apiKeyNames = apiKeys.apply((r) => r.keys.map((k) => k.name)); // secret (derived from a secret)
