// Two read-only functions, no resources: an app's most recent lines on stderr (GetAppLogs) and one build's status
// (GetBuildLogs), read on every `pulumi up` and `pulumi preview`.
//
//	pulumi config set projectId p-1a2b3c4d && pulumi config set buildId <build> && pulumi up
package main

import (
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
	"pulumi-pims/sdk/go/pims"
)

func main() {
	pulumi.Run(program)
}

func program(ctx *pulumi.Context) error {
	cfg := config.New(ctx, "")
	projectID := cfg.Require("projectId")
	appName := cfg.Get("appName")
	if appName == "" {
		appName = "web"
	}
	appID := projectID + "-" + appName

	// The app's 20 most recent lines on stderr (read page by page; `truncated` says whether more exist).
	errorLogs := pims.GetAppLogsOutput(ctx, pims.GetAppLogsOutputArgs{
		ProjectId: pulumi.String(projectID),
		AppId:     pulumi.String(appID),
		Stream:    pulumi.String("stderr"),
		Limit:     pulumi.Int(20),
	})

	// One build's status and log.
	build := pims.GetBuildLogsOutput(ctx, pims.GetBuildLogsOutputArgs{
		ProjectId: pulumi.String(projectID),
		AppId:     pulumi.String(appID),
		BuildId:   pulumi.String(cfg.Require("buildId")),
	})

	ctx.Export("errorLines", errorLogs.Lines().ApplyT(func(lines []pims.AppLogLine) []string {
		text := make([]string, len(lines))
		for i, l := range lines {
			if l.LogLine != nil {
				text[i] = *l.LogLine
			}
		}
		return text
	}))
	ctx.Export("errorLinesTruncated", errorLogs.Truncated())
	ctx.Export("buildStatus", build.Status())
	ctx.Export("buildSucceeded", build.Succeeded())
	return nil
}
