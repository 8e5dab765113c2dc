/**
 * The body ESC sends to a rotator, `{"request": <the environment's request object>, "state": <the adapter's previous
 * response, or null>}` (https://www.pulumi.com/docs/esc/integrations/rotated-secrets/external), read strictly: a
 * malformed `request` is refused with 400 naming the field, before any call to the service. `request` is what every
 * editor of the environment can read and write, so it never carries a credential: the adapter's own environment does.
 * The account's limits are the service's, from their one home (../serviceAccount/inputs), less the series marker.
 */
import { charLength } from "../checks";
import { DESCRIPTION_MAX, GRANTS_MAX, MAX_EXPIRES_IN, NAME_MAX as SERVICE_NAME_MAX } from "../serviceAccount/inputs";

/** The environment's `request`: the series' account, as `pims.ServiceAccount` takes it. */
export interface RotationRequest {
  /** The project that owns the accounts. */
  projectId: string;
  /** The accounts' name (the adapter adds the series marker to it). */
  name: string;
  /** Project ids the accounts may access, 1 to 50. */
  grants: string[];
  /** Each token's lifetime in seconds, 0 (never) to 31536000. */
  expiresIn: number;
  /** Optional description of the accounts. */
  description?: string;
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

/** Longest `name`: the service's limit less the series marker (`-esc-` and 12 hex, ./series). */
export const NAME_MAX = SERVICE_NAME_MAX - 18;
const ID = /^[A-Za-z0-9_-]{1,100}$/;
const KNOWN = ["projectId", "name", "grants", "expiresIn", "description"];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The body parsed, or a {@link BadRequest} naming the first field that is wrong. */
export function parseBody(body: Uint8Array): { request: RotationRequest; state: RotationState | null } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body).toString("utf8"));
  } catch {
    throw new BadRequest("body", "not JSON");
  }
  if (!isObject(parsed)) throw new BadRequest("body", "must be an object with request and state");
  return { request: parseRequest(parsed.request), state: parseState(parsed.state) };
}

function parseRequest(r: unknown): RotationRequest {
  if (!isObject(r)) throw new BadRequest("request", "must be an object");
  const unknown = Object.keys(r).filter((k) => !KNOWN.includes(k));
  if (unknown.length > 0) throw new BadRequest(`request.${unknown[0]}`, `unknown field (known: ${KNOWN.join(", ")})`);
  const { projectId, name, grants, expiresIn, description } = r;
  if (typeof projectId !== "string" || !ID.test(projectId))
    throw new BadRequest("request.projectId", "must be a project id such as p-1a2b3c4d");
  if (typeof name !== "string" || name.trim() === "" || charLength(name) > NAME_MAX)
    throw new BadRequest("request.name", `must be 1 to ${NAME_MAX} characters`);
  if (!Array.isArray(grants) || grants.length < 1 || grants.length > GRANTS_MAX)
    throw new BadRequest("request.grants", `must be a list of 1 to ${GRANTS_MAX} project ids`);
  grants.forEach((g, i) => {
    if (typeof g !== "string" || !ID.test(g)) throw new BadRequest(`request.grants[${i}]`, "must be a project id");
  });
  if (new Set(grants).size !== grants.length) throw new BadRequest("request.grants", "must not repeat a project id");
  if (typeof expiresIn !== "number" || !Number.isInteger(expiresIn) || expiresIn < 0 || expiresIn > MAX_EXPIRES_IN)
    throw new BadRequest("request.expiresIn", `must be a whole number of seconds, 0 (never) to ${MAX_EXPIRES_IN}`);
  if (description !== undefined && (typeof description !== "string" || charLength(description) > DESCRIPTION_MAX))
    throw new BadRequest("request.description", `must be text of at most ${DESCRIPTION_MAX} characters`);
  return { projectId, name, grants: grants as string[], expiresIn, ...(description ? { description } : {}) };
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
