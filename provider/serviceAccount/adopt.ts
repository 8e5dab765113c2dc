/**
 * Taking over an account the stack did not create (made in the web console, by a script, by another tool): `pulumi
 * import` and the `import` option through the plugin (`<projectId>/<serviceAccountId>`), and the
 * `adoptServiceAccountId` input (TypeScript, where the engine's import cannot reach a dynamic provider).
 *
 * The service has no read of an account: the project's API-key listing (GET /v2/projects/{project_id}/api-keys) is all
 * it tells, the account's key: name, description, expiry, creation time. It never tells the grants, and the token's
 * secret is returned only by the create. The key's `apiKey` member is taken for the token only when a call made with
 * it proves it (the same listing, sent with it as the bearer token, answers 2xx); otherwise the state holds no token
 * (`tokenHeld: false`) and a warning says what to do: the first rotation creates the successor with a token held as a
 * secret, and the adopted account is deleted only after that successor exists (./rotation, ./index).
 */
import type * as pulumi from "@pulumi/pulumi";
import type { ApiKey, PimsClient } from "../client";
import { NEVER, outputs } from "./rotation";
import { MAX_EXPIRES_IN, type ServiceAccountInputs } from "./inputs";
import { probeToken } from "./refresh";
import { runMemory, type ListingResult } from "./run";
import type { ServiceAccountOutputs } from "./outputs";
import { progress, warning } from "../client/log";
import { deliverNew } from "./delivery";

/**
 * What the provider lends an adoption or an import: the run's listing of a project (./run), its address for messages,
 * a client sending a given token (one retry; a refusal names that token).
 */
export interface AdoptService {
  look: (projectId: string) => Promise<ListingResult>;
  url: (projectId: string) => string;
  probe: (token: string) => PimsClient;
}

/**
 * Create with `adoptServiceAccountId`: no POST. The project's API-key listing must show the account, with the
 * declared name and description (else the next `pulumi up` would replace it at once); the resource then holds it as
 * `pulumi import` would, with the program's other inputs.
 */
export async function adoptAccount(
  ins: ServiceAccountInputs,
  accountId: string,
  service: AdoptService,
): Promise<pulumi.dynamic.CreateResult<ServiceAccountOutputs>> {
  const { projectId } = ins;
  const listing = await service.look(projectId);
  const key = findAccountKey(listing, projectId, accountId, service.url(projectId));
  const differs = (["name", "description"] as const).filter((k) => (key[k] ?? "") !== (ins[k] ?? ""));
  if (differs.length > 0)
    throw new Error(
      `pulumi-pims: cannot adopt service account ${accountId} in project ${projectId}: the service shows ` +
        differs.map((k) => `${k} ${JSON.stringify(key[k] ?? "")}`).join(" and ") +
        `, the program declares ${differs.map((k) => JSON.stringify(ins[k] ?? "")).join(" and ")}: declare the ` +
        "service's values (a change of them needs a new account, which adopting would make at once).",
    );
  const keys = listing.ok ? listing.listing.keys : [];
  const at = { projectId, accountId, url: service.url(projectId), by: "adopt" as const };
  const token =
    ins.adoptToken !== undefined
      ? await proveGivenToken(ins.adoptToken, keys, at, service.probe)
      : await provenToken(key, projectId, service.probe);
  const adopted = adoptedOutputs(key, projectId, token, ins);
  // A proven token is delivered like a new one; the account is not this stack's, so a failure deletes nothing.
  const delivered = token === undefined ? {} : await deliverNew(ins.tokenDelivery, token, adopted);
  const outs = outputs({ ...adopted, ...delivered });
  runMemory().hold(projectId, [accountId]);
  warning(adoptedLine(outs, "adopted"));
  return { id: accountId, outs };
}

/**
 * `pulumi import` through the plugin, id `<projectId>/<serviceAccountId>`: the account as the project's API-key
 * listing shows it (refused, naming what was looked up, when it does not), and the inputs the program is generated
 * from. Nothing is created or deleted.
 */
