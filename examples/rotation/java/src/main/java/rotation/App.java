// Rotating a PIMS service-account token with an overlap: keepPreviousToken keeps the account a rotation replaces (and
// its token) live until the next rotation, so every consumer that read the token before a `pulumi up` keeps working
// until it reads the new one. Rotates on demand (a new rotationTrigger) and once the token's expiry minus
// rotateBeforeExpiry has passed (at the next `pulumi up`: schedule it). See ../README.md.
//
// Stack config: pims:baseUrl, pims:token (secret), projectId (an existing project), appName (default "web"),
// expiresIn and rotateBeforeExpiry (seconds), rotationTrigger (optional), keepPreviousToken (default true).
package rotation;

import com.pulumi.Context;
import com.pulumi.Pulumi;
import com.pulumi.core.Output;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import pulumipims.pims.AppSecrets;
import pulumipims.pims.AppSecretsArgs;
import pulumipims.pims.ServiceAccount;
import pulumipims.pims.ServiceAccountArgs;

public class App {
    /** The form JavaScript's toISOString writes, as the other languages' examples print it. */
    private static final DateTimeFormatter ISO_MILLIS =
        DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

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
            .description("Deploys from CI; rotated by pulumi up, the previous token kept until the next rotation")
            .grants(projectId)
            .expiresIn(config.getInteger("expiresIn").orElse(30 * day)) // the token lives 30 days ...
            .rotateBeforeExpiry(config.getInteger("rotateBeforeExpiry").orElse(20 * day)) // ... rotated with 20 left
            .rotationTrigger(config.get("rotationTrigger").map(Output::of).orElse(null))
            .keepPreviousToken(config.getBoolean("keepPreviousToken").orElse(true))
            .build());

        // A consumer inside the stack: updated with the new token in the same `pulumi up`. Consumers outside the
        // stack read `token` after each up; the token they held is `previousToken` now, valid until the next one.
        new AppSecrets("ci-token", AppSecretsArgs.builder()
            .projectId(projectId)
            .appId(projectId + "-" + config.get("appName").orElse("web"))
            .secrets(ci.token().applyValue(token -> Map.of("PIMS_TOKEN", token)))
            .build());

        // When the next `pulumi up` will rotate the token (expiry minus the window), or "never".
        var rotatesAfter = Output.tuple(ci.tokenExpiresAt(), ci.rotateBeforeExpiry()).applyValue(t ->
            t.t1.equals("never") || t.t2.isEmpty()
                ? "never"
                : ISO_MILLIS.format(Instant.parse(t.t1).minusSeconds(t.t2.get())));

        ctx.export("serviceAccountId", ci.serviceAccountId());
        ctx.export("tokenId", ci.tokenId());
        ctx.export("tokenExpiresAt", ci.tokenExpiresAt());
        ctx.export("rotatesAfter", rotatesAfter);
        ctx.export("token", ci.token()); // secret
        // The token before the last rotation, still valid until the next one (absent before the first rotation).
        ctx.export("previousServiceAccountId", ci.previousServiceAccountId());
        ctx.export("previousTokenExpiresAt", ci.previousTokenExpiresAt());
        ctx.export("previousToken", ci.previousToken()); // secret
    }
}
