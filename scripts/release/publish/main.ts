/**
 * `npm run release:publish [-- --yes] [--rehearsal] [--dist DIR] [--only TARGET,…]`: publishes the release that
 * `npm run release` wrote to dist/, each file to its registry (CONTRIBUTING.md#publishing):
 *
 * 1. the download address (release.pluginDownloadURL or the home's releases): every file the checksums file lists,
 *    the checksums file and its signature (./download);
 * 2. npm: the tarball; 3. PyPI: the wheel and sdist (./registries);
 * 4. Maven: the Java files, deployed by Maven with its GPG plugin (signatures, checksums, metadata; ./maven);
 * 5. Go: the tag `sdk/go/v<version>`, then a module proxy serving it (./go).
 *
 * A dry run by default: it looks at every registry (reads only) and prints what it would publish; `--yes` publishes
 * what is missing. A registry holding different bytes for one of these files stops it before anything is published.
 * The home must be set (package.json release.home, or PIMS_RELEASE_HOME for one run) and dist/ built for it. Signing
 * needs the release key (PIMS_GPG_KEY_ID, ./sign); without one only a `--rehearsal` runs, unsigned.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { errorText } from "../../../provider/client/errors";
import { packageVersion, releaseCoordinates } from "../../../provider/identity";
import { sha256 } from "../common";
import { downloadStore } from "./download";
import { fileStep, signatureStep } from "./files";
import { goStep } from "./go";
import { javaFiles, mavenRepository, mavenStep } from "./maven";
import { runPlan, type Outcome, type Step } from "./plan";
import { npmStep, pypiSteps } from "./registries";
import { signingKey } from "./sign";

const ROOT = path.resolve(__dirname, "..", "..", "..");
export const TARGETS = ["download", "npm", "pypi", "maven", "go"] as const;
type Target = (typeof TARGETS)[number];

/** The command line. */
export interface Options {
  yes: boolean;
  rehearsal: boolean;
  dist: string;
  only: readonly Target[];
}

export function parseArgs(argv: string[]): Options {
  const o: Options = { yes: false, rehearsal: false, dist: path.join(ROOT, "dist"), only: TARGETS };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--yes") o.yes = true;
    else if (a === "--rehearsal") o.rehearsal = true;
    else if (a === "--dist" && argv[i + 1] !== undefined) o.dist = path.resolve(argv[++i]);
    else if (a === "--only" && argv[i + 1] !== undefined) {
      const names = argv[++i].split(",").map((s) => s.trim());
      const bad = names.filter((n) => !(TARGETS as readonly string[]).includes(n));
      if (bad.length > 0) throw new Error(`--only names ${bad.join(", ")}; the targets are ${TARGETS.join(", ")}`);
      o.only = names as Target[];
    } else
      throw new Error(
        `unknown argument ${a}; usage: release:publish [--yes] [--rehearsal] [--dist DIR] ` +
          `[--only ${TARGETS.join(",")}]`,
      );
  }
  return o;
}

/** dist/'s checksums file, checked against the files it lists; returns their names (in its order). */
export function checkedDist(dist: string, version: string): { checksums: string; files: string[] } {
  const checksums = `pulumi-pims-v${version}-checksums.txt`;
  const file = path.join(dist, checksums);
  if (!fs.existsSync(file))
    throw new Error(`${dist} has no ${checksums}: run \`npm run release\` first (at version ${version})`);
  const files = fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const [sum, name] = [line.slice(0, 64), line.slice(66)];
      const at = path.join(dist, name);
      if (!fs.existsSync(at) || sha256(fs.readFileSync(at)) !== sum)
        throw new Error(`dist/${name} is missing or not what ${checksums} says: run \`npm run release\` again`);
      return name;
    });
  return { checksums, files };
}

