/**
 * The live tier (`npm run test:live`, scripts/live/tier.ts and tests/live) pointed at a simulator instead of a real
 * service, once per profile, with every optional check on: it must pass, leave no account with its prefix, and write
 * a recording that holds no secret and no id the run saw but shows the profile's shapes (the token member names of
 * each account it created). And without its environment it must say what to set in one line and exit 0.
 *
 * Set-up: its own, because it runs the live tier's own runner, which starts a simulator per profile.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import type { WireRecord } from "../../../provider/client";
import { DOCUMENTED_ROUTES } from "../../../provider/client/recorder";
import { ensureEngine, NODE_BIN, REPO_ROOT, tempDir } from "../../../scripts/engine";
import type { PimsSimulator } from "../../../simulator";
import { TOKEN_LAYOUTS } from "../../../simulator/tokenLayouts";
import { LIVE_ENV, newPrefix, NOT_CONFIGURED } from "../../../scripts/live/settings";
import { E2E_TIMEOUT_MS, ENGINE_SETUP_TIMEOUT_MS } from "../../kit/engine/engine";
import { expectNoPlaintextSecrets } from "../../kit/secrets/secrets";
import { startSimulator } from "../../kit/sim/simulator";

jest.setTimeout(E2E_TIMEOUT_MS);

interface GateRun {
  code: number | null;
  output: string;
}

/** `npm run test:live` (the gate itself, on Node 22), asynchronously: the simulator in this process keeps serving. */
function runGate(env: Record<string, string>): Promise<GateRun> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("PIMS_")));
  return new Promise((resolve, reject) => {
    const child = spawn(
      path.join(NODE_BIN, "ts-node"),
      ["--transpile-only", path.join(REPO_ROOT, "scripts", "live", "tier.ts")],
      {
        cwd: REPO_ROOT,
        env: { ...base, PATH: `${NODE_BIN}${path.delimiter}${process.env.PATH ?? ""}`, ...env },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (output += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (output += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

test("without its environment, the tier prints one line saying what to set and exits 0", async () => {
  const run = await runGate({});
  expect(run.code).toBe(0);
  expect(run.output.trim().split("\n").slice(-1)).toEqual([NOT_CONFIGURED]);
  expect(run.output).not.toMatch(/PASS|FAIL|Tests:/);
});

type Profile = "default" | "quirky";

/** One run of the tier against a fresh simulator, everything allowed, and what the assertions need. */
interface TierRun extends GateRun {
  sim: PimsSimulator;
  scratch: string;
  recording: string;
  prefix: string;
  /** The seeded project, app, build, run, volume and invoice. */
  ids: string[];
}

/**
 * The engine step runs against the quirky profile only: it costs most of a run's minute, and the default profile's
 * engine lifecycle is tests/engine/typescript/lifecycle.test.ts's job. Every other check runs against both.
 */
const WITH_ENGINE: Record<Profile, boolean> = { default: false, quirky: true };

async function runAgainstSimulator(profile: Profile): Promise<TierRun> {
  const sim = await startSimulator({ profile });
  const p = sim.addProject({ name: "live-home" });
  const app = sim.addApp(p.id, "web");
  sim.addLogs(p.id, app.id, [{ logLine: "live tier line 1" }, { logLine: "live tier line 2" }]);
  const build = sim.addBuild(p.id, app.id, { status: "success", logs: [{ log: "built" }] });
  const runToCancel = sim.addRun(p.id, app.id);
  const volume = sim.addVolume(p.id, { sizeGb: 100 });
  const invoice = sim.addInvoice(p.id);
  const scratch = tempDir(`pims-live-tier-${profile}-`);
  const recording = path.join(scratch, "recording.jsonl");
  const prefix = newPrefix();
  const run = await runGate({
    [LIVE_ENV.baseUrl]: sim.baseUrl,
    [LIVE_ENV.token]: sim.token,
    [LIVE_ENV.project]: p.id,
    [LIVE_ENV.app]: app.id,
    [LIVE_ENV.build]: build.id,
    [LIVE_ENV.run]: runToCancel.id,
    [LIVE_ENV.secretsApp]: app.id,
    [LIVE_ENV.volume]: volume.id,
    [LIVE_ENV.allowResize]: "1",
    [LIVE_ENV.resizeGb]: "200",
    [LIVE_ENV.allowCreateProject]: "1",
    [LIVE_ENV.recording]: recording,
    [LIVE_ENV.prefix]: prefix,
    ...(WITH_ENGINE[profile] ? {} : { [LIVE_ENV.skipEngine]: "1" }),
    PIMS_RETRY_MIN_DELAY_MS: "5",
  });
  return {
    ...run,
    sim,
    scratch,
    recording,
    prefix,
    ids: [p.id, app.id, build.id, runToCancel.id, volume.id, invoice.id],
  };
}

describe.each(["default", "quirky"] as const)(
  "the live tier against the simulator (%s profile), every check on",
  (profile) => {
    let sim: PimsSimulator;
    let recording: string;
    let run: TierRun;
    let prefix: string;
    let ids: string[];

    beforeAll(async () => {
      if (WITH_ENGINE[profile]) ensureEngine();
      run = await runAgainstSimulator(profile);
      ({ sim, recording, prefix, ids } = run);
    }, ENGINE_SETUP_TIMEOUT_MS);

    afterAll(async () => {
      await run?.sim.stop();
      if (run) fs.rmSync(run.scratch, { recursive: true, force: true });
    });

    const records = (): WireRecord[] =>
      fs
        .readFileSync(recording, "utf8")
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l) as WireRecord);

    test("passes, no check skipped (but the engine's where off); its final listing finds nothing of its prefix", () => {
      if (run.code !== 0) throw new Error(`the live tier failed (exit ${run.code}):\n${run.output}`);
      expect(run.output).toMatch(/Tests: +(\d+ skipped, )?\d+ passed, \d+ total/);
      const off = run.output.split("\n").filter((l) => /^ {2}off {2}/.test(l));
      expect(off).toEqual(WITH_ENGINE[profile] ? [] : [expect.stringContaining("one stack through the Pulumi engine")]);
      if (WITH_ENGINE[profile]) expect(run.output).not.toMatch(/skipped/);
      expect(run.output).toContain(`final listing: no service account named ${prefix}* is left`);
    });

    test("it created accounts with its prefix, and none is left; it changed what it was allowed to", () => {
      const deleted = sim.deletedServiceAccounts();
      // the client's account; with the engine, the stack's and its replacement too
      expect(deleted.length).toBeGreaterThanOrEqual(WITH_ENGINE[profile] ? 3 : 1);
      expect(sim.serviceAccounts().filter((a) => a.name.startsWith(prefix))).toEqual([]);
      expect(sim.projects().map((p) => p.name)).toContain(`${prefix}project`);
      expect(sim.volumes()[0].sizeGb).toBe(200);
      expect(Object.keys(sim.appSecrets(ids[0], ids[1]))).toEqual(["PIMS_LIVE_CHECK"]);
    });

    test("the recording holds no secret and no id the run saw, and every documented route is in it", () => {
      const text = fs.readFileSync(recording, "utf8");
      const seen = [
        sim.token,
        ...sim.issuedSecrets(),
        ...sim.deletedServiceAccounts(),
        ...sim.projects().map((p) => p.id),
        ...ids,
        ...Object.values(sim.appSecrets(ids[0], ids[1])),
        prefix,
      ];
      expectNoPlaintextSecrets(text, seen, "the live tier's recording");
      expectNoPlaintextSecrets(run.output, [sim.token, ...sim.issuedSecrets()], "the live tier's output");
      const routes = new Set(records().map((r) => `${r.method} ${r.route}`));
      expect([...routes].sort()).toEqual(DOCUMENTED_ROUTES.map((r) => `${r.method} ${r.route}`).sort());
    });

    test("the recording shows the profile's shapes: each created account's token members", () => {
      const tokenShapes = records()
        .filter(
          (r) => r.method === "POST" && r.route === "/v2/projects/{project_id}/service-accounts" && r.status < 300,
        )
        .map((r) => (r.body as Record<string, unknown>).token);
      // Every account created (by the test process and, with the engine, by the provider host) left its line.
      expect(tokenShapes).toHaveLength(sim.deletedServiceAccounts().length);
      const members = new Set(tokenShapes.flatMap((t) => (typeof t === "object" && t !== null ? Object.keys(t) : [])));
      const layouts = sim.deletedServiceAccounts().map((id) => sim.tokenLayoutOf(id) ?? "default");
      for (const layout of layouts) {
        const l = TOKEN_LAYOUTS[layout];
        if (l.secret) expect(members).toContain(l.secret);
        if (l.id) expect(members).toContain(l.id.member);
      }
      if (profile === "quirky") {
        expect(layouts.some((l) => l !== "default")).toBe(true);
        expect(members).toContain("issuedAt"); // the quirky profile's extra token member
      } else {
        expect([...members].sort()).toEqual(["expiresAt", "id", "secret"]);
      }
    });
  },
);
