/**
 * Maven: the Java SDK's pom, jar, sources jar and javadoc jar, deployed by Maven itself (`mvn` from
 * scripts/toolchain/ensure-maven): maven-gpg-plugin's `gpg:sign-and-deploy-file` signs each file with the release key
 * and deploys it with its `.asc`, or, in a rehearsal without a key, maven-deploy-plugin's `deploy:deploy-file` deploys
 * them unsigned. Maven's deploy writes what users' builds read: each file's `.md5` and `.sha1`, and the artifact's
 * `maven-metadata.xml` (with its checksums) listing the versions, which a version range (`[0.5,1)`) or a Gradle dynamic
 * version needs from a repository that writes none of its own (Nexus, Artifactory, GitHub Packages). What stays here:
 * the step in the plan, the comparison with what the repository already holds, and the refusals.
 *
 * `PIMS_MAVEN_REPOSITORY_URL` names the repository, `PIMS_MAVEN_USERNAME` and `PIMS_MAVEN_PASSWORD` its credentials
 * (Central: a user token): Maven reads them from its environment through a settings.xml server entry
 * (`${env.PIMS_MAVEN_PASSWORD}`), so they are on no command line and in no file; `PIMS_GPG_PASSPHRASE` reaches the GPG
 * plugin as `MAVEN_GPG_PASSPHRASE`. The group is the home's (release.home).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { run } from "../common";
import { fileStep, signatureStep, type Store } from "./files";
import { basicAuth, getBytes, shown } from "./http";
import { differs, MISSING, SAME, type Step } from "./plan";
import type { SigningKey } from "./sign";

/** Maven's plugins that deploy, pinned (Maven fetches them from Maven Central the first time). */
const SIGN_AND_DEPLOY = "org.apache.maven.plugins:maven-gpg-plugin:3.2.8:sign-and-deploy-file";
const DEPLOY = "org.apache.maven.plugins:maven-deploy-plugin:3.1.3:deploy-file";
/** The settings.xml server id the deploy's credentials are found under. */
const SERVER_ID = "pims-release";

/** The Java files of a release: the pom, the jar, its sources and javadoc jars. */
export const javaFiles = (version: string): string[] =>
  [".pom", ".jar", "-sources.jar", "-javadoc.jar"].map((s) => `pims-${version}${s}`);

/** The repository `PIMS_MAVEN_REPOSITORY_URL` names (no trailing slash); refused when unset or not https://. */
export function mavenRepository(env: NodeJS.ProcessEnv, rehearsal: boolean): string {
  const repo = env.PIMS_MAVEN_REPOSITORY_URL?.trim().replace(/\/+$/, "");
  if (!repo)
    throw new Error(
      "PIMS_MAVEN_REPOSITORY_URL is not set: name the Maven repository to deploy the Java SDK to " +
        "(Maven Central: https://ossrh-staging-api.central.sonatype.com/service/local/staging/deploy/maven2)",
    );
  if (!repo.startsWith("https://") && !(rehearsal && repo.startsWith("http://")))
    throw new Error(`PIMS_MAVEN_REPOSITORY_URL ${shown(repo)} is not https:// (plain http:// only in a --rehearsal)`);
  return repo;
}

/** A settings.xml whose server entry takes the credentials from Maven's environment (none when they are not set). */
function settingsXml(env: NodeJS.ProcessEnv): string {
  const server =
    env.PIMS_MAVEN_USERNAME && env.PIMS_MAVEN_PASSWORD
      ? `<servers><server><id>${SERVER_ID}</id><username>\${env.PIMS_MAVEN_USERNAME}</username>` +
        "<password>${env.PIMS_MAVEN_PASSWORD}</password></server></servers>"
      : "";
  return `<settings>${server}</settings>\n`;
}

/** What a failed mvn printed, its errors only, with any user-info of a URL removed. */
function mavenErrors(e: unknown): string {
  const out = `${String((e as { stdout?: string }).stdout ?? "")}\n${String((e as { stderr?: string }).stderr ?? "")}`;
  const errors = out.split("\n").filter((l) => l.startsWith("[ERROR]") && l.trim() !== "[ERROR]");
  return (errors.length > 0 ? errors.slice(0, 12).join("\n") : (e as Error).message).replace(/\/\/[^\s/@]*@/g, "//");
}

