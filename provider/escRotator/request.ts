/**
 * The two bodies ESC sends the adapter, read strictly: a malformed one is refused with 400 naming the field, before
 * any call to the service.
 * - A rotation (`fn::rotate::external`, https://www.pulumi.com/docs/esc/integrations/rotated-secrets/external):
 *   `{"request": <the environment's request object>, "state": <the adapter's previous response, or null>}`.
 * - An open (`fn::open::external`, https://www.pulumi.com/docs/esc/integrations/dynamic-secrets/external): the
 *   environment's `request` object itself, with no state.
 * A body of the other kind is named as such (each route serves one kind: an open never rotates, a rotation never
 * leases). `request` is what every editor of the environment can read and write, so it never carries a credential: the
 * adapter's own environment does. The accounts' limits are the service's, from their one home
 * (../serviceAccount/inputs), less what the adapter adds to the name (the series marker, ./series).
 */
import { charLength } from "../checks";
import { DESCRIPTION_MAX, GRANTS_MAX, MAX_EXPIRES_IN, NAME_MAX as SERVICE_NAME_MAX } from "../serviceAccount/inputs";
import { MARKED_SUFFIX_LENGTH } from "./series";

/** What both kinds of request say of the accounts they make. */
export interface AccountRequest {
  /** The project that owns the accounts. */
  projectId: string;
  /** The accounts' name (the adapter adds the series marker to it). */
  name: string;
  /** Project ids the accounts may access, 1 to 50. */
  grants: string[];
  /** Optional description of the accounts. */
  description?: string;
}

/** The environment's `request` of a rotation: the series' account, as `pims.ServiceAccount` takes it. */
export interface RotationRequest extends AccountRequest {
  /** Each token's lifetime in seconds, 0 (never) to 31536000. */
  expiresIn: number;
}

/** The environment's `request` of an open: one short-lived account. */
export interface OpenRequest extends AccountRequest {
  /** The token's lifetime in seconds, 1 to the adapter's longest (`PIMS_ESC_MAX_TTL`); the service expires it. */
  ttl: number;
}

/** What the adapter reads of `state` (its own previous response, or an initial `state` naming an account to adopt). */
export interface RotationState {
  serviceAccountId: string;
  previousServiceAccountId?: string;
}

/** A malformed body: 400, naming the field. */
export class BadRequest extends Error {
  constructor(
    readonly field: string,
    why: string,
  ) {
    super(`${field}: ${why}`);
    this.name = "BadRequest";
  }
}

/** Longest `name`: the service's limit less the series marker and the request's tag. */
export const NAME_MAX = SERVICE_NAME_MAX - MARKED_SUFFIX_LENGTH;
/** The `ttl` of an open that gives none (seconds), when the adapter's longest allows it. */
export const DEFAULT_TTL = 3600;
const ID = /^[A-Za-z0-9_-]{1,100}$/;
const ACCOUNT_FIELDS = ["projectId", "name", "grants", "description"];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function json(body: Uint8Array): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body).toString("utf8"));
  } catch {
    throw new BadRequest("body", "not JSON");
  }
  if (!isObject(parsed)) throw new BadRequest("body", "must be a JSON object");
  return parsed;
}

/** A rotation's body parsed, or a {@link BadRequest} naming the first field that is wrong. */
export function parseRotationBody(body: Uint8Array): { request: RotationRequest; state: RotationState | null } {
  const parsed = json(body);
  if (parsed.request === undefined && parsed.projectId !== undefined)
    throw new BadRequest(
      "body",
      "this is an open's body (fn::open::external sends the request object itself) sent to the rotation route: " +
        "point fn::open::external at the adapter's open URL",
    );
  if (!isObject(parsed.request)) throw new BadRequest("request", "must be an object");
  const r = parsed.request;
  checkKnown(r, "request.", [...ACCOUNT_FIELDS, "expiresIn"]);
  const { expiresIn } = r;
  const account = accountFields(r, "request.");
  if (typeof expiresIn !== "number" || !Number.isInteger(expiresIn) || expiresIn < 0 || expiresIn > MAX_EXPIRES_IN)
    throw new BadRequest("request.expiresIn", `must be a whole number of seconds, 0 (never) to ${MAX_EXPIRES_IN}`);
  return { request: { ...account, expiresIn }, state: parseState(parsed.state) };
}

