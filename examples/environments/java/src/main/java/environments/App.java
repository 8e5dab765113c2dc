// One program for every environment. Each stack (dev, staging, prod) reads its own settings from
// `Pulumi.<stack>.yaml` with ctx.config(): the environment's existing PIMS project, the size of its data volume, the
// projects its deployer may access, the token's lifetime and rotation window, the app's log level.
//
//   pulumi stack select dev && pulumi up
//   pulumi stack select prod && pulumi up
package environments;

import com.pulumi.Context;
import com.pulumi.Pulumi;
import com.pulumi.core.Output;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import pulumipims.pims.AppSecrets;
import pulumipims.pims.AppSecretsArgs;
import pulumipims.pims.PimsFunctions;
import pulumipims.pims.ServiceAccount;
import pulumipims.pims.ServiceAccountArgs;
import pulumipims.pims.VolumeSize;
import pulumipims.pims.VolumeSizeArgs;
import pulumipims.pims.inputs.GetApiKeysArgs;

public class App {
    public static void main(String[] args) {
        Pulumi.run(App::stack);
    }

    static void stack(Context ctx) {
        var env = ctx.stackName();
        var config = ctx.config();

        // The environment's existing project (it holds the app and the volume).
        var projectId = config.require("projectId");
        var appId = projectId + "-" + config.get("appName").orElse("web");
        var day = 24 * 3600;

        // A deployer per environment (the service's recommended practice), rotated automatically: once fewer than
        // `rotateDaysBeforeExpiry` days are left, the next `pulumi up` replaces it with a new account and token.
        var deployer = new ServiceAccount("deployer", ServiceAccountArgs.builder()
            .projectId(projectId)
            .name(env + "-deployer")
            .description("Deploys the " + env + " environment")
            .grants(config.getObject("grants", String[].class).map(List::of).orElse(List.of(projectId)))
            .expiresIn(config.requireInteger("tokenLifetimeDays") * day)
            .rotateBeforeExpiry(config.requireInteger("rotateDaysBeforeExpiry") * day)
            .build());

        // The data volume's size (volumes only grow).
        var volume = new VolumeSize("data", VolumeSizeArgs.builder()
            .projectId(projectId)
            .volumeId(config.get("volumeId").orElse("default-us-east-1"))
            .sizeGb(config.requireInteger("volumeSizeGb"))
            .build());

        // The app's secrets: the deployer's token, the log level and, when set (as a secret), the database URL.
        var logLevel = config.get("logLevel").orElse("info");
        var secrets = Output.tuple(deployer.token(), config.getSecret("databaseUrl")).applyValue(t -> {
            var all = new HashMap<String, String>(Map.of("PIMS_TOKEN", t.t1, "LOG_LEVEL", logLevel));
            t.t2.ifPresent(databaseUrl -> all.put("DATABASE_URL", databaseUrl));
            return (Map<String, String>) all;
        });
        var appSecrets = new AppSecrets("app-secrets", AppSecretsArgs.builder()
            .projectId(projectId)
            .appId(appId)
            .secrets(secrets)
            .build());

        // A read-only function: the project's API keys, listed once the deployer exists (`deployer.projectId()`
        // resolves after it is created), so its key is among them. The result is a secret output (key values).
        var apiKeys = PimsFunctions.getApiKeys(GetApiKeysArgs.builder().projectId(deployer.projectId()).build());

        ctx.export("environment", Output.of(env));
        ctx.export("deployerId", deployer.serviceAccountId());
        ctx.export("deployerGrants", deployer.grants());
        ctx.export("tokenExpiresAt", deployer.tokenExpiresAt());
        ctx.export("token", deployer.token()); // secret
        ctx.export("volumeSizeGb", volume.sizeGb());
        ctx.export("appSecretNames", appSecrets.secretNames());
        ctx.export("apiKeyNames", apiKeys.applyValue(r -> // secret (derived from a secret)
            r.keys().stream().map(k -> k.name()).collect(Collectors.toList())));
    }
}
