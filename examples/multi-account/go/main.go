// Several PIMS accounts in one program, with pims.Provider.
//
// Bootstrap: the stack's token (`pims:token`, an account allowed to create projects) creates a project and an account
// scoped to it. A pims.Provider built from that account's token manages the project from then on: a CI account, the
// app's secrets, the volume size, and the read of the project's API keys all run as the project's own account. A
// second provider talks to another PIMS service with its own token. Stack config: see ../README.md.
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
	const day = 24 * 3600

	// 1. With the stack's token: the project, and an account that may use that project only.
	projectName := cfg.Get("projectName")
	if projectName == "" {
		projectName = "team-" + ctx.Stack()
	}
	project, err := pims.NewProject(ctx, "project", &pims.ProjectArgs{Name: pulumi.String(projectName)})
	if err != nil {
		return err
	}
	projectID := project.ProjectId

	var trigger pulumi.StringPtrInput
	if t := cfg.Get("rotationTrigger"); t != "" {
		trigger = pulumi.String(t)
	}
	deployer, err := pims.NewServiceAccount(ctx, "deployer", &pims.ServiceAccountArgs{
		ProjectId:       projectID,
		Name:            pulumi.String("project-deployer"),
		Description:     pulumi.String("The project's own account: manages the project through a pims.Provider"),
		Grants:          pulumi.StringArray{projectID},
		ExpiresIn:       pulumi.Int(90 * day),
		RotationTrigger: trigger,
	})
	if err != nil {
		return err
	}

	// 2. A provider holding that account's token (the base address is the stack's pims:baseUrl). Rotating the account
	//    updates this provider only: nothing it manages is replaced, and later operations use the new token.
	scoped, err := pims.NewProvider(ctx, "scoped", &pims.ProviderArgs{Token: deployer.Token})
	if err != nil {
		return err
	}

	// 2a. The scoped account mints a CI account for its project.
	ci, err := pims.NewServiceAccount(ctx, "ci", &pims.ServiceAccountArgs{
		ProjectId:   projectID,
		Name:        pulumi.String("ci"),
		Description: pulumi.String("Deploys the app from CI"),
		Grants:      pulumi.StringArray{projectID},
		ExpiresIn:   pulumi.Int(30 * day),
	}, pulumi.Provider(scoped))
	if err != nil {
		return err
	}

	// 2b. The app's secrets, once the app is deployed in the project: the project's token and id.
	if appName := cfg.Get("appName"); appName != "" {
		appSecrets, err := pims.NewAppSecrets(ctx, "app-secrets", &pims.AppSecretsArgs{
			ProjectId: projectID,
			AppId:     pulumi.Sprintf("%s-%s", projectID, appName),
			Secrets:   pulumi.StringMap{"PIMS_TOKEN": deployer.Token, "PIMS_PROJECT_ID": projectID},
		}, pulumi.Provider(scoped))
		if err != nil {
			return err
		}
		ctx.Export("appSecretNames", appSecrets.SecretNames)
	}

	// 2c. The project's volume, grown to volumeSizeGb.
	if sizeGb, err := cfg.TryInt("volumeSizeGb"); err == nil {
		volumeID := cfg.Get("volumeId")
		if volumeID == "" {
			volumeID = "default-us-east-1"
		}
		if _, err := pims.NewVolumeSize(ctx, "volume", &pims.VolumeSizeArgs{
			ProjectId: projectID,
			VolumeId:  pulumi.String(volumeID),
			SizeGb:    pulumi.Int(sizeGb),
		}, pulumi.Provider(scoped)); err != nil {
			return err
		}
	}

	// 2d. A read with the same account (a secret Output: it carries the key values). `ci.ProjectId` is known once the
	//     CI account exists, so its key is listed too.
	apiKeys := pims.GetApiKeysOutput(ctx, pims.GetApiKeysOutputArgs{ProjectId: ci.ProjectId}, pulumi.Provider(scoped))

	// 3. Another PIMS service, with its own address and token.
	if otherBaseURL := cfg.Get("otherBaseUrl"); otherBaseURL != "" {
		other, err := pims.NewProvider(ctx, "other", &pims.ProviderArgs{
			BaseUrl: pulumi.String(otherBaseURL),
			Token:   cfg.RequireSecret("otherToken"),
		})
		if err != nil {
			return err
		}
		otherProjectID := cfg.Require("otherProjectId")
		otherAppName := cfg.Get("otherAppName")
		if otherAppName == "" {
			otherAppName = "web"
		}
		if _, err := pims.NewAppSecrets(ctx, "other-app-secrets", &pims.AppSecretsArgs{
			ProjectId: pulumi.String(otherProjectID),
			AppId:     pulumi.String(otherProjectID + "-" + otherAppName),
			Secrets:   pulumi.StringMap{"UPSTREAM_PROJECT_ID": projectID},
		}, pulumi.Provider(other)); err != nil {
			return err
		}
		invoices := pims.GetInvoicesOutput(ctx, pims.GetInvoicesOutputArgs{ProjectId: pulumi.String(otherProjectID)},
			pulumi.Provider(other))
		ctx.Export("otherInvoices", invoices.Invoices().ApplyT(func(all []pims.Invoice) []string {
			ids := make([]string, len(all))
			for i, invoice := range all {
				ids[i] = value(invoice.Id)
			}
			return ids
		}))
	}

	ctx.Export("newProjectId", projectID)
	ctx.Export("deployerId", deployer.ServiceAccountId)
	ctx.Export("ciAccountId", ci.ServiceAccountId)
	// Secret outputs: `pulumi stack output ciToken --show-secrets` prints it.
	ctx.Export("ciToken", ci.Token)
	ctx.Export("apiKeyNames", apiKeys.Keys().ApplyT(func(keys []pims.ApiKey) []string { // secret, as the read is
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
