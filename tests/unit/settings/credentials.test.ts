/**
 * Credentials: the one missing-credentials message (Pulumi and CLI wordings, shown once by the hosts that print
 * it), base address normalization and validation (client, resolveCredentials, the provider's configure).
 */
import * as fs from "node:fs";
import * as pulumi from "@pulumi/pulumi";
import { BASE_URL_RULE, baseUrlProblem, normalizeBaseUrl, PimsClient } from "../../../provider/client";
import { PimsProviderBase } from "../../../provider/providerBase";
import { clientFor, resolveCredentials } from "../../../provider/settings";
import { InvalidBaseUrlError, MissingCredentialsError, PimsConfigurationError } from "../../../provider/configErrors";
import { configureRequest } from "../../kit/provider/provider";

const TOKEN = "pims_unit_token_0123456789abcdef";

/** What a failure of check, diff, read or delete looks like on the dynamic-provider host's stderr. */
const hostLine = (e: Error): string => `${String(e)}: ${e.stack ?? ""}`;
const occurrences = (text: string, part: string): number => text.split(part).length - 1;

describe("MissingCredentialsError", () => {
  it("the Pulumi wording names both ways to set each missing value", () => {
    expect(new MissingCredentialsError(["token", "baseUrl"]).message).toBe(
      "pulumi-pims is not configured: set the service-account token with `pulumi config set --secret pims:token " +
        "<token>` or the PIMS_TOKEN environment variable; " +
        "and set the service address with `pulumi config set pims:baseUrl <url>` or the PIMS_BASE_URL environment " +
        "variable.",
    );
    expect(new MissingCredentialsError(["token"]).message).toBe(
      "pulumi-pims is not configured: set the service-account token with `pulumi config set --secret pims:token " +
        "<token>` or the PIMS_TOKEN environment variable.",
    );
    expect(new MissingCredentialsError(["baseUrl"]).message).toBe(
      "pulumi-pims is not configured: set the service address with `pulumi config set pims:baseUrl <url>` or the " +
        "PIMS_BASE_URL environment variable.",
    );
  });

  it("the CLI wording names the environment variables and --base-url, never pulumi config", () => {
    const e = new MissingCredentialsError(["token", "baseUrl"], { audience: "cli" });
    expect(e.message).toBe(
      "pims is not configured: set the service-account token in the PIMS_TOKEN environment variable; and set the " +
        "service address with --base-url <url> or the PIMS_BASE_URL environment variable.",
    );
    expect(e.message).not.toContain("pulumi config");
    expect(new MissingCredentialsError(["baseUrl"], { audience: "cli" }).message).toBe(
      "pims is not configured: " +
        "set the service address with --base-url <url> or the PIMS_BASE_URL environment variable.",
    );
  });

  it("is an Error named MissingCredentialsError that lists what is missing", () => {
    const e = new MissingCredentialsError(["baseUrl"]);
    expect(e).toBeInstanceOf(Error);
    expect(e).toBeInstanceOf(PimsConfigurationError);
    expect(e.name).toBe("MissingCredentialsError");
    expect(e.missing).toEqual(["baseUrl"]);
  });

  it("the dynamic-provider host still prints a failure as `${e}: ${e.stack}`", () => {
    const host = fs.readFileSync(require.resolve("@pulumi/pulumi/cmd/dynamic-provider/index.js"), "utf8");
    expect(host).toContain("console.error(`${e}: ${e.stack}`);");
  });

  it.each([
    ["pulumi", new MissingCredentialsError(["token", "baseUrl"])],
    ["cli", new MissingCredentialsError(["token", "baseUrl"], { audience: "cli" })],
    ["invalid base URL", new InvalidBaseUrlError(baseUrlProblem("ftp://x", "pims:baseUrl") ?? "")],
  ])("on that host the %s message reads exactly once, with no stack frame", (_name, e) => {
    const line = hostLine(e);
    expect(line).toBe(e.message);
    expect(occurrences(line, "not configured")).toBe(1);
    expect(line).not.toMatch(/\n\s+at /);
    expect(line).not.toContain("MissingCredentialsError");
  });

  it("the program host prints only the message (it takes the error for one of its RunErrors)", () => {
    expect(pulumi.RunError.isInstance(new MissingCredentialsError(["token"]))).toBe(true);
  });
});

