#!/usr/bin/env node
// @ts-check
/**
 * A minimal Node language host (`pulumi-language-nodejs`) for the `pulumi` CLI, so that `pulumi up` works in a
 * project directory with `runtime: nodejs` where the official Go language host cannot be obtained.
 *
 * Protocol, as the CLI (v3.259.0) uses it:
 * - The CLI starts the plugin with one argument, the engine's gRPC address, in the project directory (cwd).
 * - The plugin serves the `pulumirpc.LanguageRuntime` gRPC service on 127.0.0.1 and prints its port as the first
 *   line of stdout. Later stdout/stderr lines are shown by the CLI as the plugin's output.
 * - RPCs answered here: GetPluginInfo, GetRequiredPackages and GetRequiredPlugins (no resource plugins: the only
 *   plugin a PIMS program needs is the dynamic-provider plugin `pulumi-resource-pulumi-nodejs`, which the engine
 *   loads by itself), Run, About, InstallDependencies (`npm install`) and RunPlugin (a source-based plugin through
 *   `@pulumi/pulumi/cmd/run-plugin`, as `pulumi package add` needs: see the two below). Every other RPC (Handshake,
 *   RuntimeOptionsPrompts, GetProgramDependencies, code generation, …) answers UNIMPLEMENTED, which the CLI
 *   tolerates where it matters.
 * - Run starts the SDK's own program runner (`@pulumi/pulumi/cmd/run`, the one the official host uses) in a fresh
 *   `node` process per run: it registers ts-node for TypeScript programs, finds the entry point (`main` in
 *   Pulumi.yaml, else package.json's `exports`/`main`) and makes the module's exports the stack outputs. Config
 *   and secret keys travel in `PULUMI_CONFIG` / `PULUMI_CONFIG_SECRET_KEYS` (environment, never argv).
 *   Exit code 0 is success; 32 means the program has already reported its error (bail); any other code is
 *   reported as a failure of the program.
 *
 * Modules (`@grpc/grpc-js`, `@pulumi/pulumi`) are resolved from the project directory first, then from beside
 * this file and NODE_PATH, so the copy the CLI runs can live anywhere (e.g. next to the `pulumi` binary).
 *
 * Set `PIMS_LANGUAGE_HOST_TRACE=<file>` to append one line per RPC received (name only) to that file.
 */
"use strict";

const childProcess = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

/** Exit code of `@pulumi/pulumi/cmd/run` when the program failed and the error has been shown already. */
const EXIT_ALREADY_REPORTED = 32;

const cwd = process.cwd();
/** The program processes running now (stopped when the CLI is gone). */
/** @type {Set<import("node:child_process").ChildProcess>} */
const running = new Set();

/**
 * `require.resolve` from the project directory, then from this file's directory (and NODE_PATH).
 * @param {string} spec
 * @param {string[]} [from]
 */
function resolveFrom(spec, from = [cwd]) {
  for (const dir of from) {
    try {
      return require.resolve(spec, { paths: [dir] });
    } catch {
      /* try the next place */
    }
  }
  return require.resolve(spec);
}

/** The directory of the `@pulumi/pulumi` package the program will use (the project's, when it has one). */
function sdkDirFor(/** @type {string} */ dir) {
  return path.dirname(resolveFrom("@pulumi/pulumi/package.json", [dir, cwd]));
}

const hostSdkDir = sdkDirFor(cwd);
// The generated gRPC service and its messages, with the grpc-js they were generated for (one instance of each).
const grpc = require(resolveFrom("@grpc/grpc-js", [hostSdkDir]));
const langrpc = require(path.join(hostSdkDir, "proto", "language_grpc_pb.js"));
const langproto = require(path.join(hostSdkDir, "proto", "language_pb.js"));
const plugproto = require(path.join(hostSdkDir, "proto", "plugin_pb.js"));
const sdkVersion = JSON.parse(fs.readFileSync(path.join(hostSdkDir, "package.json"), "utf8")).version;

/** The engine address: the last positional argument (flags such as `-tracing=…` may precede it). */
const engineAddress =
  process.argv
    .slice(2)
    .filter((a) => !a.startsWith("-"))
    .pop() ?? "";

const traceFile = process.env.PIMS_LANGUAGE_HOST_TRACE;
/** @param {string} name */
function trace(name) {
  if (traceFile) fs.appendFileSync(traceFile, `${new Date().toISOString()} ${name}\n`);
}

/**
 * The runtime options of Pulumi.yaml (`runtime: {name: nodejs, options: {...}}`), as the CLI sends them.
 * @param {any} info a ProgramInfo message, or undefined
 * @returns {Record<string, unknown>}
 */
function runtimeOptions(info) {
  const options = info?.getOptions?.();
  return options ? /** @type {Record<string, unknown>} */ (options.toJavaScript()) : {};
}

/**
 * Runs the program once, in a child `node` process, and resolves with the RunResponse fields.
 * @param {any} req a RunRequest message
 * @returns {Promise<{ error?: string, bail?: boolean }>}
 */
