/**
 * The ESC adapter's pure parts: the two bodies ESC sends read strictly (a malformed one names its field, a body of the
 * other route is named as such), the limits from their one home, the allow-list, the series markers and `body_hash`.
 */
import { BadRequest, NAME_MAX, parseOpenBody, parseRotationBody } from "../../../provider/escRotator/request";
import { inSeries, markedName, seriesMarker, seriesName } from "../../../provider/escRotator/series";
import { DESCRIPTION_MAX, NAME_MAX as SERVICE_NAME_MAX } from "../../../provider/serviceAccount/inputs";
import { allowed, bodyHash } from "../../../provider/escRotator/verify";

const good = { projectId: "p-1a2b3c4d", name: "ci-deployer", grants: ["p-1a2b3c4d"], expiresIn: 2_592_000 };
const body = (v: unknown): Buffer => Buffer.from(JSON.stringify(v));
const fieldOf = (v: unknown, parse: (b: Buffer) => unknown = parseRotationBody): string => {
  try {
    parse(typeof v === "string" ? Buffer.from(v) : body(v));
  } catch (e) {
    if (e instanceof BadRequest) return e.field;
    throw e;
  }
  return "(accepted)";
};

test.each<[string, unknown, string]>([
  ["not JSON", "{", "body"],
  ["not an object", [1], "body"],
  ["no request", { state: null }, "request"],
  ["an unknown member", { request: { ...good, token: "x" }, state: null }, "request.token"],
  ["no projectId", { request: { ...good, projectId: undefined }, state: null }, "request.projectId"],
  ["an empty name", { request: { ...good, name: " " }, state: null }, "request.name"],
  [
    "a name too long for the marker",
    { request: { ...good, name: "n".repeat(NAME_MAX + 1) }, state: null },
    "request.name",
  ],
  [
    "a description over the service's limit",
    { request: { ...good, description: "d".repeat(DESCRIPTION_MAX + 1) }, state: null },
    "request.description",
  ],
  ["an open's body at the rotation route", { projectId: "p-1", name: "ci", grants: ["p-1"] }, "body"],
  ["grants not a list", { request: { ...good, grants: "p-1" }, state: null }, "request.grants"],
  ["no grants", { request: { ...good, grants: [] }, state: null }, "request.grants"],
  ["a grant not an id", { request: { ...good, grants: ["p-1", 3] }, state: null }, "request.grants[1]"],
  ["a repeated grant", { request: { ...good, grants: ["p-1", "p-1"] }, state: null }, "request.grants"],
  ["expiresIn fractional", { request: { ...good, expiresIn: 1.5 }, state: null }, "request.expiresIn"],
  ["expiresIn over a year", { request: { ...good, expiresIn: 31_536_001 }, state: null }, "request.expiresIn"],
  ["a state of no account", { request: good, state: { token: "x" } }, "state.serviceAccountId"],
  ["a state not an object", { request: good, state: "sa-1" }, "state"],
])("%s: 400 naming %s", (_what, value, field) => {
  expect(fieldOf(value)).toBe(field);
});

test("state: null, the adapter's previous response, or ESC's initial `current` naming an account to adopt", () => {
  const parseBody = parseRotationBody;
  expect(parseBody(body({ request: good, state: null })).state).toBeNull();
  const previous = { token: "t", serviceAccountId: "sa-2", previousServiceAccountId: "sa-1", tokenId: "k" };
  expect(parseBody(body({ request: good, state: previous })).state).toEqual({
    serviceAccountId: "sa-2",
    previousServiceAccountId: "sa-1",
  });
  expect(parseBody(body({ request: good, state: { current: { serviceAccountId: "sa-9" } } })).state).toEqual({
    serviceAccountId: "sa-9",
  });
  expect(parseBody(body({ request: { ...good, description: "ci" }, state: null })).request).toEqual({
    ...good,
    description: "ci",
  });
});

test("the limits are the service's less the marker: a 500-character description and the longest name pass", () => {
  const longest = { ...good, name: "n".repeat(NAME_MAX), description: "d".repeat(DESCRIPTION_MAX) };
  expect(parseRotationBody(body({ request: longest, state: null })).request).toEqual(longest);
  const marked = markedName(seriesMarker("rotate", "acme/app/prod", longest), "jti-1");
  expect(marked.length).toBe(SERVICE_NAME_MAX);
  expect(markedName(seriesMarker("open", "acme/app/prod", longest), "jti-1").length).toBe(SERVICE_NAME_MAX);
});

const lease = { projectId: "p-1a2b3c4d", name: "ci", grants: ["p-1a2b3c4d"], ttl: 600 };
test.each<[string, unknown, string]>([
  ["a rotation's body at the open route", { request: lease, state: null }, "body"],
  ["an unknown member", { ...lease, expiresIn: 60 }, "expiresIn"],
  ["ttl zero", { ...lease, ttl: 0 }, "ttl"],
  ["ttl fractional", { ...lease, ttl: 1.5 }, "ttl"],
  ["ttl above the adapter's longest", { ...lease, ttl: 3601 }, "ttl"],
  ["no grants", { ...lease, grants: undefined }, "grants"],
])("an open with %s: 400 naming %s", (_what, value, field) => {
  expect(fieldOf(value, (b) => parseOpenBody(b, 3600))).toBe(field);
});

test("an open: the request object itself; ttl defaults to an hour within the adapter's longest", () => {
  expect(parseOpenBody(body(lease), 3600)).toEqual(lease);
  const { ttl: _none, ...noTtl } = lease;
  expect(parseOpenBody(body(noTtl), 7200).ttl).toBe(3600);
  expect(parseOpenBody(body(noTtl), 900).ttl).toBe(900);
  try {
    parseOpenBody(body({ ...lease, ttl: 7200 }), 3600);
    throw new Error("accepted");
  } catch (e) {
    expect(String(e)).toContain("3600 seconds (PIMS_ESC_MAX_TTL or --max-ttl on the adapter)");
  }
});

test("the allow-list names an organization or one org/project/env", () => {
  const allow = ["acme", "other/app/prod"];
  expect(allowed(allow, { org: "acme", environment: "acme/x/y" })).toBe(true);
  expect(allowed(allow, { org: "other", environment: "other/app/prod" })).toBe(true);
  expect(allowed(allow, { org: "other", environment: "other/app/dev" })).toBe(false);
  expect(allowed(allow, { org: "acmex", environment: "acmex/app/prod" })).toBe(false);
});

test("the series marker: the name, then a hash of environment, project and name; body_hash as ESC writes it", () => {
  const a = seriesName("acme/app/prod", good);
  expect(a).toMatch(/^ci-deployer-esc-[0-9a-f]{12}$/);
  expect(seriesName("acme/app/prod", good)).toBe(a);
  expect(seriesName("acme/app/dev", good)).not.toBe(a);
  expect(seriesName("acme/app/prod", { ...good, projectId: "p-other" })).not.toBe(a);
  expect(bodyHash(Buffer.from("abc"))).toBe("sha256-ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=");
  // An open's series is another series: a rotation never retires a lease, an open never counts a rotated account.
  const o = seriesMarker("open", "acme/app/prod", good);
  expect(o).toMatch(/^ci-deployer-esl-[0-9a-f]{12}$/);
  expect(inSeries(a, markedName(a, "j1"))).toBe(true);
  expect(inSeries(a, a)).toBe(true); // 0.7.0's accounts carry the marker alone
  expect(inSeries(o, markedName(a, "j1"))).toBe(false);
  expect(inSeries(a, `${a}-extra`)).toBe(false);
  expect(markedName(a, "j1")).not.toBe(markedName(a, "j2"));
});
