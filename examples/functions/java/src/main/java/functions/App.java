// Two read-only functions, no resources: an app's most recent lines on stderr (getAppLogs) and one build's status
// (getBuildLogs), read on every `pulumi up` and `pulumi preview`.
//
//   pulumi config set projectId p-1a2b3c4d && pulumi config set buildId <build> && pulumi up
package functions;

import com.pulumi.Context;
import com.pulumi.Pulumi;
import java.util.stream.Collectors;
import pulumipims.pims.PimsFunctions;
import pulumipims.pims.inputs.GetAppLogsArgs;
import pulumipims.pims.inputs.GetBuildLogsArgs;

public class App {
    public static void main(String[] args) {
        Pulumi.run(App::stack);
    }

    static void stack(Context ctx) {
        var config = ctx.config();
        var projectId = config.require("projectId");
        var appId = projectId + "-" + config.get("appName").orElse("web");

        // The app's 20 most recent lines on stderr (read page by page; `truncated` says whether more exist).
        var errorLogs = PimsFunctions.getAppLogs(GetAppLogsArgs.builder()
            .projectId(projectId)
            .appId(appId)
            .stream("stderr")
            .limit(20)
            .build());

        // One build's status and log.
        var build = PimsFunctions.getBuildLogs(GetBuildLogsArgs.builder()
            .projectId(projectId)
            .appId(appId)
            .buildId(config.require("buildId"))
            .build());

        ctx.export("errorLines", errorLogs.applyValue(r ->
            r.lines().stream().map(l -> l.logLine().orElse("")).collect(Collectors.toList())));
        ctx.export("errorLinesTruncated", errorLogs.applyValue(r -> r.truncated()));
        ctx.export("buildStatus", build.applyValue(r -> r.status()));
        ctx.export("buildSucceeded", build.applyValue(r -> r.succeeded()));
    }
}