describe("resolveCredentials", () => {
  it("config first, then the environment; the base address normalized", () => {
    expect(resolveCredentials({ token: TOKEN, baseUrl: " https://api.example.com/v2/ " }, { env: {} })).toEqual({
      token: TOKEN,
      baseUrl: "https://api.example.com",
    });
    expect(resolveCredentials({}, { env: { PIMS_TOKEN: TOKEN, PIMS_BASE_URL: "http://127.0.0.1:8080/" } })).toEqual({
      token: TOKEN,
      baseUrl: "http://127.0.0.1:8080",
    });
    expect(
      resolveCredentials(
        { baseUrl: "https://a.example" },
        { env: { PIMS_TOKEN: TOKEN, PIMS_BASE_URL: "https://b.example" } },
      ).baseUrl,
    ).toBe("https://a.example");
  });

  it("missing values: MissingCredentialsError in the audience's wording", () => {
    expect(() => resolveCredentials({}, { env: {} })).toThrow(
      new MissingCredentialsError(["token", "baseUrl"]).message,
    );
    expect(() => resolveCredentials({ token: " " }, { env: { PIMS_BASE_URL: "http://x" } })).toThrow(
      new MissingCredentialsError(["token"]).message,
    );
    expect(() => resolveCredentials({}, { audience: "cli", env: { PIMS_TOKEN: TOKEN } })).toThrow(
      new MissingCredentialsError(["baseUrl"], { audience: "cli" }).message,
    );
    expect(() => clientFor({}, {}, { audience: "cli", env: {} })).toThrow(MissingCredentialsError);
  });

  it("an invalid base address names where it was set and the rule", () => {
    const fail = (...args: Parameters<typeof resolveCredentials>): string => {
      try {
        resolveCredentials(...args);
      } catch (e) {
        expect(e).toBeInstanceOf(InvalidBaseUrlError);
        return (e as Error).message;
      }
      throw new Error("resolveCredentials accepted an invalid base address");
    };
    expect(fail({ token: TOKEN, baseUrl: "api.example.com" }, { env: {} })).toBe(
      `pulumi-pims is not configured correctly: pims:baseUrl ${BASE_URL_RULE} (got "api.example.com": ` +
        `not an absolute URL)`,
    );
    expect(fail({}, { env: { PIMS_TOKEN: TOKEN, PIMS_BASE_URL: "https://x.example/?a=1" } })).toContain(
      `PIMS_BASE_URL ${BASE_URL_RULE}`,
    );
    expect(fail({ token: TOKEN, baseUrl: "ftp://x.example" }, { audience: "cli", env: {} })).toContain(
      `--base-url ${BASE_URL_RULE}`,
    );
  });
});

describe("normalizeBaseUrl", () => {
  it.each([
    ["https://api.example.com", "https://api.example.com"],
    ["https://api.example.com/", "https://api.example.com"],
    ["  https://api.example.com//  ", "https://api.example.com"],
    ["https://api.example.com/v2", "https://api.example.com"],
    ["https://api.example.com/v2/", "https://api.example.com"],
    ["https://api.example.com/V2", "https://api.example.com"],
    ["https://api.example.com/pims/v2/", "https://api.example.com/pims"],
    ["https://api.example.com/v2/v2", "https://api.example.com/v2"],
    ["https://api.example.com/v20", "https://api.example.com/v20"],
    ["http://127.0.0.1:8080", "http://127.0.0.1:8080"],
  ])("%j → %j", (raw, out) => expect(normalizeBaseUrl(raw)).toBe(out));
});

