/** `pims build-logs <project> <app> <build>`: a build's logs and status; with --follow, until the build finishes. */
import { Option, type Command } from "commander";
import { BUILD_FAILURE_STATUSES, BUILD_SUCCESS_STATUSES } from "../provider/client";
import { getBuildLogs } from "../sdk/nodejs/functions";
import {
  EXIT_FAILED,
  EXIT_OK,
  EXIT_STILL_RUNNING,
  EXIT_USAGE,
  callOptions,
  interruptSignal,
  io,
  printJson,
  sleep,
  type Runner,
} from "./context";
import { UsageError, formatBuildEntry, intOption } from "./format";

interface BuildLogsOptions {
  follow?: boolean;
  interval: number;
  maxPolls?: number;
  json?: boolean;
}

async function buildLogsCommand(
  project: string,
  app: string,
  build: string,
  o: BuildLogsOptions,
  cmd: Command,
): Promise<number> {
  if (o.maxPolls !== undefined && !o.follow) throw new UsageError("--max-polls only applies with --follow");
  const opts = callOptions(cmd);
  const args = { projectId: project, appId: app, buildId: build };

  if (!o.follow) {
    const r = await getBuildLogs(args, opts);
    if (o.json) printJson(r);
    else {
      for (const e of r.logs) io.out(formatBuildEntry(e) + "\n");
      io.err(`build ${r.buildId}: ${r.status}\n`);
    }
    return r.finished && !r.succeeded ? EXIT_FAILED : EXIT_OK;
  }

  // The service returns the whole log on each read: entries already printed are recognized by id (or position).
  const signal = interruptSignal();
  const printed = new Set<string>();
  for (let poll = 0; ; poll++) {
    const r = await getBuildLogs(args, opts);
    r.logs.forEach((e, i) => {
      const key = e.id ?? `#${i}`;
      if (printed.has(key)) return;
      printed.add(key);
      io.out(o.json ? JSON.stringify(e) + "\n" : formatBuildEntry(e) + "\n");
    });
    const summary = { buildId: r.buildId, status: r.status, finished: r.finished, succeeded: r.succeeded };
    if (r.finished) {
      if (o.json) io.out(JSON.stringify(summary) + "\n");
      else io.err(`build ${r.buildId}: ${r.status}\n`);
      return r.succeeded ? EXIT_OK : EXIT_FAILED;
    }
    const stopped = signal.aborted
      ? "when interrupted"
      : o.maxPolls !== undefined && poll + 1 >= o.maxPolls
        ? `after ${o.maxPolls} polls`
        : undefined;
    if (stopped) {
      if (o.json) io.out(JSON.stringify(summary) + "\n");
      io.err(`build ${r.buildId} is still ${r.status} ${stopped}\n`);
      return EXIT_STILL_RUNNING;
    }
    await sleep(o.interval, signal);
  }
}

export function addBuildLogsCommand(program: Command, run: Runner): void {
  program
    .command("build-logs")
    .description(
      "print a build's logs; --follow polls until the build finishes. Exits 0 for success/ready, 1 for a failed build",
    )
    .argument("<project>", "project id")
    .argument("<app>", "app id")
    .argument("<build>", "build id")
    .option("-f, --follow", "poll, printing only new entries, until the build reaches a final status")
    .addOption(
      new Option("--interval <ms>", "poll interval with --follow")
        .argParser(intOption("--interval", 10, 3_600_000))
        .default(2000),
    )
    .addOption(
      new Option(
        "--max-polls <n>",
        "with --follow: stop after this many polls (exit 3 if the build is still running)",
      ).argParser(intOption("--max-polls", 1, 1_000_000)),
    )
    .option("--json", "the result as JSON; with --follow one JSON object per entry, then a status object")
    .addHelpText(
      "after",
      `\nExit codes: ${EXIT_OK} the build succeeded (${BUILD_SUCCESS_STATUSES.join(", ")}) or is not finished ` +
        `(without --follow); ${EXIT_FAILED} the build failed\n(${BUILD_FAILURE_STATUSES.join(", ")}) or the service ` +
        `refused; ${EXIT_USAGE} usage;\n${EXIT_STILL_RUNNING} following stopped (--max-polls ran out, or Ctrl-C) ` +
        "while the build was still running.",
    )
    .action((project: string, app: string, build: string, o: BuildLogsOptions, cmd: Command) =>
      run(buildLogsCommand(project, app, build, o, cmd)),
    );
}
