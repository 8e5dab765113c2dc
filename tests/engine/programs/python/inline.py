"""Runs a Pulumi Python program file as an Automation API inline program: the `pulumi` SDK serves the program to
the engine itself, so no `pulumi-language-python` host is needed (none can be had on these machines; users run the
same file with plain `pulumi up`). The program file runs unchanged, as `__main__`, inside the inline program.

Usage: python inline.py WORK_DIR STACK OPERATION PROGRAM_FILE [--expect-no-changes]
  WORK_DIR   the project directory (Pulumi.yaml, the stack's config), made by the test
  OPERATION  up | preview | refresh | destroy
  --expect-no-changes  up, preview and refresh fail when anything would change (ProgramTest's checks)

Two environment variables turn on the logs a token scan reads (tests/kit/secrets/leakScan.ts): PIMS_INLINE_VERBOSE=N runs the
operation with `-v=N --logtostderr --logflow`; PIMS_INLINE_EVENT_LOG=FILE appends every engine event to FILE as one
JSON line (the Automation API reads the engine's event log itself and hands each event over).

Prints one line, `RESULT <json>`: the stack outputs ({name: {"secret": bool, "value": ...}}, a secret's value left
out so no token reaches a log) and the operation's summary (resource changes). The engine's own output goes to
stderr. The environment (backend, passphrase, PATH with the CLI) comes from the test.
"""

import json
import os
import runpy
import sys

from pulumi import automation as auto


def main() -> None:
    work_dir, stack_name, operation, program_file = sys.argv[1:5]
    same = "--expect-no-changes" in sys.argv[5:]

    def program() -> None:
        runpy.run_path(program_file, run_name="__main__")

    # The project's own Pulumi.yaml (with its plugins.providers) stays as it is: passing project settings would make
    # the workspace write them back without the `plugins` section, which the Python SDK's ProjectSettings lacks.
    name = auto.LocalWorkspace(work_dir=work_dir).project_settings().name
    stack = auto.select_stack(
        stack_name=stack_name,
        project_name=name,
        program=program,
        opts=auto.LocalWorkspaceOptions(work_dir=work_dir),
    )
    echo = lambda text: print(text, file=sys.stderr, flush=True)  # noqa: E731
    logs = logging_options()
    if operation == "up":
        result = stack.up(on_output=echo, show_secrets=False, expect_no_changes=same, **logs)
        summary, outputs = result.summary, result.outputs
    elif operation == "preview":
        result = stack.preview(on_output=echo, expect_no_changes=same, **logs)
        print("RESULT " + json.dumps({"changes": result.change_summary}), flush=True)
        return
    elif operation == "refresh":
        summary, outputs = stack.refresh(on_output=echo, show_secrets=False, expect_no_changes=same, **logs).summary, stack.outputs()
    elif operation == "destroy":
        summary, outputs = stack.destroy(on_output=echo, show_secrets=False, **logs).summary, {}
    else:
        raise SystemExit(f"unknown operation {operation!r}")
    shown = {
        name: {"secret": out.secret, **({} if out.secret else {"value": out.value})} for name, out in outputs.items()
    }
    print("RESULT " + json.dumps({"outputs": shown, "changes": summary.resource_changes}), flush=True)


def logging_options() -> dict:
    """The operation's keyword arguments for the logs PIMS_INLINE_VERBOSE and PIMS_INLINE_EVENT_LOG ask for."""
    options: dict = {}
    verbose = os.environ.get("PIMS_INLINE_VERBOSE")
    if verbose:
        # The engine's stderr (where --logtostderr writes) to ours, with its stdout.
        echo = lambda text: print(text, file=sys.stderr, flush=True)  # noqa: E731
        options.update(log_verbosity=int(verbose), log_to_std_err=True, log_flow=True, on_error=echo)
    event_log = os.environ.get("PIMS_INLINE_EVENT_LOG")
    if event_log:

        def on_event(event: object) -> None:
            with open(event_log, "a", encoding="utf-8") as f:
                f.write(json.dumps(event, default=lambda o: getattr(o, "__dict__", str(o))) + "\n")

        options["on_event"] = on_event
    return options


if __name__ == "__main__":
    main()
