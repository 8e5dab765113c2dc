/**
 * `pims service-accounts list|delete <project>`: the service accounts a failed or interrupted `pulumi up` may have
 * left behind. The service cannot list accounts: they are seen through the project's API keys.
 */
import type { Command } from "commander";
import { accountsFromKeys } from "../provider/serviceAccountListing";
import { getApiKeys } from "../sdk/functions";
import { clientForCall } from "../sdk/functions/call";
import { EXIT_OK, callOptions, io, printJson, type ListOptions, type Runner } from "./context";
import { UsageError, table } from "./format";

async function serviceAccountsListCommand(project: string, o: ListOptions, cmd: Command): Promise<number> {
  const { keys } = await getApiKeys({ projectId: project }, callOptions(cmd));
  // The service cannot list accounts: every live account has a key whose principalId is the account id.
  const accounts = accountsFromKeys(keys); // one per account, by name, oldest first; never a key value
  if (o.json) {
    printJson({ accounts });
  } else if (accounts.length === 0) {
    io.out(`No service accounts with an API key in project ${project}.\n`);
  } else {
    io.out(
      table(
        ["ID", "NAME", "STATUS", "CREATED", "EXPIRES"],
        accounts.map((a) => [a.id, a.name, a.status, a.createdAt, a.expiresAt]),
      ),
    );
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
    .description("list or delete a project's service accounts (e.g. orphans left by a failed or interrupted `pulumi up`)");
  accounts
    .command("list")
    .description("list the project's service accounts that have an API key: id, name, key status, created, expires (never a key value)")
    .argument("<project>", "project id")
    .option("--json", "JSON instead of a table: {accounts: [{id, name, status, createdAt, expiresAt}]}")
    .addHelpText(
      "after",
      "\nThe service has no operation that lists service accounts: this shows the accounts seen through the project's\nAPI keys (each key with a principalId belongs to that account), so an account without a key is not shown.",
    )
    .action((project: string, o: ListOptions, cmd: Command) => run(serviceAccountsListCommand(project, o, cmd)));
  accounts
    .command("delete")
    .description("delete a service account (its token stops working) and print the service's message; exit 1 if it does not exist")
    .argument("<project>", "project id")
    .argument("<id>", "service account id, e.g. from `pims service-accounts list`")
    .addHelpText(
      "after",
      "\nDelete only an account no stack uses: a stack still holding its token would break. Accounts a stack manages are\nbetter removed with `pulumi destroy` or by removing the resource from the program.",
    )
    .action((project: string, id: string, _o: unknown, cmd: Command) => run(serviceAccountsDeleteCommand(project, id, cmd)));
}
