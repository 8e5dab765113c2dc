/**
 * The ESC adapter's pure parts: the body ESC sends read strictly (a malformed `request` names its field), the
 * allow-list, the series marker and `body_hash`.
 */
import { BadRequest, parseBody } from "../../../provider/escRotator/request";
import { seriesName } from "../../../provider/escRotator/series";
import { DESCRIPTION_MAX } from "../../../provider/serviceAccount/inputs";
import { allowed, bodyHash } from "../../../provider/escRotator/verify";

const good = { projectId: "p-1a2b3c4d", name: "ci-deployer", grants: ["p-1a2b3c4d"], expiresIn: 2_592_000 };
const body = (v: unknown): Buffer => Buffer.from(JSON.stringify(v));
const fieldOf = (v: unknown): string => {
  try {
    parseBody(typeof v === "string" ? Buffer.from(v) : body(v));
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
  ["a name too long for the marker", { request: { ...good, name: "n".repeat(83) }, state: null }, "request.name"],
  [
    "a description over the service's limit",
    { request: { ...good, description: "d".repeat(DESCRIPTION_MAX + 1) }, state: null },
    "request.description",
  ],
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

test("the limits are the service's less the marker: a 500-character description and an 82-character name", () => {
  const longest = { ...good, name: "n".repeat(82), description: "d".repeat(DESCRIPTION_MAX) };
  expect(parseBody(body({ request: longest, state: null })).request).toEqual(longest);
  expect(seriesName("acme/app/prod", longest).length).toBeLessThanOrEqual(100);
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
});
