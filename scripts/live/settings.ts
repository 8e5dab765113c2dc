/**
 * The live tier's environment: what is required (an address, a token, a project to work in), what each optional
 * variable enables, the one line printed when the tier is not configured, and where the run's findings go. Read by
 * `scripts/live/tier.ts` (the gate of `npm run test:live`) and by every suite of tests/live (tests import from
 * scripts/, never the reverse). docs/testing-against-your-account.md documents these.
 */
import * as crypto from "node:crypto";

/** The variables, by what they do. */
export const LIVE_ENV = {
  baseUrl: "PIMS_LIVE_BASE_URL",
  token: "PIMS_LIVE_TOKEN",
  project: "PIMS_LIVE_PROJECT",
  app: "PIMS_LIVE_APP",
  build: "PIMS_LIVE_BUILD",
  run: "PIMS_LIVE_RUN",
  secretsApp: "PIMS_LIVE_SECRETS_APP",
  volume: "PIMS_LIVE_VOLUME",
  allowResize: "PIMS_LIVE_ALLOW_RESIZE",
  resizeGb: "PIMS_LIVE_RESIZE_GB",
  allowCreateProject: "PIMS_LIVE_ALLOW_CREATE_PROJECT",
  skipEngine: "PIMS_LIVE_SKIP_ENGINE",
  recording: "PIMS_LIVE_RECORDING",
  prefix: "PIMS_LIVE_PREFIX",
} as const;

/** The line `npm run test:live` prints (and exits 0) when a required variable is missing. */
export const NOT_CONFIGURED =
  "test:live skipped: set PIMS_LIVE_BASE_URL, PIMS_LIVE_TOKEN and PIMS_LIVE_PROJECT to run the live tier against " +
  "your account (docs/testing-against-your-account.md)";

/** The name prefix of every service account (and project) the tier creates: `pims-live-<8 hex>-`, unique per run. */
export const newPrefix = (): string => `pims-live-${crypto.randomBytes(4).toString("hex")}-`;
/** What a prefix must look like: the teardown deletes every account whose name starts with it. */
export const PREFIX_RULE = /^pims-live-[a-z0-9]{4,16}-$/;

/** Where findings go: beside the recording (`<recording>.findings.txt`). */
export const findingsFile = (recording: string): string => `${recording}.findings.txt`;

/** The live tier's settings, from the environment. */
export interface LiveSettings {
  baseUrl: string;
  token: string;
  projectId: string;
  /** App whose logs are read (and which owns `buildId` and `runId`). */
  appId?: string;
  buildId?: string;
  /** A run of `appId` the tier may cancel. */
  runId?: string;
  /** App the tier may write one secret (`PIMS_LIVE_CHECK`) to. */
  secretsAppId?: string;
  /** Volume resize: only with PIMS_LIVE_ALLOW_RESIZE=1 and a size (it may cost money). */
  resize?: { volumeId: string; sizeGb: number };
  /** Set when a volume was named but resizing is not allowed or has no size: why it is skipped. */
  resizeSkipped?: string;
  allowCreateProject: boolean;
  skipEngine: boolean;
  /** The wire recording's file (set by the gate). */
  recording?: string;
  prefix: string;
}

const value = (env: NodeJS.ProcessEnv, name: string): string | undefined => {
  const v = env[name]?.trim();
  return v ? v : undefined;
};
const yes = (env: NodeJS.ProcessEnv, name: string): boolean =>
  value(env, name) === "1" || value(env, name)?.toLowerCase() === "true";

/** The settings, or undefined when a required variable is missing. Throws on a value that is set but unusable. */
export function liveSettings(env: NodeJS.ProcessEnv = process.env): LiveSettings | undefined {
  const baseUrl = value(env, LIVE_ENV.baseUrl);
  const token = value(env, LIVE_ENV.token);
  const projectId = value(env, LIVE_ENV.project);
  if (!baseUrl || !token || !projectId) return undefined;
  const prefix = value(env, LIVE_ENV.prefix) ?? newPrefix();
  if (!PREFIX_RULE.test(prefix))
    throw new Error(
      `${LIVE_ENV.prefix} must look like pims-live-<4 to 16 letters or digits>- (got ${JSON.stringify(prefix)})`,
    );
  const s: LiveSettings = {
    baseUrl,
    token,
    projectId,
    appId: value(env, LIVE_ENV.app),
    buildId: value(env, LIVE_ENV.build),
    runId: value(env, LIVE_ENV.run),
    secretsAppId: value(env, LIVE_ENV.secretsApp),
    allowCreateProject: yes(env, LIVE_ENV.allowCreateProject),
    skipEngine: yes(env, LIVE_ENV.skipEngine),
    recording: value(env, LIVE_ENV.recording),
    prefix,
  };
  if ((s.buildId || s.runId) && !s.appId)
    throw new Error(`${LIVE_ENV.build} and ${LIVE_ENV.run} need ${LIVE_ENV.app} (the app they belong to)`);
  const volumeId = value(env, LIVE_ENV.volume);
  if (volumeId) {
    const gb = value(env, LIVE_ENV.resizeGb);
    if (!yes(env, LIVE_ENV.allowResize))
      s.resizeSkipped = `${LIVE_ENV.volume} is set but ${LIVE_ENV.allowResize}=1 is not (a resize may cost money)`;
    else if (!gb || !/^\d+$/.test(gb) || Number(gb) < 50)
      s.resizeSkipped = `${LIVE_ENV.resizeGb} must name the size to grow to, in GB (at least 50)`;
    else s.resize = { volumeId, sizeGb: Number(gb) };
  }
  return s;
}

/** The settings inside a live suite: the gate has checked them, so a missing one is a usage error. */
export function requireLiveSettings(): LiveSettings {
  const s = liveSettings();
  if (!s) throw new Error(`${NOT_CONFIGURED} (run the live tier with npm run test:live)`);
  return s;
}

/** One line per optional check: enabled, or the variable that would enable it. */
export function describeChecks(s: LiveSettings): string[] {
  const on = (cond: unknown, what: string, enable: string): string =>
    cond ? `  on   ${what}` : `  off  ${what} (${enable})`;
  return [
    on(true, "service accounts: create, read through the key listing, delete (free; nothing left behind)", ""),
    on(true, "functions and CLI reads: API keys, invoices, service accounts", ""),
    on(
      !s.skipEngine,
      "one stack through the Pulumi engine: up, preview, rotate, destroy",
      `unset ${LIVE_ENV.skipEngine}`,
    ),
    on(s.appId, "app logs (function and CLI)", `set ${LIVE_ENV.app}`),
    on(s.buildId, "build logs (function and CLI)", `set ${LIVE_ENV.build}`),
    on(s.runId, "cancel a run", `set ${LIVE_ENV.run}`),
    on(s.secretsAppId, "write one app secret, PIMS_LIVE_CHECK", `set ${LIVE_ENV.secretsApp}`),
    on(
      s.resize,
      "grow a volume (may cost money)",
      s.resizeSkipped ?? `set ${LIVE_ENV.volume}, ${LIVE_ENV.resizeGb} and ${LIVE_ENV.allowResize}=1`,
    ),
    on(s.allowCreateProject, "create a project (cannot be deleted)", `set ${LIVE_ENV.allowCreateProject}=1`),
  ];
}
