// Rotating a PIMS service-account token with an overlap: KeepPreviousToken keeps the account a rotation replaces (and
// its token) live until the next rotation, so every consumer that read the token before a `pulumi up` keeps working
// until it reads the new one. Rotates on demand (a new rotationTrigger) and once the token's expiry minus
// rotateBeforeExpiry has passed (at the next `pulumi up`: schedule it). See ../README.md.
//
// Stack config: pims:baseUrl, pims:token (secret), projectId (an existing project), appName (default "web"),
// expiresIn and rotateBeforeExpiry (seconds), rotationTrigger (optional), keepPreviousToken (default true).
package main

import (
	"time"

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
	const day = 24 * 3600
	expiresIn, err := cfg.TryInt("expiresIn")
	if err != nil {
		expiresIn = 30 * day // the token lives 30 days ...
	}
	window, err := cfg.TryInt("rotateBeforeExpiry")
	if err != nil {
		window = 20 * day // ... and is rotated with 20 days left
	}
	keepPrevious, err := cfg.TryBool("keepPreviousToken")
	if err != nil {
		keepPrevious = true
	}
	var trigger pulumi.StringPtrInput
	if t := cfg.Get("rotationTrigger"); t != "" {
		trigger = pulumi.String(t)
	}

	ci, err := pims.NewServiceAccount(ctx, "ci", &pims.ServiceAccountArgs{
		ProjectId:          pulumi.String(projectID),
		Name:               pulumi.String("ci-deployer"),
		Description:        pulumi.String("Deploys from CI; rotated by pulumi up, the previous token kept until the next rotation"),
		Grants:             pulumi.StringArray{pulumi.String(projectID)},
		ExpiresIn:          pulumi.Int(expiresIn),
		RotateBeforeExpiry: pulumi.Int(window),
		RotationTrigger:    trigger,
		KeepPreviousToken:  pulumi.Bool(keepPrevious),
	})
	if err != nil {
		return err
	}

	// A consumer inside the stack: updated with the new token in the same `pulumi up`. Consumers outside the stack
	// read `token` after each up; the token they held is `previousToken` now, valid until the next rotation.
	appName := cfg.Get("appName")
	if appName == "" {
		appName = "web"
	}
	if _, err := pims.NewAppSecrets(ctx, "ci-token", &pims.AppSecretsArgs{
		ProjectId: pulumi.String(projectID),
		AppId:     pulumi.String(projectID + "-" + appName),
		Secrets:   pulumi.StringMap{"PIMS_TOKEN": ci.Token},
	}); err != nil {
		return err
	}

	// When the next `pulumi up` will rotate the token (expiry minus the window), or "never".
	rotatesAfter := pulumi.All(ci.TokenExpiresAt, ci.RotateBeforeExpiry).ApplyT(func(v []interface{}) (string, error) {
		expiresAt, w := v[0].(string), v[1].(*int)
		if expiresAt == "never" || w == nil {
			return "never", nil
		}
		at, err := time.Parse(time.RFC3339Nano, expiresAt)
		if err != nil {
			return "", err
		}
		return at.Add(-time.Duration(*w) * time.Second).UTC().Format("2006-01-02T15:04:05.000Z"), nil
	}).(pulumi.StringOutput)

	ctx.Export("serviceAccountId", ci.ServiceAccountId)
	ctx.Export("tokenId", ci.TokenId)
	ctx.Export("tokenExpiresAt", ci.TokenExpiresAt)
	ctx.Export("rotatesAfter", rotatesAfter)
	ctx.Export("token", ci.Token) // secret
	// The token before the last rotation, still valid until the next one (absent before the first rotation).
	ctx.Export("previousServiceAccountId", ci.PreviousServiceAccountId)
	ctx.Export("previousTokenExpiresAt", ci.PreviousTokenExpiresAt)
	ctx.Export("previousToken", ci.PreviousToken) // secret
	return nil
}
