"""Two read-only functions, no resources: an app's most recent lines on stderr (get_app_logs) and one build's status
(get_build_logs), read on every `pulumi up` and `pulumi preview`.

    pulumi config set projectId p-1a2b3c4d && pulumi config set buildId <build> && pulumi up
"""

import pulumi
import pulumi_pims as pims

config = pulumi.Config()
project_id = config.require("projectId")
app_id = f"{project_id}-{config.get('appName') or 'web'}"

# The app's 20 most recent lines on stderr (read page by page; `truncated` says whether more exist).
error_logs = pims.get_app_logs_output(project_id=project_id, app_id=app_id, stream="stderr", limit=20)

# One build's status and log.
build = pims.get_build_logs_output(project_id=project_id, app_id=app_id, build_id=config.require("buildId"))

pulumi.export("errorLines", error_logs.apply(lambda r: [line.log_line for line in r.lines]))
pulumi.export("errorLinesTruncated", error_logs.truncated)
pulumi.export("buildStatus", build.status)
pulumi.export("buildSucceeded", build.succeeded)
