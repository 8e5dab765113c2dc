/** Invoices of a project: `GET /v2/projects/{project_id}/invoices`, with amounts in major units. */
import type * as pulumi from "@pulumi/pulumi";
import type { Invoice } from "../../provider/client";
import type { Inputs } from "../inputs";
import { clientForProviderCall, outputOf, requireId, type PimsCallOptions } from "./call";
import { currencyDigits, toMajorUnits } from "./currency";

/** Arguments of {@link getInvoices}. */
export interface GetInvoicesArgs {
  /** Project whose invoices are listed. */
  projectId: string;
}

/** Arguments of {@link getInvoicesOutput}: {@link GetInvoicesArgs} as Inputs. */
export type GetInvoicesOutputArgs = Inputs<GetInvoicesArgs>;

/** An invoice as the service sends it, plus the amount in major units. */
export interface InvoiceResult extends Invoice {
  /** `amountDue` in major units of `currency` (e.g. 1999 USD cents → 19.99; 500 JPY → 500). */
  amountDueMajor: number;
  /** Minor-unit digits of `currency` used for `amountDueMajor` (ISO 4217; 2 for unknown codes). */
  currencyDigits: number;
}

/** Result of {@link getInvoices} and {@link getInvoicesOutput}. */
export interface GetInvoicesResult {
  /** The project's invoices in the service's order. */
  invoices: InvoiceResult[];
}

/**
 * Lists the invoices of a project (`GET /v2/projects/{project_id}/invoices`). Each invoice also gets
 * `amountDueMajor`, the amount in major units (`amountDue / 10^digits`, digits from ISO 4217: 0 for JPY, 3 for
 * KWD, 2 by default).
 *
 * @example
 * ```ts
 * import * as pims from "pulumi-pims";
 * const { invoices } = await pims.getInvoices({ projectId: "p-1a2b3c4d" });
 * const unpaid = invoices.filter((i) => i.paymentStatus !== "paid");
 * for (const i of unpaid) console.log(`${i.id}: ${i.amountDueMajor} ${i.currency.toUpperCase()}`);
 * ```
 */
export async function getInvoices(args: GetInvoicesArgs, opts?: PimsCallOptions): Promise<GetInvoicesResult> {
  const projectId = requireId("getInvoices", "projectId", args?.projectId);
  const invoices = await (await clientForProviderCall(opts)).listInvoices(projectId);
  return {
    invoices: invoices.map((i) => ({
      ...i,
      amountDueMajor: toMajorUnits(i.amountDue, i.currency),
      currencyDigits: currencyDigits(i.currency),
    })),
  };
}

/**
 * Output form of {@link getInvoices}.
 *
 * @example
 * ```ts
 * import * as pims from "pulumi-pims";
 * export const openInvoices = pims.getInvoicesOutput({ projectId: project.id })
 *   .apply((r) => r.invoices.filter((i) => i.paymentStatus !== "paid").map((i) => i.id));
 * ```
 */
export function getInvoicesOutput(
  args: GetInvoicesOutputArgs,
  opts?: PimsCallOptions,
): pulumi.Output<GetInvoicesResult> {
  return outputOf(args, (a) => getInvoices(a, opts), opts);
}
