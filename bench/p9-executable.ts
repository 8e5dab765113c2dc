/**
 * P9: the self-contained plugin executable (`npm run release`, this machine's platform) ÷ the npm package's Node
 * launcher (plugin/pulumi-resource-pims, which runs bin/provider/plugin/main.js with `node`), both measured here:
 *
 * - start: `pulumi package get-schema <plugin>`, from the engine's start to its first answered call (the engine
 *   starts the plugin, reads its port, handshakes and asks GetSchema): medians of ABBA runs, goal ≤ 1.0; and the
 *   plugin alone, from its start to the port on its first line (informative);
 * - size: the executable and its archive ÷ the Node.js binary it is made of (informative);
 * - memory: the plugin's peak resident memory during a YAML `up` of 1,000 ServiceAccounts (informative);
 * - P8 again through the executable: the P5 stack and N = 1,000 ServiceAccounts from YAML ÷ the dynamic resources.
 */
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import {
  abba,
  loadEngine,
  log,
  median,
  now,
  okOrMissed,
  REPO,
  round,
  seconds,
  type BenchOptions,
  type Row,
} from "./harness";
import { executable, runOnce, seed, type Run, type Variant } from "./p8-plugin";
import { PimsSimulator } from "../simulator";
import { thirdPartyLicenses, writeArchive } from "../scripts/release/archive";
import { bundlePlugin } from "../scripts/release/bundle";
import { buildExecutable, nodeBinary } from "../scripts/release/executable";
import { executableName, hostPlatform } from "../scripts/release/platforms";

const LAUNCHER_DIR = path.join(REPO, "plugin");

