/**
 * Loopback stand-ins for the places a release is published to, shared by tests/sim/release/publish.test.ts and the
 * rehearsal (tests/engine/release/rehearsal.test.ts): a file server that takes PUT and serves GET (the download
 * address, a Maven repository in the layout `mvn deploy` writes), a Go module proxy that serves a module from the tags
 * of a git repository (as proxy.golang.org does from the public repository), and a throwaway GPG key. Every server
 * listens on
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

/**
 * A request handler that answers once the request's body is read, as a real registry does even to refuse a request
 * (answering first resets the connection of a client still sending, which then sees no answer at all).
 */
const afterBody =
  (handle: (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) => void) =>
  (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => handle(req, res, Buffer.concat(chunks)));
  };

const closer = (server: http.Server) => (): Promise<void> =>
  new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

/**
 * Serves `dir`: GET and HEAD read a file, PUT writes one (folders made as needed), as a Maven repository or a plain
 * download address does for `mvn deploy` and `release:publish`. With `auth` ("user:password"), a PUT without those
 * Basic credentials is refused with 401 and a `WWW-Authenticate: Basic` challenge, as a repository manager does. Like
 * a real registry, every request's body is read before it is answered, even to refuse it (a client still sending
 * would otherwise see its connection reset instead of the answer): ./afterBody.
 */
export async function startFileServer(dir: string, auth?: string): Promise<Served> {
  const puts: string[] = [];
  const gets: Served["gets"] = [];
  const server = http.createServer(
    afterBody((req, res, body) => {
      const rel = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
      const file = path.join(dir, path.normalize(rel));
      if (!file.startsWith(dir)) return res.writeHead(400).end();
      if (req.method === "PUT") {
        if (auth !== undefined && req.headers.authorization !== `Basic ${Buffer.from(auth).toString("base64")}`)
          return res.writeHead(401, { "www-authenticate": 'Basic realm="rehearsal"' }).end("credentials required");
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(file, body);
        puts.push(rel);
        return res.writeHead(201).end();
      }
      const found = fs.existsSync(file) && fs.statSync(file).isFile();
      if (req.method === "GET") gets.push({ path: rel, status: found ? 200 : 404 });
      if (!found) return res.writeHead(404).end("not found");
      // Content-Length always: Pulumi 3.259.0's plugin download fails on a body of unannounced length ("expected -1
      // bytes but copied N"), as a real download address never sends.
      const bytes = fs.readFileSync(file);
      res.writeHead(200, { "content-type": "application/octet-stream", "content-length": bytes.length });
      res.end(req.method === "HEAD" ? undefined : bytes);
    }),
  );
  const url = await listen(server);
  return { url, puts, gets, stop: closer(server) };
}

/**
 * A GOPROXY (the module proxy protocol over HTTP) serving `module`, a folder `subdir` of the git repository `repo`,
 * from its tags `<subdir>/v*`, read when asked: /<module>/@v/list, /@v/<v>.info, .mod and .zip (`git archive`).
 */
export async function startGoProxy(repo: string, module: string, subdir: string): Promise<Served> {
  const git = (args: string[]): Buffer => execFileSync("git", ["-C", repo, ...args], { maxBuffer: 256 * 1024 * 1024 });
  const server = http.createServer(
    afterBody((req, res) => {
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
    }),
  );
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

/**
 * GitHub's release API for one repository, as `release:publish` uses it (scripts/release/publish/download.ts), on
 * loopback (`GITHUB_API_URL` points there): GET /repos/{o}/{r}/releases/tags/{tag}, POST /repos/{o}/{r}/releases,
 * POST /uploads/{id}?name=… (the release's `upload_url`), GET /repos/{o}/{r}/releases/assets/{id} with
 * `Accept: application/octet-stream`. Every call must carry `Authorization: Bearer <token>`.
 */
export async function startGitHubApi(
  repo: string,
  token: string,
): Promise<Served & { releases: Map<string, { id: number; assets: Map<string, Buffer> }> }> {
  const releases = new Map<string, { id: number; assets: Map<string, Buffer> }>();
  const puts: string[] = [];
  const gets: Served["gets"] = [];
  let url = "";
  const json = (res: http.ServerResponse, status: number, body: unknown): void => {
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  };
  const view = (tag: string) => {
    const r = releases.get(tag);
    if (r === undefined) return undefined;
    const assets = [...r.assets.keys()].map((name, i) => ({
      id: r.id * 1000 + i,
      name,
      url: `${url}/repos/${repo}/releases/assets/${r.id * 1000 + i}`,
    }));
    return { id: r.id, tag_name: tag, upload_url: `${url}/uploads/${r.id}/assets{?name,label}`, assets };
  };
  const server = http.createServer(
    afterBody((req, res, body) => {
      const u = new URL(req.url ?? "/", "http://x");
      if (req.headers.authorization !== `Bearer ${token}`) return json(res, 401, { message: "Bad credentials" });
      const tagged = new RegExp(`^/repos/${repo}/releases/tags/(.+)$`).exec(u.pathname);
      if (req.method === "GET" && tagged !== null) {
        gets.push({ path: u.pathname, status: releases.has(tagged[1]) ? 200 : 404 });
        const v = view(decodeURIComponent(tagged[1]));
        return v === undefined ? json(res, 404, { message: "Not Found" }) : json(res, 200, v);
      }
      if (req.method === "POST" && u.pathname === `/repos/${repo}/releases`) {
        const { tag_name: tag } = JSON.parse(body.toString("utf8")) as { tag_name: string };
        if (releases.has(tag)) return json(res, 422, { message: "Validation Failed: already_exists" });
        releases.set(tag, { id: releases.size + 1, assets: new Map() });
        return json(res, 201, view(tag));
      }
      const upload = /^\/uploads\/(\d+)\/assets$/.exec(u.pathname);
      if (req.method === "POST" && upload !== null) {
        const entry = [...releases.entries()].find(([, r]) => r.id === Number(upload[1]));
        const name = u.searchParams.get("name") ?? "";
        if (entry === undefined) return json(res, 404, { message: "Not Found" });
        if (entry[1].assets.has(name)) return json(res, 422, { message: "Validation Failed: already_exists" });
        entry[1].assets.set(name, body);
        puts.push(name);
        return json(
          res,
          201,
          view(entry[0])?.assets.find((a) => a.name === name),
        );
      }
      const asset = new RegExp(`^/repos/${repo}/releases/assets/(\\d+)$`).exec(u.pathname);
      if (req.method === "GET" && asset !== null && req.headers.accept === "application/octet-stream") {
        const id = Number(asset[1]);
        const r = [...releases.values()].find((x) => x.id === Math.floor(id / 1000));
        const bytes = r === undefined ? undefined : [...r.assets.values()][id % 1000];
        gets.push({ path: u.pathname, status: bytes === undefined ? 404 : 200 });
        if (bytes === undefined) return json(res, 404, { message: "Not Found" });
        return res
          .writeHead(200, { "content-type": "application/octet-stream", "content-length": bytes.length })
          .end(bytes);
      }
      json(res, 404, { message: "Not Found" });
    }),
  );
  url = await listen(server);
  return { url, puts, gets, stop: closer(server), releases };
}
