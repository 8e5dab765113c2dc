/**
 * `pims tokens <project> [--expiring-within <duration>]`: a project's tokens (its API keys, those of service accounts
 * and the others) by expiry, soonest first, for people and for a cron alarm. Rotation happens only when `pulumi up`
 * runs; when the scheduled job stops, tokens simply expire: this is the check that notices first.
 *
 * Never prints a key value, not even masked: the listing is for watching expiries, not for reading keys.
 */
import type { Command } from "commander";
import { readExpiry, type ApiKey } from "../provider/client";
import { serviceNowMs } from "../provider/client/clock";
import { clientForCall } from "../sdk/nodejs/functions/call";
import { EXIT_EXPIRING, EXIT_OK, callOptions, io, printJson, type Runner } from "./context";
import { formatDuration } from "../provider/client/values";
import { cellText, durationOption, table } from "./format";

/** A window as typed (shown back in --json and the table header) and in milliseconds. */
interface Window {
  raw: string;
  ms: number;
}

interface TokensOptions {
  expiringWithin?: Window;
  serviceAccounts?: boolean;
  json?: boolean;
}

/** One token as `--json` shows it: every member always present, null where the service left it unknown. */
export interface TokenView {
  id: string;
  name: string;
  /** The service account the key belongs to; null for a key of no account. */
  principalId: string | null;
  status: string;
  /** RFC 3339, `never`, or null when the service sent an expiry that cannot be read. */
  expiresAt: string | null;
  /** Whole seconds from now to the expiry, negative once expired; null for `never` or an unreadable expiry. */
  secondsLeft: number | null;
  /** True when the expiry falls within --expiring-within of now (already expired included); false without it. */
  expiring: boolean;
}

/**
 * A key's expiry, by the one expiry parser (provider/client/token.ts, as getApiKeys' `expiresAtEpochMs`): RFC 3339,
 * `never` (also null or absent: the client reads those as `never`), epoch numbers.
 */
function expiryOf(k: ApiKey): { expiresAt: string | null; ms: number | null } {
  const e = readExpiry(k.expiresAt);
  if (e.never) return { expiresAt: "never", ms: null };
  return e.epochMs === null ? { expiresAt: null, ms: null } : { expiresAt: e.expiresAt, ms: e.epochMs };
}

/** Soonest expiry first, then unreadable expiries, then `never`; the service's order among equals. */
function rank(t: TokenView): number {
  if (t.secondsLeft !== null) return t.secondsLeft;
  return t.expiresAt === null ? Number.MAX_SAFE_INTEGER - 1 : Number.MAX_SAFE_INTEGER;
}

export function tokenViews(keys: readonly ApiKey[], nowMs: number, withinMs: number | undefined): TokenView[] {
  const views = keys.map((k): TokenView => {
    const { expiresAt, ms } = expiryOf(k);
    return {
      id: k.id,
      name: k.name,
      principalId: k.principalId ?? null,
      status: k.status,
      expiresAt,
      secondsLeft: ms === null ? null : Math.floor((ms - nowMs) / 1000),
      expiring: ms !== null && withinMs !== undefined && ms <= nowMs + withinMs,
    };
  });
  return views.sort((a, b) => rank(a) - rank(b)); // Array.prototype.sort is stable
}

/** `6d 3h`, `expired 2h ago`, `never`, `unknown`. */
export function timeLeft(t: TokenView): string {
  if (t.secondsLeft === null) return t.expiresAt === "never" ? "never" : "unknown";
  return t.secondsLeft < 0
    ? `expired ${formatDuration(t.secondsLeft * 1000)} ago`
    : formatDuration(t.secondsLeft * 1000);
}

