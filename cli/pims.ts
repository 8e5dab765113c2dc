#!/usr/bin/env node
/**
 * `pims`: command-line access to the PIMS operations that are not resources — app logs (with --follow), build
 * logs (with --follow until the build finishes), run cancellation, API keys and invoices — and to the service
 * accounts a failed or interrupted `pulumi up` may have left behind (list, delete).
 *
 * Credentials: the token comes only from PIMS_TOKEN (never from an argument, so it stays out of shell history
 * and `ps`); the address from --base-url or PIMS_BASE_URL. Exit codes: 0 ok; 1 the service refused or failed
 * (its message on stderr) or the build failed; 2 usage or configuration error; 3 build-logs --follow stopped
 * (--max-polls or Ctrl-C) before the build finished.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { Command, CommanderError, Option } from "commander";
import { PimsError } from "../provider/client";
import { clientFor, MissingCredentialsError, resolveCredentials } from "../provider/credentials";
import {
  DEFAULT_LOG_LIMIT,
  MAX_LOG_LIMIT,
  cancelRun,
  getApiKeys,
  getAppLogs,
  getBuildLogs,
  getInvoices,
  type GetAppLogsArgs,
  type GetAppLogsResult,
  type PimsCallOptions,
} from "../sdk/functions";
import {
  RecentKeys,
  UsageError,
  formatBuildEntry,
  formatLogLine,
  instantOption,
  intOption,
  logKey,
  maskSecret,
  table,
} from "./format";

const EXIT_OK = 0;
const EXIT_FAILED = 1;
const EXIT_USAGE = 2;
const EXIT_STILL_RUNNING = 3;

/** Largest batch one follow poll reads before printing (it polls again at once when there is more). */
const FOLLOW_POLL_LIMIT = 5000;

interface GlobalOptions {
  baseUrl?: string;
  verbose?: boolean;
}

interface Io {
  out(text: string): void;
  err(text: string): void;
}

const io: Io = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
};

function packageVersion(): string {
  for (let dir = __dirname, i = 0; i < 4; i++, dir = path.dirname(dir)) {
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as { name?: string; version?: string };
      if (pkg.name === "pulumi-pims" && pkg.version) return pkg.version;
    } catch {
      // keep looking upward
    }
  }
  return "0.0.0";
}

