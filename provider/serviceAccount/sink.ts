/**
 * The two sinks of token delivery that run on the machine running `pulumi up` (./delivery): a command (an argv, no
 * shell) that receives the token on its standard input, and a file written atomically with mode 0600. Neither ever
 * puts the token in an argument, an environment variable, a message or a line: what the command prints is shown with
 * every encoding of the token's bytes redacted ({@link redact}).
 */
import { spawn } from "node:child_process";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { progress } from "../client/log";
import { childEnvironment } from "../settings";

/** What the command is told about the token (its environment), and what messages name. */
export interface TokenContext {
  serviceAccountId: string;
  name: string;
  projectId: string;
  tokenId: string;
  tokenExpiresAt: string;
}

/** Most lines of the command's output shown (the rest are counted), and most characters kept per line. */
const [MAX_LINES, MAX_LINE] = [40, 400];

/** Every encoding of the token a program may print: raw, base64, base64url, hex, JSON-escaped. */
export function tokenForms(token: string): string[] {
  const b = Buffer.from(token, "utf8");
  const forms = [
    token,
    b.toString("base64"),
    b.toString("base64").replace(/=+$/, ""),
    b.toString("base64url"),
    b.toString("hex"),
    b.toString("hex").toUpperCase(),
    JSON.stringify(token).slice(1, -1),
  ];
  return [...new Set(forms.filter((f) => f.length >= 8))].sort((x, y) => y.length - x.length);
}

/** `text` with every form of the token replaced by `[redacted]`. */
export function redact(text: string, token: string): string {
  let out = text;
  for (const f of tokenForms(token)) out = out.split(f).join("[redacted]");
  return out;
}

/**
 * Runs `argv` with the token on stdin (no trailing newline) and the account's facts in its environment; resolves when
 * it exits 0 within `timeoutMs`. Its output is shown as progress lines, redacted. Throws, naming the command (argv[0]
 * only) and how it ended, with its last lines of stderr redacted.
 */
export function runCommand(
  argv: readonly string[],
  token: string,
  ctx: TokenContext,
  timeoutMs: number,
): Promise<void> {
  const [file, ...args] = argv;
  const name = path.basename(file);
  // The provider's own credential (PIMS_TOKEN) is not the command's.
  const env = childEnvironment({
    PIMS_SERVICE_ACCOUNT_ID: ctx.serviceAccountId,
    PIMS_SERVICE_ACCOUNT_NAME: ctx.name,
    PIMS_PROJECT_ID: ctx.projectId,
    PIMS_TOKEN_ID: ctx.tokenId,
    PIMS_TOKEN_EXPIRES_AT: ctx.tokenExpiresAt,
  });
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { env, stdio: ["pipe", "pipe", "pipe"], windowsHide: true });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (c: Buffer) => out.push(c));
    child.stderr.on("data", (c: Buffer) => err.push(c));
    child.stdin.on("error", () => undefined); // a command that does not read stdin: its exit status decides
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, timeoutMs);
    const fail = (why: string): void =>
      reject(new Error(`token delivery by command \`${name}\` failed: ${why}${tail(err, token)}`));
    child.on("error", (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      fail(e.code === "ENOENT" ? "no such program (check tokenDelivery.command[0] and PATH)" : (e.code ?? e.message));
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      show(name, "stdout", out, token);
      show(name, "stderr", err, token);
      if (timedOut)
        fail(`it did not finish within ${timeoutMs / 1000} s (tokenDelivery.commandTimeoutSeconds) and was killed`);
      else if (code === 0) resolve();
      else fail(code === null ? `it was killed by ${signal}` : `it exited with status ${code}`);
    });
    child.stdin.end(token, "utf8");
  });
}

/** The command's output as progress lines, redacted and bounded. */
function show(name: string, stream: string, chunks: Buffer[], token: string): void {
  const lines = redact(Buffer.concat(chunks).toString("utf8"), token)
    .split("\n")
    .filter((l) => l.trim() !== "");
  for (const l of lines.slice(0, MAX_LINES))
    progress(`pulumi-pims: token delivery \`${name}\` ${stream}: ${l.slice(0, MAX_LINE)}`);
  if (lines.length > MAX_LINES)
    progress(`pulumi-pims: token delivery \`${name}\` ${stream}: …${lines.length - MAX_LINES} more lines`);
}

/** The last lines of stderr for an error, redacted (or "" when there were none). */
function tail(chunks: Buffer[], token: string): string {
  const lines = redact(Buffer.concat(chunks).toString("utf8"), token)
    .split("\n")
    .filter((l) => l.trim() !== "");
  return lines.length === 0
    ? ""
    : `; its stderr ends: ${lines
        .slice(-3)
        .map((l) => l.slice(0, MAX_LINE))
        .join(" | ")}`;
}

/**
 * Writes the token to `file` atomically: a new file beside it (mode 0600, created exclusively), synced, then renamed
 * over the target, so a reader sees the old token or the new one, never a part. Throws naming the path.
 */
export async function writeTokenFile(file: string, token: string): Promise<void> {
  const target = path.resolve(file);
  const temp = path.join(
    path.dirname(target),
    `.${path.basename(target)}.${crypto.randomBytes(6).toString("hex")}.tmp`,
  );
  try {
    const h = await fs.promises.open(temp, "wx", 0o600);
    try {
      await h.writeFile(token, "utf8");
      await h.sync();
    } finally {
      await h.close();
    }
    await fs.promises.chmod(temp, 0o600);
    await fs.promises.rename(temp, target);
  } catch (e) {
    await fs.promises.rm(temp, { force: true }).catch(() => undefined);
    const why = (e as NodeJS.ErrnoException).code ?? (e instanceof Error ? e.message : String(e));
    throw new Error(`token delivery to file ${target} failed: ${why}`, { cause: e });
  }
}
