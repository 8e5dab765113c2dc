// pulumi-pims quickstart: a new PIMS project, a service account for it, and an existing app's secrets holding the
// account's token. The token is issued once, when the account is created, and stays a Pulumi secret throughout.
//
// Stack config (see ../README.md): pims:baseUrl, pims:token (secret), appProjectId, appName (default "web"),
// projectName (default "quickstart-<stack>"), rotationTrigger (change it to rotate the token).
package quickstart;

import com.pulumi.Context;
import com.pulumi.Pulumi;
import com.pulumi.core.Output;
import java.util.Map;
import pulumipims.pims.AppSecrets;
import pulumipims.pims.AppSecretsArgs;
import pulumipims.pims.Project;
import pulumipims.pims.ProjectArgs;
import pulumipims.pims.ServiceAccount;
import pulumipims.pims.ServiceAccountArgs;

public class App {
    public static void main(String[] args) {
        Pulumi.run(App::stack);
    }

    static void stack(Context ctx) {
        var config = ctx.config();
        var appProjectId = config.require("appProjectId");
        var appName = config.get("appName").orElse("web");

        // 1. A new project. The service cannot rename or delete projects: `pulumi destroy` leaves it in the service.
        var project = new Project("project", ProjectArgs.builder()
            .name(config.get("projectName").orElse("quickstart-" + ctx.stackName()))
            .build());

        // 2. A service account that may use the new project and the app's project. Any change replaces it (a new
        //    account and token are created first, then the old account is deleted).
        var deployer = new ServiceAccount("deployer", ServiceAccountArgs.builder()
            .projectId(project.projectId())
            .name("quickstart-deployer")
            .description("Created by the pulumi-pims quickstart")
            .grants(Output.all(project.projectId(), Output.of(appProjectId)))
            .expiresIn(30 * 24 * 3600) // 30 days
            .rotationTrigger(config.get("rotationTrigger").map(Output::of).orElse(null))
            .build());

        // 3. The existing app gets the token (and the new project's id) as secrets; a rotation updates them before
        //    the old account is deleted.
        var appSecrets = new AppSecrets("app-secrets", AppSecretsArgs.builder()
            .projectId(appProjectId)
            .appId(appProjectId + "-" + appName)
            .secrets(Output.tuple(deployer.token(), project.projectId())
                .applyValue(t -> Map.of("PIMS_TOKEN", t.t1, "PIMS_PROJECT_ID", t.t2)))
            .build());

        ctx.export("projectId", project.projectId());
        ctx.export("serviceAccountId", deployer.serviceAccountId());
        ctx.export("tokenExpiresAt", deployer.tokenExpiresAt());
        // A secret output: `pulumi stack output token --show-secrets` prints it.
        ctx.export("token", deployer.token());
        ctx.export("appSecretNames", appSecrets.secretNames());
    }
}