export async function importAccount(
  importId: string,
  service: AdoptService,
): Promise<{ id: string; props: ServiceAccountOutputs; inputs: Partial<ServiceAccountInputs> }> {
  const { projectId, accountId } = parseImportId(importId);
  const key = findAccountKey(await service.look(projectId), projectId, accountId, service.url(projectId));
  const token = await provenToken(key, projectId, service.probe);
  const props = outputs(adoptedOutputs(key, projectId, token));
  runMemory().hold(projectId, [accountId]);
  warning(adoptedLine(props, "imported"));
  return { id: accountId, props, inputs: importedInputs(props) };
}

/** Inputs the listing cannot tell: an imported account's values are the program's until a rotation creates one. */
export const UNREAD_INPUTS = ["grants"] as const;

/** `<projectId>/<serviceAccountId>`, the id `pulumi import` takes; anything else is refused with the form. */
export function parseImportId(id: string): { projectId: string; accountId: string } {
  const parts = id.split("/");
  if (parts.length !== 2 || parts.some((p) => p.trim() === "" || p !== p.trim()))
    throw new Error(
      `pulumi-pims: cannot import service account ${JSON.stringify(id)}: the import id is ` +
        "<projectId>/<serviceAccountId>, e.g. p-1a2b3c4d/sa-0123456789ab (`pims service-accounts import-file " +
        "<projectId>` writes them all for `pulumi import --file`)",
    );
  return { projectId: parts[0], accountId: parts[1] };
}

/** The account's key in a listing, or an error naming what was looked up and where; nothing is adopted. */
export function findAccountKey(listing: ListingResult, projectId: string, accountId: string, url: string): ApiKey {
  const what = `service account ${accountId} in project ${projectId}`;
  if (!listing.ok) {
    const why = listing.error instanceof Error ? listing.error.message : String(listing.error);
    throw new Error(`pulumi-pims: cannot adopt ${what}: ${url} failed, so it cannot be checked: ${why}`);
  }
  const keys = listing.listing.keys.filter((k) => k.principalId === accountId);
  if (keys.length === 0)
    throw new Error(
      `pulumi-pims: cannot adopt ${what}: ${url} shows no API key with principalId ${accountId} ` +
        `(${listing.listing.keys.length} key(s) listed). Check the id with ` +
        `\`pims service-accounts list ${projectId}\`.`,
    );
  // The oldest key is the account's own (closest to its creation).
  return [...keys].sort((a, b) => (Date.parse(a.createdAt) || 0) - (Date.parse(b.createdAt) || 0))[0];
}

/** A key value that cannot be a bearer token: empty, or masked as listings usually show them (`pims_...abcd`). */
const masked = (v: unknown): boolean => typeof v !== "string" || v.length < 16 || /\.\.\.|\*|•|…/.test(v);

/**
 * The token the key carries, when a call proves it (GET /v2/projects/{project_id}/api-keys with it answers 2xx);
 * undefined otherwise. `clientWith` builds a client sending that token; the value is never logged.
 */
export async function provenToken(
  key: ApiKey,
  projectId: string,
  clientWith: (token: string) => PimsClient,
): Promise<string | undefined> {
  if (masked(key.apiKey)) return undefined;
  return (await probeToken(clientWith(key.apiKey), projectId)) === "live" ? key.apiKey : undefined;
}

/**
 * Whether a key value as a listing shows it could be this token: the whole value, or what a mask leaves of it
 * (`pims_...1a2b`: the part before the mask starts the token, at least 4 characters after it end it). Undefined when
 * the value shows too little to tell.
 */
export function keyShows(value: unknown, token: string): boolean | undefined {
  if (typeof value !== "string" || value.trim() === "") return undefined;
  const v = value.trim();
  const m = /^(.*?)(?:\.{3}|…|\*+|•+)(.*)$/s.exec(v);
  if (!m) return masked(v) ? undefined : v === token;
  const [head, tail] = [m[1], m[2]];
  if (tail.length < 4) return undefined;
  return token.length > head.length + tail.length && token.startsWith(head) && token.endsWith(tail);
}

/**
 * An account `pulumi import --file` took from a file's `outputs` (Pulumi ≥ 3.254.0 stores them without asking the
 * provider) and no update has proven yet: its id is the import form `<projectId>/<serviceAccountId>` (the engine keeps
 * the file's id; pims' ids are account ids) and its outputs lack `createdByUserId` or `tokenId`, which every state
 * pims writes holds (`createdByUserId` is "" for an import or adoption). The proof writes both.
 */
