/**
 * The peer-bug suite (issue 55) as one table: the failures users of other token providers keep hitting, each with the
 * public issues it comes from, what pims must do instead, and the test that proves it in each host: `typescript`
 * through the dynamic provider (a TypeScript program), `yaml` through the plugin (a YAML program). Where a row is
 * proven by tests that already existed, the table names them where they are; the new scenarios live beside this file
 * and their titles begin `row <N>, typescript:` or `row <N>, yaml:`. tests/rules/peerBugs.test.ts fails when a file
 * or a test the table names is missing or skipped, when a row lacks a host, or when the rows are not 1..N.
 */

/** A test that proves a row: the suite's path from the repository's root, and a part of the test's title. */
export interface Proof {
  file: string;
  /** A substring of the title (for a title written in a kit module the suite calls, such as describeFixtures). */
  test: string;
}

/** The two hosts every row is proven through. */
export const HOSTS = ["typescript", "yaml"] as const;
export type Host = (typeof HOSTS)[number];

/** One failure class. */
export interface PeerBug {
  row: number;
  /** What goes wrong in other providers. */
  elsewhere: string;
  /** The public issues and pull requests it comes from (`owner/repo #N`), or what it follows from. */
  anchors: readonly string[];
  /** What pims does instead, as the proving tests assert it. */
  pimsMust: string;
  /** Through the dynamic provider (a TypeScript program). */
  typescript: Proof;
  /** Through the plugin (a YAML program under the real engine and the official YAML host). */
  yaml: Proof;
  /** Tests of the same code below the hosts (the provider objects, the client, the CLI) that prove a part of it. */
  also?: readonly Proof[];
}

const PEER = "tests/engine/peerBugs";
const TS = "tests/engine/typescript";
const PLUGIN = "tests/engine/plugin";
const SIM_SA = "tests/sim/serviceAccount";

/** A new scenario of this suite: `row <N>, typescript:` and `row <N>, yaml:` in `file`, then `title` if given. */
const scenario = (row: number, file: string, title = ""): Pick<PeerBug, "typescript" | "yaml"> => ({
  typescript: { file: `${PEER}/${file}`, test: `row ${row}, typescript:${title && ` ${title}`}` },
  yaml: { file: `${PEER}/${file}`, test: `row ${row}, yaml:${title && ` ${title}`}` },
});