/** The stderr line of a token within the window (a cron mail or CI log shows these). */
function expiringLine(project: string, t: TokenView): string {
  const owner = t.principalId ? `service account ${cellText(t.principalId)}` : "no service account";
  const expired = t.secondsLeft !== null && t.secondsLeft < 0;
  const when = expired
    ? `expired at ${cellText(t.expiresAt)} (${timeLeft(t)})`
    : `expires at ${cellText(t.expiresAt)} (${timeLeft(t)} left)`;
  return `expiring: ${cellText(t.name)} (${cellText(t.id)}, ${owner}) in project ${cellText(project)} ${when}\n`;
}

async function tokensCommand(project: string, o: TokensOptions, cmd: Command): Promise<number> {
  // GET /v2/projects/{project_id}/api-keys
  const client = clientForCall(callOptions(cmd));
  const keys = await client.listApiKeys(project);
  // The service's clock (its `Date` header), read once after the answer: every "time left" and the window are
  // measured from it, as the expiries are its times; a machine clock an hour off changes no warning.
  const nowMs = serviceNowMs({ skewMs: () => client.serviceSkewMs() });
  const listed = o.serviceAccounts ? keys.filter((k) => k.principalId) : keys;
  const window = o.expiringWithin;
  const tokens = tokenViews(listed, nowMs, window?.ms);
  const expiring = tokens.filter((t) => t.expiring);

  if (o.json) {
    printJson({
      project,
      now: new Date(nowMs).toISOString(),
      within: window?.raw ?? null,
      withinSeconds: window ? window.ms / 1000 : null,
      tokens,
      expiring: expiring.length,
    });
  } else if (tokens.length === 0) {
    const what = o.serviceAccounts ? "service-account tokens" : "tokens (API keys)";
    io.out(`No ${what} in project ${project}: nothing expires.\n`);
  } else {
    const headers = ["ID", "NAME", "PRINCIPAL", "STATUS", "EXPIRES AT", "TIME LEFT"];
    const rows = tokens.map((t) => [t.id, t.name, t.principalId, t.status, t.expiresAt ?? "unknown", timeLeft(t)]);
    // With a window, a last column marks the tokens within it.
    if (window) {
      headers.push(`WITHIN ${window.raw}`);
      rows.forEach((r, i) => r.push(tokens[i].expiring ? "yes" : "no"));
    }
    io.out(table(headers, rows));
  }
  for (const t of expiring) io.err(expiringLine(project, t));
  return expiring.length > 0 ? EXIT_EXPIRING : EXIT_OK;
}

const parseDuration = durationOption("--expiring-within");
const parseWindow = (raw: string): Window => ({ raw: raw.trim(), ms: parseDuration(raw) });

export function addTokensCommand(program: Command, run: Runner): void {
  program
    .command("tokens")
    .description(
      "list a project's tokens (API keys) by expiry, soonest first; exit 4 if one expires within " +
        "--expiring-within (never a key value)",
    )
    .argument("<project>", "project id")
    .option(
      "--expiring-within <duration>",
      "flag tokens that expire within this long from now (30s, 15m, 2h, 7d), expired ones included; exit 4 if any",
      parseWindow,
    )
    .option("--service-accounts", "only the keys of service accounts (keys with a principal)")
    .option(
      "--json",
      "JSON instead of a table: {project, now, within, withinSeconds, tokens: [{id, name, principalId, status, " +
        "expiresAt, secondsLeft, expiring}], expiring}",
    )
    .addHelpText(
      "after",
      `
Times are measured on the service's clock (the Date header of its answer; this machine's clock when it sends none),
as the expiries are its times: a machine clock that is off changes no warning. Tokens that never expire come last; a
token whose expiry cannot be read shows "unknown" and is never flagged. Every listed token counts, whatever its
status: an expired key a stack still uses is an outage, and one nobody uses is better deleted (pims service-accounts
delete).

For a cron alarm:  pims tokens p-1a2b3c4d --expiring-within 7d > /dev/null   (exit 4 and one line per token on stderr)`,
    )
    .action((project: string, o: TokensOptions, cmd: Command) => run(tokensCommand(project, o, cmd)));
}
