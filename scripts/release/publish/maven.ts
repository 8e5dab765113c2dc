/**
 * Maven: the Java SDK's pom, jar, sources jar and javadoc jar, each with its signature (`.asc`) and the `.md5` and
 * `.sha1` of both, put with HTTP PUT in the layout `mvn deploy` writes (`<group as folders>/pims/<version>/<file>`):
 * what Maven Central's staging API takes (its publishing guide: every file signed, with checksums) and what any
 * Maven repository serves. `PIMS_MAVEN_REPOSITORY_URL` names the repository, `PIMS_MAVEN_USERNAME` and
 * `PIMS_MAVEN_PASSWORD` its credentials (Central: a user token). The group is the home's (release.home).
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { compare, fileStep, signatureStep, type Store } from "./files";
import { basicAuth, getBytes, send, shown } from "./http";
import { MISSING, type Step } from "./plan";
import type { SigningKey } from "./sign";

const hash = (algo: string, b: Buffer): string => createHash(algo).update(b).digest("hex");

/** The Java files of a release, in the order Maven deploys them (the pom first). */
export const javaFiles = (version: string): string[] =>
  [".pom", ".jar", "-sources.jar", "-javadoc.jar"].map((s) => `pims-${version}${s}`);

/** The Maven repository store at `PIMS_MAVEN_REPOSITORY_URL`, under the group's folder. */
export function mavenStore(env: NodeJS.ProcessEnv, group: string, version: string, rehearsal: boolean): Store {
  const repo = env.PIMS_MAVEN_REPOSITORY_URL?.trim().replace(/\/+$/, "");
  if (!repo)
    throw new Error(
      "PIMS_MAVEN_REPOSITORY_URL is not set: name the Maven repository to deploy the Java SDK to " +
        "(Maven Central: https://ossrh-staging-api.central.sonatype.com/service/local/staging/deploy/maven2)",
    );
  if (!repo.startsWith("https://") && !(rehearsal && repo.startsWith("http://")))
    throw new Error(`PIMS_MAVEN_REPOSITORY_URL ${shown(repo)} is not https:// (plain http:// only in a --rehearsal)`);
  const folder = `${repo}/${group.split(".").join("/")}/pims/${version}`;
  const auth = basicAuth(env.PIMS_MAVEN_USERNAME, env.PIMS_MAVEN_PASSWORD);
  return {
    target: "Maven",
    where: (name) => `${shown(folder)}/${name}`,
    get: (name) => getBytes(`${folder}/${name}`, auth),
    put: async (name, bytes) => {
      await send("PUT", `${folder}/${name}`, bytes, { ...auth, "content-type": "application/octet-stream" });
    },
  };
}

/** The `.md5` and `.sha1` of `name`, whose bytes `bytes()` gives when they are needed. */
function checksumSteps(store: Store, name: string, bytes: () => Promise<Buffer>): Step[] {
  return (["md5", "sha1"] as const).map((algo) => {
    const file = `${name}.${algo}`;
    const text = async (): Promise<Buffer> => Buffer.from(hash(algo, await bytes()));
    return {
      target: store.target,
      name: file,
      where: store.where(file),
      // Looked at before the bytes are read: a signature not made yet has no published checksum either.
      check: async () => ((await store.get(file)) === undefined ? MISSING : compare(store, file, await text())),
      publish: async () => store.put(file, await text()),
    };
  });
}

/**
 * Every Maven step of the release in `dist`: refuses a pom whose groupId is not the home's group (a release built
 * for another home).
 */
export function mavenSteps(
  dist: string,
  version: string,
  group: string,
  store: Store,
  key: SigningKey | undefined,
): Step[] {
  const pomFile = path.join(dist, javaFiles(version)[0]);
  const pomGroup = /^ {2}<groupId>(.*)<\/groupId>$/m.exec(fs.readFileSync(pomFile, "utf8"))?.[1];
  if (pomGroup !== group)
    throw new Error(
      `dist/${path.basename(pomFile)} has groupId ${pomGroup}, the home gives ${group}: run npm run schema && ` +
        "npm run gen-sdk, commit, and npm run release again",
    );
  return javaFiles(version).flatMap((name) => {
    const file = path.join(dist, name);
    const steps = [fileStep(store, name, file), ...checksumSteps(store, name, async () => fs.readFileSync(file))];
    if (key === undefined) return steps;
    // The signature's checksums are of the signature as published (a new one of the same file has other bytes).
    const asc = `${name}.asc`;
    const published = async (): Promise<Buffer> => (await store.get(asc)) ?? fs.readFileSync(`${file}.asc`);
    return [...steps, signatureStep(store, name, file, key), ...checksumSteps(store, asc, published)];
  });
}
