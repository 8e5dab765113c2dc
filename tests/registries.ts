/**
 * Loopback stand-ins for the places a release is published to, shared by tests/sim/releasePublish.test.ts and the
 * rehearsal (tests/engine/rehearsal.test.ts): a file server that takes PUT and serves GET (the download address, a
 * Maven repository in the layout `mvn deploy` writes), a Go module proxy that serves a module from the tags of a git
 * repository (as proxy.golang.org does from the public repository), and a throwaway GPG key. Every server listens on
 * 127.0.0.1 only.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as path from "node:path";

/** A running loopback server. */
export interface Served {
  url: string;
  /** Successful PUTs so far (a second publish of the same release must add none). */
  puts: string[];
  /** GETs so far, with the status answered (the engine's download is one). */
  gets: Array<{ path: string; status: number }>;
  stop(): Promise<void>;
}

function listen(server: http.Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
}

const closer = (server: http.Server) => (): Promise<void> =>
  new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

/**
 * Serves `dir`: GET and HEAD read a file, PUT writes one (folders made as needed). With `auth` ("user:password"), a
 * PUT without those Basic credentials is refused with 401, as a repository manager does.
 */
export async function startFileServer(dir: string, auth?: string): Promise<Served> {
  const puts: string[] = [];
  const gets: Served["gets"] = [];
  const server = http.createServer((req, res) => {
    const rel = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    const file = path.join(dir, path.normalize(rel));
    if (!file.startsWith(dir)) return res.writeHead(400).end();
    if (req.method === "PUT") {
      if (auth !== undefined && req.headers.authorization !== `Basic ${Buffer.from(auth).toString("base64")}`)
        return res.writeHead(401).end("credentials required");
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(file, Buffer.concat(chunks));
        puts.push(rel);
        res.writeHead(201).end();
      });
      return;
    }
    const found = fs.existsSync(file) && fs.statSync(file).isFile();
    if (req.method === "GET") gets.push({ path: rel, status: found ? 200 : 404 });
    if (!found) return res.writeHead(404).end("not found");
    // Content-Length always: Pulumi 3.259.0's plugin download fails on a body of unannounced length ("expected -1
    // bytes but copied N"), as a real download address never sends.
    const body = fs.readFileSync(file);
    res.writeHead(200, { "content-type": "application/octet-stream", "content-length": body.length });
    res.end(req.method === "HEAD" ? undefined : body);
  });
  const url = await listen(server);
  return { url, puts, gets, stop: closer(server) };
}

/**
 * A GOPROXY (the module proxy protocol over HTTP) serving `module`, a folder `subdir` of the git repository `repo`,
 * from its tags `<subdir>/v*`, read when asked: /<module>/@v/list, /@v/<v>.info, .mod and .zip (`git archive`).
 */
export async function startGoProxy(repo: string, module: string, subdir: string): Promise<Served> {
  const git = (args: string[]): Buffer => execFileSync("git", ["-C", repo, ...args], { maxBuffer: 256 * 1024 * 1024 });
  const server = http.createServer((req, res) => {
    const p = new URL(req.url ?? "/", "http://x").pathname;
    const prefix = `/${module}/@v/`;
    if (!p.startsWith(prefix)) return res.writeHead(404).end("not found");
    const what = p.slice(prefix.length);
    const tags = git(["tag", "--list", `${subdir}/v*`])
      .toString()
      .split("\n")
      .filter(Boolean);
    const versions = tags.map((t) => t.slice(subdir.length + 1));
    if (what === "list") return res.writeHead(200).end(versions.map((v) => `${v}\n`).join(""));
    const m = /^(v[^/]+)\.(info|mod|zip)$/.exec(what);
    if (m === null || !versions.includes(m[1])) return res.writeHead(404).end("not found");
    const ref = `${subdir}/${m[1]}`;
    if (m[2] === "info") {
      const time = git(["log", "-1", "--format=%cI", ref]).toString().trim();
      return res.writeHead(200).end(JSON.stringify({ Version: m[1], Time: new Date(time).toISOString() }));
    }
    if (m[2] === "mod") return res.writeHead(200).end(git(["show", `${ref}:${subdir}/go.mod`]));
    res.writeHead(200).end(git(["archive", "--format=zip", `--prefix=${module}@${m[1]}/`, `${ref}:${subdir}`]));
  });
  const url = await listen(server);
  return { url, puts: [], gets: [], stop: closer(server) };
}

/** A new GPG home with one signing key (ed25519, no passphrase); returns GNUPGHOME and the key's fingerprint. */
export function makeGpgKey(dir: string): { GNUPGHOME: string; keyId: string } {
  const home = path.join(dir, "gnupg");
  fs.mkdirSync(home, { recursive: true, mode: 0o700 });
  const env = { ...process.env, GNUPGHOME: home };
  execFileSync(
    "gpg",
    [
      "--batch",
      "--passphrase",
      "",
      "--quick-gen-key",
      "pims release rehearsal <rehearsal@pims.invalid>",
      "ed25519",
      "sign",
      "never",
    ],
    { env, stdio: "ignore" },
  );
  const listing = execFileSync("gpg", ["--batch", "--with-colons", "--list-secret-keys"], {
    env,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
  });
  const keyId = /^fpr:(?:[^:]*:){8}([0-9A-F]+):/m.exec(listing)?.[1] ?? "";
  return { GNUPGHOME: home, keyId };
}

/** Stops the gpg-agent that signing started for the GPG home `home` (one per home). */
export function stopGpgAgent(home: string): void {
  try {
    execFileSync("gpgconf", ["--kill", "gpg-agent"], { env: { ...process.env, GNUPGHOME: home }, stdio: "ignore" });
  } catch {
    // no agent was started
  }
}