export function importedFromOutputs(id: string, o: Partial<ServiceAccountOutputs> | undefined): boolean {
  const unproven = o !== undefined && (typeof o.createdByUserId !== "string" || typeof o.tokenId !== "string");
  return unproven && typeof id === "string" && id.includes("/");
}

/** The project and account of such an import: from its outputs, else from its id. */
export function importedIds(id: string, o: Partial<ServiceAccountOutputs>): { projectId: string; accountId: string } {
  const [idProject, idAccount] = id.includes("/")
    ? [parseImportId(id).projectId, parseImportId(id).accountId]
    : ["", id];
  const projectId = typeof o.projectId === "string" && o.projectId !== "" ? o.projectId : idProject;
  const accountId =
    typeof o.serviceAccountId === "string" && o.serviceAccountId !== "" ? o.serviceAccountId : idAccount;
  if (projectId === "")
    throw new Error(
      `pulumi-pims: service account ${accountId} was imported from outputs without its project: give ` +
        "`outputs.projectId`, or the id as <projectId>/<serviceAccountId>, in the import file",
    );
  return { projectId, accountId };
}

/**
 * The first update of an account `pulumi import --file` took from a file's `outputs` ({@link importedFromOutputs}):
 * its token is proven ({@link proveGivenToken}) and the outputs become what an adoption with that token gives, the
 * program's inputs included. No write; a wrong token fails the update, saying why.
 */
export async function proveImported(
  id: string,
  olds: ServiceAccountOutputs,
  ins: ServiceAccountInputs,
  service: AdoptService,
): Promise<ServiceAccountOutputs> {
  const { projectId, accountId } = importedIds(id, olds);
  const listing = await service.look(projectId);
  const url = service.url(projectId);
  const key = findAccountKey(listing, projectId, accountId, url);
  const keys = listing.ok ? listing.listing.keys : [];
  const token = await proveGivenToken(olds.token, keys, { projectId, accountId, url, by: "import" }, service.probe);
  const outs = outputs(adoptedOutputs(key, projectId, token, { ...ins, projectId }));
  progress(
    `pulumi-pims: service account ${JSON.stringify(outs.name)} (${accountId}): the token the import file gave is ` +
      "this account's (its key in the listing matches it, the service accepts it): held as a secret (tokenHeld: true)",
  );
  return outs;
}

/** How a given token came: an import file's `outputs` (the plugin) or `adoptToken` (TypeScript). */
export type GivenBy = "import" | "adopt";

const afterRefusal: Record<GivenBy, string> = {
  import:
    "Nothing was taken from it: remove the imported entry (`pulumi state delete <urn>`) and import the account again " +
    "with its own token in `outputs.token`, or without `outputs` (then the state holds no token until a rotation)",
  adopt:
    "Nothing was adopted: give the account's own token in `adoptToken`, or leave `adoptToken` out to adopt the " +
    "account without its token (its first rotation creates a successor whose token is held)",
};

/**
 * Proves that `token`, given by the user, is the token of the account `accountId` (issue 55, row 6): the project's
 * API-key listing shows a key of that account whose visible part matches it and no other key that does, and the
 * service accepts it (GET /v2/projects/{project_id}/api-keys with it answers 2xx). Throws an error saying which check
 * failed and what to do; never shows the token or a key value.
 */
export async function proveGivenToken(
  token: unknown,
  keys: readonly ApiKey[],
  at: { projectId: string; accountId: string; url: string; by: GivenBy },
  clientWith: (token: string) => PimsClient,
): Promise<string> {
  const { projectId, accountId, url } = at;
  const refuse = (why: string): Error =>
    new Error(
      `pulumi-pims: the token given for service account ${accountId} in project ${projectId} is refused: ${why}. ` +
        afterRefusal[at.by] +
        ".",
    );
  if (typeof token !== "string" || token.trim() === "") throw refuse("it is empty");
  const shown = keys.filter((k) => k.principalId === accountId).map((k) => keyShows(k.apiKey, token));
  if (shown.includes(true)) {
    const alike = keys.filter((k) => k.principalId !== accountId && keyShows(k.apiKey, token) === true);
    if (alike.length > 0)
      throw refuse(
        `${url} shows ${alike.length} other account key(s) that match it as well, so it cannot be told apart`,
      );
  } else if (shown.includes(false)) throw refuse(`it is not this account's: ${url} shows this account's key otherwise`);
  else throw refuse(`${url} shows too little of this account's key to compare it with, so it cannot be proven`);
  const answer = await probeToken(clientWith(token), projectId);
  if (answer === "gone") throw refuse("the service does not accept it (401: deleted, expired or mistyped)");
  if (answer !== "live") throw refuse(`the service gave no clear answer to ${url} sent with it; try again later`);
  return token;
}

