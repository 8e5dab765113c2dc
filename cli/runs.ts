/** `pims runs cancel <project> <app> <run>`: cancel an ongoing run and print the service's message. */
import type { Command } from "commander";
import { cancelRun } from "../sdk/nodejs/functions";
import { EXIT_OK, callOptions, io, type Runner } from "./context";

async function cancelCommand(project: string, app: string, run: string, cmd: Command): Promise<number> {
  const { message } = await cancelRun({ projectId: project, appId: app, runId: run }, callOptions(cmd));
  io.out(`${message}\n`);
  return EXIT_OK;
}

export function addRunsCommands(program: Command, run: Runner): void {
  const runs = program.command("runs").description("act on an app's runs");
  runs
    .command("cancel")
    .description(
      "cancel an ongoing run and print the service's message (exit 1 if the run already finished or does not exist)",
    )
    .argument("<project>", "project id")
    .argument("<app>", "app id")
    .argument("<run>", "run id")
    .action((project: string, app: string, runId: string, _o: unknown, cmd: Command) =>
      run(cancelCommand(project, app, runId, cmd)),
    );
}
