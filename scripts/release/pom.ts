/**
 * The coordinates `npm run gen-sdk` writes into the hand-written sdk/java/pom.xml (scripts/generate/gen-sdk/run calls
 * this file): the project's groupId (the home's Maven group), version (package.json's), url and scm (the home's
 * repository), and the `server` of the plugin.json the jar carries (the schema's pluginDownloadURL: the Java host
 * hands it to the engine, which then downloads the plugin from there).
 *
 * Usage: ts-node scripts/release/pom.ts <pom.xml> <schema.json>
 */
import * as fs from "node:fs";
import { errorText } from "../../provider/client/errors";
import { releaseCoordinates } from "../../provider/identity";

/** What the pom is given. */
export interface PomFacts {
  groupId: string;
  version: string;
  /** The repository's web address; undefined while the home is unset (the npm page stands in). */
  repository: string | undefined;
  /** The schema's pluginDownloadURL, if any. */
  server: string | undefined;
}

/** The public page named while the home is unset. */
const NPM_PAGE = "https://www.npmjs.com/package/pulumi-pims";

const xml = (s: string): string => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** Replaces the first match of `re` (which must match: the pom's layout is known) with `to`. */
function replaceOnce(pom: string, re: RegExp, to: string, what: string): string {
  if (!re.test(pom)) throw new Error(`sdk/java/pom.xml has no ${what}: cannot write it`);
  return pom.replace(re, to);
}

/** The pom with `facts` written in. */
export function patchPom(pom: string, facts: PomFacts): string {
  const page = xml(facts.repository ?? NPM_PAGE);
  let out = replaceOnce(pom, /^ {2}<groupId>.*<\/groupId>$/m, `  <groupId>${xml(facts.groupId)}</groupId>`, "groupId");
  out = replaceOnce(out, /^ {2}<version>.*<\/version>$/m, `  <version>${xml(facts.version)}</version>`, "version");
  out = replaceOnce(out, /^ {2}<url>.*<\/url>$/m, `  <url>${page}</url>`, "url");
  const scm = [
    "  <scm>",
    `    <connection>scm:git:${facts.repository === undefined ? page : `${page}.git`}</connection>`,
    `    <url>${page}</url>`,
    "  </scm>",
  ].join("\n");
  out = replaceOnce(out, /^ {2}<scm>[\s\S]*?^ {2}<\/scm>$/m, scm, "<scm>");
  const fields = ['  "resource": true', '  "name": "pims"', '  "version": "${project.version}"'];
  if (facts.server !== undefined) fields.push(`  "server": ${xml(JSON.stringify(facts.server))}`);
  const body = "{\n" + fields.join(",\n") + "\n}\n";
  const echo = /(<echo file="[^"]*\/plugin\.json"[^>]*>)[\s\S]*?(<\/echo>)/;
  return replaceOnce(out, echo, `$1${body.replace(/\$/g, "$$$$")}$2`, '<echo file=".../plugin.json">');
}

if (require.main === module) {
  try {
    const [pomFile, schemaFile] = process.argv.slice(2);
    const schema = JSON.parse(fs.readFileSync(schemaFile, "utf8")) as { version: string; pluginDownloadURL?: string };
    const coords = releaseCoordinates(process.env);
    const pom = fs.readFileSync(pomFile, "utf8");
    fs.writeFileSync(
      pomFile,
      patchPom(pom, {
        groupId: coords.mavenGroup,
        version: schema.version,
        repository: coords.repository,
        server: schema.pluginDownloadURL,
      }),
    );
  } catch (e) {
    console.error(`[gen-sdk] error: ${errorText(e)}`);
    process.exit(1);
  }
}
