/**
 * The errors a program may catch are exported by the package, and `instanceof` works on what the SDK throws.
 */
import * as pims from "../../../sdk/nodejs";

test("a base address that cannot be used: an InvalidBaseUrlError, a PimsConfigurationError, an Error", async () => {
  const err = await pims.getApiKeys({ projectId: "p-1" }, { token: "t-0123456789", baseUrl: "ftp://x" }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(pims.InvalidBaseUrlError);
  expect(err).toBeInstanceOf(pims.PimsConfigurationError);
  expect(err).toBeInstanceOf(Error);
  expect(err).not.toBeInstanceOf(pims.MissingCredentialsError);
});

test("missing credentials: a MissingCredentialsError, a PimsConfigurationError", async () => {
  const saved = process.env.PIMS_TOKEN;
  delete process.env.PIMS_TOKEN;
  try {
    const err = await pims.getInvoices({ projectId: "p-1" }, { baseUrl: "https://pims.example.com" }).catch((e) => e);
    expect(err).toBeInstanceOf(pims.MissingCredentialsError);
    expect(err).toBeInstanceOf(pims.PimsConfigurationError);
  } finally {
    if (saved !== undefined) process.env.PIMS_TOKEN = saved;
  }
});

test("UncertainCreateError (a create that may have left an account) is exported and an Error", () => {
  expect(pims.UncertainCreateError.prototype).toBeInstanceOf(Error);
});