/**
 * The Maven step of the release in `dist`: one deploy of the four files (Maven deploys them as one artifact). Already
 * there when each file has the same bytes, each signature verifies with the release key, and `maven-metadata.xml`
 * lists the version; different bytes or a signature that does not verify stop the plan; anything else (nothing there,
 * or a deploy that stopped midway) is deployed again, whole. Refuses a pom whose groupId is not the home's group (a
 * release built for another home). `mvn` gives the path of Maven's `mvn` (fetched the first time it is needed).
 */
export function mavenStep(
  dist: string,
  version: string,
  group: string,
  repo: string,
  env: NodeJS.ProcessEnv,
  key: SigningKey | undefined,
  mvn: () => string,
): Step {
  const [pom, jar, sources, javadoc] = javaFiles(version).map((f) => path.join(dist, f));
  const pomGroup = /^ {2}<groupId>(.*)<\/groupId>$/m.exec(fs.readFileSync(pom, "utf8"))?.[1];
  if (pomGroup !== group)
    throw new Error(
      `dist/${path.basename(pom)} has groupId ${pomGroup}, the home gives ${group}: run npm run schema && ` +
        "npm run gen-sdk, commit, and npm run release again",
    );
  const artifact = `${repo}/${group.split(".").join("/")}/pims`;
  const auth = basicAuth(env.PIMS_MAVEN_USERNAME, env.PIMS_MAVEN_PASSWORD);
  // Read only: Maven's deploy puts the files.
  const store: Store = {
    target: "Maven",
    where: (name) => `${shown(artifact)}/${version}/${name}`,
    get: (name) => getBytes(`${artifact}/${version}/${name}`, auth),
    put: () => Promise.reject(new Error("the Maven files are put by mvn deploy")),
  };
  const parts = javaFiles(version).flatMap((name) => {
    const file = path.join(dist, name);
    return [fileStep(store, name, file), ...(key === undefined ? [] : [signatureStep(store, name, file, key)])];
  });
  return {
    target: "Maven",
    name: `pims-${version} by mvn deploy (pom, jar, sources and javadoc jars${key === undefined ? "" : ", signed"})`,
    where: `${shown(artifact)}/${version}/`,
    check: async () => {
      const found = [];
      for (const part of parts) found.push(await part.check());
      const why = found.flatMap((f) => (f.state === "differs" ? [f.why] : []));
      if (why.length > 0) return differs(why.join("; "));
      if (found.some((f) => f.state === "missing")) return MISSING;
      const metadata = await getBytes(`${artifact}/maven-metadata.xml`, auth);
      return metadata?.toString("utf8").includes(`<version>${version}</version>`) ? SAME : MISSING;
    },
    publish: async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pims-maven-deploy-"));
      try {
        const settings = path.join(dir, "settings.xml");
        fs.writeFileSync(settings, settingsXml(env));
        // The signatures go to the scratch folder, not beside the files in dist/.
        const signing =
          key === undefined
            ? [DEPLOY]
            : [SIGN_AND_DEPLOY, `-Dgpg.keyname=${key.fingerprint}`, `-Dgpg.ascDirectory=${dir}`];
        // The global settings file is ours (the user's own ~/.m2/settings.xml still applies: mirrors, proxies).
        const args = ["-B", "--no-transfer-progress", "-Dstyle.color=never", "-gs", settings, ...signing];
        const files = [`-Dfile=${jar}`, `-DpomFile=${pom}`, `-Dsources=${sources}`, `-Djavadoc=${javadoc}`];
        const where = [`-Durl=${repo}`, `-DrepositoryId=${SERVER_ID}`];
        const mvnEnv = { ...env, ...(key?.passphrase === undefined ? {} : { MAVEN_GPG_PASSPHRASE: key.passphrase }) };
        await run(mvn(), [...args, ...files, ...where], { cwd: dir, env: mvnEnv });
      } catch (e) {
        throw new Error(`mvn deploy of pims-${version} to ${shown(repo)} failed:\n${mavenErrors(e)}`, { cause: e });
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
