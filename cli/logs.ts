/** `pims logs <project> <app>`: an app's logs, oldest first; with --follow, new lines until Ctrl-C. */
import { Option, type Command } from "commander";
import {
  DEFAULT_LOG_LIMIT,
  MAX_LOG_LIMIT,
  getAppLogs,
  type GetAppLogsArgs,
  type GetAppLogsResult,
} from "../sdk/nodejs/functions";
import { appLogsQueryFor } from "../sdk/nodejs/functions/appLogs";
import { clientForCall } from "../sdk/nodejs/functions/call";
import { EXIT_OK, callOptions, interruptSignal, io, printJson, sleep, type Runner } from "./context";
import { RecentKeys, UsageError, formatLogLine, instantOption, intOption, logKey } from "./format";

interface LogsOptions {
  before?: string;
  after?: string;
  container?: string;
  run?: string;
  search?: string;
  stream?: "stdout" | "stderr";
  direction?: "forward" | "backward";
  pageSize?: number;
  limit?: number;
  follow?: boolean;
  interval: number;
  maxPolls?: number;
  json?: boolean;
}

type Line = GetAppLogsResult["lines"][number];

async function logsCommand(project: string, app: string, o: LogsOptions, cmd: Command): Promise<number> {
  if (o.follow && o.before !== undefined)
    throw new UsageError("--follow cannot be combined with --before (new lines are always later)");
  if (o.maxPolls !== undefined && !o.follow) throw new UsageError("--max-polls only applies with --follow");
  const opts = callOptions(cmd);
  const signal = o.follow ? interruptSignal() : undefined;
  const args: GetAppLogsArgs = {
    projectId: project,
    appId: app,
    before: o.before,
    after: o.after,
    containerId: o.container,
    runId: o.run,
    search: o.search,
    stream: o.stream,
    direction: o.direction,
    pageSize: o.pageSize,
    limit: o.limit ?? DEFAULT_LOG_LIMIT,
  };
  const first = await getAppLogs(args, opts);
  const lines = o.direction === "forward" ? first.lines : [...first.lines].reverse();

  if (!signal) {
    if (o.json) {
      printJson({ lines, truncated: first.truncated });
    } else {
      for (const l of lines) io.out(formatLogLine(l) + "\n");
      if (first.truncated) {
        const end = o.direction === "forward" ? "oldest" : "newest";
        io.err(
          `(showing the ${end} ${lines.length} lines; more exist: raise --limit or narrow with --after/--before)\n`,
        );
      }
    }
    return EXIT_OK;
  }

  // Follow: print what exists, then poll forward from the newest line seen. Each poll asks for lines after
  // (newest timestamp − 1 ms), so lines sharing the newest millisecond are not missed whether the service's
  // afterDate is inclusive or exclusive; lines already printed are skipped by logId. A poll reads every page
  // the service has (the client's paging loop) and prints each line as it arrives: nothing accumulates.
  const seen = new RecentKeys();
  let newestMs: number | undefined;
  const emit = (l: Line): void => {
    const key = logKey(l);
    if (seen.has(key)) return;
    seen.add(key);
    io.out(o.json ? JSON.stringify(l) + "\n" : formatLogLine(l) + "\n");
    const ms = Date.parse(l.timestamp);
    if (!Number.isNaN(ms) && (newestMs === undefined || ms > newestMs)) newestMs = ms;
  };
  lines.forEach(emit);

  const client = clientForCall(opts);
  for (let poll = 0; !signal.aborted && (o.maxPolls === undefined || poll < o.maxPolls); poll++) {
    await sleep(o.interval, signal);
    if (signal.aborted) break;
    const after = newestMs !== undefined ? new Date(newestMs - 1).toISOString() : args.after;
    const { query } = appLogsQueryFor(
      { ...args, direction: "forward", after, pageSize: args.pageSize ?? 1000 },
      "logs --follow",
    );
    for await (const l of client.iterateAppLogs(project, app, query)) {
      emit(l);
      if (signal.aborted) break;
    }
  }
  return EXIT_OK;
}

export function addLogsCommand(program: Command, run: Runner): void {
  program
    .command("logs")
    .description("print an app's logs (oldest first); --follow keeps printing new lines until Ctrl-C")
    .argument("<project>", "project id, e.g. p-1a2b3c4d")
    .argument("<app>", "app id, e.g. p-1a2b3c4d-web")
    .addOption(
      new Option("--before <time>", "only lines before this RFC 3339 time, or a duration ago (15m, 2h, 1d)").argParser(
        instantOption("--before"),
      ),
    )
    .addOption(
      new Option("--after <time>", "only lines after this RFC 3339 time, or a duration ago (15m, 2h, 1d)").argParser(
        instantOption("--after"),
      ),
    )
    .option("--container <container>", "only this container (id or name)")
    .option("--run <run>", "only this run")
    .option("--search <term>", "only lines containing this term")
    .addOption(new Option("--stream <stream>", "only this output stream").choices(["stdout", "stderr"]))
    .addOption(
      new Option(
        "--direction <direction>",
        "which end to read when --limit cuts: backward = newest lines (default), forward = oldest",
      ).choices(["forward", "backward"]),
    )
    .addOption(
      new Option("--page-size <n>", "lines per request, 1-1000 (default: min(limit, 1000))").argParser(
        intOption("--page-size", 1, 1000),
      ),
    )
    .addOption(
      new Option("--limit <n>", `most lines printed before following, 1-${MAX_LOG_LIMIT}`)
        .argParser(intOption("--limit", 1, MAX_LOG_LIMIT))
        .default(DEFAULT_LOG_LIMIT),
    )
    .option("-f, --follow", "keep polling for new lines (no duplicates) until Ctrl-C")
    .addOption(
      new Option("--interval <ms>", "poll interval with --follow")
        .argParser(intOption("--interval", 10, 3_600_000))
        .default(2000),
    )
    .addOption(
      new Option("--max-polls <n>", "with --follow: stop after this many polls (for scripts)").argParser(
        intOption("--max-polls", 1, 1_000_000),
      ),
    )
    .option("--json", "JSON instead of text: {lines, truncated}; with --follow one JSON object per line")
    .action((project: string, app: string, o: LogsOptions, cmd: Command) => run(logsCommand(project, app, o, cmd)));
}
