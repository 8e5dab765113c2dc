// One program for every environment. Each stack (dev, staging, prod) reads its own settings from
// `Pulumi.<stack>.yaml` with config.New: the environment's existing PIMS project, the size of its data volume, the
// projects its deployer may access, the token's lifetime and rotation window, the app's log level.
//
//	pulumi stack select dev && pulumi up
//	pulumi stack select prod && pulumi up
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
	env := ctx.Stack()
	cfg := config.New(ctx, "")

	// The environment's existing project (it holds the app and the volume).
	projectID := cfg.Require("projectId")
	appName := cfg.Get("appName")
	if appName == "" {
		appName = "web"
	}
	const day = 24 * 3600
	var grants []string
	if err := cfg.TryObject("grants", &grants); err != nil {
		grants = []string{projectID}
	}

	// A deployer per environment (the service's recommended practice), rotated automatically: once fewer than
	// `rotateDaysBeforeExpiry` days are left, the next `pulumi up` replaces it with a new account and token.
	deployer, err := pims.NewServiceAccount(ctx, "deployer", &pims.ServiceAccountArgs{
		ProjectId:          pulumi.String(projectID),
		Name:               pulumi.String(env + "-deployer"),
		Description:        pulumi.String("Deploys the " + env + " environment"),
		Grants:             pulumi.ToStringArray(grants),
		ExpiresIn:          pulumi.Int(cfg.RequireInt("tokenLifetimeDays") * day),
		RotateBeforeExpiry: pulumi.Int(cfg.RequireInt("rotateDaysBeforeExpiry") * day),
	})
	if err != nil {
		return err
	}

	// The data volume's size (volumes only grow).
	volumeID := cfg.Get("volumeId")
	if volumeID == "" {
		volumeID = "default-us-east-1"
	}
	volume, err := pims.NewVolumeSize(ctx, "data", &pims.VolumeSizeArgs{
		ProjectId: pulumi.String(projectID),
		VolumeId:  pulumi.String(volumeID),
		SizeGb:    pulumi.Int(cfg.RequireInt("volumeSizeGb")),
	})
	if err != nil {
		return err
	}

	// The app's secrets: the deployer's token, the log level and, when set (as a secret), the database URL.
	logLevel := cfg.Get("logLevel")
	if logLevel == "" {
		logLevel = "info"
	}
	secrets := pulumi.StringMap{"PIMS_TOKEN": deployer.Token, "LOG_LEVEL": pulumi.String(logLevel)}
	if databaseURL, err := cfg.TrySecret("databaseUrl"); err == nil {
		secrets["DATABASE_URL"] = databaseURL
	}
	appSecrets, err := pims.NewAppSecrets(ctx, "app-secrets", &pims.AppSecretsArgs{
		ProjectId: pulumi.String(projectID),
		AppId:     pulumi.String(projectID + "-" + appName),
		Secrets:   secrets,
	})
	if err != nil {
		return err
	}

	// A read-only function: the project's API keys, listed once the deployer exists (`deployer.ProjectId` resolves
	// after it is created), so its key is among them. The result is a secret output (it carries key values).
	apiKeys := pims.GetApiKeysOutput(ctx, pims.GetApiKeysOutputArgs{ProjectId: deployer.ProjectId})

	ctx.Export("environment", pulumi.String(env))
	ctx.Export("deployerId", deployer.ServiceAccountId)
	ctx.Export("deployerGrants", deployer.Grants)
	ctx.Export("tokenExpiresAt", deployer.TokenExpiresAt)
	ctx.Export("token", deployer.Token) // secret
	ctx.Export("volumeSizeGb", volume.SizeGb)
	ctx.Export("appSecretNames", appSecrets.SecretNames)
	ctx.Export("apiKeyNames", apiKeys.Keys().ApplyT(func(keys []pims.ApiKey) []string { // secret (from a secret)
		names := make([]string, len(keys))
		for i, k := range keys {
			names[i] = value(k.Name)
		}
		return names
	}))
	return nil
}

// value reads an optional string of the SDK's result types ("" when absent).
func value(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