/** Client options for this invocation: credentials from the environment / --base-url, retries shown with --verbose. */
function callOptions(cmd: Command): PimsCallOptions {
  const globals = cmd.optsWithGlobals<GlobalOptions>();
  if (globals.baseUrl !== undefined && !/^https?:\/\/[^\s/]+/i.test(globals.baseUrl)) {
    throw new UsageError(`--base-url must be an http:// or https:// URL (got ${JSON.stringify(globals.baseUrl)})`);
  }
  const { token, baseUrl } = resolveCredentials({ baseUrl: globals.baseUrl }, process.env);
  if (!/^https?:\/\/[^\s/]+/i.test(baseUrl)) {
    throw new UsageError(`PIMS_BASE_URL must be an http:// or https:// URL (got ${JSON.stringify(baseUrl)})`);
  }
  const opts: PimsCallOptions = { token, baseUrl, userAgent: `pims-cli/${packageVersion()}` };
  if (globals.verbose) {
    opts.onRetry = (r) => io.err(`retry ${r.attempt}: ${r.method} ${r.path} failed (${r.reason}); trying again in ${r.delayMs} ms\n`);
  }
  return opts;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

/** Aborts on the first SIGINT (stop following, exit normally); a second SIGINT exits at once. */
function interruptSignal(): AbortSignal {
  const ctl = new AbortController();
  process.on("SIGINT", () => {
    if (ctl.signal.aborted) process.exit(130);
    ctl.abort();
  });
  return ctl.signal;
}

const chronological = (r: GetAppLogsResult, direction: string | undefined): GetAppLogsResult["lines"] =>
  direction === "forward" ? r.lines : [...r.lines].reverse();

// ---- logs ----------------------------------------------------------------------------------------------------

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

async function logsCommand(project: string, app: string, o: LogsOptions, cmd: Command): Promise<number> {
  if (o.follow && o.before !== undefined) throw new UsageError("--follow cannot be combined with --before (new lines are always later)");
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
  const lines = chronological(first, o.direction);

  if (!signal) {
    if (o.json) {
      io.out(JSON.stringify({ lines, truncated: first.truncated }, null, 2) + "\n");
    } else {
      for (const l of lines) io.out(formatLogLine(l) + "\n");
      if (first.truncated) {
        const end = o.direction === "forward" ? "oldest" : "newest";
        io.err(`(showing the ${end} ${lines.length} lines; more exist: raise --limit or narrow with --after/--before)\n`);
      }
    }
    return EXIT_OK;
  }

  // Follow: print what exists, then poll forward from the newest line seen. Each poll asks for lines after
  // (newest timestamp − 1 ms), so lines sharing the newest millisecond are not missed whether the service's
  // afterDate is inclusive or exclusive; lines already printed are skipped by logId.
  const seen = new RecentKeys();
  let newestMs: number | undefined;
  const emit = (batch: GetAppLogsResult["lines"]): void => {
    for (const l of batch) {
      const key = logKey(l);
      if (seen.has(key)) continue;
      seen.add(key);
      io.out(o.json ? JSON.stringify(l) + "\n" : formatLogLine(l) + "\n");
      const ms = Date.parse(l.timestamp);
      if (!Number.isNaN(ms) && (newestMs === undefined || ms > newestMs)) newestMs = ms;
    }
  };
  emit(lines);

  let more = false;
  for (let poll = 0; !signal.aborted && (o.maxPolls === undefined || poll < o.maxPolls); poll++) {
    if (!more) await sleep(o.interval, signal);
    if (signal.aborted) break;
    const after = newestMs !== undefined ? new Date(newestMs - 1).toISOString() : args.after;
    const r = await getAppLogs({ ...args, direction: "forward", after, limit: FOLLOW_POLL_LIMIT }, opts);
    emit(r.lines);
    more = r.truncated;
  }
  return EXIT_OK;
}

// ---- build-logs ----------------------------------------------------------------------------------------------

interface BuildLogsOptions {
  follow?: boolean;
  interval: number;
  maxPolls?: number;
  json?: boolean;
}

async function buildLogsCommand(project: string, app: string, build: string, o: BuildLogsOptions, cmd: Command): Promise<number> {
  if (o.maxPolls !== undefined && !o.follow) throw new UsageError("--max-polls only applies with --follow");
  const opts = callOptions(cmd);
  const args = { projectId: project, appId: app, buildId: build };

  if (!o.follow) {
    const r = await getBuildLogs(args, opts);
    if (o.json) io.out(JSON.stringify(r, null, 2) + "\n");
    else {
      for (const e of r.logs) io.out(formatBuildEntry(e) + "\n");
      io.err(`build ${r.buildId}: ${r.status}\n`);
    }
    return r.finished && !r.succeeded ? EXIT_FAILED : EXIT_OK;
  }

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
    const stopped = signal.aborted ? "when interrupted" : o.maxPolls !== undefined && poll + 1 >= o.maxPolls ? `after ${o.maxPolls} polls` : undefined;
    if (stopped) {
      if (o.json) io.out(JSON.stringify(summary) + "\n");
      io.err(`build ${r.buildId} is still ${r.status} ${stopped}\n`);
      return EXIT_STILL_RUNNING;
    }
    await sleep(o.interval, signal);
  }
}

// ---- runs cancel ---------------------------------------------------------------------------------------------

async function cancelCommand(project: string, app: string, run: string, cmd: Command): Promise<number> {
  const { message } = await cancelRun({ projectId: project, appId: app, runId: run }, callOptions(cmd));
  io.out(`${message}\n`);
  return EXIT_OK;
}

// ---- api-keys, invoices --------------------------------------------------------------------------------------

interface ListOptions {
  json?: boolean;
  showSecrets?: boolean;
}