/**
 * The token's lifetime as the key shows it, when it is one the create could have asked for: 0 for `never`, else the
 * seconds from creation to expiry, rounded (at most one year). Undefined otherwise (then it is an unread input).
 */
export function expiresInOf(key: Pick<ApiKey, "createdAt" | "expiresAt">): number | undefined {
  if (key.expiresAt === NEVER || key.expiresAt === "" || key.expiresAt === undefined) return 0;
  const seconds = (Date.parse(key.expiresAt) - Date.parse(key.createdAt)) / 1000;
  if (!Number.isFinite(seconds) || seconds <= 0) return undefined;
  const whole = Math.round(seconds);
  return whole <= MAX_EXPIRES_IN ? whole : undefined;
}

/**
 * The outputs of an adopted account: what the key tells, the program's values where it cannot (`declared`: the
 * adopt input's program; none for `pulumi import`), and the token only when proven.
 */
export function adoptedOutputs(
  key: ApiKey,
  projectId: string,
  token: string | undefined,
  declared?: ServiceAccountInputs,
): ServiceAccountOutputs {
  const expiresIn = declared?.expiresIn ?? expiresInOf(key);
  return {
    ...(declared ?? {}),
    projectId,
    name: key.name,
    description: key.description ?? "",
    grants: declared?.grants as string[],
    expiresIn: expiresIn as number,
    serviceAccountId: key.principalId as string,
    createdAt: key.createdAt,
    createdByUserId: "",
    tokenId: key.id,
    tokenExpiresAt: key.expiresAt === "" ? NEVER : key.expiresAt,
    token: token ?? "",
    tokenHeld: token !== undefined,
    unreadInputs: declared ? undefined : [...UNREAD_INPUTS, ...(expiresIn === undefined ? ["expiresIn"] : [])],
  };
}

/** The inputs `pulumi import` generates the program from: what the key tells, nothing invented. */
export function importedInputs(o: ServiceAccountOutputs): Partial<ServiceAccountInputs> {
  const out: Partial<ServiceAccountInputs> = { projectId: o.projectId, name: o.name };
  if (o.description !== "") out.description = o.description;
  if (typeof o.expiresIn === "number") out.expiresIn = o.expiresIn;
  return out;
}

/** The warning of an adoption: what could not be read, and what to do. */
export function adoptedLine(o: ServiceAccountOutputs, how: "imported" | "adopted"): string {
  const name = JSON.stringify(o.name);
  const who = `pulumi-pims: service account ${name} (${o.serviceAccountId}) in project ${o.projectId}`;
  const unread = [...(o.unreadInputs ?? [])];
  const what =
    unread.length > 0
      ? `the service cannot tell its ${unread.join(" or ")}: declare ${unread.length > 1 ? "them" : "it"} in the ` +
        "program (that alone changes nothing in the service)"
      : "its grants were taken from the program as declared (the service cannot tell them)";
  if (o.tokenHeld) return `${who} ${how}: its token was proven by a call and is held as a secret; ${what}.`;
  if (o.tokenDeliveredTo)
    return `${who} ${how}: its token was proven by a call and delivered to ${o.tokenDeliveredTo}; ${what}.`;
  return (
    `${who} ${how} without its token (tokenHeld: false: the service returns a token only when it creates the ` +
    `account); ${what}. Consumers keep the token they have. To hold a token in the stack, rotate: set or change ` +
    "`rotationTrigger` (with `keepPreviousToken: true` this account stays valid as the previous one until the next " +
    "rotation); it is never deleted before its successor exists."
  );
}
