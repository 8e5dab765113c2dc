/**
 * `pims.Provider` without network: its argument checks, what it registers (package `pulumi-nodejs`, the token as a
 * secret input, settings filled from the stack config), that resources given `{ provider }` are served by it, and that
 * functions given a provider that is not a `pims.Provider` fail before any request.
 */
import * as pulumi from "@pulumi/pulumi";
import {
  AppSecrets,
  getInvoices,
  Provider,
  ProviderArgumentError,
  ServiceAccount,
  VolumeSize,
} from "../../../sdk/nodejs";
import { ArgumentError } from "../../../provider/client";
import { BASE_URL_RULE } from "../../../provider/client/baseUrl";
import { captureRegistrations, outputValue } from "../../kit/provider/mocks";
import { expectNoPlaintextSecrets } from "../../kit/secrets/secrets";
import { rejectionOf } from "../../kit/rejection";

const SECRET_SIG = pulumi.runtime.specialSigKey;
const SECRET_VALUE = pulumi.runtime.specialSecretSig;
const TOKEN = "pims_sa_provider_unit_token_7f3a9c";
const CONFIG_TOKEN = "pims_sa_stack_config_token_51d0e2";

/** The provider reference (`urn::id`) each resource was registered with, by resource name. */
const providerOf = new Map<string, string | undefined>();
const registered = captureRegistrations({
  newResource: (args) => {
    providerOf.set(args.name, args.provider);
    return { id: `${args.name}-id`, state: args.inputs };
  },
  call: (args) => args.inputs,
});

beforeEach(() => pulumi.runtime.setAllConfig({}));
afterAll(() => pulumi.runtime.setAllConfig({}));

const registration = (name: string): Record<string, unknown> => {
  const r = registered.find((x) => x.name === name);
  if (!r) throw new Error(`${name} was not registered`);
  return r.object;
};

describe("argument checks", () => {
  const invalid = (name: string, problem: string): string =>
    `pims.Provider "${name}" has an invalid argument: ${problem}`;
  const cases: Array<[string, () => Provider, string]> = [
    [
      "a base URL of another scheme",
      () => new Provider("p1", { baseUrl: "ftp://pims.example.com" }),
      `baseUrl ${BASE_URL_RULE} (got "ftp://pims.example.com": the scheme is ftp)`,
    ],
    [
      "a relative base URL",
      () => new Provider("p2", { baseUrl: "pims.example.com" }),
      `baseUrl ${BASE_URL_RULE} (got "pims.example.com": not an absolute URL)`,
    ],
    [
      "a base URL with user:password (masked in the message)",
      () => new Provider("p3", { baseUrl: "https://admin:hunter2pass@pims.example.com" }),
      `baseUrl ${BASE_URL_RULE} (got "https://***@pims.example.com": it carries a user:password)`,
    ],
    ["an empty token", () => new Provider("p4", { token: "  " }), "token must not be empty"],
    [
      "a token that is not a string",
      () => new Provider("p5", { token: 42 as unknown as string }),
      "token must be a string (got number)",
    ],
    [
      "maxConcurrency 0",
      () => new Provider("p6", { maxConcurrency: 0 }),
      "maxConcurrency must be a whole number >= 1 (got 0)",
    ],
    [
      "maxConcurrency 1.5",
      () => new Provider("p7", { maxConcurrency: 1.5 }),
      "maxConcurrency must be a whole number >= 1 (got 1.5)",
    ],
    [
      "rateLimitTimeoutMs -1",
      () => new Provider("p9", { rateLimitTimeoutMs: -1 }),
      "rateLimitTimeoutMs must be a whole number of milliseconds (got -1)",
    ],
  ];
  test.each(cases)("%s is refused, naming the provider, the field and the rule", (_what, make, problem) => {
    const err = (() => {
      try {
        make();
      } catch (e) {
        return e as Error;
      }
      throw new Error("expected the constructor to throw");
    })();
    expect(err).toBeInstanceOf(ProviderArgumentError);
    expect(err.message).toBe(invalid(/"(p\d)"/.exec(err.message)?.[1] ?? "?", problem));
    expectNoPlaintextSecrets(`${err.message} ${err.stack ?? ""}`, ["hunter2pass"], "the error");
  });

  test("nothing is registered for a refused provider", async () => {
    expect(() => new Provider("refused", { baseUrl: "https://pims.example.com?x=1" })).toThrow(ProviderArgumentError);
    await outputValue(new Provider("accepted", { baseUrl: "https://pims.example.com/v2/", maxConcurrency: 3 }).urn);
    expect(registered.map((r) => r.name)).not.toContain("refused");
    expect(registered.map((r) => r.name)).toContain("accepted");
  });

  test("a bad pims:maxConcurrency in the stack config is refused naming the config key", () => {
    pulumi.runtime.setAllConfig({ "pims:maxConcurrency": "many" });
    expect(() => new Provider("p8", {})).toThrow(
      `pims.Provider "p8" has an invalid argument: pims:maxConcurrency must be a whole number >= 1 (got "many")`,
    );
    pulumi.runtime.setAllConfig({ "pims:rateLimitTimeoutMs": "5m" });
    expect(() => new Provider("p10", {})).toThrow(
      `pims.Provider "p10" has an invalid argument: pims:rateLimitTimeoutMs must be a whole number of milliseconds ` +
        `(got "5m")`,
    );
  });
});

