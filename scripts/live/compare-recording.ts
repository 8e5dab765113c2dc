/**
 * `npm run compare-recording -- <recording.jsonl>`: where a wire recording (the live tier's, or any `PIMS_WIRE_RECORD`
 * file) shows the service answering in a way the simulator never does, so the next change to the simulator starts
 * from facts. The simulator's answers are recorded here and now: both profiles, every documented route (successes,
 * the errors it uses, a 429), the quirky profile with every readable token layout. Printed per route: statuses,
 * content types, response header names and body members (with their JSON types) the simulator never produces.
 * Exit 0 when compared (differences or not), 2 on a usage error.
 */
import * as fs from "node:fs";
import { PimsClient, type WireRecord } from "../../provider/client";
import type { Shape } from "../../provider/client/recorder";
import { Scheduler } from "../../provider/client/scheduler";
import { PimsSimulator } from "../../simulator";
import type { SimulatorProfile } from "../../simulator/dialect";
import { READABLE_TOKEN_LAYOUT_NAMES } from "../../simulator/tokenLayouts";

/** Reads a recording: one JSON record per line (blank and unparsable lines are skipped and counted). */
export function readRecording(file: string): { records: WireRecord[]; skipped: number } {
  const records: WireRecord[] = [];
  let skipped = 0;
  for (const line of fs.readFileSync(file, "utf8").split("\n")) {
    if (line.trim() === "") continue;
    try {
      const r = JSON.parse(line) as WireRecord;
      if (typeof r.method === "string" && typeof r.route === "string" && typeof r.status === "number") records.push(r);
      else skipped++;
    } catch {
      skipped++;
    }
  }
  return { records, skipped };
}

/** Calls that fail on purpose (the errors are recorded; they are not failures here). */
const ignoreFailure = async (p: Promise<unknown>): Promise<void> => {
  await p.catch(() => undefined);
};

/**
 * A client of the simulator that records every answer into `records`: no HTTP retries (each error is recorded as
 * answered), short waits (a loopback server needs no patience) and a request scheduler of its own, silent, so the 429
 * below paces no other client and prints no progress line.
 */
function recordingClient(sim: PimsSimulator, records: WireRecord[], token = sim.token): PimsClient {
  return new PimsClient({
    baseUrl: sim.baseUrl,
    token,
    retries: 0,
    minDelayMs: 5,
    maxDelayMs: 20,
    maxRetryAfterMs: 50,
    timeoutMs: 5000,
    scheduler: new Scheduler({ onProgress: () => undefined }),
    record: (r) => records.push(r),
  });
}

/** Every documented route against one simulator profile, as a client with a recorder sees it. */
async function recordProfile(profile: SimulatorProfile): Promise<WireRecord[]> {
  const records: WireRecord[] = [];
  const sim = await PimsSimulator.start({ profile });
  try {
    const client = recordingClient(sim, records);
    const p = sim.addProject({ name: "reference" }).id;
    const app = sim.addApp(p, "web").id;
    sim.generateLogs(p, app, 5);
    const build = sim.addBuild(p, app, { status: "success", logs: [{ log: "built" }] }).id;
    const run = sim.addRun(p, app).id;
    const volume = sim.addVolume(p, { sizeGb: 100 }).id;
    sim.addInvoice(p);

    const layouts = profile === "quirky" ? READABLE_TOKEN_LAYOUT_NAMES : (["default"] as const);
    const accounts: string[] = [];
    for (const [i, layout] of layouts.entries()) {
      sim.setTokenLayout(layout);
      for (const expiresIn of [3600, 0]) {
        const description = expiresIn === 0 ? "" : "a description";
        const sa = await client.createServiceAccount(p, {
          name: `reference-${i}-${expiresIn}`,
          grants: [p],
          expiresIn,
          description,
        });
        accounts.push(sa.id);
      }
    }
    await client.listApiKeys(p);
    await client.listInvoices(p);
    await client
      .getAppLogsPage(p, app, { pageSize: 2 })
      .then((page) => client.getAppLogsPage(p, app, { pageSize: 2, nextToken: page.nextPageToken }));
    await client.getAppLogsPage(p, app, { search: "matches-nothing" });
    await client.getBuildLogs(p, app, build);
    await client.updateAppSecrets(p, app, { A: "b" });
    await client.resizeVolume(p, volume, 200);
    await client.createProject({ name: "reference-project" });
    await client.cancelRun(p, app, run);
    for (const id of accounts) await client.deleteServiceAccount(p, id);

    // The errors the simulator uses: a deleted account, a finished run, invalid bodies; on every route a bad token
    // and an unknown project.
    await ignoreFailure(client.deleteServiceAccount(p, accounts[0]));
    await ignoreFailure(client.cancelRun(p, app, run));
    await ignoreFailure(client.createServiceAccount(p, { name: "invalid", grants: [], expiresIn: 60 }));
    await ignoreFailure(client.resizeVolume(p, volume, 10));
    const stranger = recordingClient(sim, records, "not-a-token");
    for (const [c, project] of [
      [stranger, p],
      [client, "p-00000000"],
    ] as const) {
      for (const call of [
        () => c.listApiKeys(project),
        () => c.createServiceAccount(project, { name: "x", grants: [project], expiresIn: 60 }),
        () => c.deleteServiceAccount(project, "sa-00000000"),
        () => c.resizeVolume(project, volume, 100),
        () => c.createProject({ name: "xx" }),
        () => c.listInvoices(project),
        () => c.getAppLogsPage(project, app),
        () => c.getBuildLogs(project, app, build),
        () => c.updateAppSecrets(project, app, { A: "b" }),
        () => c.cancelRun(project, app, run),
      ])
        await ignoreFailure(call());
    }
    sim.addFault({ kind: "rateLimit", retryAfter: "0", times: 1 });
    await client.listInvoices(p);
  } finally {
    await sim.stop();
  }
  return records;
}

