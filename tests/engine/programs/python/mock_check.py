"""Runs a Pulumi Python program file under Pulumi's mocks (no engine, no plugin, no service): every resource and
function call goes through the installed `pulumi_pims` SDK, so a name, an argument or a type the SDK does not have
fails here. Used by tests/engine/examples/compile.test.ts on every Python example.

Usage: python mock_check.py PROJECT STACK CONFIG_JSON PROGRAM_FILE
  CONFIG_JSON  the project's config as {"key": "value"} (keys without the project's prefix; `pims:` keys as they are)

Prints one line, `RESULT <json>`: the resources the program registered, as [type, name] pairs in order, and the
functions it called. Exits non-zero (with the Python error) when the program fails.
"""

import json
import runpy
import sys

import pulumi
from pulumi.runtime.mocks import run_pulumi_func
from pulumi.runtime.sync_await import _sync_await


# What the service computes, as the plugin would return it (a value of the right type for each output programs use).
COMPUTED = {
    "pims:index:Project": {"projectId": "p-1a2b3c4d"},
    "pims:index:ServiceAccount": {
        "serviceAccountId": "sa-1",
        "token": "mock-token",
        "tokenId": "tok-1",
        "tokenExpiresAt": "2030-01-31T00:00:00.000Z",
    },
    "pims:index:AppSecrets": {"secretNames": ["PIMS_TOKEN"]},
}

# What each function returns (the result fields programs read).
CALLED = {
    "pims:index:getApiKeys": {"keys": []},
    "pims:index:getInvoices": {"invoices": []},
    "pims:index:getAppLogs": {"lines": [{"logLine": "error: mock", "stream": "stderr"}], "truncated": False},
    "pims:index:getBuildLogs": {"status": "success", "finished": True, "succeeded": True, "logs": []},
}


def main() -> None:
    project, stack, config_json, program_file = sys.argv[1:5]
    registered: list = []
    called: list = []

    class Mocks(pulumi.runtime.Mocks):
        def new_resource(self, args: pulumi.runtime.MockResourceArgs):
            registered.append([args.typ, args.name])
            return [f"{args.name}-id", {**dict(args.inputs), **COMPUTED.get(args.typ, {})}]

        def call(self, args: pulumi.runtime.MockCallArgs):
            called.append(args.token)
            return CALLED.get(args.token, {})

    pulumi.runtime.set_mocks(Mocks(), project=project, stack=stack, preview=False)
    config = json.loads(config_json)
    pulumi.runtime.set_all_config({(k if ":" in k else f"{project}:{k}"): v for k, v in config.items()})
    _sync_await(run_pulumi_func(lambda: runpy.run_path(program_file, run_name="__main__")))
    print("RESULT " + json.dumps({"resources": registered, "calls": called}), flush=True)


if __name__ == "__main__":
    main()
