/** Invoices of a project: `GET /v2/projects/{project_id}/invoices`, with amounts in major units. */
import type * as pulumi from "@pulumi/pulumi";
import * as core from "../../../provider/functions/invoices";
import type { GetInvoicesArgs, GetInvoicesResult, InvoiceResult } from "../../../provider/functions/invoices";
import type { Inputs } from "../inputs";
import { callFunction, clientForProviderCall, outputOf, type PimsCallOptions } from "./call";

export type { GetInvoicesArgs, GetInvoicesResult, InvoiceResult };

/** Arguments of {@link getInvoicesOutput}: {@link GetInvoicesArgs} as Inputs. */
export type GetInvoicesOutputArgs = Inputs<GetInvoicesArgs>;

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
  return callFunction("getInvoices", args, opts, () => core.run(args, () => clientForProviderCall(opts)));
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