/** What the simulator answers, both profiles. */
export async function simulatorReference(): Promise<WireRecord[]> {
  return [...(await recordProfile("default")), ...(await recordProfile("quirky"))];
}

/**
 * The facts a shape states, one string each: `<path>: <type>`, the path made of member names (`token.secret`) and
 * `[]` for array elements, the root being `(body)`. An object or array also states its own kind.
 */
export function shapeFacts(shape: Shape, at = "(body)"): string[] {
  if (typeof shape === "string") return shape.split("|").map((t) => `${at}: ${t}`);
  if (Array.isArray(shape)) return [`${at}: array`, ...(shape.length > 0 ? shapeFacts(shape[0], `${at}[]`) : [])];
  const keys = Object.keys(shape);
  if (keys.length === 1 && keys[0] === "oneOf" && Array.isArray(shape.oneOf))
    return shape.oneOf.flatMap((s) => shapeFacts(s, at));
  const base = at === "(body)" ? "" : `${at}.`;
  return [
    `${at}: object`,
    ...keys.flatMap((k) => shapeFacts(shape[k], `${base}${k.endsWith("?") ? k.slice(0, -1) : k}`)),
  ];
}

const routeOf = (r: WireRecord): string => `${r.method} ${r.route}`;
const outcome = (status: number): string => (status === 0 ? "no answer" : status < 300 ? "success" : "error");

/**
 * What one route's answers show: statuses, and per outcome (success, error) content types, header names and body facts.
 */
interface RouteFacts {
  statuses: Set<number>;
  byOutcome: Map<string, { contentTypes: Set<string>; headers: Set<string>; facts: Set<string> }>;
}

function factsByRoute(records: readonly WireRecord[]): Map<string, RouteFacts> {
  const out = new Map<string, RouteFacts>();
  for (const r of records) {
    let route = out.get(routeOf(r));
    if (!route) out.set(routeOf(r), (route = { statuses: new Set(), byOutcome: new Map() }));
    route.statuses.add(r.status);
    let o = route.byOutcome.get(outcome(r.status));
    if (!o)
      route.byOutcome.set(outcome(r.status), (o = { contentTypes: new Set(), headers: new Set(), facts: new Set() }));
    o.contentTypes.add(r.contentType ?? "(none)");
    for (const h of r.headers ?? []) o.headers.add(h);
    for (const f of shapeFacts(r.body)) o.facts.add(f);
  }
  return out;
}

/** The differences, per route: what `recorded` shows that `reference` never does. Empty: none. */
export function compareRecordings(
  recorded: readonly WireRecord[],
  reference: readonly WireRecord[],
): Map<string, string[]> {
  const ref = factsByRoute(reference);
  const diffs = new Map<string, string[]>();
  for (const [route, got] of factsByRoute(recorded)) {
    const lines: string[] = [];
    const known = ref.get(route);
    if (!known) lines.push("the simulator never answers this route");
    for (const s of got.statuses)
      if (known && !known.statuses.has(s)) lines.push(`status ${s}: the simulator never answers it here`);
    for (const [o, facts] of got.byOutcome) {
      const k = known?.byOutcome.get(o);
      if (known && !k) continue; // its statuses were named above
      for (const c of facts.contentTypes)
        if (k && !k.contentTypes.has(c)) lines.push(`${o}: content type ${c}: the simulator never sends it`);
      for (const h of facts.headers)
        if (k && !k.headers.has(h)) lines.push(`${o}: header ${h}: the simulator never sends it`);
      for (const f of facts.facts) if (k && !k.facts.has(f)) lines.push(`${o}: ${f}: the simulator never sends it`);
    }
    if (lines.length > 0) diffs.set(route, lines);
  }
  return diffs;
}

/** The report `npm run compare-recording` prints. */
export function formatDifferences(diffs: Map<string, string[]>, recordCount: number): string {
  if (diffs.size === 0) return `${recordCount} records: the simulator produces everything this recording shows\n`;
  const out = [`${recordCount} records; where the service differs from the simulator (both profiles):`];
  for (const [route, lines] of [...diffs].sort(([a], [b]) => a.localeCompare(b)))
    out.push(route, ...lines.map((l) => `  - ${l}`));
  return out.join("\n") + "\n";
}

async function main(argv: string[]): Promise<number> {
  const file = argv[0];
  if (!file || argv.length > 1) {
    console.error("usage: npm run compare-recording -- <recording.jsonl>");
    return 2;
  }
  if (!fs.existsSync(file)) {
    console.error(`compare-recording: no such file: ${file}`);
    return 2;
  }
  const { records, skipped } = readRecording(file);
  if (skipped > 0) console.error(`compare-recording: ${skipped} line(s) are not records; skipped`);
  process.stdout.write(formatDifferences(compareRecordings(records, await simulatorReference()), records.length));
  return 0;
}

if (require.main === module) void main(process.argv.slice(2)).then((code) => process.exit(code));
