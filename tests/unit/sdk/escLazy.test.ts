/**
 * The ESC adapter and `jose` are loaded only when `createEscRotator` is called (issue 63): `import "pulumi-pims"` in a
 * program loads neither, as sealing loads `age-encryption` only for a stack that seals (sealLazy.test.ts). `jose` is
 * replaced by a factory that counts its loads and returns the real module, so the adapter made at the end is real.
 */
const mockJose = { loads: 0 };
jest.mock("jose", () => {
  mockJose.loads++;
  return jest.requireActual("jose");
});

const adapterLoaded = (): boolean => Object.keys(require.cache).some((f) => /provider[\\/]escRotator[\\/]/.test(f));

test("the package as a program imports it loads neither the adapter nor jose", () => {
  const pims = require("../../../sdk/nodejs") as typeof import("../../../sdk/nodejs");
  expect(typeof pims.createEscRotator).toBe("function");
  expect(typeof pims.ServiceAccount).toBe("function");
  expect(mockJose.loads).toBe(0);
  expect(adapterLoaded()).toBe(false);
});

test("createEscRotator loads them once, and the adapter it returns is the real one", async () => {
  const pims = require("../../../sdk/nodejs") as typeof import("../../../sdk/nodejs");
  const adapter = pims.createEscRotator({
    client: {} as never,
    audience: "https://adapter.test/rotate",
    allow: ["acme"],
    jwksUrl: "http://127.0.0.1:9/jwks",
    log: () => undefined,
  });
  expect(mockJose.loads).toBe(1);
  expect(adapterLoaded()).toBe(true);
  // No bearer token: refused before the key set is ever fetched.
  const answer = await adapter.handle("POST", {}, Buffer.from("{}"));
  expect(answer).toEqual({ status: 401, body: { message: "unauthorized" } });
});
