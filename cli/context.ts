/**
 * What every `pims` command shares: exit codes, the output streams, the global options (--base-url, --verbose and
 * --record), credentials from the environment, and the waiting and Ctrl-C handling of the follow modes.
 */
import type { Command } from "commander";
import { retryLine } from "../provider/client/retry";
import { packageVersion } from "../provider/identity";
import { resolveCredentials, SETTINGS } from "../provider/settings";
import type { PimsCallOptions } from "../sdk/nodejs/functions";

/** The exit codes of `pims`, once, in order: the commands return them by name, and `--help` prints this table. */
const EXIT_CODES = [
  ["OK", "success"],
  ["FAILED", "the service refused or failed the request (its message is printed on stderr), or the build failed"],
  ["USAGE", `usage or configuration error (bad flag or argument, missing ${SETTINGS.token.env} / base URL)`],
  ["STILL_RUNNING", "build-logs --follow stopped (--max-polls ran out, or Ctrl-C) while the build was still running"],
  ["EXPIRING", "tokens --expiring-within: a token expires (or has expired) within the window"],
] as const;
const exitCode = (name: (typeof EXIT_CODES)[number][0]): number => EXIT_CODES.findIndex(([n]) => n === name);
export const EXIT_OK = exitCode("OK");
export const EXIT_FAILED = exitCode("FAILED");
export const EXIT_USAGE = exitCode("USAGE");
export const EXIT_STILL_RUNNING = exitCode("STILL_RUNNING");
/** `pims tokens --expiring-within`: a token expires (or has expired) within the window. */
export const EXIT_EXPIRING = exitCode("EXPIRING");

/** The `Exit codes:` section of `--help`, from the table above. */
export const exitCodesHelp = (): string => EXIT_CODES.map(([, meaning], code) => `  ${code}  ${meaning}`).join("\n");

/** Runs a command's promise and records its exit code (set by `buildProgram`). */
export type Runner = (command: Promise<number>) => Promise<void>;

interface GlobalOptions {
  baseUrl?: string;
  verbose?: boolean;
  record?: string;
}

export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
}

export const io: Io = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
};

/** `--json` output: two-space indented, nulls kept as `null`. */
export const printJson = (value: unknown): void => io.out(JSON.stringify(value, null, 2) + "\n");

/**
 * Client options for this invocation: the token only from PIMS_TOKEN (an argument would land in shell history and
 * `ps`), the address from --base-url or PIMS_BASE_URL (checked and normalized: a trailing `/v2` is fine); retries
 * shown with --verbose. Missing or unusable values throw the configuration errors of provider/configErrors, worded
 * for the CLI (environment variables and --base-url: there is no stack config here).
 */
export function callOptions(cmd: Command): PimsCallOptions {
  const globals = cmd.optsWithGlobals<GlobalOptions>();
  const { token, baseUrl } = resolveCredentials({ baseUrl: globals.baseUrl }, { audience: "cli" });
  const opts: PimsCallOptions = {
    token,
    tokenSource: SETTINGS.token.env,
    baseUrl,
    userAgent: `pims-cli/${packageVersion()}`,
  };
  // --record wins over PIMS_WIRE_RECORD (read with the other tuning in provider/settings).
  if (globals.record) opts.record = globals.record;
  if (globals.verbose) {
    opts.onRetry = (r) => io.err(`${retryLine(r, "pims")}\n`);
  }
  return opts;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
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
export function interruptSignal(): AbortSignal {
  const ctl = new AbortController();
  process.on("SIGINT", () => {
    if (ctl.signal.aborted) process.exit(130);
    ctl.abort();
  });
  return ctl.signal;
}

/** Options of the list commands (api-keys, invoices, service-accounts list). */
export interface ListOptions {
  json?: boolean;
  showSecrets?: boolean;
}
