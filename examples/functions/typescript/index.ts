/**
 * Two read-only functions, no resources: an app's most recent lines on stderr (getAppLogs) and one build's status
 * (getBuildLogs), read on every `pulumi up` and `pulumi preview`.
 *
 *   pulumi config set projectId p-1a2b3c4d && pulumi config set buildId <build> && pulumi up
 */
import * as pulumi from "@pulumi/pulumi";
import * as pims from "pulumi-pims";

const config = new pulumi.Config();
const projectId = config.require("projectId");
const appId = `${projectId}-${config.get("appName") ?? "web"}`;

// The app's 20 most recent lines on stderr (read page by page; `truncated` says whether more exist).
const errorLogs = pims.getAppLogsOutput({ projectId, appId, stream: "stderr", limit: 20 });

// One build's status and log.
const build = pims.getBuildLogsOutput({ projectId, appId, buildId: config.require("buildId") });

export const errorLines = errorLogs.apply((r) => r.lines.map((l) => l.logLine));
export const errorLinesTruncated = errorLogs.truncated;
export const buildStatus = build.status;
export const buildSucceeded = build.succeeded;
