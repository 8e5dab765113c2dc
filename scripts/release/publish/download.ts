/**
 * The download address (the schema's pluginDownloadURL): every file of dist/ that the checksums file lists, the
 * checksums file and its signature, so `sha256sum -c` of the checksums file works on what users download and the
 * engine finds `pulumi-resource-pims-v<version>-<os>-<arch>.tar.gz` there.
 *
 * - `github://api.github.com/<owner>/<repo>`: the assets of the GitHub release of tag `v<version>` (created when
 *   missing), through the REST API: GET /repos/{owner}/{repo}/releases/tags/{tag}, POST /repos/{owner}/{repo}/releases,
 *   GET /repos/{owner}/{repo}/releases/assets/{id}, POST <upload_url>?name=… . `GITHUB_TOKEN` authenticates;
 *   `GITHUB_API_URL` (set by GitHub Actions) moves the API.
 * - `https://…` (or `http://` in a rehearsal): each file read back with GET at `<address>/<file>` and uploaded with
 *   PUT there, or under `PIMS_RELEASE_UPLOAD_URL` when uploads go elsewhere (`${VERSION}` is replaced in both);
 *   `PIMS_RELEASE_UPLOAD_TOKEN` is sent as a bearer token.
 */
import { getBytes, send } from "./http";
import type { Store } from "./files";

/** The http(s) store at `address` (the engine's `${VERSION}` replaced). */
export function httpStore(address: string, version: string, env: NodeJS.ProcessEnv, rehearsal: boolean): Store {
  const fill = (u: string): string => u.replace(/\$\{VERSION\}/g, version).replace(/\/+$/, "");
  if (/\$\{(OS|ARCH|NAME)\}/.test(address))
    throw new Error(
      `the download address ${address} has \${OS}, \${ARCH} or \${NAME}: release:publish puts every file in one ` +
        "folder; set release.pluginDownloadURL to one with at most ${VERSION}",
    );
  const base = fill(address);
  const upload = fill(env.PIMS_RELEASE_UPLOAD_URL?.trim() || address);
  for (const u of [base, upload])
    if (!u.startsWith("https://") && !(rehearsal && u.startsWith("http://")))
      throw new Error(`the download address ${u} is not https:// (plain http:// only in a --rehearsal)`);
  const token = env.PIMS_RELEASE_UPLOAD_TOKEN;
  const auth: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  return {
    target: "download address",
    where: (name) => `${base}/${name}`,
    get: (name) => getBytes(`${base}/${name}`),
    put: async (name, bytes) => {
      await send("PUT", `${upload}/${encodeURIComponent(name)}`, bytes, {
        ...auth,
        "content-type": "application/octet-stream",
      });
    },
  };
}

interface GitHubRelease {
  id: number;
  upload_url: string;
  assets: { id: number; name: string; url: string }[];
}

/** The GitHub release store of `github://api.github.com/<owner>/<repo>`, tag `v<version>`. */
export function gitHubStore(address: string, version: string, env: NodeJS.ProcessEnv): Store {
  const m = /^github:\/\/api\.github\.com\/([^/]+)\/([^/]+?)\/?$/.exec(address);
  if (m === null) throw new Error(`the download address ${address} is not github://api.github.com/<owner>/<repo>`);
  const repo = `${(env.GITHUB_API_URL || "https://api.github.com").replace(/\/+$/, "")}/repos/${m[1]}/${m[2]}`;
  const tag = `v${version}`;
  const headers = (): Record<string, string> => {
    const token = env.GITHUB_TOKEN;
    return {
      accept: "application/vnd.github+json",
      "x-github-api-version": "2022-11-28",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    };
  };
  let release: GitHubRelease | undefined;
  const find = async (): Promise<GitHubRelease | undefined> => {
    if (release !== undefined) return release;
    const body = await getBytes(`${repo}/releases/tags/${tag}`, headers());
    release = body === undefined ? undefined : (JSON.parse(body.toString("utf8")) as GitHubRelease);
    return release;
  };
  return {
    target: "download address",
    where: (name) => `https://github.com/${m[1]}/${m[2]}/releases/download/${tag}/${name}`,
    get: async (name) => {
      const asset = (await find())?.assets.find((a) => a.name === name);
      if (asset === undefined) return undefined;
      return getBytes(asset.url, { ...headers(), accept: "application/octet-stream" });
    },
    put: async (name, bytes) => {
      if ((await find()) === undefined) {
        if (!env.GITHUB_TOKEN) throw new Error("GITHUB_TOKEN is not set: a GitHub release cannot be created");
        const made = await send("POST", `${repo}/releases`, JSON.stringify({ tag_name: tag, name: tag }), headers());
        release = JSON.parse(made) as GitHubRelease;
      }
      const r = release as GitHubRelease;
      const url = `${r.upload_url.replace(/\{.*\}$/, "")}?name=${encodeURIComponent(name)}`;
      const added = await send("POST", url, bytes, { ...headers(), "content-type": "application/octet-stream" });
      r.assets.push(JSON.parse(added) as GitHubRelease["assets"][number]);
    },
  };
}

/** The store the address names. */
export function downloadStore(address: string, version: string, env: NodeJS.ProcessEnv, rehearsal: boolean): Store {
  return address.startsWith("github://")
    ? gitHubStore(address, version, env)
    : httpStore(address, version, env, rehearsal);
}