async function apiKeysCommand(project: string, o: ListOptions, cmd: Command): Promise<number> {
  if (o.showSecrets && !o.json) throw new UsageError("--show-secrets only applies with --json (the table always masks key values)");
  const { keys } = await getApiKeys({ projectId: project }, callOptions(cmd));
  const shown = keys.map(({ expiresAtDate: _date, ...k }) => ({ ...k, apiKey: o.showSecrets ? k.apiKey : maskSecret(k.apiKey) }));
  if (o.json) {
    io.out(JSON.stringify({ keys: shown }, null, 2) + "\n");
  } else if (shown.length === 0) {
    io.out(`No API keys in project ${project}.\n`);
  } else {
    io.out(
      table(
        ["NAME", "ID", "KEY", "STATUS", "SOURCE", "EXPIRES", "PRINCIPAL"],
        shown.map((k) => [k.name, k.id, k.apiKey, k.status, k.source, k.expiresAt, k.principalId ?? "-"]),
      ),
    );
  }
  return EXIT_OK;
}

async function invoicesCommand(project: string, o: ListOptions, cmd: Command): Promise<number> {
  const { invoices } = await getInvoices({ projectId: project }, callOptions(cmd));
  if (o.json) {
    io.out(JSON.stringify({ invoices }, null, 2) + "\n");
  } else if (invoices.length === 0) {
    io.out(`No invoices in project ${project}.\n`);
  } else {
    io.out(
      table(
        ["ID", "CREATED", "AMOUNT", "STATUS", "ACCOUNT", "COUNTRY", "PDF"],
        invoices.map((i) => [
          i.id,
          i.createdAt,
          `${i.amountDueMajor.toFixed(i.currencyDigits)} ${i.currency.toUpperCase()}`,
          i.paymentStatus,
          i.accountName,
          i.accountCountry,
          i.fileUrl,
        ]),
        new Set([2]),
      ),
    );
  }
  return EXIT_OK;
}

// ---- service-accounts ----------------------------------------------------------------------------------------

/** A service account as `service-accounts list` shows it: what its API key says, never the key value. */
interface AccountRow {
  id: string;
  name: string;
  status: string;
  createdAt: string;
  expiresAt: string;
}

async function serviceAccountsListCommand(project: string, o: ListOptions, cmd: Command): Promise<number> {
  const { keys } = await getApiKeys({ projectId: project }, callOptions(cmd));
  // The service cannot list accounts: every live account has a key whose principalId is the account id.
  const seen = new Set<string>();
  const accounts: AccountRow[] = [];
  for (const k of keys) {
    if (!k.principalId || seen.has(k.principalId)) continue;
    seen.add(k.principalId);
    accounts.push({ id: k.principalId, name: k.name, status: k.status, createdAt: k.createdAt, expiresAt: k.expiresAt });
  }
  accounts.sort((a, b) => (a.name === b.name ? a.createdAt.localeCompare(b.createdAt) : a.name.localeCompare(b.name)));
  if (o.json) {
    io.out(JSON.stringify({ accounts }, null, 2) + "\n");
  } else if (accounts.length === 0) {
    io.out(`No service accounts with an API key in project ${project}.\n`);
  } else {
    io.out(table(["ID", "NAME", "STATUS", "CREATED", "EXPIRES"], accounts.map((a) => [a.id, a.name, a.status, a.createdAt, a.expiresAt])));
  }
  return EXIT_OK;
}

async function serviceAccountsDeleteCommand(project: string, id: string, cmd: Command): Promise<number> {
  if (project.trim() === "") throw new UsageError("<project> must be a non-empty project id");
  if (id.trim() === "") throw new UsageError("<id> must be a non-empty service account id");
  const { token, baseUrl, ...tuning } = callOptions(cmd);
  const { message } = await clientFor({ token, baseUrl }, tuning).deleteServiceAccount(project, id);
  io.out(`${message || `service account ${id} deleted`}\n`);
  return EXIT_OK;
}

// ---- program -------------------------------------------------------------------------------------------------

