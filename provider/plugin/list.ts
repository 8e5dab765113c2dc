/**
 * The provider protocol's `List` (pulumi/pulumi#22693; `pulumi do <token> list`): a stream of results `{id, name}`,
 * then a continuation when more pages remain; or one `computed` when the query holds a value not known yet (a
 * preview), and nothing is asked of the service. Which kinds list, and with which inputs (the schema's `listInputs`),
 * is {@link LISTABLE}: each entry names the kind's provider class, which the compiler checks implements `Listable`
 * (../capabilities); the object the plugin runs is checked to be one before it is asked, so no kind lists by a method
 * name found at run time.
 */
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import type { Listable, ListPage } from "../capabilities";
import { isUnknown } from "../checks";
import type { ResourceKind } from "../kinds";
import { ProjectProvider } from "../project";
import { ServiceAccountProvider } from "../serviceAccount";
import { SERVICE_ACCOUNT_LIST_INPUTS } from "../serviceAccount/list";
import { fromStruct } from "./values";

/** A kind that lists: its provider class, and its `listInputs` (none: the schema declares no `list`). */
interface ListableKind {
  provider: abstract new (...args: never[]) => Listable;
  listInputs?: readonly string[];
}

/**
 * The kinds whose provider lists. ServiceAccount, by project; Project answers the protocol's empty answer (the service
 * cannot tell which projects there are) and declares no `listInputs`, so `pulumi do` offers no `list` for it.
 */
export const LISTABLE: { readonly [K in ResourceKind]?: ListableKind } = {
  Project: { provider: ProjectProvider },
  ServiceAccount: { provider: ServiceAccountProvider, listInputs: SERVICE_ACCOUNT_LIST_INPUTS },
};

/**
 * The messages of one List call, in order: the page's results and its continuation, or `computed`. `provider` is the
 * kind's configured provider object (../plugin/lifecycle).
 */
export async function listResponses(
  kind: ResourceKind,
  provider: () => Promise<unknown>,
  req: provproto.ListRequest,
): Promise<provproto.ListResponse[]> {
  const entry = LISTABLE[kind];
  if (entry === undefined)
    throw new Error(`pulumi-pims: ${req.getToken()} cannot be listed: the service has no listing of them`);
  const query = fromStruct(req.getQuery()).props;
  if (Object.values(query).some(isUnknown))
    return [new provproto.ListResponse().setComputed(new provproto.ListResponse.Computed())];
  const p = await provider();
  if (!(p instanceof entry.provider)) throw new Error(`pulumi-pims: ${kind}'s provider cannot list`);
  const page: ListPage = await p.list(query, {
    limit: req.getLimit(),
    pageSize: req.getPageSize(),
    continuation: req.getContinuationToken() || undefined,
  });
  const out = page.items.map((o) =>
    new provproto.ListResponse().setResult(new provproto.ListResponse.Result().setId(o.id).setName(o.name)),
  );
  if (page.continuation !== undefined)
    out.push(
      new provproto.ListResponse().setContinuation(
        new provproto.ListResponse.Continuation().setContinuationToken(page.continuation),
      ),
    );
  return out;
}
