/**
 * Go: the module `<home>/sdk/go` is published by the annotated tag `sdk/go/v<version>` on this checkout's commit,
 * pushed to the git remote `PIMS_GIT_REMOTE` (default `origin`); then a module proxy must serve it: `go mod download
 * -json <module>@v<version>` in an empty module cache, with the user's own `GOPROXY` and checksum-database settings
 * (`GOSUMDB`, `GONOSUMDB`), must answer with the tagged go.mod. A proxy fetches a new tag on the first request, so the
 * check is tried a few times (`PIMS_GO_PROXY_ATTEMPTS`, 10 by default, 15 s apart).
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { run, said } from "../common";
import { differs, MISSING, SAME, type Found, type Step } from "./plan";

const git = (root: string, args: string[], env: NodeJS.ProcessEnv = process.env): string =>
  execFileSync("git", args, { cwd: root, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();

/** Whether the proxy serves module@version with `goMod` as its go.mod; the reason when not. */
async function served(
  module: string,
  version: string,
  goMod: string,
  env: NodeJS.ProcessEnv,
): Promise<string | undefined> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pims-goproxy-check-"));
  try {
    const goEnv = { ...env, GOMODCACHE: path.join(dir, "cache"), GOFLAGS: "-mod=mod -modcacherw", GO111MODULE: "on" };
    const { stdout } = await run("go", ["mod", "download", "-json", `${module}@${version}`], { cwd: dir, env: goEnv });
    const info = JSON.parse(stdout) as { GoMod?: string; Error?: string };
    if (info.Error !== undefined) return info.Error;
    const got = fs.readFileSync(info.GoMod ?? "", "utf8");
    return got === goMod ? undefined : `the proxy's go.mod of ${module}@${version} is not the tag's`;
  } catch (e) {
    const out = String((e as { stdout?: string }).stdout ?? "");
    return (/"Error":\s*"([^"]*)"/.exec(out)?.[1] ?? said(e)).split("\n")[0];
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * An annotated tag needs a tagger, and a machine that never ran `git config user.email` (a new CI runner, an empty
 * HOME) has none: git refuses with "Committer identity unknown". Then the tag names the release itself; a configured
 * identity (or GIT_COMMITTER_NAME/EMAIL) is used as it is.
 */
function tagger(root: string, env: NodeJS.ProcessEnv): string[] {
  try {
    git(root, ["var", "GIT_COMMITTER_IDENT"], env);
    return [];
  } catch {
    return ["-c", "user.name=pulumi-pims release", "-c", "user.email=release@pulumi-pims.invalid"];
  }
}

/** The tag step. `root` is the checkout the release was built from. */
export function goStep(root: string, module: string, version: string, env: NodeJS.ProcessEnv): Step {
  const declared = /^module\s+(\S+)\s*$/m.exec(fs.readFileSync(path.join(root, "sdk", "go", "go.mod"), "utf8"))?.[1];
  if (declared !== module)
    throw new Error(
      `sdk/go/go.mod declares the module ${declared}, the home gives ${module}: run npm run schema && ` +
        "npm run gen-sdk and commit the result",
    );
  if (git(root, ["status", "--porcelain", "--", "sdk/go"]) !== "")
    throw new Error("sdk/go has changes that are not committed: the tag would not publish what dist/ was built from");
  const tag = `sdk/go/v${version}`;
  const remote = env.PIMS_GIT_REMOTE || "origin";
  const head = git(root, ["rev-parse", "HEAD"]);
  const goMod = git(root, ["show", "HEAD:sdk/go/go.mod"]) + "\n";
  const attempts = Math.max(1, Number(env.PIMS_GO_PROXY_ATTEMPTS || 10));
  const waitForProxy = async (): Promise<void> => {
    let why: string | undefined;
    for (let i = 1; i <= attempts; i++) {
      why = await served(module, `v${version}`, goMod, env);
      if (why === undefined) return;
      if (i < attempts) await new Promise((r) => setTimeout(r, 15_000));
    }
    throw new Error(
      `the tag ${tag} is pushed, but the module proxy (GOPROXY=${env.GOPROXY || "the default"}) does not serve ` +
        `${module}@v${version} after ${attempts} tries: ${why}`,
    );
  };
  return {
    target: "Go",
    name: `tag ${tag}`,
    where: `${remote} (${module}@v${version} from GOPROXY)`,
    check: async (): Promise<Found> => {
      let listed: string;
      try {
        ({ stdout: listed } = await run(
          "git",
          ["ls-remote", "--tags", remote, `refs/tags/${tag}`, `refs/tags/${tag}^{}`],
          { cwd: root },
        ));
      } catch (e) {
        throw new Error(`git ls-remote ${remote} failed: ${said(e)}`, { cause: e });
      }
      const lines = listed
        .trim()
        .split("\n")
        .filter(Boolean)
        .map((l) => l.split(/\s+/));
      if (lines.length === 0) return MISSING;
      const commit = (lines.find(([, ref]) => ref.endsWith("^{}")) ?? lines[0])[0];
      if (commit !== head) return differs(`${remote}'s tag ${tag} is on ${commit}, this checkout is ${head}`);
      // Tagged here: the step is done once the proxy serves it (publishing it again only waits for the proxy).
      return (await served(module, `v${version}`, goMod, env)) === undefined ? SAME : MISSING;
    },
    publish: async () => {
      const local = execFileSync("git", ["tag", "--list", tag], { cwd: root, encoding: "utf8" }).trim();
      if (local === "")
        git(root, [...tagger(root, env), "tag", "-a", tag, "-m", `Go SDK ${module} v${version}`, head], env);
      else if (git(root, ["rev-parse", `${tag}^{commit}`]) !== head)
        throw new Error(`the local tag ${tag} is on another commit than this checkout (${head}): delete it first`);
      try {
        await run("git", ["push", remote, `refs/tags/${tag}`], { cwd: root });
      } catch (e) {
        throw new Error(`git push ${remote} ${tag} failed: ${said(e)}`, { cause: e });
      }
      await waitForProxy();
    },
  };
}
