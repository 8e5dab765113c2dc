#!/usr/bin/env node
/**
 * `pims`: command-line access to the PIMS operations that are not resources — app logs (with --follow), build
 * logs (with --follow until the build finishes), run cancellation, API keys and invoices — to the service
 * accounts a failed or interrupted `pulumi up` may have left behind (list, delete), and to the project's tokens by
 * expiry (tokens, the alarm when rotation stops). One module per command group.
 *
 * Credentials: the token comes only from PIMS_TOKEN (never from an argument, so it stays out of shell history
 * and `ps`); the address from --base-url or PIMS_BASE_URL. Exit codes: the table of ./context (`--help` prints it).
 */
import { Command, CommanderError } from "commander";
import { ArgumentError, PimsError, errorText } from "../provider/client";
import { PimsConfigurationError } from "../provider/configErrors";
import { addApiKeysCommand } from "./apiKeys";
import { addBuildLogsCommand } from "./buildLogs";
import { addEscRotatorCommands } from "./escRotator";
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, exitCodesHelp, io } from "./context";
import { packageVersion } from "../provider/identity";
import { SETTINGS, type SettingName } from "../provider/settings";
import { UsageError } from "./format";
import { addInvoicesCommand } from "./invoices";
import { addLogsCommand } from "./logs";
import { addRunsCommands } from "./runs";
import { addServiceAccountsCommands } from "./serviceAccounts";
import { addTokensCommand } from "./tokens";

/** The settings `--help` lists, in the CLI's words; their variables' names are the settings table's (SETTINGS). */
const HELP_SETTINGS: [SettingName, string][] = [
  ["token", "service-account token (required; never passed as an argument)"],
  ["baseUrl", "service address (or --base-url)"],
  ["allowInsecureHttp", "true: allow a plain http:// address to another machine (private network, TLS proxy)"],
  ["record", "file to append a wire recording to (or --record)"],
];
const envWidth = Math.max(...HELP_SETTINGS.map(([name]) => SETTINGS[name].env.length)) + 2;

const EXIT_CODES_HELP = `
Credentials:
${HELP_SETTINGS.map(([name, text]) => `  ${SETTINGS[name].env.padEnd(envWidth)}${text}`).join("\n")}
  Every setting: docs/settings.md

Exit codes:
${exitCodesHelp()}`;

export function buildProgram(setCode: (code: number) => void): Command {
  const run = async (command: Promise<number>): Promise<void> => setCode(await command);
  const program = new Command("pims")
    .description("Command-line access to the Project Infrastructure Management Service (PIMS)")
    .version(packageVersion(), "-V, --version")
    .option("--base-url <url>", `service address (default: $${SETTINGS.baseUrl.env})`)
    .option("-v, --verbose", "print retries and other progress on stderr")
    .option(
      "--record <file>",
      `append a wire recording (request shapes, never a value) to <file> (default: $${SETTINGS.record.env})`,
    )
    .addHelpText("after", EXIT_CODES_HELP)
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err });

  addLogsCommand(program, run);
  addBuildLogsCommand(program, run);
  addRunsCommands(program, run);
  addApiKeysCommand(program, run);
  addServiceAccountsCommands(program, run);
  addTokensCommand(program, run);
  addInvoicesCommand(program, run);
  addEscRotatorCommands(program, run);
  return program;
}

/** Exit code for an error, after printing it: one line, no stack, never the token (the client redacts it). */
function reportError(e: unknown): number {
  if (e instanceof CommanderError) return e.exitCode === 0 ? EXIT_OK : EXIT_USAGE; // commander printed it
  if (e instanceof UsageError || e instanceof ArgumentError) {
    io.err(`error: ${e.message}\n`);
    return EXIT_USAGE;
  }
  if (e instanceof PimsConfigurationError) {
    // Missing credentials or an unusable base address: the whole text once (its `stack` holds no trace).
    io.err(`error: ${e.message}\n`);
    return EXIT_USAGE;
  }
  if (e instanceof PimsError) {
    io.err(`${e.toString()}\n`);
    return EXIT_FAILED;
  }
  io.err(`error: ${errorText(e)}\n`);
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