function runProgram(req) {
  const info = req.getInfo();
  const programDir = info?.getProgramDirectory() || req.getPwd() || cwd;
  const rootDir = info?.getRootDirectory() || programDir;
  const entry = info?.getEntryPoint() || req.getProgram() || ".";
  const options = runtimeOptions(info);
  const runner = resolveFrom("@pulumi/pulumi/cmd/run", [programDir, cwd]);

  const config = {};
  for (const [k, v] of req.getConfigMap().entries()) config[k] = v;
  const env = {
    ...process.env,
    PULUMI_CONFIG: JSON.stringify(config),
    PULUMI_CONFIG_SECRET_KEYS: JSON.stringify(req.getConfigsecretkeysList()),
    // TypeScript unless Pulumi.yaml says `typescript: false` (the official host's default too).
    PULUMI_NODEJS_TYPESCRIPT: options.typescript === false ? "false" : "true",
  };
  if (typeof options.tsconfig === "string") env.PULUMI_NODEJS_TSCONFIG_PATH = options.tsconfig;

  const args = [
    runner,
    `--monitor=${req.getMonitorAddress()}`,
    `--engine=${engineAddress}`,
    `--project=${req.getProject()}`,
    `--stack=${req.getStack()}`,
    `--pwd=${programDir}`,
    `--root-directory=${rootDir}`,
    `--parallel=${req.getParallel()}`,
  ];
  if (req.getOrganization()) args.push(`--organization=${req.getOrganization()}`);
  if (req.getDryrun()) args.push("--dry-run");
  args.push(entry, ...req.getArgsList());

  const nodeArgs = typeof options.nodeargs === "string" ? options.nodeargs.split(/\s+/).filter(Boolean) : [];
  return new Promise((resolve) => {
    // The program's output goes where this host's goes: the CLI shows it.
    const child = childProcess.spawn(process.execPath, [...nodeArgs, ...args], {
      cwd: programDir,
      env,
      stdio: ["ignore", "inherit", "inherit"],
    });
    running.add(child);
    child.on("exit", () => running.delete(child));
    child.on("error", (err) => resolve({ error: `could not start the Node.js program: ${err.message}` }));
    child.on("exit", (code, signal) => {
      trace(`Run: the program exited (code ${code}${signal ? `, signal ${signal}` : ""})`);
      if (code === 0) resolve({});
      else if (code === EXIT_ALREADY_REPORTED) resolve({ bail: true });
      else
        resolve({
          error: signal
            ? `Program was terminated by signal ${signal}`
            : `Program exited with non-zero exit code: ${code}`,
        });
    });
  });
}

