/**
 * npm and PyPI, through their own clients and settings. npm: `npm view` (is this version there, with which
 * `dist.integrity`) and `npm publish <tarball>`, with npm's own registry and token settings (.npmrc,
 * `NPM_CONFIG_REGISTRY`, `NODE_AUTH_TOKEN` in a workflow). PyPI: the package's page of the simple index users install
 * from (`PIMS_PYPI_INDEX_URL`, default https://pypi.org/simple; each link carries the file's `#sha256=`; not pip's own
 * `PIP_INDEX_URL`, which may name a mirror, and which installing twine uses), and `twine upload`,
 * which reads `TWINE_REPOSITORY_URL`, `TWINE_USERNAME` and `TWINE_PASSWORD` (PyPI: `__token__` and an API token).
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { run, said, sha256 } from "../common";
import { getBytes, shown } from "./http";
import { differs, MISSING, SAME, type Found, type Step } from "./plan";

const npmCommand = process.platform === "win32" ? "npm.cmd" : "npm";

/** Both streams of a failed command: some put their error on stdout (twine; npm under `npm run -s`). */
const printed = (e: unknown): string => `${String((e as { stdout?: string }).stdout ?? "")}\n${said(e)}`.trim();

/** The npm tarball of `version`: compared by its integrity (sha512), published with `npm publish`. */
export function npmStep(dist: string, version: string, env: NodeJS.ProcessEnv): Step {
  const name = `pulumi-pims-${version}.tgz`;
  const file = path.join(dist, name);
  const registry = env.NPM_CONFIG_REGISTRY || env.npm_config_registry || "npm's configured registry";
  return {
    target: "npm",
    name,
    where: `pulumi-pims@${version} on ${shown(registry)}`,
    check: async (): Promise<Found> => {
      let out: string;
      try {
        ({ stdout: out } = await run(
          npmCommand,
          ["view", `pulumi-pims@${version}`, "dist.integrity", "--json", "--prefer-online"],
          { env },
        ));
      } catch (e) {
        // Under `npm run -s` (npm_config_loglevel=silent) npm writes the error, as JSON, to stdout and nothing to
        // stderr: a 404 is read from both.
        const out = printed(e);
        if (/E404|404 Not Found|is not in this registry/.test(out)) return MISSING;
        throw new Error(`npm view pulumi-pims@${version} failed: ${out}`, { cause: e });
      }
      if (out.trim() === "") return MISSING;
      const there = JSON.parse(out) as string;
      const local = `sha512-${createHash("sha512").update(fs.readFileSync(file)).digest("base64")}`;
      return there === local
        ? SAME
        : differs(`the registry's pulumi-pims@${version} has ${there}, dist/${name} ${local}`);
    },
    publish: async () => {
      try {
        await run(npmCommand, ["publish", file, "--access", "public"], { env });
      } catch (e) {
        throw new Error(`npm publish ${name} failed: ${printed(e)}`, { cause: e });
      }
    },
  };
}

/** The links of a PEP 503 page: file name to its `#sha256=` (or the link, when it has no hash). */
function simpleLinks(html: string, base: string): Map<string, { sha256?: string; url: string }> {
  const links = new Map<string, { sha256?: string; url: string }>();
  for (const m of html.matchAll(/<a\s[^>]*href="([^"]+)"[^>]*>([^<]+)<\/a>/gi)) {
    const href = m[1].replace(/&amp;/g, "&");
    links.set(m[2].trim(), { sha256: /#sha256=([0-9a-f]{64})/.exec(href)?.[1], url: new URL(href, base).toString() });
  }
  return links;
}

/**
 * The Python wheel and sdist: each file compared with the index's `#sha256=` (or its bytes), published by `twine
 * upload` with the Python of `python` (the ensure-python venv, with twine added; ./main).
 */
export function pypiSteps(dist: string, files: string[], env: NodeJS.ProcessEnv, python: () => string): Step[] {
  const index = (env.PIMS_PYPI_INDEX_URL || "https://pypi.org/simple").replace(/\/+$/, "");
  const page = `${index}/pulumi-pims/`;
  let links: Promise<Map<string, { sha256?: string; url: string }>> | undefined;
  const read = async (): Promise<Map<string, { sha256?: string; url: string }>> => {
    const html = await getBytes(page, { accept: "text/html" });
    return html === undefined ? new Map() : simpleLinks(html.toString("utf8"), page);
  };
  return files.map((name) => {
    const file = path.join(dist, name);
    return {
      target: "PyPI",
      name,
      where: `${shown(page)} (uploaded to ${shown(env.TWINE_REPOSITORY_URL || "https://upload.pypi.org/legacy/")})`,
      check: async (): Promise<Found> => {
        const link = (await (links ??= read())).get(name);
        if (link === undefined) return MISSING;
        const local = sha256(fs.readFileSync(file));
        const there = link.sha256 ?? sha256((await getBytes(link.url)) ?? Buffer.alloc(0));
        return there === local ? SAME : differs(`the index has ${name} with SHA-256 ${there}, dist/ ${local}`);
      },
      publish: async () => {
        links = undefined; // read the page again after an upload
        try {
          execFileSync(python(), ["-m", "twine", "upload", "--non-interactive", "--disable-progress-bar", file], {
            env,
            stdio: ["ignore", "pipe", "pipe"],
            encoding: "utf8",
          });
        } catch (e) {
          throw new Error(`twine upload ${name} failed: ${printed(e)}`, { cause: e });
        }
      },
    };
  });
}
