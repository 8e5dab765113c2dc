/**
 * The release build's pure parts (scripts/release/): the one download-address setting and the schema it gives, the
 * platform names, the archives' determinism and layout, and the checks of an executable that cannot be run here.
 * The whole build, twice, is tests/engine/release/reproducible.test.ts.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as tar from "tar";
import { coordinates, pluginDownloadURL, type ReleaseSetting } from "../../../provider/identity";
import { pimsSchema } from "../../../provider/plugin/schema";
import { normalizeTarGz, writeArchive, writeChecksums } from "../../../scripts/release/archive";
import { checkExecutable, SEA_FUSE, unsignPe } from "../../../scripts/release/executable";
import { archiveName, PLATFORMS, selectedPlatforms } from "../../../scripts/release/platforms";

const ROOT = path.resolve(__dirname, "..", "..", "..");
const describeStub = (): string => "described";
let scratch: string;
beforeEach(() => (scratch = fs.mkdtempSync(path.join(os.tmpdir(), "pims-release-unit-"))));
afterEach(() => fs.rmSync(scratch, { recursive: true, force: true }));

describe("the download address: the home's releases, or package.json release.pluginDownloadURL", () => {
  test("set, the schema names it with the repository and the Go path; unset, the schema has neither", () => {
    const home = coordinates({ home: "github.com/o/r" });
    expect(pimsSchema(describeStub, "1.2.3", home)).toMatchObject({
      version: "1.2.3",
      pluginDownloadURL: "github://api.github.com/o/r",
      repository: "https://github.com/o/r",
      language: { go: { importBasePath: "github.com/o/r/sdk/go/pims" } },
    });
    const unset = pimsSchema(describeStub, "1.2.3", coordinates({}));
    expect(unset).not.toHaveProperty("pluginDownloadURL");
    expect(unset).not.toHaveProperty("repository");
    expect(unset).toMatchObject({ language: { go: { importBasePath: "pulumi-pims/sdk/go/pims" } } });
  });

  test("the committed schema and the Python SDK carry the committed setting", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { release: ReleaseSetting };
    const setting = coordinates(pkg.release).pluginDownloadURL;
    expect(pluginDownloadURL()).toBe(setting);
    const schema = JSON.parse(fs.readFileSync(path.join(ROOT, "provider", "schema.json"), "utf8")) as object;
    expect((schema as { pluginDownloadURL?: string }).pluginDownloadURL).toBe(setting);
    const plugin = path.join(ROOT, "sdk", "python", "pulumi_pims", "pulumi-plugin.json");
    expect((JSON.parse(fs.readFileSync(plugin, "utf8")) as { server?: string }).server).toBe(setting);
  });
});

describe("platforms", () => {
  test("archives are named as the engine looks for them", () => {
    expect(PLATFORMS.map((p) => archiveName(p, "0.4.0"))).toEqual([
      "pulumi-resource-pims-v0.4.0-linux-amd64.tar.gz",
      "pulumi-resource-pims-v0.4.0-linux-arm64.tar.gz",
      "pulumi-resource-pims-v0.4.0-darwin-amd64.tar.gz",
      "pulumi-resource-pims-v0.4.0-windows-amd64.tar.gz",
    ]);
  });

  test("PIMS_RELEASE_PLATFORMS picks some; an unknown name is refused, naming the ones there are", () => {
    expect(selectedPlatforms({})).toHaveLength(4);
    expect(selectedPlatforms({ PIMS_RELEASE_PLATFORMS: "linux-arm64, windows-amd64" }).map((p) => p.os)).toEqual([
      "linux",
      "windows",
    ]);
    expect(() => selectedPlatforms({ PIMS_RELEASE_PLATFORMS: "darwin-arm64" })).toThrow(
      /^PIMS_RELEASE_PLATFORMS names "darwin-arm64"; the platforms are linux-amd64, linux-arm64, darwin-amd64, windows-amd64$/,
    );
  });
});

describe("archives", () => {
  const files = (): Record<string, { from: string; executable?: boolean }> => {
    fs.writeFileSync(path.join(scratch, "exe"), "#!/bin/sh\necho 1\n");
    fs.writeFileSync(path.join(scratch, "LICENSE"), "license text\n");
    return {
      "pulumi-resource-pims": { from: path.join(scratch, "exe"), executable: true },
      LICENSE: { from: path.join(scratch, "LICENSE") },
    };
  };

  test("the same files give the same bytes, whatever their times; entries in the order given, at the root", () => {
    const [a, b] = [path.join(scratch, "a.tar.gz"), path.join(scratch, "b.tar.gz")];
    writeArchive(a, files());
    fs.utimesSync(path.join(scratch, "exe"), new Date(), new Date(2020, 1, 1));
    writeArchive(b, files());
    expect(fs.readFileSync(a).equals(fs.readFileSync(b))).toBe(true);
    const entries: { path: string; mode?: number; mtime?: Date; uid?: number }[] = [];
    tar.t({ file: a, sync: true, onReadEntry: (e) => entries.push(e) });
    expect(entries.map((e) => [e.path, (e.mode ?? 0) & 0o777])).toEqual([
      ["pulumi-resource-pims", 0o755],
      ["LICENSE", 0o644],
    ]);
    expect(entries.map((e) => e.mtime?.toISOString())).toEqual([
      "2000-01-01T00:00:00.000Z",
      "2000-01-01T00:00:00.000Z",
    ]);
  });

  test("another tool's .tar.gz rewritten: sorted, the fixed time, the same content", () => {
    const src = path.join(scratch, "src");
    fs.mkdirSync(path.join(src, "pkg", "sub"), { recursive: true });
    fs.writeFileSync(path.join(src, "pkg", "sub", "z.py"), "z = 1\n");
    fs.writeFileSync(path.join(src, "pkg", "a.py"), "a = 1\n");
    const file = path.join(scratch, "sdist.tar.gz");
    tar.c({ gzip: true, cwd: src, file, sync: true }, ["pkg"]);
    normalizeTarGz(file);
    const first = fs.readFileSync(file);
    normalizeTarGz(file);
    expect(fs.readFileSync(file).equals(first)).toBe(true);
    const names: string[] = [];
    tar.t({ file, sync: true, onReadEntry: (e) => names.push(e.path) });
    expect(names).toEqual(["pkg/", "pkg/a.py", "pkg/sub/", "pkg/sub/z.py"]);
  });

  test("the checksums file: `<sha256>  <name>` for every other file, sorted", () => {
    fs.writeFileSync(path.join(scratch, "b"), "b");
    fs.writeFileSync(path.join(scratch, "a"), "a");
    expect(writeChecksums(scratch, "sums.txt")).toEqual([
      "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb  a",
      "3e23e8160039594a33894f6564e1b1348bbd7a0088d42c4acb73eeaed59c009d  b",
    ]);
  });
});

describe("an executable, checked without running it", () => {
  /**
   * A minimal PE image: MZ, the PE header at 0x40, machine x86-64, a PE32+ optional header with its 16 data
   * directories, the certificate table's entry pointing at `signature`, appended.
   */
  function pe(signature: Buffer | null): Buffer {
    const body = Buffer.alloc(0x200);
    body.write("MZ", 0, "latin1");
    body.writeUInt32LE(0x40, 0x3c);
    body.writeUInt32BE(0x50450000, 0x40);
    body.writeUInt16LE(0x8664, 0x44);
    body.writeUInt16LE(0x20b, 0x40 + 24);
    body.writeUInt32LE(16, 0x40 + 24 + 108); // NumberOfRvaAndSizes
    if (signature === null) return body;
    body.writeUInt32LE(body.length, 0x40 + 24 + 112 + 32);
    body.writeUInt32LE(signature.length, 0x40 + 24 + 112 + 36);
    return Buffer.concat([body, signature]);
  }

  test("Windows: the signature at the end is cut off and its directory entry zeroed; none, nothing to do", () => {
    const unsigned = unsignPe(pe(Buffer.from("certificate")));
    expect(unsigned?.length).toBe(0x200);
    expect(unsigned?.readUInt32LE(0x40 + 24 + 112 + 32)).toBe(0);
    expect(unsigned?.readUInt32LE(0x40 + 24 + 112 + 36)).toBe(0);
    expect(unsigned?.equals(pe(null))).toBe(true); // the rest untouched (a zero checksum stays zero)
    expect(unsignPe(pe(null))).toBeNull();
    const notAtEnd = Buffer.concat([pe(Buffer.from("certificate")), Buffer.from("appended later")]);
    expect(() => unsignPe(notAtEnd)).toThrow(/signature to be at end of file/);
  });

  test("format and CPU, the fuse flipped, the blob inside: each missing one is named", () => {
    const windows = PLATFORMS.find((p) => p.os === "windows");
    const linux = PLATFORMS.find((p) => p.os === "linux" && p.arch === "amd64");
    if (windows === undefined || linux === undefined) throw new Error("platforms missing");
    const blob = Buffer.from("the plugin's blob");
    const file = path.join(scratch, "x.exe");
    fs.writeFileSync(file, Buffer.concat([pe(null), Buffer.from(`${SEA_FUSE}:1`), blob]));
    expect(() => checkExecutable(windows, file, blob)).not.toThrow();
    expect(() => checkExecutable(linux, file, blob)).toThrow(/not an ELF executable for linux-amd64/);
    fs.writeFileSync(file, Buffer.concat([pe(null), Buffer.from(`${SEA_FUSE}:0`), blob]));
    expect(() => checkExecutable(windows, file, blob)).toThrow(/fuse is not flipped/);
    fs.writeFileSync(file, Buffer.concat([pe(null), Buffer.from(`${SEA_FUSE}:1`)]));
    expect(() => checkExecutable(windows, file, blob)).toThrow(/blob is not inside/);
  });
});
