/**
 * What a kind's provider can do beyond the lifecycle every kind has (check, diff, create, read, update, delete),
 * as interfaces the compiler checks: a kind declares a capability by implementing its interface, never by a method
 * name found at run time (a misspelling would silently take the capability away).
 */

/** `pulumi import` and the `import` option (the plugin): the object as the service shows it, from its id alone. */
export interface Importable {
  importById(id: string): Promise<{ id: string; props: object; inputs: object }>;
}

/** One object a listing found: an id `pulumi import` accepts as is, and a name to show. */
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
 * The provider protocol's `List` (`pulumi do <token> list`): the objects the service holds for the given inputs (the
 * schema's `listInputs`), a page at a time.
 */
export interface Listable {
  list(inputs: Record<string, unknown>, page: { continuation?: string; pageSize?: number }): Promise<ListPage>;
}

/**
 * The capabilities a kind declares (provider/kindDeclaration.ts): each is its provider object typed as the
 * capability's interface, so the compiler refuses a kind declaring one its provider class does not implement.
 */
export interface Capabilities {
  importable?: Importable;
  listable?: Listable;
}