export const PEER_BUGS: readonly PeerBug[] = [
  {
    row: 1,
    elsewhere: "refresh clears a token, or drops a live key, after a blind or partial read",
    anchors: [
      "pulumi/pulumi-pulumiservice #176",
      "pulumi/pulumi-pulumiservice #359",
      "DataDog/terraform-provider-datadog #2048",
      "DataDog/terraform-provider-datadog PR #2451",
      "DataDog/terraform-provider-datadog PR #2544",
      "DataDog/terraform-provider-datadog PR #2765",
    ],
    pimsMust:
      "a 401/403/5xx or a listing missing the run's accounts never reads as absence; " +
      "outputs of a kept account never change",
    ...scenario(1, "refreshAndRename.test.ts"),
    also: [
      { file: `${SIM_SA}/refresh.test.ts`, test: "a listing that answers %s: kept unchanged, saying why" },
      { file: `${SIM_SA}/refresh.test.ts`, test: "a credential that sees nothing (the listing answers []): all kept" },
      { file: `${TS}/interrupted.test.ts`, test: "a refresh right after a create changes nothing" },
    ],
  },
  {
    row: 2,
    elsewhere: "`up --refresh` wants to re-create every token",
    anchors: ["pulumi/pulumi-pulumiservice #159"],
    pimsMust: "0 changes after `preview --refresh` and `up --refresh` on a healthy stack",
    ...scenario(2, "refreshAndRename.test.ts"),
  },
  {
    row: 3,
    elsewhere: 'an expired token is reported as "deleted outside", with false drift and no clean-up',
    anchors: ["grafana PR #1678", "grafana #2734"],
    pimsMust:
      "refresh tells expired from deleted and says so; the preview says why (the account, when its token expired on " +
      "the service's clock); the next `up` rotates (or says why not); no ghost in the state",
    ...scenario(3, "expiryAndClock.test.ts", "refresh says expired (not deleted), the preview says why"),
    also: [
      {
        file: "tests/unit/serviceAccount/diff.test.ts",
        test: "a current account a refresh marked: the reason and the warning say what it found",
      },
    ],
  },
  {
    row: 4,
    elsewhere:
      "the provider's own credential is rotated in config, " +
      "but `refresh`/`destroy` keep using the old one from the state",
    anchors: [
      "pulumi/pulumi-github #203",
      "pulumi-cloudflare #498",
      "pulumi-vault #118",
      "pulumi/pulumi-digitalocean #804",
      "pulumi/pulumi #4981",
    ],
    pimsMust: "a 401 from a stale credential says exactly this and names `--run-program`; with it both succeed",
    ...scenario(4, "providerCredential.test.ts"),
  },
  {
    row: 5,
    elsewhere: "a stack's explicit provider uses a token made by the same stack; rotating it breaks its resources",
    anchors: ["the pattern of examples/multi-account (a provider authenticated by an account of the stack)"],
    pimsMust:
      "with `keepPreviousToken` the provider's resources keep working through 3 rotations; " +
      "without it, the preview warns",
    ...scenario(5, "providerRotation.test.ts"),
  },
  {
    row: 6,
    elsewhere: "an imported token is `null`, so the import is useless",
    anchors: ["grafana #2103", "confluent #344"],
    pimsMust:
      "`pulumi import` from a file carrying `outputs` holds that token, proven against the listing; " +
      "a wrong token refused",
    ...scenario(6, "importOutputs.test.ts"),
  },
  {
    row: 7,
    elsewhere: "the API omits the secret or returns it in a new shape, and the state is overwritten",
    anchors: ["DataDog/terraform-provider-datadog PR #2451", "DataDog/terraform-provider-datadog PR #2765"],
    pimsMust:
      "never an account in the state without a usable token, never an unknown live account (the token layout rules)",
    ...scenario(7, "tokenLifecycle.test.ts"),
    also: [
      { file: `${TS}/lifecycle.test.ts`, test: "up creates all four resources in the simulator" },
      { file: `${TS}/rotation.test.ts`, test: "rotations: keepPreviousToken, no consumer 401" },
      { file: `${SIM_SA}/create.test.ts`, test: "create, replace and delete leave no account nobody holds" },
      { file: `${SIM_SA}/create.test.ts`, test: "(no identifiable secret): the account is deleted at once" },
      { file: `${SIM_SA}/create.test.ts`, test: "unreadable token and the delete fails: the error says the account" },
      // The ESC adapter (issue 63): a failed request names exactly what the listing shows left live.
      { file: "tests/kit/esc/table.ts", test: "every create committed, then 503" },
      { file: "tests/kit/esc/table.ts", test: "a failing delete: 503 naming each extra account" },
    ],
  },
  {
    row: 8,
    elsewhere: "rotation invalidates the old token at once",
    anchors: [
      "grafana/terraform-provider-grafana #1705",
      "grafana/terraform-provider-grafana PR #2390",
      "grafana/terraform-provider-grafana PR #2405",
    ],
    pimsMust: "`keepPreviousToken`: 0 consumer 401s over 4 rotations",
    typescript: { file: `${TS}/rotation.test.ts`, test: "rotations: keepPreviousToken, no consumer 401" },
    yaml: { file: `${PEER}/tokenLifecycle.test.ts`, test: "row 8, yaml:" },
    also: [
      { file: `${SIM_SA}/rotation.test.ts`, test: "five rotations (trigger and window, short expiries)" },
      { file: `${PLUGIN}/tokenDelivery.test.ts`, test: "new tokens delivered first, the previous ones kept valid" },
    ],
  },
  {
    row: 9,
    elsewhere: "no early-renewal window, tokens expire in production",
    anchors: ["pulumi/pulumi-pulumiservice #393"],
    pimsMust: "`rotateBeforeExpiry` rotates on the first `up` inside the window; `pims tokens` warns before",
    typescript: {
      file: `${TS}/lifecycle.test.ts`,
      test: "once inside its rotateBeforeExpiry window, the next up replaces the account",
    },
    yaml: { file: `${PEER}/tokenLifecycle.test.ts`, test: "row 9, yaml:" },
    also: [{ file: "tests/sim/cli/tokens.test.ts", test: "exits 4 when a token expires within the window" }],
  },
  {
    row: 10,
    elsewhere: "a provider upgrade replaces secrets or changes their config shape",
    anchors: ["pulumi/pulumi-gcp #1488", "pulumi/pulumi-gitlab #273"],
    pimsMust: "from every released version's state: refresh changes nothing and writes nothing, destroy works",
    typescript: {
      file: "tests/engine/compat/dynamic.test.ts",
      test: "refresh: one listing per project, nothing changes, the stored tokens and secrets survive",
    },
    yaml: {
      file: "tests/engine/compat/plugin.test.ts",
      test: "refresh: one listing per project, nothing changes, the stored tokens and secrets survive",
    },
  },
  {
    row: 11,
    elsewhere: "a renamed resource replaces the token",
    anchors: ["Pulumi's `aliases` resource option"],
    pimsMust: "renaming with `aliases` (TypeScript) or the `aliases` option (YAML): 0 changes, the token unchanged",
    ...scenario(11, "refreshAndRename.test.ts"),
  },
  {
    row: 12,
    elsewhere: "`pulumi state delete` or a lost state leaves a live account nothing names",
    anchors: ["none public: follows from the service having no read of an account"],
    pimsMust:
      "the account is found by `pims service-accounts list` / `pulumi do … list` and adopted or deleted; " +
      "the docs' recovery steps tested",
    ...scenario(12, "strandedAccount.test.ts"),
    also: [
      { file: "tests/sim/cli/serviceAccountsState.test.ts", test: "the account the stack does not hold is STACK no" },
    ],
  },
  {
    row: 13,
    elsewhere: "the provider deletes (or rotates away) the very token it is authenticated with, mid-run",
    anchors: ["terraform-provider-fivenines #16"],
    pimsMust:
      "an account whose token is the credential in use is never deleted before the run's last call with it; " +
      "a destroy that would do so refuses, saying which account and what to do",
    ...scenario(13, "providerCredential.test.ts"),
  },
  {
    row: 14,
    elsewhere: "a plaintext secret in state or logs",
    anchors: ["pulumi/pulumi-pulumiservice #377", "pulumi/pulumi-pulumiservice PR #118"],
    pimsMust: "0 tokens in exports and in pims' own log lines (the leak scans)",
    typescript: {
      file: `${TS}/lifecycle.test.ts`,
      test: "no issued token or secret value appears in any engine output, state file or stack config file",
    },
    yaml: {
      file: `${PLUGIN}/tokenDelivery.test.ts`,
      test: "destroy: every account deleted, 0 live; nothing anywhere, nor in any file of the scratch",
    },
    also: [
      { file: `${TS}/tokenDelivery.test.ts`, test: "rotations: new token delivered before each up ends" },
      { file: "tests/sim/client/errorSecrets.test.ts", test: "HTTP error: 401 with a bad token" },
      { file: "tests/sim/plugin/resources.test.ts", test: "no answer, error or warning carried a token" },
    ],
  },
  {
    row: 15,
    elsewhere: "a slow create retried into duplicates",
    anchors: ["none public: follows from POST not being idempotent"],
    pimsMust: "≤ 1 account per declared resource; every unknown one named",
    typescript: {
      file: `${TS}/slowService.test.ts`,
      test: "2 accounts, each create beyond the timeout: up fails, ≤ 2 accounts, each named with its delete",
    },
    yaml: { file: `${PEER}/tokenLifecycle.test.ts`, test: "row 15, yaml:" },
    also: [
      { file: `${SIM_SA}/slowCreate.test.ts`, test: "2 accounts: one POST each, never repeated" },
      { file: `${TS}/soak.test.ts`, test: "after the service commits: up fails, naming every orphan" },
    ],
  },
  {
    row: 16,
    elsewhere: "clock skew: the local clock is ahead or behind the service's",
    anchors: ["none public: follows from expiry decisions on two clocks"],
    pimsMust:
      "expiry decisions use the service's times (its `expiresAt`, its `Date` header); ±1 h skew changes nothing",
    ...scenario(16, "expiryAndClock.test.ts"),
  },
];