/** What a scripts/toolchain/ensure-* script prints last: the directory it made available (fetched the first time). */
function toolchain(script: string): string {
  const out = execFileSync("bash", [path.join(ROOT, "scripts", "toolchain", script)], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  return out.trim().split("\n").pop() as string;
}

/** The ensure-python venv's python with twine added (from PyPI, the first time). */
function twinePython(): string {
  const python = path.join(toolchain("ensure-python"), "bin", "python");
  try {
    execFileSync(python, ["-c", "import twine"], { stdio: "ignore" });
  } catch {
    execFileSync(python, ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "twine==7.0.0"], {
      stdio: ["ignore", "ignore", "inherit"],
    });
  }
  return python;
}

/** Every step of the release, in publishing order. */
export function releaseSteps(o: Options, env: NodeJS.ProcessEnv, root = ROOT): Step[] {
  const coords = releaseCoordinates(env);
  if (coords.home === undefined)
    throw new Error(
      "package.json release.home is not set: nothing is published without a public home. Set it to the repository's " +
        "address (e.g. github.com/<owner>/pulumi-pims), run `npm run schema && npm run gen-sdk`, commit, and " +
        "`npm run release`",
    );
  const version = packageVersion();
  const { checksums, files } = checkedDist(o.dist, version);
  const schema = JSON.parse(fs.readFileSync(path.join(o.dist, "schema.json"), "utf8")) as {
    pluginDownloadURL?: string;
  };
  if (schema.pluginDownloadURL !== coords.pluginDownloadURL)
    throw new Error(
      `dist/schema.json names the download address ${schema.pluginDownloadURL}, the home gives ` +
        `${coords.pluginDownloadURL}: dist/ was built for another home; run \`npm run release\` again`,
    );
  const key = signingKey(env);
  if (key === undefined && !o.rehearsal)
    throw new Error(
      "no signing key: set PIMS_GPG_KEY_ID to the release key (in gpg's keyring; PIMS_GPG_PASSPHRASE if it has one). " +
        "Only a --rehearsal publishes unsigned",
    );
  const want = (t: Target): boolean => o.only.includes(t);
  const steps: Step[] = [];
  if (want("download")) {
    const store = downloadStore(coords.pluginDownloadURL as string, version, env, o.rehearsal);
    steps.push(...[...files, checksums].map((f) => fileStep(store, f, path.join(o.dist, f))));
    if (key !== undefined) steps.push(signatureStep(store, checksums, path.join(o.dist, checksums), key));
  }
  const has = (name: string): boolean => files.includes(name);
  if (want("npm") && has(`pulumi-pims-${version}.tgz`)) steps.push(npmStep(o.dist, version, env));
  const python = files.filter((f) => f.startsWith(`pulumi_pims-${version}`));
  if (want("pypi") && python.length > 0) {
    let py: string | undefined;
    steps.push(...pypiSteps(o.dist, python, env, () => (py ??= twinePython())));
  }
  if (want("maven") && javaFiles(version).every(has)) {
    let mvn: string | undefined;
    const repo = mavenRepository(env, o.rehearsal);
    const maven = (): string => (mvn ??= path.join(toolchain("ensure-maven"), "mvn"));
    steps.push(mavenStep(o.dist, version, coords.mavenGroup, repo, env, key, maven));
  }
  if (want("go")) steps.push(goStep(root, coords.goModule, version, env));
  return steps;
}

/** Runs the command; returns what it did. */
export async function publish(argv: string[], env: NodeJS.ProcessEnv, say: (l: string) => void): Promise<Outcome> {
  const o = parseArgs(argv);
  const steps = releaseSteps(o, env);
  if (signingKey(env) === undefined) say("rehearsal without a signing key: nothing is signed");
  say(`${o.yes ? "publishing" : "dry run (--yes publishes)"}: pulumi-pims ${packageVersion()} from ${o.dist}`);
  return runPlan(steps, o.yes, say);
}

if (require.main === module)
  publish(process.argv.slice(2), process.env, (l) => console.log(l)).catch((e: unknown) => {
    console.error(`release:publish: ${errorText(e)}`);
    process.exit(1);
  });