/** An open's body (the request object itself) parsed against the adapter's longest `ttl`, or a {@link BadRequest}. */
export function parseOpenBody(body: Uint8Array, maxTtl: number): OpenRequest {
  const r = json(body);
  if (r.projectId === undefined && (r.request !== undefined || r.state !== undefined))
    throw new BadRequest(
      "body",
      "this is a rotation's body ({request, state}, what fn::rotate::external sends) sent to the open route: " +
        "point fn::rotate::external at the adapter's rotation URL",
    );
  checkKnown(r, "", [...ACCOUNT_FIELDS, "ttl"]);
  const account = accountFields(r, "");
  const ttl = r.ttl ?? Math.min(DEFAULT_TTL, maxTtl);
  if (typeof ttl !== "number" || !Number.isInteger(ttl) || ttl < 1)
    throw new BadRequest("ttl", `must be a whole number of seconds, 1 to ${maxTtl}`);
  if (ttl > maxTtl)
    throw new BadRequest(
      "ttl",
      `${ttl} is above the adapter's longest, ${maxTtl} seconds (PIMS_ESC_MAX_TTL or --max-ttl on the adapter)`,
    );
  return { ...account, ttl };
}

function checkKnown(r: Record<string, unknown>, prefix: string, known: readonly string[]): void {
  const unknown = Object.keys(r).filter((k) => !known.includes(k));
  if (unknown.length > 0) throw new BadRequest(`${prefix}${unknown[0]}`, `unknown field (known: ${known.join(", ")})`);
}

function accountFields(r: Record<string, unknown>, prefix: string): AccountRequest {
  const { projectId, name, grants, description } = r;
  if (typeof projectId !== "string" || !ID.test(projectId))
    throw new BadRequest(`${prefix}projectId`, "must be a project id such as p-1a2b3c4d");
  if (typeof name !== "string" || name.trim() === "" || charLength(name) > NAME_MAX)
    throw new BadRequest(`${prefix}name`, `must be 1 to ${NAME_MAX} characters`);
  if (!Array.isArray(grants) || grants.length < 1 || grants.length > GRANTS_MAX)
    throw new BadRequest(`${prefix}grants`, `must be a list of 1 to ${GRANTS_MAX} project ids`);
  grants.forEach((g, i) => {
    if (typeof g !== "string" || !ID.test(g)) throw new BadRequest(`${prefix}grants[${i}]`, "must be a project id");
  });
  if (new Set(grants).size !== grants.length) throw new BadRequest(`${prefix}grants`, "must not repeat a project id");
  if (description !== undefined && (typeof description !== "string" || charLength(description) > DESCRIPTION_MAX))
    throw new BadRequest(`${prefix}description`, `must be text of at most ${DESCRIPTION_MAX} characters`);
  return { projectId, name, grants: grants as string[], ...(description ? { description } : {}) };
}

/**
 * `null`, the adapter's previous response, or an initial state naming an account (`serviceAccountId`, optionally
 * wrapped in `current` as ESC's YAML writes it). Members the adapter does not read (the token) are ignored.
 */
function parseState(s: unknown): RotationState | null {
  if (s === null || s === undefined) return null;
  if (!isObject(s)) throw new BadRequest("state", "must be null or the adapter's previous response");
  const inner = isObject(s.current) && s.serviceAccountId === undefined ? s.current : s;
  const id = inner.serviceAccountId;
  if (typeof id !== "string" || !ID.test(id)) throw new BadRequest("state.serviceAccountId", "must be an account id");
  const prev = inner.previousServiceAccountId;
  if (prev !== undefined && prev !== null && (typeof prev !== "string" || !ID.test(prev)))
    throw new BadRequest("state.previousServiceAccountId", "must be an account id or null");
  return { serviceAccountId: id, ...(typeof prev === "string" ? { previousServiceAccountId: prev } : {}) };
}
