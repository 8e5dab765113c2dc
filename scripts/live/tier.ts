/**
 * `npm run test:live`: the gate of the live tier (tests/live). Without PIMS_LIVE_BASE_URL, PIMS_LIVE_TOKEN and
 * PIMS_LIVE_PROJECT it prints one line saying what to set and exits 0 (CI runs nothing and fails nothing). Otherwise
 * it names the run (a unique account-name prefix) and its wire recording, runs the live suites with jest
 * (jest.live.config.ts; extra arguments are passed on), and then — whatever jest did, even after Ctrl-C — deletes
 * every service account whose name carries the prefix, lists the project's keys once more to prove none is left,
 * and prints anything it could not delete with the command that deletes it. Exit: jest's code, or 1 when something
 * was left behind or the recording holds the token.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { REPO_ROOT, NODE_BIN } from "../engine";
import { errorText } from "../../provider/client";
import { deleteAccountsWithPrefix, deleteCommand, liveClient, type Leftover } from "./accounts";
import { describeChecks, findingsFile, LIVE_ENV, liveSettings, NOT_CONFIGURED, type LiveSettings } from "./settings";

/** Runs jest on the live suites; resolves with its exit code (1 when it died of a signal). */
function runJest(env: NodeJS.ProcessEnv, args: string[]): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(
      path.join(NODE_BIN, "jest"),
      ["--config", path.join(REPO_ROOT, "jest.live.config.ts"), "--runInBand", ...args],
      {
        cwd: REPO_ROOT,
        env,
        stdio: "inherit",
      },
    );
    child.on("error", (e) => {
      console.error(`test:live: cannot start jest: ${e.message}`);
      resolve(1);
    });
    child.on("close", (code) => resolve(code ?? 1));
  });
}

/**
 * The final teardown and listing: every account with the prefix is deleted; what is still listed is returned, or the
 * message of the failure that kept the listing from being read.
 */
async function teardown(s: LiveSettings): Promise<Leftover[] | string> {
  try {
    return await deleteAccountsWithPrefix(liveClient(s), s.projectId, s.prefix);
  } catch (e) {
    return errorText(e);
  }
}

async function main(): Promise<number> {
  let s: LiveSettings | undefined;
  try {
    s = liveSettings();
  } catch (e) {
    console.error(`test:live: ${errorText(e)}`);
    return 2;
  }
  if (!s) {
    console.log(NOT_CONFIGURED);
    return 0;
  }
  const recording = path.resolve(s.recording ?? "pims-live-recording.jsonl");
  fs.writeFileSync(recording, "");
  fs.rmSync(findingsFile(recording), { force: true });
  s = { ...s, recording };
  // The gate's own requests (the final listing) are recorded too.
  process.env.PIMS_WIRE_RECORD = recording;

  console.log(`test:live: ${s.baseUrl}, project ${s.projectId}, account names starting ${s.prefix}`);
  for (const line of describeChecks(s)) console.log(line);

  // Ctrl-C reaches jest too (same process group); the gate stays to clean up.
  let interrupted = false;
  process.on("SIGINT", () => (interrupted = true));
  const env = {
    ...process.env,
    [LIVE_ENV.prefix]: s.prefix,
    [LIVE_ENV.recording]: recording,
    PIMS_WIRE_RECORD: recording,
  };
  const jestCode = await runJest(env, process.argv.slice(2));

  const left = await teardown(s);
  let code = interrupted ? 130 : jestCode;
  if (typeof left === "string") {
    console.error(
      `test:live: the final listing failed (${left}); check for accounts named ${s.prefix}* with: npx pims ` +
        `service-accounts list ${s.projectId}`,
    );
    code ||= 1;
  } else if (left.length > 0) {
    console.error(`test:live: ${left.length} account(s) named ${s.prefix}* could not be deleted:`);
    for (const l of left) console.error(`  ${l.name} ${l.id}: ${l.reason}\n    ${deleteCommand(s, l.id)}`);
    code ||= 1;
  } else {
    console.log(`test:live: final listing: no service account named ${s.prefix}* is left`);
  }

  const text = fs.readFileSync(recording, "utf8");
  if (text.includes(s.token)) {
    console.error(`test:live: the recording holds the token: do not share it (${recording})`);
    code ||= 1;
  }
  const findings = findingsFile(recording);
  if (fs.existsSync(findings))
    console.log(`test:live: findings\n${fs.readFileSync(findings, "utf8").trimEnd().replace(/^/gm, "  ")}`);
  const lines = text.split("\n").filter((l) => l !== "").length;
  console.log(
    `test:live: wire recording (${lines} requests, shapes only, no values): ${recording}\n` +
      "  please attach it to an issue (docs/testing-against-your-account.md)",
  );
  return code;
}

void main().then((code) => process.exit(code));
