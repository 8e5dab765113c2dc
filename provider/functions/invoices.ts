/** Invoices of a project: `GET /v2/projects/{project_id}/invoices`, with amounts in major units. */
import type { Invoice } from "../client";
import { requireId, type ClientSource } from "./args";
import { currencyDigits, toMajorUnits } from "./currency";

/** Arguments of `getInvoices`. */
export interface GetInvoicesArgs {
  /** Project whose invoices are listed. */
  projectId: string;
}

/** An invoice as the service sends it, plus the amount in major units. */
export interface InvoiceResult extends Invoice {
  /** `amountDue` in major units of `currency` (e.g. 1999 USD cents → 19.99; 500 JPY → 500). */
  amountDueMajor: number;
  /** Minor-unit digits of `currency` used for `amountDueMajor` (ISO 4217; 2 for unknown codes). */
  currencyDigits: number;
}

/** Result of `getInvoices` and `getInvoicesOutput`. */
export interface GetInvoicesResult {
  /** The project's invoices in the service's order. */
  invoices: InvoiceResult[];
}

/** The project's invoices, each with its amount in major units. */
export async function run(args: GetInvoicesArgs, client: ClientSource): Promise<GetInvoicesResult> {
  const projectId = requireId("getInvoices", "projectId", args?.projectId);
  const invoices = await (await client()).listInvoices(projectId);
  return {
    invoices: invoices.map((i) => ({
      ...i,
      amountDueMajor: toMajorUnits(i.amountDue, i.currency),
      currencyDigits: currencyDigits(i.currency),
    })),
  };
}
