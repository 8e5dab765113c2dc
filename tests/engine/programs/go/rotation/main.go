// The Go SDK's rotation program (tests/engine/release/distGo.test.ts runs it, with tests/engine/programs/go/inline.go beside it, as an
// inline program): two ServiceAccounts of an existing project, one rotated by replacement, one with
// keepPreviousToken. Stack config: projectId, triggerReplace and triggerOverlap (changing one rotates that account).

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
	projectID := pulumi.String(cfg.Require("projectId"))
	const day = 24 * 3600
	ci, err := pims.NewServiceAccount(ctx, "ci", &pims.ServiceAccountArgs{
		ProjectId:       projectID,
		Name:            pulumi.String("go-ci"),
		Grants:          pulumi.StringArray{projectID},
		ExpiresIn:       pulumi.Int(30 * day),
		RotationTrigger: pulumi.String(cfg.Require("triggerReplace")),
	})
	if err != nil {
		return err
	}
	app, err := pims.NewServiceAccount(ctx, "app", &pims.ServiceAccountArgs{
		ProjectId:          projectID,
		Name:               pulumi.String("go-app"),
		Grants:             pulumi.StringArray{projectID},
		ExpiresIn:          pulumi.Int(30 * day),
		RotateBeforeExpiry: pulumi.Int(20 * day),
		KeepPreviousToken:  pulumi.Bool(true),
		RotationTrigger:    pulumi.String(cfg.Require("triggerOverlap")),
	})
	if err != nil {
		return err
	}
	ctx.Export("ciAccountId", ci.ServiceAccountId)
	ctx.Export("appAccountId", app.ServiceAccountId)
	ctx.Export("appPreviousAccountId", app.PreviousServiceAccountId)
	ctx.Export("appToken", app.Token)
	return nil
}
