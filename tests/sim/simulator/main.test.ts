/** `npm run simulator` (simulator/main.ts) as a process: its flags, what it prints, and that it serves. */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import * as path from "node:path";

const ROOT = path.resolve(__dirname, "../../..");
const children: ChildProcessWithoutNullStreams[] = [];

/** Starts main.ts with args; resolves with the KEY=value lines once PIMS_BASE_URL and the ids are printed. */
function startMain(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Record<string, string>> {
  const child = spawn(
    process.execPath,
    [require.resolve("ts-node/dist/bin.js"), "--transpile-only", "simulator/main.ts", ...args],
    {
      cwd: ROOT,
      env: { ...process.env, PIMS_SIM_PROFILE: "", PIMS_SIM_PORT: "", ...env },
    },
  );
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes("PIMS_INVOICE_ID=")) {
        resolve(
          Object.fromEntries(
            out
              .trim()
              .split("\n")
              .map((line) => line.split(/=(.*)/s, 2) as [string, string]),
          ),
        );
      }
    });
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    child.on("exit", (code) => reject(new Error(`simulator exited with ${code}: ${err.trim()}`)));
  });
}

afterEach(async () => {
  // Stop each started simulator by its own pid and wait until it is gone, so no process outlives the test.
  await Promise.all(
    children.splice(0).map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once("exit", () => resolve());
          child.kill("SIGTERM");
        }),
    ),
  );
});

async function get(vars: Record<string, string>, suffix: string): Promise<Response> {
  return fetch(`${vars.PIMS_BASE_URL}/v2/projects/${vars.PIMS_PROJECT_ID}${suffix}`, {
    headers: { Authorization: `Bearer ${vars.PIMS_TOKEN}` },
  });
}

describe("npm run simulator", () => {
  it("--profile quirky --rate 20 --burst 20: a seeded quirky simulator with a rate limit", async () => {
    const vars = await startMain(["--profile", "quirky", "--rate", "20", "--burst", "20"]);
    expect(vars).toMatchObject({ PIMS_SIM_PROFILE: "quirky", PIMS_SIM_RATE: "20", PIMS_SIM_BURST: "20" });
    expect(vars.PIMS_BASE_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const logs = (await (await get(vars, `/apps/${vars.PIMS_APP_ID}/logs`)).json()) as {
      nextPageToken: unknown;
      kind: string;
    };
    expect(logs.kind).toBe("AppLogPage"); // a quirky extra member
    const statuses = await Promise.all(Array.from({ length: 30 }, () => get(vars, "/invoices").then((r) => r.status)));
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(5);
  });

  it("defaults: the default profile from an empty environment, PIMS_SIM_PROFILE when set, --port=N", async () => {
    const plain = await startMain([]);
    expect(plain.PIMS_SIM_PROFILE).toBe("default");
    expect(plain).not.toHaveProperty("PIMS_SIM_RATE");
    const fromEnv = await startMain(["--retry-after=date", "--rate=1"], { PIMS_SIM_PROFILE: "quirky" });
    expect(fromEnv).toMatchObject({ PIMS_SIM_PROFILE: "quirky", PIMS_SIM_RATE: "1", PIMS_SIM_BURST: "1" });
    await get(fromEnv, "/invoices");
    const refused = await get(fromEnv, "/invoices");
    expect(refused.status).toBe(429);
    expect(Date.parse(refused.headers.get("retry-after") ?? "")).toBeGreaterThan(Date.now() - 1000);
  });

  it("--delay: the route answers late and commits after the client has gone; other routes are not late", async () => {
    const vars = await startMain(["--delay", "POST /v2/projects/*/service-accounts=2000"]);
    expect(vars.PIMS_SIM_DELAY).toBe("POST /v2/projects/*/service-accounts=2000");
    const headers = { Authorization: `Bearer ${vars.PIMS_TOKEN}`, "Content-Type": "application/json" };
    const body = JSON.stringify({ name: "late", grants: [vars.PIMS_PROJECT_ID], expiresIn: 0 });
    // The client gives up long before the delay ends: POST /v2/projects/{project_id}/service-accounts gets no answer.
    const sent = fetch(`${vars.PIMS_BASE_URL}/v2/projects/${vars.PIMS_PROJECT_ID}/service-accounts`, {
      method: "POST",
      headers,
      body,
      signal: AbortSignal.timeout(100),
    });
    await expect(sent).rejects.toThrow();
    // Not delayed: another method, and a path the pattern does not match (the * is one segment, the end is anchored).
    expect((await get(vars, "/api-keys")).status).toBe(200);
    const project = await fetch(`${vars.PIMS_BASE_URL}/v2/projects`, {
      method: "POST",
      headers,
      body: JSON.stringify({ name: "quick" }),
    });
    expect(project.status).toBe(201);
    // The handler ran anyway once the delay was over:
    // the account's key appears in GET /v2/projects/{project_id}/api-keys.
    const accountKeys = async (): Promise<string[]> => {
      const keys = (await (await get(vars, "/api-keys")).json()) as Array<{ name: string; principalId?: string }>;
      return keys.filter((k) => k.principalId).map((k) => k.name);
    };
    expect(await accountKeys()).toEqual([]);
    let names: string[] = [];
    for (let i = 0; i < 200 && names.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      names = await accountKeys();
    }
    expect(names).toEqual(["late"]);
  });

  it.each([
    [["--delay", "slow"], "--delay must be '[METHOD ]PATH=MS'"],
    [["--delay", "POST /v2/projects=soon"], "--delay must be '[METHOD ]PATH=MS'"],
    [["--profile", "weird"], "--profile must be one of default, quirky, got weird"],
    [["--burst", "5"], "--burst needs --rate"],
    [["--rate", "fast"], "--rate must be a number, got fast"],
    [["--token-layout", "xml"], "--token-layout is not a token layout: xml"],
    [["--colour", "red"], "unknown argument --colour"],
  ])("refuses %j", async (args, expected) => {
    await expect(startMain(args)).rejects.toThrow(expected);
  });
});