describe("baseUrlProblem", () => {
  it.each([
    "https://api.example.com",
    "http://127.0.0.1:1234/",
    "https://api.example.com/v2/",
    " https://h.example/prefix ",
  ])("accepts %j", (v) => expect(baseUrlProblem(v, "pims:baseUrl")).toBeUndefined());
  it.each([
    ["", "empty"],
    ["api.example.com", "not an absolute URL"],
    ["/v2", "not an absolute URL"],
    ["ftp://api.example.com", "the scheme is ftp"],
    ["https://api.example.com/?x=1", "it has a query"],
    ["https://api.example.com/?", "it has a query"],
    ["https://api.example.com/#top", "it has a fragment"],
    ["https://user:pw@api.example.com", "it carries a user:password"],
    ["https://user@api.example.com", "it carries a user:password"],
    ["https://api.example .com", "it contains white space"],
  ])("rejects %j: %s", (v, what) => {
    const reason = baseUrlProblem(v, "pims:baseUrl");
    expect(reason).toMatch(
      new RegExp(`^pims:baseUrl ${BASE_URL_RULE.replace(/[()]/g, "\\$&")} \\(got .*: ${what}\\)$`),
    );
  });
  it("never shows a password, a query or a fragment", () => {
    const reason =
      baseUrlProblem("https://me:hunter2secret@api.example.com/v2?token=abcdef0123#frag-secret", "PIMS_BASE_URL") ?? "";
    for (const s of ["hunter2secret", "abcdef0123", "frag-secret", "me:"]) expect(reason).not.toContain(s);
    expect(reason).toContain("https://***@api.example.com/v2?***#***");
  });
  it("not a string", () =>
    expect(baseUrlProblem(42, "pims:baseUrl")).toBe(`pims:baseUrl ${BASE_URL_RULE} (got 42: not a string)`));
});

describe("PimsClient and the base address", () => {
  it("normalizes it (a trailing /v2 is removed) and refuses an invalid one", () => {
    expect(new PimsClient({ baseUrl: "https://api.example.com/v2/", token: TOKEN }).baseUrl).toBe(
      "https://api.example.com",
    );
    expect(() => new PimsClient({ baseUrl: "https://api.example.com/?q", token: TOKEN })).toThrow(
      `PimsClient: baseUrl ${BASE_URL_RULE}`,
    );
  });
});

describe("the provider's configure (runs at preview, before check)", () => {
  class Probe extends PimsProviderBase {
    build(): PimsClient {
      return this.client();
    }
  }

  it("fails on an invalid pims:baseUrl naming the key and the rule, and every later call repeats it", async () => {
    const p = new Probe();
    const err = await p
      .configure(configureRequest({ "pims:token": TOKEN, "pims:baseUrl": "https://api.example.com/v2?x=1" }))
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(InvalidBaseUrlError);
    expect((err as Error).message).toBe(
      `pulumi-pims is not configured correctly: pims:baseUrl ${BASE_URL_RULE} ` +
        `(got "https://api.example.com/v2?***": it has a query)`,
    );
    expect(hostLine(err as Error)).toBe((err as Error).message);
    expect(() => p.build()).toThrow((err as Error).message);
  });

  it("accepts a valid or absent pims:baseUrl, and an unknown one at preview", async () => {
    const p = new Probe();
    await p.configure(configureRequest({ "pims:token": TOKEN, "pims:baseUrl": "https://api.example.com/v2/" }));
    expect(p.build().baseUrl).toBe("https://api.example.com");
    await expect(new Probe().configure(configureRequest({}))).resolves.toBeUndefined();
    await expect(
      new Probe().configure(configureRequest({ "pims:baseUrl": "04da6b54-80e4-46f7-96ec-b56ff0331ba9" })),
    ).resolves.toBeUndefined();
  });
});
