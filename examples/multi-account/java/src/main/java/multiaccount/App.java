// Several PIMS accounts in one program, with an explicit Provider.
//
// Bootstrap: the stack's token (`pims:token`, an account allowed to create projects) creates a project and an account
// scoped to it. A Provider built from that account's token manages the project from then on: a CI account, the app's
// secrets, the volume size, and the read of the project's API keys all run as the project's own account. A second
// provider talks to another PIMS service with its own token. Stack config: see ../README.md.
package multiaccount;

import com.pulumi.Context;
import com.pulumi.Pulumi;
import com.pulumi.core.Output;
import com.pulumi.deployment.InvokeOutputOptions;
import com.pulumi.resources.CustomResourceOptions;
import java.util.Map;
import java.util.stream.Collectors;
import pulumipims.pims.AppSecrets;
import pulumipims.pims.AppSecretsArgs;
import pulumipims.pims.PimsFunctions;
import pulumipims.pims.Project;
import pulumipims.pims.ProjectArgs;
import pulumipims.pims.Provider;
import pulumipims.pims.ProviderArgs;
import pulumipims.pims.ServiceAccount;
import pulumipims.pims.ServiceAccountArgs;
import pulumipims.pims.VolumeSize;
import pulumipims.pims.VolumeSizeArgs;
import pulumipims.pims.inputs.GetApiKeysArgs;
import pulumipims.pims.inputs.GetInvoicesArgs;

public class App {
    public static void main(String[] args) {
        Pulumi.run(App::stack);
    }

    static void stack(Context ctx) {
        var config = ctx.config();
        var day = 24 * 3600;

        // 1. With the stack's token: the project, and an account that may use that project only.
        var project = new Project("project", ProjectArgs.builder()
            .name(config.get("projectName").orElse("team-" + ctx.stackName()))
            .build());
        var projectId = project.projectId();

        var deployer = new ServiceAccount("deployer", ServiceAccountArgs.builder()
            .projectId(projectId)
            .name("project-deployer")
            .description("The project's own account: manages the project through a pims.Provider")
            .grants(Output.all(projectId))
            .expiresIn(90 * day)
            .rotationTrigger(config.get("rotationTrigger").map(Output::of).orElse(null))
            .build());

        // 2. A provider holding that account's token (the base address is the stack's pims:baseUrl). Rotating the
        //    account updates this provider only: nothing it manages is replaced, later operations use the new token.
        var scoped = new Provider("scoped", ProviderArgs.builder().token(deployer.token()).build());
        var asScoped = CustomResourceOptions.builder().provider(scoped).build();

        // 2a. The scoped account mints a CI account for its project.
        var ci = new ServiceAccount("ci", ServiceAccountArgs.builder()
            .projectId(projectId)
            .name("ci")
            .description("Deploys the app from CI")
            .grants(Output.all(projectId))
            .expiresIn(30 * day)
            .build(), asScoped);

        // 2b. The app's secrets, once the app is deployed in the project: the project's token and id.
        config.get("appName").ifPresent(appName -> {
            var appSecrets = new AppSecrets("app-secrets", AppSecretsArgs.builder()
                .projectId(projectId)
                .appId(projectId.applyValue(id -> id + "-" + appName))
                .secrets(Output.tuple(deployer.token(), projectId)
                    .applyValue(t -> Map.of("PIMS_TOKEN", t.t1, "PIMS_PROJECT_ID", t.t2)))
                .build(), asScoped);
            ctx.export("appSecretNames", appSecrets.secretNames());
        });

        // 2c. The project's volume, grown to volumeSizeGb.
        config.getInteger("volumeSizeGb").ifPresent(sizeGb -> new VolumeSize("volume", VolumeSizeArgs.builder()
            .projectId(projectId)
            .volumeId(config.get("volumeId").orElse("default-us-east-1"))
            .sizeGb(sizeGb)
            .build(), asScoped));

        // 2d. A read with the same account (a secret Output: it carries the key values). `ci.projectId()` is known
        //     once the CI account exists, so its key is listed too.
        var apiKeys = PimsFunctions.getApiKeys(GetApiKeysArgs.builder().projectId(ci.projectId()).build(),
            InvokeOutputOptions.builder().provider(scoped).build());

        // 3. Another PIMS service, with its own address and token.
        config.get("otherBaseUrl").ifPresent(otherBaseUrl -> {
            var other = new Provider("other", ProviderArgs.builder()
                .baseUrl(otherBaseUrl)
                .token(config.requireSecret("otherToken"))
                .build());
            var otherProjectId = config.require("otherProjectId");
            new AppSecrets("other-app-secrets", AppSecretsArgs.builder()
                .projectId(otherProjectId)
                .appId(otherProjectId + "-" + config.get("otherAppName").orElse("web"))
                .secrets(projectId.applyValue(id -> Map.of("UPSTREAM_PROJECT_ID", id)))
                .build(), CustomResourceOptions.builder().provider(other).build());
            var invoices = PimsFunctions.getInvoices(GetInvoicesArgs.builder().projectId(otherProjectId).build(),
                InvokeOutputOptions.builder().provider(other).build());
            ctx.export("otherInvoices", invoices.applyValue(r ->
                r.invoices().stream().map(i -> i.id()).collect(Collectors.toList())));
        });

        ctx.export("newProjectId", projectId);
        ctx.export("deployerId", deployer.serviceAccountId());
        ctx.export("ciAccountId", ci.serviceAccountId());
        // Secret outputs: `pulumi stack output ciToken --show-secrets` prints it.
        ctx.export("ciToken", ci.token());
        ctx.export("apiKeyNames", apiKeys.applyValue(r -> // secret, as the whole read is
            r.keys().stream().map(k -> k.name()).collect(Collectors.toList())));
    }
}