/** `pulumi package get-schema` of the plugin in `dir`: milliseconds from the CLI's start to its exit. */
function schemaMs(dir: string): number {
  const engine = loadEngine();
  const backend = engine.tempDir("pims-bench-p9-");
  try {
    const env = { ...process.env, ...engine.engineEnv(backend) };
    const t0 = now();
    execFileSync(
      path.join(engine.ensureEngine(), "pulumi"),
      ["package", "get-schema", path.join(dir, "pulumi-resource-pims")],
      {
        cwd: backend,
        env,
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    return now() - t0;
  } finally {
    fs.rmSync(backend, { recursive: true, force: true });
  }
}

/** The plugin in `dir` alone: milliseconds from its start to the port on its first line. */
function portMs(dir: string): Promise<number> {
  const env = {
    ...process.env,
    PATH: `${path.join(REPO, "node_modules", ".bin")}${path.delimiter}${process.env.PATH}`,
  };
  return new Promise((resolve, reject) => {
    const t0 = now();
    const child = spawn(path.join(dir, "pulumi-resource-pims"), [], { env, stdio: ["ignore", "pipe", "ignore"] });
    child.stdout.once("data", () => {
      resolve(now() - t0);
      child.kill("SIGKILL");
    });
    child.on("error", reject);
  });
}

const mbText = (b: number): string => `${(b / 1048576).toFixed(1)} MB`;

export async function p9({ quick }: BenchOptions): Promise<Row[]> {
  const platform = hostPlatform();
  if (platform === undefined) throw new Error(`no release platform for ${process.platform}-${process.arch}`);
  const engine = loadEngine();
  const work = engine.tempDir("pims-bench-p9-exe-");
  const rows: Row[] = [];
  try {
    log("P9: the executable of this platform (the release build, cached)");
    const bundle = await bundlePlugin(REPO);
    const exe = await buildExecutable(platform, bundle.file);
    executable.dir = path.join(work, "plugin");
    fs.mkdirSync(executable.dir);
    fs.copyFileSync(exe, path.join(executable.dir, executableName(platform)));
    fs.chmodSync(path.join(executable.dir, executableName(platform)), 0o755);
    const node = nodeBinary(platform);
    const notices = path.join(work, "notices");
    fs.writeFileSync(notices, `${fs.readFileSync(node.license, "utf8")}\n${thirdPartyLicenses(REPO, bundle.packages)}`);
    const archive = path.join(work, "plugin.tar.gz");
    writeArchive(archive, {
      [executableName(platform)]: { from: exe, executable: true },
      LICENSE: { from: path.join(REPO, "LICENSE") },
      "THIRD-PARTY-LICENSES": { from: notices },
    });

    const reps = quick ? 2 : 7;
    const starts: Record<"exe" | "launcher", number[]> = { exe: [], launcher: [] };
    const ports: Record<"exe" | "launcher", number[]> = { exe: [], launcher: [] };
    schemaMs(executable.dir); // warm-ups: the file cache, the engine's first start
    schemaMs(LAUNCHER_DIR);
    for (const v of abba<"exe" | "launcher">(["exe", "launcher"], reps)) {
      const dir = v === "exe" ? executable.dir : LAUNCHER_DIR;
      starts[v].push(schemaMs(dir));
      ports[v].push(await portMs(dir));
    }
    const list = (xs: number[]): string => xs.map(Math.round).join(", ");
    log(`P9: get-schema exe ${list(starts.exe)} ms; launcher ${list(starts.launcher)} ms`);
    const start = median(starts.exe) / median(starts.launcher);
    rows.push({
      ...{ id: "P9", measure: "start: engine start to the first answered call (`pulumi package get-schema`)" },
      ...{ ours: seconds(median(starts.exe), 2), baseline: seconds(median(starts.launcher), 2), ratio: round(start) },
      ...{ goal: "≤ 1.0", status: okOrMissed(start <= 1.0), raw: { starts } },
    });
    rows.push({
      ...{ id: "P9", measure: "(also) the plugin alone: its start to the port on its first line" },
      ...{ ours: `${Math.round(median(ports.exe))} ms`, baseline: `${Math.round(median(ports.launcher))} ms` },
      ...{ ratio: round(median(ports.exe) / median(ports.launcher)), goal: "— (informative)", status: "N/A" as const },
      raw: { ports },
    });
    const [exeBytes, nodeBytes, archiveBytes] = [exe, node.bin, archive].map((f) => fs.statSync(f).size);
    rows.push({
      ...{
        id: "P9",
        measure: `size: the ${platform.os}-${platform.arch} executable ÷ the Node.js binary it is made of`,
      },
      ...{ ours: mbText(exeBytes), baseline: mbText(nodeBytes), ratio: round(exeBytes / nodeBytes, 3) },
      ...{ goal: "— (informative)", status: "N/A" as const },
    });
    rows.push({
      ...{ id: "P9", measure: "size: its archive (.tar.gz) ÷ the executable" },
      ...{ ours: mbText(archiveBytes), baseline: mbText(exeBytes), ratio: round(archiveBytes / exeBytes) },
      ...{ goal: "— (informative)", status: "N/A" as const },
    });

    log("P9: the P5 stack through the executable (YAML) vs the dynamic resources (TypeScript)");
    const sim = await PimsSimulator.start();
    seed(sim);
    const p5: Run[] = [];
    try {
      await runOnce(sim, "exe", { kind: "p5" }, "w");
      await runOnce(sim, "ts", { kind: "p5" }, "w");
      for (const [i, v] of abba<Variant>(["exe", "ts"], quick ? 1 : 3).entries())
        p5.push(await runOnce(sim, v, { kind: "p5" }, String(i)));
    } finally {
      await sim.stop();
    }
    const up = (v: Variant): number => median(p5.filter((r) => r.variant === v).map((r) => r.upMs));
    rows.push({
      ...{ id: "P9", measure: "P8 through the executable: `up` of the P5 stack from YAML ÷ dynamic from TypeScript" },
      ...{ ours: seconds(up("exe"), 2), baseline: seconds(up("ts"), 2), ratio: round(up("exe") / up("ts")) },
      ...{ goal: "≤ 1.0", status: okOrMissed(up("exe") <= up("ts")), raw: { runs: p5 } },
    });

    const n = quick ? 100 : 1000;
    const big: Partial<Record<Variant, Run>> = {};
    for (const v of ["exe", "yaml", "ts"] as const) {
      const fresh = await PimsSimulator.start();
      seed(fresh);
      try {
        log(`P9: ${v}, N = ${n} ServiceAccounts`);
        big[v] = await runOnce(fresh, v, { kind: "accounts", n }, "big");
        log(`P9: ${v} up of ${n}: ${(big[v].upMs / 1000).toFixed(1)} s, plugin peak ${big[v].pluginPeakRss ?? 0} B`);
      } finally {
        await fresh.stop();
      }
    }
    const [e, y, t] = [big.exe as Run, big.yaml as Run, big.ts as Run];
    rows.push({
      ...{
        id: "P9",
        measure: `P8 through the executable: \`up\` of N = ${n} ServiceAccounts ÷ dynamic from TypeScript`,
      },
      ...{ ours: seconds(e.upMs, 1), baseline: seconds(t.upMs, 1), ratio: round(e.upMs / t.upMs) },
      ...{ goal: "≤ 1.0", status: okOrMissed(e.upMs <= t.upMs), raw: { runs: [e, y, t] } },
    });
    rows.push({
      ...{ id: "P9", measure: `(also) that \`up\`: the executable ÷ the Node launcher (${seconds(y.upMs, 1)})` },
      ...{ ours: seconds(e.upMs, 1), baseline: seconds(y.upMs, 1), ratio: round(e.upMs / y.upMs) },
      ...{ goal: "— (informative)", status: "N/A" as const },
    });
    const [me, my] = [e.pluginPeakRss ?? 0, y.pluginPeakRss ?? 0];
    rows.push({
      ...{ id: "P9", measure: `memory: the plugin's peak resident memory during the \`up\` of ${n} ServiceAccounts` },
      ...{ ours: mbText(me), baseline: `${mbText(my)} (launcher)`, ratio: my > 0 ? round(me / my) : null },
      ...{ goal: "— (informative)", status: "N/A" as const },
    });
    return rows;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
