/** `pims invoices <project>`: a project's invoices, amounts in major units. */
import type { Command } from "commander";
import { getInvoices } from "../sdk/nodejs/functions";
import { EXIT_OK, callOptions, io, printJson, type ListOptions, type Runner } from "./context";
import { table } from "./format";

async function invoicesCommand(project: string, o: ListOptions, cmd: Command): Promise<number> {
  const { invoices } = await getInvoices({ projectId: project }, callOptions(cmd));
  if (o.json) {
    printJson({ invoices });
  } else if (invoices.length === 0) {
    io.out(`No invoices in project ${project}.\n`);
  } else {
    io.out(
      table(
        ["ID", "CREATED", "AMOUNT", "STATUS", "ACCOUNT", "COUNTRY", "PDF"],
        invoices.map((i) => [
          i.id,
          i.createdAt,
          `${i.amountDueMajor.toFixed(i.currencyDigits)} ${i.currency.toUpperCase()}`,
          i.paymentStatus,
          i.accountName,
          i.accountCountry,
          i.fileUrl,
        ]),
        new Set([2]),
      ),
    );
  }
  return EXIT_OK;
}

export function addInvoicesCommand(program: Command, run: Runner): void {
  program
    .command("invoices")
    .description("list a project's invoices, amounts in major units (12.34 EUR)")
    .argument("<project>", "project id")
    .option("--json", "JSON instead of a table: {invoices: [...]}, with amountDueMajor")
    .action((project: string, o: ListOptions, cmd: Command) => run(invoicesCommand(project, o, cmd)));
}
