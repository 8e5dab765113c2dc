/**
 * The plugin as the engine starts it: `plugin/pulumi-resource-pims` (the npm `bin` entry, and the directory YAML
 * projects name in `plugins.providers`) run as a process with the engine's address as its argument. It prints the
 * port of its gRPC service as its first line and answers on it; without a Node.js of version 22 or newer it fails with
 * one line saying what is needed. Runs the compiled plugin (bin/, rebuilt by this tier's global setup when stale).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as grpc from "@grpc/grpc-js";
import * as emptyproto from "google-protobuf/google/protobuf/empty_pb";
import * as plugproto from "@pulumi/pulumi/proto/plugin_pb";
import * as provrpc from "@pulumi/pulumi/proto/provider_grpc_pb";
import { NODE_BIN, REPO_ROOT } from "../../../scripts/engine";
import { packageVersion } from "../../../provider/identity";

const LAUNCHER = path.join(REPO_ROOT, "plugin", "pulumi-resource-pims");
const NODE_22 = path.join(NODE_BIN, "node");

/** The launcher's first stdout line (the port), with the process still running. */
function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    child.stderr?.on("data", (d: Buffer) => (err += d.toString()));
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("\n")) resolve(out.split("\n")[0]);
    });
    child.on("exit", (code) => reject(new Error(`the plugin exited ${code} before printing a port: ${err}`)));
  });
}

test("prints its port and serves the provider protocol there (GetPluginInfo: the package's version)", async () => {
  const child = spawn(LAUNCHER, ["--logtostderr", "-v=3", "127.0.0.1:1"], {
    env: { ...process.env, PIMS_NODE: NODE_22 },
    stdio: ["ignore", "pipe", "pipe"],
  });
  try {
    const line = await firstLine(child);
    expect(line).toMatch(/^\d+$/);
    const client = new provrpc.ResourceProviderClient(`127.0.0.1:${line}`, grpc.credentials.createInsecure());
    const info = await new Promise<plugproto.PluginInfo>((resolve, reject) =>
      client.getPluginInfo(new emptyproto.Empty(), (e, r) => (e ? reject(e) : resolve(r))),
    );
    client.close();
    expect(info.getVersion()).toBe(packageVersion());
  } finally {
    child.kill();
  }
});

test("found through a symlink (as npm links it into node_modules/.bin)", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pims-launcher-"));
  try {
    fs.symlinkSync(LAUNCHER, path.join(dir, "pulumi-resource-pims"));
    const child = spawn(path.join(dir, "pulumi-resource-pims"), ["127.0.0.1:1"], {
      env: { ...process.env, PIMS_NODE: NODE_22 },
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      expect(await firstLine(child)).toMatch(/^\d+$/);
    } finally {
      child.kill();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("a Node.js older than 22 serves the plugin that says what to do; no Node.js says it on stdout", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pims-launcher-"));
  try {
    // A `node` whose version check answers 20.11.1 and which otherwise runs this process's Node: the launcher runs
    // bin/provider/plugin/startupError.js with it, which starts as a plugin (its port first on stdout).
    const old = path.join(dir, "node");
    const script =
      `#!/usr/bin/env bash\nif [ "$1" = "-p" ]; then echo 20.11.1; exit 0; fi\n` + `exec "${process.execPath}" "$@"\n`;
    fs.writeFileSync(old, script, { mode: 0o755 });
    const child = spawn(LAUNCHER, ["127.0.0.1:1"], { env: { ...process.env, PIMS_NODE: old } });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    try {
      expect(await firstLine(child)).toMatch(/^\d+$/);
    } finally {
      child.kill();
    }
    expect(stderr).toMatch(
      /^pulumi-resource-pims: install Node\.js 22 or newer, or set PIMS_NODE .*found Node\.js 20\.11\.1 at /,
    );
    const none = spawnSync(LAUNCHER, [], {
      env: { ...process.env, PIMS_NODE: path.join(dir, "missing") },
      encoding: "utf8",
    });
    expect(none.status).toBe(1);
    // No Node.js to serve anything: the message is the first line on stdout, which the engine quotes.
    expect(none.stdout).toMatch(/^pulumi-resource-pims: install Node\.js 22 or newer .* no `.*missing` was found\.\n$/);
    expect(none.stderr).toBe(none.stdout);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
