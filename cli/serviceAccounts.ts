/**
 * `pims service-accounts list|delete <project>`: the service accounts a failed or interrupted `pulumi up` may have
 * left behind. The service cannot list accounts: they are seen through the project's API keys.
 */
import * as fs from "node:fs";
import type { Command } from "commander";
import { nativeToken } from "../provider/identity";
import { kindOfStoredType, typeToken } from "../provider/kinds";
import { accountsFromKeys } from "../provider/serviceAccount/listing";
import { getApiKeys } from "../sdk/nodejs/functions";
import { clientForCall } from "../sdk/nodejs/functions/call";
import { EXIT_OK, callOptions, io, printJson, type ListOptions, type Runner } from "./context";
import { UsageError, table } from "./format";
import { addImportFileCommand } from "./importFile";

/** The output members of a ServiceAccount that hold ids of accounts the stack owns (and deletes). */
const ID_OUTPUTS = ["serviceAccountId", "previousServiceAccountId", "retiredServiceAccountIds"] as const;

/** `--state`'s options: the files, and whether one holding no ServiceAccount may count as "holds none". */
interface StateOptions {
  state?: string[];
  allowEmptyState?: boolean;
}

/**
 * Ids of the service accounts a stack holds, from `pulumi stack export` JSON (`-`: stdin): every ServiceAccount
 * resource's id and its {@link ID_OUTPUTS}, whichever host wrote it (a TypeScript program's dynamic provider or the
 * plugin of YAML, Python, Go and Java programs: `kindOfStoredType`). An export holding no ServiceAccount (another
 * stack's, a stack never updated: the engine then writes no `resources`) is refused unless `allowEmpty`: read as
 * "holds none", it would mark every account STACK no. Only ids are read: the export's secrets (the tokens) are
 * encrypted and nothing else of it is ever printed, not even in an error.
 */