/** @type {Record<string, (call: any, callback: (err: unknown, resp?: unknown) => void) => void>} */
const service = {
  getPluginInfo(_call, callback) {
    trace("GetPluginInfo");
    const resp = new plugproto.PluginInfo();
    resp.setVersion(sdkVersion);
    callback(null, resp);
  },
  getRequiredPackages(_call, callback) {
    trace("GetRequiredPackages");
    const resp = new langproto.GetRequiredPackagesResponse();
    resp.setPackagesList([]);
    callback(null, resp);
  },
  getRequiredPlugins(_call, callback) {
    trace("GetRequiredPlugins");
    const resp = new langproto.GetRequiredPluginsResponse();
    resp.setPluginsList([]);
    callback(null, resp);
  },
  run(call, callback) {
    trace(`Run${call.request.getDryrun() ? " (preview)" : ""}`);
    runProgram(call.request).then(
      (r) => {
        const resp = new langproto.RunResponse();
        if (r.error) resp.setError(r.error);
        if (r.bail) resp.setBail(true);
        callback(null, resp);
      },
      (err) => callback(err),
    );
  },
  about(_call, callback) {
    trace("About");
    const resp = new langproto.AboutResponse();
    resp.setExecutable(process.execPath);
    resp.setVersion(process.version);
    callback(null, resp);
  },
  installDependencies(call) {
    // Streaming RPC: `npm install` (dev dependencies too) in the program's or the plugin's directory, its output
    // streamed back, as the official host does (for `pulumi install` and for a plugin `pulumi package add` fetched).
    const dir = call.request.getInfo()?.getProgramDirectory() || cwd;
    trace(`InstallDependencies${call.request.getIsPlugin() ? " (plugin)" : ""}`);
    const write = (/** @type {"setStdout" | "setStderr"} */ setter, /** @type {Buffer} */ chunk) =>
      call.write(new langproto.InstallDependenciesResponse()[setter](chunk));
    write("setStdout", Buffer.from(`Installing dependencies in ${dir}...\n\n`));
    const child = childProcess.spawn("npm", ["install", "--loglevel=error"], { cwd: dir, env: process.env });
    child.stdout.on("data", (chunk) => write("setStdout", chunk));
    child.stderr.on("data", (chunk) => write("setStderr", chunk));
    child.on("error", (err) =>
      call.emit("error", { code: grpc.status.INTERNAL, details: `npm install: ${err.message}` }),
    );
    child.on("exit", (code) => {
      if (code !== 0) {
        call.emit("error", { code: grpc.status.UNKNOWN, details: `npm install in ${dir} failed (exit code ${code})` });
        return;
      }
      write("setStdout", Buffer.from("Finished installing dependencies\n\n"));
      call.end();
    });
  },
  runPlugin(call) {
    // Streaming RPC: runs a source-based plugin (a directory with PulumiPlugin.yaml `runtime: nodejs`) the way the
    // official host does: `node @pulumi/pulumi/cmd/run-plugin <plugin directory> <plugin arguments>`, run-plugin
    // resolved from the plugin's directory; the plugin's stdout (its port first) and stderr go back as messages,
    // then its exit code. The engine ends the plugin by cancelling the call.
    const req = call.request;
    const info = req.getInfo();
    const dir = info?.getProgramDirectory() || cwd;
    trace(`RunPlugin ${req.getName() || dir}`);
    const options = runtimeOptions(info);
    const env = { ...process.env };
    for (const kv of req.getEnvList()) {
      const eq = kv.indexOf("=");
      if (eq > 0) env[kv.slice(0, eq)] = kv.slice(eq + 1);
    }
    if (options.typescript !== false) env.PULUMI_NODEJS_TYPESCRIPT = "true";
    if (typeof options.tsconfig === "string") env.PULUMI_NODEJS_TSCONFIG_PATH = options.tsconfig;
    let runner;
    try {
      runner = resolveFrom(process.env.PULUMI_LANGUAGE_NODEJS_RUN_PATH || "@pulumi/pulumi/cmd/run-plugin", [dir]);
    } catch (e) {
      call.emit("error", { code: grpc.status.FAILED_PRECONDITION, details: `${dir}: ${String(e)}` });
      return;
    }
    const nodeArgs = typeof options.nodeargs === "string" ? options.nodeargs.split(/\s+/).filter(Boolean) : [];
    const child = childProcess.spawn(process.execPath, [runner, ...nodeArgs, dir, ...req.getArgsList()], {
      cwd: req.getPwd() || dir,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const send = (/** @type {(r: any) => void} */ fill) => {
      const resp = new langproto.RunPluginResponse();
      fill(resp);
      if (!call.cancelled && !call.destroyed) call.write(resp);
    };
    child.stdout.on("data", (chunk) => send((r) => r.setStdout(chunk)));
    child.stderr.on("data", (chunk) => send((r) => r.setStderr(chunk)));
    call.on("cancelled", () => child.kill("SIGKILL"));
    child.on("error", (err) => call.emit("error", { code: grpc.status.INTERNAL, details: err.message }));
    child.on("exit", (code) => {
      trace(`RunPlugin: the plugin exited (code ${code})`);
      send((r) => r.setExitcode(code ?? 1));
      if (!call.cancelled) call.end();
    });
  },
};

// Every RPC of the service this host does not implement answers UNIMPLEMENTED (the CLI falls back where it can).
const implementation = {};
for (const [name, def] of Object.entries(langrpc.LanguageRuntimeService)) {
  const own = service[name];
  if (own) {
    implementation[name] = own;
    continue;
  }
  const unimplemented = (/** @type {any} */ call, /** @type {any} */ callback) => {
    trace(`${def.path.split("/").pop()} (unimplemented)`);
    const err = {
      code: grpc.status.UNIMPLEMENTED,
      details: `${def.path} is not implemented by the pims language host`,
    };
    if (typeof callback === "function") callback(err);
    else call.emit("error", err);
  };
  implementation[name] = unimplemented;
}

const server = new grpc.Server({ "grpc.max_receive_message_length": 400 * 1024 * 1024 });
server.addService(langrpc.LanguageRuntimeService, implementation);
server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, port) => {
  if (err) {
    console.error(`pims language host: cannot listen: ${err.message}`);
    process.exit(1);
  }
  // The CLI reads the port from the first line of stdout.
  process.stdout.write(`${port}\n`);
});

// The CLI starts this host in a process group of its own, so a `kill -9` of `pulumi` (a CI timeout) does not reach
// it: once the CLI is gone (a new parent pid, or the old one gone), stop the program's process and exit.
const parent = process.ppid;
setInterval(() => {
  let gone = process.ppid !== parent;
  try {
    if (!gone) process.kill(parent, 0);
  } catch (e) {
    gone = /** @type {NodeJS.ErrnoException} */ (e).code !== "EPERM";
  }
  if (!gone) return;
  for (const child of running) child.kill("SIGKILL");
  process.exit(0);
}, 1000).unref();

// The CLI kills the plugin when it is done; end cleanly on the usual signals too.
for (const sig of ["SIGINT", "SIGTERM"]) {
  process.on(sig, () => {
    server.forceShutdown();
    process.exit(0);
  });
}