describe("registration", () => {
  test("pulumi-nodejs provider: inputs pims:token (secret), baseUrl, maxConcurrency, rateLimitTimeoutMs", async () => {
    const p = new Provider("scoped", {
      token: TOKEN,
      baseUrl: "https://pims.example.com",
      maxConcurrency: 4,
      rateLimitTimeoutMs: 600_000,
    });
    expect(await outputValue(p.urn)).toBe("urn:pulumi:stack::proj::pulumi:providers:pulumi-nodejs::scoped");
    expect(registered.find((r) => r.name === "scoped")?.type).toBe("pulumi:providers:pulumi-nodejs");
    expect(registration("scoped")).toEqual({
      "pims:token": { [SECRET_SIG]: SECRET_VALUE, value: TOKEN },
      "pims:baseUrl": "https://pims.example.com",
      "pims:maxConcurrency": "4",
      "pims:rateLimitTimeoutMs": "600000",
    });
    expect(Provider.isInstance(p)).toBe(true);
    expect(Provider.isInstance({})).toBe(false);
  });

  test("a token given as an Output is made secret, and the call settings carry it as a secret", async () => {
    const p = new Provider("from-output", { token: pulumi.output(TOKEN), maxConcurrency: pulumi.output(2) });
    await outputValue(p.urn);
    expect(registration("from-output")).toEqual({
      "pims:token": { [SECRET_SIG]: SECRET_VALUE, value: TOKEN },
      "pims:maxConcurrency": "2",
    });
    expect(await pulumi.isSecret(p.callSettings())).toBe(true);
    expect(await outputValue(p.callSettings())).toEqual({ token: TOKEN, baseUrl: undefined });
  });

  test("missing settings are filled from the stack config at program time (the token as a secret)", async () => {
    pulumi.runtime.setAllConfig(
      {
        "pims:token": CONFIG_TOKEN,
        "pims:baseUrl": "https://config.example.com",
        "pims:maxConcurrency": "6",
        "pims:rateLimitTimeoutMs": "0",
      },
      ["pims:token"],
    );
    const p = new Provider("from-config", {});
    await outputValue(p.urn);
    expect(registration("from-config")).toEqual({
      "pims:token": { [SECRET_SIG]: SECRET_VALUE, value: CONFIG_TOKEN },
      "pims:baseUrl": "https://config.example.com",
      "pims:maxConcurrency": "6",
      "pims:rateLimitTimeoutMs": "0",
    });
    // an argument wins over the config
    const q = new Provider("mixed", { baseUrl: "https://arg.example.com" });
    await outputValue(q.urn);
    expect(registration("mixed")).toMatchObject({
      "pims:token": { value: CONFIG_TOKEN },
      "pims:baseUrl": "https://arg.example.com",
    });
  });

  test("no argument, no stack config: empty inputs; the provider process uses PIMS_TOKEN/PIMS_BASE_URL", async () => {
    const p = new Provider("from-env");
    await outputValue(p.urn);
    expect(registration("from-env")).toEqual({});
    expect(await outputValue(p.callSettings())).toEqual({ token: undefined, baseUrl: undefined });
  });
});

describe("resources take { provider }", () => {
  test("each resource is registered with the provider it was given, others with the default provider", async () => {
    const scoped = new Provider("res-scoped", { token: TOKEN, baseUrl: "https://a.example.com" });
    const other = new Provider("res-other", { token: TOKEN, baseUrl: "https://b.example.com" });
    const secrets = new AppSecrets(
      "app",
      { projectId: "p-1", appId: "p-1-web", secrets: { A: "1" } },
      { provider: scoped },
    );
    const volume = new VolumeSize(
      "vol",
      { projectId: "p-1", volumeId: "default-us-east-1", sizeGb: 60 },
      { provider: other },
    );
    const account = new ServiceAccount("acct", { projectId: "p-1", name: "a", grants: ["p-1"], expiresIn: 0 });
    await Promise.all([secrets, volume, account].map((r) => outputValue(r.urn)));
    expect(providerOf.get("app")).toBe(
      "urn:pulumi:stack::proj::pulumi:providers:pulumi-nodejs::res-scoped::res-scoped-id",
    );
    expect(providerOf.get("vol")).toBe(
      "urn:pulumi:stack::proj::pulumi:providers:pulumi-nodejs::res-other::res-other-id",
    );
    expect(providerOf.get("acct") ?? "").not.toContain("res-");
  });
});

describe("functions given a provider", () => {
  test("something other than a pims.Provider is refused before any request", async () => {
    const err = await rejectionOf(
      getInvoices({ projectId: "p-1" }, { provider: {} as unknown as Provider }),
      ArgumentError,
    );
    expect(err.message).toContain("provider must be a pims.Provider (got Object)");
  });
});