const EXIT_CODES_HELP = `
Credentials:
  PIMS_TOKEN      service-account token (required; never passed as an argument)
  PIMS_BASE_URL   service address (or --base-url)

Exit codes:
  0  success
  1  the service refused or failed the request (its message is printed on stderr), or the build failed
  2  usage or configuration error (bad flag, missing PIMS_TOKEN / base URL)
  3  build-logs --follow stopped (--max-polls ran out, or Ctrl-C) while the build was still running`;

export function buildProgram(setCode: (code: number) => void): Command {
  const run = async (command: Promise<number>): Promise<void> => setCode(await command);
  const program = new Command("pims")
    .description("Command-line access to the Project Infrastructure Management Service (PIMS)")
    .version(packageVersion(), "-V, --version")
    .option("--base-url <url>", "service address (default: $PIMS_BASE_URL)")
    .option("-v, --verbose", "print retries and other progress on stderr")
    .addHelpText("after", EXIT_CODES_HELP)
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err });

  const positiveInt = (flag: string, max: number) => intOption(flag, 1, max);

  program
    .command("logs")
    .description("print an app's logs (oldest first); --follow keeps printing new lines until Ctrl-C")
    .argument("<project>", "project id, e.g. p-1a2b3c4d")
    .argument("<app>", "app id, e.g. p-1a2b3c4d-web")
    .addOption(new Option("--before <time>", "only lines before this RFC 3339 time, or a duration ago (15m, 2h, 1d)").argParser(instantOption("--before")))
    .addOption(new Option("--after <time>", "only lines after this RFC 3339 time, or a duration ago (15m, 2h, 1d)").argParser(instantOption("--after")))
    .option("--container <container>", "only this container (id or name)")
    .option("--run <run>", "only this run")
    .option("--search <term>", "only lines containing this term")
    .addOption(new Option("--stream <stream>", "only this output stream").choices(["stdout", "stderr"]))
    .addOption(
      new Option("--direction <direction>", "which end to read when --limit cuts: backward = newest lines (default), forward = oldest").choices(["forward", "backward"]),
    )
    .addOption(new Option("--page-size <n>", "lines per request, 1-1000 (default: min(limit, 1000))").argParser(positiveInt("--page-size", 1000)))
    .addOption(new Option("--limit <n>", `most lines printed before following, 1-${MAX_LOG_LIMIT}`).argParser(positiveInt("--limit", MAX_LOG_LIMIT)).default(DEFAULT_LOG_LIMIT))
    .option("-f, --follow", "keep polling for new lines (no duplicates) until Ctrl-C")
    .addOption(new Option("--interval <ms>", "poll interval with --follow").argParser(intOption("--interval", 10, 3_600_000)).default(2000))
    .addOption(new Option("--max-polls <n>", "with --follow: stop after this many polls (for scripts)").argParser(positiveInt("--max-polls", 1_000_000)))
    .option("--json", "JSON instead of text: {lines, truncated}; with --follow one JSON object per line")
    .action((project: string, app: string, o: LogsOptions, cmd: Command) => run(logsCommand(project, app, o, cmd)));

  program
    .command("build-logs")
    .description("print a build's logs; --follow polls until the build finishes. Exits 0 for success/ready, 1 for a failed build")
    .argument("<project>", "project id")
    .argument("<app>", "app id")
    .argument("<build>", "build id")
    .option("-f, --follow", "poll, printing only new entries, until the build reaches a final status")
    .addOption(new Option("--interval <ms>", "poll interval with --follow").argParser(intOption("--interval", 10, 3_600_000)).default(2000))
    .addOption(new Option("--max-polls <n>", "with --follow: stop after this many polls (exit 3 if the build is still running)").argParser(positiveInt("--max-polls", 1_000_000)))
    .option("--json", "the result as JSON; with --follow one JSON object per entry, then a status object")
    .addHelpText(
      "after",
      "\nExit codes: 0 the build succeeded (success, ready) or is not finished (without --follow); 1 the build failed\n(build_failure, init_failure, failure, cancelled, init_timeout) or the service refused; 2 usage;\n3 following stopped (--max-polls ran out, or Ctrl-C) while the build was still running.",
    )
    .action((project: string, app: string, build: string, o: BuildLogsOptions, cmd: Command) => run(buildLogsCommand(project, app, build, o, cmd)));

  const runs = program.command("runs").description("act on an app's runs");
  runs
    .command("cancel")
    .description("cancel an ongoing run and print the service's message (exit 1 if the run already finished or does not exist)")
    .argument("<project>", "project id")
    .argument("<app>", "app id")
    .argument("<run>", "run id")
    .action((project: string, app: string, run_: string, _o: unknown, cmd: Command) => run(cancelCommand(project, app, run_, cmd)));

  program
    .command("api-keys")
    .description("list a project's API keys (values masked)")
    .argument("<project>", "project id")
    .option("--json", "JSON instead of a table: {keys: [...]}")
    .option("--show-secrets", "with --json: include the full key values")
    .action((project: string, o: ListOptions, cmd: Command) => run(apiKeysCommand(project, o, cmd)));

  const accounts = program
    .command("service-accounts")
    .description("list or delete a project's service accounts (e.g. orphans left by a failed or interrupted `pulumi up`)");
  accounts
    .command("list")
    .description("list the project's service accounts that have an API key: id, name, key status, created, expires (never a key value)")
    .argument("<project>", "project id")
    .option("--json", "JSON instead of a table: {accounts: [{id, name, status, createdAt, expiresAt}]}")
    .addHelpText(
      "after",
      "\nThe service has no operation that lists service accounts: this shows the accounts seen through the project's\nAPI keys (each key with a principalId belongs to that account), so an account without a key is not shown.",
    )
    .action((project: string, o: ListOptions, cmd: Command) => run(serviceAccountsListCommand(project, o, cmd)));
  accounts
    .command("delete")
    .description("delete a service account (its token stops working) and print the service's message; exit 1 if it does not exist")
    .argument("<project>", "project id")
    .argument("<id>", "service account id, e.g. from `pims service-accounts list`")
    .addHelpText(
      "after",
      "\nDelete only an account no stack uses: a stack still holding its token would break. Accounts a stack manages are\nbetter removed with `pulumi destroy` or by removing the resource from the program.",
    )
    .action((project: string, id: string, _o: unknown, cmd: Command) => run(serviceAccountsDeleteCommand(project, id, cmd)));

  program
    .command("invoices")
    .description("list a project's invoices, amounts in major units (12.34 EUR)")
    .argument("<project>", "project id")
    .option("--json", "JSON instead of a table: {invoices: [...]}, with amountDueMajor")
    .action((project: string, o: ListOptions, cmd: Command) => run(invoicesCommand(project, o, cmd)));

  return program;
}

