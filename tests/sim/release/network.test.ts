/**
 * `npm run release:publish` when a registry cannot be reached: Node's fetch says only "fetch failed", so a user could
 * not tell a wrong address from a registry that dropped the upload. Against servers on loopback that refuse the
 * connection or reset it, the error names the method, the address, and what happened (the cause's code), before and
 * during an upload. And the cause of issue 46: a registry that closes idle kept-alive connections while the publishing
 * process is busy in a child process (a cold `pip install twine`) must not fail the next upload.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { writeChecksums } from "../../../scripts/release/archive";
import { getBytes, send } from "../../../scripts/release/publish/http";
import { publish } from "../../../scripts/release/publish/main";
import { packageVersion } from "../../../provider/identity";

/** A port nothing listens on: taken, then given back. */
function refusedPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** A server that accepts a connection and resets it (TCP RST) as soon as the request arrives. */
async function resettingServer(): Promise<{ port: number; stop: () => Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.once("data", () => socket.resetAndDestroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    stop: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

let reset: { port: number; stop: () => Promise<void> };
beforeAll(async () => {
  reset = await resettingServer();
});
afterAll(() => reset.stop());

test("a refused connection names the request, the address and ECONNREFUSED", async () => {
  const port = await refusedPort();
  const url = `http://127.0.0.1:${port}/maven2/pims.pom`;
  await expect(getBytes(url)).rejects.toThrow(
    new RegExp(`^GET ${url} failed: .*ECONNREFUSED.*127\\.0\\.0\\.1:${port}`),
  );
  await expect(send("PUT", url, "<project/>")).rejects.toThrow(new RegExp(`^PUT ${url} failed: .*ECONNREFUSED`));
});

test("a reset connection names the request, the address and what the socket met", async () => {
  const url = `http://127.0.0.1:${reset.port}/maven2/pims.pom`;
  const reason = /ECONNRESET|other side closed|UND_ERR_SOCKET/;
  const put = send("PUT", url, "<project/>");
  await expect(put).rejects.toThrow(new RegExp(`^PUT ${url} failed: `));
  await expect(put).rejects.toThrow(reason);
  await expect(getBytes(url)).rejects.toThrow(reason);
});

test("release:publish stops on either, naming the cause and the address, never only 'fetch failed'", async () => {
  const version = packageVersion();
  const dist = fs.mkdtempSync(path.join(os.tmpdir(), "pims-publish-net-"));
  try {
    const archive = `pulumi-resource-pims-v${version}-linux-amd64.tar.gz`;
    fs.writeFileSync(path.join(dist, archive), "an archive's bytes");
    const refused = `http://127.0.0.1:${await refusedPort()}/releases/v\${VERSION}`;
    const resetting = `http://127.0.0.1:${reset.port}/releases/v\${VERSION}`;
    for (const [address, cause] of [
      [refused, /ECONNREFUSED/],
      [resetting, /ECONNRESET|other side closed|UND_ERR_SOCKET/],
    ] as const) {
      fs.writeFileSync(path.join(dist, "schema.json"), JSON.stringify({ name: "pims", pluginDownloadURL: address }));
      writeChecksums(dist, `pulumi-pims-v${version}-checksums.txt`);
      const env = {
        ...process.env,
        PIMS_RELEASE_HOME: "127.0.0.1/rehearsal/pulumi-pims",
        PIMS_RELEASE_PLUGIN_DOWNLOAD_URL: address,
        PIMS_GPG_KEY_ID: "",
      };
      const run = publish(["--rehearsal", "--only", "download", "--dist", dist], env, () => undefined);
      const at = address.replace("${VERSION}", version).replace(/[.$]/g, "\\$&");
      await expect(run).rejects.toThrow(new RegExp(`^GET ${at}/\\S+ failed: `));
      await expect(run).rejects.toThrow(cause);
    }
  } finally {
    fs.rmSync(dist, { recursive: true, force: true });
  }
});

test("an upload on a kept-alive connection the registry closed meanwhile is sent again and lands once", async () => {
  const puts: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.method === "PUT") puts.push(Buffer.concat(chunks).toString());
      res.writeHead(req.method === "PUT" ? 201 : 404).end(req.method === "PUT" ? "" : "not found");
    });
  });
  // Node's own idle limit for kept-alive connections (5 s), as the rehearsal's registries have it.
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/maven2/pims.pom`;
    for (let i = 0; i < 4; i++) expect(await getBytes(`${url}.${i}`)).toBeUndefined(); // the dry run's looks
    execFileSync("sleep", ["6"]); // an `npm publish` or `twine upload` child: this process's event loop waits
    await send("PUT", url, "<project/>");
    expect(puts).toEqual(["<project/>"]);
    expect(server.keepAliveTimeout).toBe(5000); // what the 6 s wait outlasts
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
