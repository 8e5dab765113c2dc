// A service-account token that never reaches the stack's state: TokenDelivery seals each new token to an age
// recipient (`age-keygen` prints one) as the service returns it, so the state holds only the ciphertext (sealedToken,
// which the stack's passphrase cannot open) and the token's fingerprint. Whoever holds the identity decrypts it with
// `pulumi stack output sealedToken | age -d -i key.txt`. Rotated with an overlap (KeepPreviousToken): the previous
// token stays valid, and its ciphertext stays in previousSealedToken, until the next rotation. See ../README.md.
//
// Stack config: pims:baseUrl, pims:token (secret), projectId (an existing project), ageRecipient (age1...),
// expiresIn and rotateBeforeExpiry (seconds), rotationTrigger (optional).
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
	const day = 24 * 3600
	expiresIn, err := cfg.TryInt("expiresIn")
	if err != nil {
		expiresIn = 30 * day // the token lives 30 days ...
	}
	window, err := cfg.TryInt("rotateBeforeExpiry")
	if err != nil {
		window = 20 * day // ... and is rotated with 20 days left
	}
	var trigger pulumi.StringPtrInput
	if t := cfg.Get("rotationTrigger"); t != "" {
		trigger = pulumi.String(t)
	}

	ci, err := pims.NewServiceAccount(ctx, "ci", &pims.ServiceAccountArgs{
		ProjectId:          pulumi.String(projectID),
		Name:               pulumi.String("ci-deployer"),
		Description:        pulumi.String("Deploys from CI; its token is sealed to the CI's age recipient, never held in the state"),
		Grants:             pulumi.StringArray{pulumi.String(projectID)},
		ExpiresIn:          pulumi.Int(expiresIn),
		RotateBeforeExpiry: pulumi.Int(window),
		RotationTrigger:    trigger,
		KeepPreviousToken:  pulumi.Bool(true),
		// The token goes nowhere but into this ciphertext: `token` is "" in the state.
		TokenDelivery: &pims.TokenDeliveryArgs{
			AgeRecipients: pulumi.StringArray{pulumi.String(cfg.Require("ageRecipient"))},
		},
	})
	if err != nil {
		return err
	}

	ctx.Export("serviceAccountId", ci.ServiceAccountId)
	ctx.Export("tokenId", ci.TokenId)
	ctx.Export("tokenExpiresAt", ci.TokenExpiresAt)
	// First 16 hex digits of the token's SHA-256: a consumer compares `printf %s "$TOKEN" | sha256sum | cut -c1-16`.
	ctx.Export("tokenFingerprint", ci.TokenFingerprint)
	ctx.Export("tokenDeliveredTo", ci.TokenDeliveredTo)
	ctx.Export("sealedToken", ci.SealedToken) // not a secret: only the identity opens it
	// The token before the last rotation, still valid until the next one (absent before the first rotation).
	ctx.Export("previousServiceAccountId", ci.PreviousServiceAccountId)
	ctx.Export("previousTokenFingerprint", ci.PreviousTokenFingerprint)
	ctx.Export("previousSealedToken", ci.PreviousSealedToken)
	return nil
}