/** Exit code for an error, after printing it (never the token: the client redacts it from every message). */
function reportError(e: unknown): number {
  if (e instanceof CommanderError) return e.exitCode === 0 ? EXIT_OK : EXIT_USAGE; // commander printed it
  if (e instanceof UsageError) {
    io.err(`error: ${e.message}\n`);
    return EXIT_USAGE;
  }
  if (e instanceof MissingCredentialsError) {
    io.err(`${e.message}\n`);
    return EXIT_USAGE;
  }
  if (e instanceof PimsError) {
    io.err(`${e.toString()}\n`);
    // An argument rejected before sending (no HTTP status) is a usage error; anything from the service is 1.
    return e.kind === "validation" && e.status === undefined ? EXIT_USAGE : EXIT_FAILED;
  }
  io.err(`error: ${e instanceof Error ? e.message : String(e)}\n`);
  return EXIT_FAILED;
}

export async function main(argv: string[] = process.argv): Promise<number> {
  let code = EXIT_OK;
  const program = buildProgram((c) => {
    code = c;
  });
  try {
    await program.parseAsync(argv);
    return code;
  } catch (e) {
    return reportError(e);
  }
}

if (require.main === module) {
  void main().then((code) => {
    // Flush stdout before exiting (keep-alive sockets would otherwise keep the process alive).
    process.stdout.write("", () => process.exit(code));
  });
}
