// pulumi-pims quickstart: a new PIMS project, a service account for it, and an existing app's secrets holding the
// account's token. The token is issued once, when the account is created, and stays a Pulumi secret throughout.
//
// Stack config (see ../README.md): pims:baseUrl, pims:token (secret), appProjectId, appName (default "web"),
// projectName (default "quickstart-<stack>"), rotationTrigger (change it to rotate the token).
package main

import (
	"fmt"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
	"pulumi-pims/sdk/go/pims"
)

func main() {
	pulumi.Run(program)
}

func program(ctx *pulumi.Context) error {
	cfg := config.New(ctx, "")
	appProjectID := cfg.Require("appProjectId")
	appName := orDefault(cfg.Get("appName"), "web")

	// 1. A new project. The service cannot rename or delete projects: `pulumi destroy` leaves it in the service.
	project, err := pims.NewProject(ctx, "project", &pims.ProjectArgs{
		Name: pulumi.String(orDefault(cfg.Get("projectName"), "quickstart-"+ctx.Stack())),
	})
	if err != nil {
		return err
	}

	// 2. A service account that may use the new project and the app's project. Any change replaces it (a new
	//    account and token are created first, then the old account is deleted).
	deployer, err := pims.NewServiceAccount(ctx, "deployer", &pims.ServiceAccountArgs{
		ProjectId:       project.ProjectId,
		Name:            pulumi.String("quickstart-deployer"),
		Description:     pulumi.String("Created by the pulumi-pims quickstart"),
		Grants:          pulumi.StringArray{project.ProjectId, pulumi.String(appProjectID)},
		ExpiresIn:       pulumi.Int(30 * 24 * 3600), // 30 days
		RotationTrigger: optional(cfg.Get("rotationTrigger")),
	})
	if err != nil {
		return err
	}

	// 3. The existing app gets the token (and the new project's id) as secrets; a rotation updates them before the
	//    old account is deleted.
	appSecrets, err := pims.NewAppSecrets(ctx, "app-secrets", &pims.AppSecretsArgs{
		ProjectId: pulumi.String(appProjectID),
		AppId:     pulumi.String(fmt.Sprintf("%s-%s", appProjectID, appName)),
		Secrets: pulumi.StringMap{
			"PIMS_TOKEN":      deployer.Token,
			"PIMS_PROJECT_ID": project.ProjectId,
		},
	})
	if err != nil {
		return err
	}

	ctx.Export("projectId", project.ProjectId)
	ctx.Export("serviceAccountId", deployer.ServiceAccountId)
	ctx.Export("tokenExpiresAt", deployer.TokenExpiresAt)
	// A secret output: `pulumi stack output token --show-secrets` prints it.
	ctx.Export("token", deployer.Token)
	ctx.Export("appSecretNames", appSecrets.SecretNames)
	return nil
}

func orDefault(value, fallback string) string {
	if value == "" {
		return fallback
	}
	return value
}

// optional is an unset input for an empty config value.
func optional(value string) pulumi.StringPtrInput {
	if value == "" {
		return nil
	}
	return pulumi.String(value)
}
