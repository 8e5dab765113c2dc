// A service-account token that never reaches the stack's state: tokenDelivery seals each new token to an age
// recipient (`age-keygen` prints one) as the service returns it, so the state holds only the ciphertext (sealedToken,
// which the stack's passphrase cannot open) and the token's fingerprint. Whoever holds the identity decrypts it with
// `pulumi stack output sealedToken | age -d -i key.txt`. Rotated with an overlap (keepPreviousToken): the previous
// token stays valid, and its ciphertext stays in previousSealedToken, until the next rotation. See ../README.md.
//
// Stack config: pims:baseUrl, pims:token (secret), projectId (an existing project), ageRecipient (age1...),
// expiresIn and rotateBeforeExpiry (seconds), rotationTrigger (optional).
package sealedtoken;

import com.pulumi.Context;
import com.pulumi.Pulumi;
import com.pulumi.core.Output;
import pulumipims.pims.ServiceAccount;
import pulumipims.pims.ServiceAccountArgs;
import pulumipims.pims.inputs.TokenDeliveryArgs;

public class App {
    public static void main(String[] args) {
        Pulumi.run(App::stack);
    }

    static void stack(Context ctx) {
        var config = ctx.config();
        var projectId = config.require("projectId");
        var day = 24 * 3600;

        var ci = new ServiceAccount("ci", ServiceAccountArgs.builder()
            .projectId(projectId)
            .name("ci-deployer")
            .description("Deploys from CI; its token is sealed to the CI's age recipient, never held in the state")
            .grants(projectId)
            .expiresIn(config.getInteger("expiresIn").orElse(30 * day)) // the token lives 30 days ...
            .rotateBeforeExpiry(config.getInteger("rotateBeforeExpiry").orElse(20 * day)) // ... rotated with 20 left
            .rotationTrigger(config.get("rotationTrigger").map(Output::of).orElse(null))
            .keepPreviousToken(true)
            // The token goes nowhere but into this ciphertext: `token` is "" in the state.
            .tokenDelivery(TokenDeliveryArgs.builder()
                .ageRecipients(config.require("ageRecipient"))
                .build())
            .build());

        ctx.export("serviceAccountId", ci.serviceAccountId());
        ctx.export("tokenId", ci.tokenId());
        ctx.export("tokenExpiresAt", ci.tokenExpiresAt());
        // First 16 hex digits of the token's SHA-256: a consumer compares `printf %s "$TOKEN" | sha256sum | cut -c1-16`.
        ctx.export("tokenFingerprint", ci.tokenFingerprint());
        ctx.export("tokenDeliveredTo", ci.tokenDeliveredTo());
        ctx.export("sealedToken", ci.sealedToken()); // not a secret: only the identity opens it
        // The token before the last rotation, still valid until the next one (absent before the first rotation).
        ctx.export("previousServiceAccountId", ci.previousServiceAccountId());
        ctx.export("previousTokenFingerprint", ci.previousTokenFingerprint());
        ctx.export("previousSealedToken", ci.previousSealedToken());
    }
}
