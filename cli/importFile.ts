/**
 * `pims service-accounts import-file <project>`: the file `pulumi import --file` reads, for every service account of a
 * project (as its API-key listing shows them: GET /v2/projects/{project_id}/api-keys), so one command plus
 * `pulumi import --file` adopts a project and the engine writes the program in the user's language. No key value is
 * read or written: the file holds names, type tokens and ids.
 */
import * as fs from "node:fs";
import type { Command } from "commander";
import { nativeToken } from "../provider/identity";
import { PROJECT } from "../provider/project";
import { SERVICE_ACCOUNT } from "../provider/serviceAccount/kind";
import { accountsFromKeys, type AccountSeen } from "../provider/serviceAccount/listing";
import { getApiKeys } from "../sdk/nodejs/functions";
import { EXIT_OK, callOptions, io, type Runner } from "./context";
import { UsageError } from "./format";

/** One entry of `pulumi import --file`'s `resources`. */
export interface ImportEntry {
  type: string;
  name: string;
  id: string;
  parent?: string;
}

/** A logical name from an account's name: letters, digits, `_` and `-`, never starting with a digit; unique. */
function logicalName(name: string, taken: Set<string>): string {
  let base = name.replace(/[^A-Za-z0-9_-]+/g, "-").replace(/^-+|-+$/g, "") || "account";
  if (/^[0-9]/.test(base)) base = `sa-${base}`;
  let out = base;
  for (let i = 2; taken.has(out); i++) out = `${base}-${i}`;
  taken.add(out);
  return out;
}

/**
 * The `pulumi import --file` document for these accounts of `projectId`: one `pims:index:ServiceAccount` each (id
 * `<projectId>/<serviceAccountId>`), and with `project` the project itself (`pims:index:Project`, named so) as their
 * parent.
 */
export function importFile(
  projectId: string,
  accounts: readonly Pick<AccountSeen, "id" | "name">[],
  project?: string,
): { resources: ImportEntry[] } {
  const taken = new Set<string>(project ? [project] : []);
  const resources: ImportEntry[] = project ? [{ type: nativeToken(PROJECT.kind), name: project, id: projectId }] : [];
  for (const a of accounts)
    resources.push({
      type: nativeToken(SERVICE_ACCOUNT.kind),
      name: logicalName(a.name, taken),
      id: `${projectId}/${a.id}`,
      ...(project ? { parent: project } : {}),
    });
  return { resources };
}

interface ImportFileOptions {
  out?: string;
  project?: string;
  skip?: string[];
}

async function importFileCommand(projectId: string, o: ImportFileOptions, cmd: Command): Promise<number> {
  if (projectId.trim() === "") throw new UsageError("<project> must be a non-empty project id");
  if (o.project !== undefined && o.project.trim() === "") throw new UsageError("--project must be a non-empty name");
  const skip = new Set(o.skip ?? []);
  const { keys } = await getApiKeys({ projectId }, callOptions(cmd));
  const accounts = accountsFromKeys(keys).filter((a) => !skip.has(a.id));
  const text = JSON.stringify(importFile(projectId, accounts, o.project), null, 2) + "\n";
  if (o.out === undefined || o.out === "-") io.out(text);
  else fs.writeFileSync(o.out, text);
  const where = o.out === undefined || o.out === "-" ? "stdout" : o.out;
  io.err(
    `${accounts.length} service account(s) of project ${projectId}${o.project ? " and the project" : ""} written to ` +
      `${where}. Next: pulumi import --file ${o.out && o.out !== "-" ? o.out : "<file>"} --out <program file>\n`,
  );
  return EXIT_OK;
}

export function addImportFileCommand(accounts: Command, run: Runner): void {
  accounts
    .command("import-file")
    .description(
      "write the file `pulumi import --file` reads for every service account of a project (names, type, " +
        "<project>/<id>; never a key value)",
    )
    .argument("<project>", "project id")
    .option("-o, --out <file>", "write the file here instead of stdout")
    .option("--project <name>", "also import the project itself under this resource name, as the accounts' parent")
    .option(
      "--skip <id>",
      "leave out this account (repeatable), e.g. one a stack already holds",
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .addHelpText(
      "after",
      "\nThen `pulumi import --file <file>` adopts them all in one step and writes the program in the stack's " +
        "language.\nThe service cannot tell an account's grants or token: declare the grants in the program; the " +
        "first rotation\n(rotationTrigger) creates a successor whose token the stack holds (docs/resources.md).",
    )
    .action((projectId: string, o: ImportFileOptions, cmd: Command) => run(importFileCommand(projectId, o, cmd)));
}
