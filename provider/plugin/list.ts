/**
 * The provider protocol's `List` (pulumi/pulumi#22693; `pulumi do <token> list`): a stream of results `{id, name}`,
 * then a continuation when more pages remain; or one `computed` when the query holds a value not known yet (a
 * preview), and nothing is asked of the service. A kind lists when its declaration says so (the `listable`
 * capability, which the compiler checks its provider class implements; its `listInputs` in the schema:
 * ../kindDeclaration), never by a method name found at run time.
 */
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import type { ListPage } from "../capabilities";
import { isUnknown } from "../checks";
import type { KindInstance } from "../kindDeclaration";
import { fromStruct } from "./values";

/**
 * The messages of one List call, in order: the page's results and its continuation, or `computed`. `instance` is the
 * kind's configured provider with its declared capabilities (./lifecycle); a kind that does not declare `listable`
 * is refused.
 */
export async function listResponses(
  instance: () => Promise<KindInstance>,
  req: provproto.ListRequest,
): Promise<provproto.ListResponse[]> {
  const query = fromStruct(req.getQuery()).props;
  if (Object.values(query).some(isUnknown))
    return [new provproto.ListResponse().setComputed(new provproto.ListResponse.Computed())];
  const { listable } = await instance();
  if (listable === undefined)
    throw new Error(`pulumi-pims: ${req.getToken()} cannot be listed: the service has no listing of them`);
  const page: ListPage = await listable.list(query, {
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