function stackAccountIds(source: string, allowEmpty: boolean): Set<string> {
  const where = source === "-" ? "stdin" : source;
  let text: string;
  try {
    text = fs.readFileSync(source === "-" ? 0 : source, "utf8");
  } catch (e) {
    throw new UsageError(`--state: cannot read ${where} (${(e as NodeJS.ErrnoException).code ?? "unreadable"})`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    doc = undefined;
  }
  const deployment = (doc as { deployment?: { resources?: unknown } } | undefined)?.deployment;
  const resources = deployment?.resources ?? (typeof deployment === "object" && deployment !== null ? [] : undefined);
  if (!Array.isArray(resources))
    throw new UsageError(`--state: ${where} is not the JSON of \`pulumi stack export\` (no deployment.resources)`);
  const accounts = (resources as Array<{ type?: unknown; id?: unknown; outputs?: Record<string, unknown> }>).filter(
    (r) => kindOfStoredType(r?.type) === "ServiceAccount",
  );
  if (accounts.length === 0 && !allowEmpty)
    throw new UsageError(
      `--state: ${where} holds no pims ServiceAccount (${typeToken("ServiceAccount")} or ` +
        `${nativeToken("ServiceAccount")}): the export of another stack, or of an empty one, would mark every ` +
        "account STACK no. Give the export of the stack that holds them; if this stack holds none (its accounts " +
        "were deleted from it, or it is new), add --allow-empty-state.",
    );
  const ids = new Set<string>();
  const add = (v: unknown): void => {
    if (typeof v === "string" && v !== "") ids.add(v);
    else if (Array.isArray(v)) v.forEach(add);
  };
  for (const r of accounts) {
    add(r.id);
    for (const k of ID_OUTPUTS) add(r.outputs?.[k]);
  }
  return ids;
}

async function serviceAccountsListCommand(
  project: string,
  o: ListOptions & StateOptions,
  cmd: Command,
): Promise<number> {
  // Read the states first: a wrong path, or an export holding no ServiceAccount, fails before any request.
  const allowEmpty = o.allowEmptyState === true;
  if (allowEmpty && !o.state?.length) throw new UsageError("--allow-empty-state goes with --state");
  const held = o.state?.length ? new Set(o.state.flatMap((f) => [...stackAccountIds(f, allowEmpty)])) : undefined;
  const { keys } = await getApiKeys({ projectId: project }, callOptions(cmd));
  // The service cannot list accounts: every live account has a key whose principalId is the account id.
  const accounts = accountsFromKeys(keys); // one per account, by name, oldest first; never a key value
  if (o.json) {
    printJson({ accounts: held ? accounts.map((a) => ({ ...a, stack: held.has(a.id) })) : accounts });
  } else if (accounts.length === 0) {
    io.out(`No service accounts with an API key in project ${project}.\n`);
  } else {
    const headers = ["ID", "NAME", "STATUS", "CREATED", "EXPIRES", ...(held ? ["STACK"] : [])];
    const rows = accounts.map((a) => [
      a.id,
      a.name,
      a.status,
      a.createdAt,
      a.expiresAt,
      ...(held ? [held.has(a.id) ? "yes" : "no"] : []),
    ]);
    io.out(table(headers, rows));
    const orphans = held ? accounts.filter((a) => !held.has(a.id)).length : 0;
    if (orphans > 0) {
      io.out(
        `\n${orphans} account${orphans === 1 ? "" : "s"} with STACK no ${orphans === 1 ? "is" : "are"} held by ` +
          "none of the states given: " +
          `if no other stack or person uses one, delete it with \`pims service-accounts delete ${project} <id>\`.\n`,
      );
    }
  }
  return EXIT_OK;
}

async function serviceAccountsDeleteCommand(project: string, id: string, cmd: Command): Promise<number> {
  if (project.trim() === "") throw new UsageError("<project> must be a non-empty project id");
  if (id.trim() === "") throw new UsageError("<id> must be a non-empty service account id");
  const { message } = await clientForCall(callOptions(cmd)).deleteServiceAccount(project, id);
  io.out(`${message || `service account ${id} deleted`}\n`);
  return EXIT_OK;
}

export function addServiceAccountsCommands(program: Command, run: Runner): void {
  const accounts = program
    .command("service-accounts")
    .description(
      "list or delete a project's service accounts (e.g. orphans left by a failed or interrupted `pulumi up`), or " +
        "write the file `pulumi import --file` reads for them",
    );
  accounts
    .command("list")
    .description(
      "list the project's service accounts that have an API key: id, name, key status, created, expires (never a " +
        "key value)",
    )
    .argument("<project>", "project id")
    .option(
      "--json",
      "JSON instead of a table: {accounts: [{id, name, status, createdAt, expiresAt}]} (and `stack` with --state)",
    )
    .option(
      "--state <file|->",
      "`pulumi stack export` JSON (a file, or - for stdin; repeatable): mark each account a stack holds (column " +
        "STACK yes/no; --json: stack true/false)",
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .option(
      "--allow-empty-state",
      "accept a --state export that holds no pims ServiceAccount (refused otherwise: another stack's or an empty " +
        "export would mark every account STACK no)",
    )
    .addHelpText(
      "after",
      "\nThe service has no operation that lists service accounts: this shows the accounts seen through the " +
        "project's\nAPI keys (each key with a principalId belongs to that account), so an account without a key is " +
        "not shown.\n" +
        "\nAfter a failed `pulumi up` against a slow service: `pims service-accounts list <project> --state " +
        "<(pulumi stack export)`\n" +
        "marks the stack's own accounts (its ServiceAccounts' current, previous and retired ids, written by a " +
        "program in any\nlanguage); one with STACK no that no other stack holds is an orphan. An export holding no " +
        "ServiceAccount is refused\n(exit 2) unless --allow-empty-state.",
    )
    .action((project: string, o: ListOptions & StateOptions, cmd: Command) =>
      run(serviceAccountsListCommand(project, o, cmd)),
    );
  accounts
    .command("delete")
    .description(
      "delete a service account (its token stops working) and print the service's message; exit 1 if it does not exist",
    )
    .argument("<project>", "project id")
    .argument("<id>", "service account id, e.g. from `pims service-accounts list`")
    .addHelpText(
      "after",
      "\nDelete only an account no stack uses: a stack still holding its token would break. Accounts a stack " +
        "manages are\nbetter removed with `pulumi destroy` or by removing the resource from the program.",
    )
    .action((project: string, id: string, _o: unknown, cmd: Command) =>
      run(serviceAccountsDeleteCommand(project, id, cmd)),
    );
  addImportFileCommand(accounts, run);
}
