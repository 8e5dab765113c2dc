/**
 * What a kind's provider can do beyond the lifecycle every kind has (check, diff, create, read, update, delete),
 * as interfaces the compiler checks: a kind declares a capability by implementing its interface, never by a method
 * name found at run time (a misspelling would silently take the capability away).
 */

/** `pulumi import` and the `import` option (the plugin): the object as the service shows it, from its id alone. */
export interface Importable {
  importById(id: string): Promise<{ id: string; props: object; inputs: object }>;
}

/** One object a listing found: an id `pulumi import` accepts as is, and a name to show (never a secret). */
export interface ListedObject {
  id: string;
  name: string;
}

/** A page of a listing: its objects, and where the next page starts (none: the last page). */
export interface ListPage {
  items: ListedObject[];
  continuation?: string;
}

/**
 * Which page the caller asks for, as the provider protocol's `ListRequest` says: `limit` caps the whole enumeration
 * (0 or none: no cap; the same on every page), `pageSize` this page (0 or none: the provider chooses), and
 * `continuation` is a previous page's (none: the first page).
 */
export interface ListPageRequest {
  limit?: number;
  pageSize?: number;
  continuation?: string;
}

/**
 * The provider protocol's `List` (`pulumi do <token> list`): the objects the service holds for the given inputs (the
 * schema's `listInputs`, every value known: the plugin answers `computed` itself when one is not), a page at a time
 * (./paging: `pageOf`).
 */
export interface Listable {
  list(inputs: Record<string, unknown>, page: ListPageRequest): Promise<ListPage>;
}

/**
 * The capabilities a kind declares (provider/kindDeclaration.ts): each is its provider object typed as the
 * capability's interface, so the compiler refuses a kind declaring one its provider class does not implement.
 */
export interface Capabilities {
  importable?: Importable;
  listable?: Listable;
}
