/**
 * The one settings module (provider/settings.ts): every setting read from configured text first (stack config, a
 * provider's inputs, a native plugin's `Configure` variables), then the environment, parsed by one parser that names
 * where a bad value was set; the plain-http rule and its way out; where the token came from, as a 401 or 403 says it.
 */
import * as pulumi from "@pulumi/pulumi";
import { AuthError, errorForStatus } from "../../../provider/client";
import { isLoopbackHost } from "../../../provider/client/baseUrl";
import { RETRY_DEFAULTS } from "../../../provider/client/retry";
import { Scheduler, SCHEDULER_DEFAULTS } from "../../../provider/client/scheduler";
import { UNKNOWN } from "../../../provider/checks";
import { InvalidBaseUrlError, MissingCredentialsError, PimsConfigurationError } from "../../../provider/configErrors";
import { ProjectProvider } from "../../../provider/project";
import {
  clientFor,
  configuredFrom,
  configureScheduler,
  parseSetting,
  readSettings,
  SETTINGS,
  settingDefault,
  type SettingName,
} from "../../../provider/settings";
import { Provider, ProviderArgumentError } from "../../../sdk/nodejs";
import { captureRegistrations, outputValue } from "../../kit/provider/mocks";
import { configureRequest } from "../../kit/provider/provider";

const TOKEN = "pims_sa_settings_unit_token_4c1e";
const registered = captureRegistrations({
  newResource: (args) => ({ id: `${args.name}-id`, state: args.inputs }),
  call: (args) => args.inputs,
});
afterEach(() => pulumi.runtime.setAllConfig({}));

/** The error `fn` throws (fails the test when it throws nothing). */
function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (e) {
    return e as Error;
  }
  throw new Error("expected an error");
}

describe("the table and the one parser", () => {
  it("every setting has an environment variable PIMS_*, a default and a description; config keys are its names", () => {
    for (const [name, s] of Object.entries(SETTINGS)) {
      expect(s.env).toMatch(/^PIMS_[A-Z_]+$/);
      expect(settingDefault(s)).not.toBe("");
      expect(s.doc.length).toBeGreaterThan(20);
      expect(name).toMatch(/^[a-z][A-Za-z]+$/);
    }
    expect(new Set(Object.values(SETTINGS).map((s) => s.env)).size).toBe(Object.keys(SETTINGS).length);
    expect(SETTINGS.timeoutMs.default).toBe(RETRY_DEFAULTS.timeoutMs);
    expect(SETTINGS.maxConcurrency.default).toBe(SCHEDULER_DEFAULTS.maxConcurrency);
  });

  it.each<[SettingName, string, unknown]>([
    ["maxConcurrency", " 16 ", 16],
    ["rateLimitTimeoutMs", "0", 0],
    ["allowInsecureHttp", "TRUE", true],
    ["allowInsecureHttp", " 0 ", false],
    ["baseUrl", "https://pims.example.com/v2/", "https://pims.example.com"],
    ["goneProjects", '["p-1", "p-2"]', new Set(["p-1", "p-2"])],
    ["goneProjects", "p-1, p-2", new Set(["p-1", "p-2"])],
    ["record", " /tmp/wire.jsonl ", "/tmp/wire.jsonl"],
  ])("%s %j reads as %j", (name, text, value) => expect(parseSetting(name, text, name)).toEqual(value));

  it.each<[SettingName, string, string]>([
    ["maxConcurrency", "0", 'PIMS_MAX_CONCURRENCY must be a whole number >= 1 (got "0")'],
    ["timeoutMs", "30s", 'PIMS_TIMEOUT_MS must be a whole number of milliseconds >= 1 (got "30s")'],
    ["allowInsecureHttp", "yes please", 'PIMS_ALLOW_INSECURE_HTTP must be true or false (got "yes please")'],
  ])("a bad %s fails naming where it was set and the rule", (name, text, problem) => {
    const err = thrown(() => readSettings({}, { env: { [SETTINGS[name].env]: text } }));
    expect(err).toBeInstanceOf(PimsConfigurationError);
    expect(err.message).toBe(`pulumi-pims is not configured correctly: ${problem}`);
  });
});

describe("readSettings: configured text first, then the environment", () => {
  it("reads every setting from either source; unset ones are absent", () => {
    const env = {
      PIMS_TOKEN: TOKEN,
      PIMS_BASE_URL: "http://127.0.0.1:8080/v2",
      PIMS_MAX_CONCURRENCY: "3",
      PIMS_GONE_PROJECTS: "p-9",
      PIMS_TIMEOUT_MS: "1000",
      PIMS_MAX_RETRIES: "0",
      PIMS_RETRY_MIN_DELAY_MS: "5",
      PIMS_WIRE_RECORD: "/tmp/w.jsonl",
      PIMS_LOST_CREATE_WATCH_MS: "0",
    };
    expect(readSettings({ maxConcurrency: "5", goneProjects: "p-1" }, { env })).toEqual({
      token: TOKEN,
      tokenSource: "PIMS_TOKEN",
      baseUrl: "http://127.0.0.1:8080",
      allowInsecureHttp: false,
      maxConcurrency: 5,
      goneProjects: new Set(["p-1"]),
      timeoutMs: 1000,
      retries: 0,
      minDelayMs: 5,
      record: "/tmp/w.jsonl",
      lostCreateWatchMs: 0,
      listingLagMs: SETTINGS.listingLagMs.default,
    });
    // The defaults the provider code reads are applied here, once; the client's and the scheduler's stay theirs.
    expect(readSettings({}, { env: {} })).toEqual({
      allowInsecureHttp: false,
      goneProjects: new Set(),
      listingLagMs: SETTINGS.listingLagMs.default,
      lostCreateWatchMs: 2 * RETRY_DEFAULTS.timeoutMs,
    });
    expect(readSettings({}, { env: { PIMS_TIMEOUT_MS: "1000" } }).lostCreateWatchMs).toBe(
      RETRY_DEFAULTS.lostCreateMinWatchMs,
    );
  });

  it("a native plugin's Configure variables (keys without pims:) feed it as they are", () => {
    const variables: Record<string, string> = {
      token: TOKEN,
      baseUrl: "https://pims.example.com",
      maxConcurrency: "2",
    };
    const configured = configuredFrom((key) => variables[key]);
    expect(configured).toEqual(variables);
    expect(readSettings(configured, { env: {} })).toMatchObject({
      baseUrl: "https://pims.example.com",
      maxConcurrency: 2,
    });
    const err = thrown(() => readSettings({ ...variables, maxConcurrency: "-1" }, { env: {} }));
    expect(err.message).toContain('pims:maxConcurrency must be a whole number >= 1 (got "-1")');
  });

  it("a value unknown at preview is not checked and does not fall back to the environment", () => {
    const s = readSettings(
      { baseUrl: UNKNOWN, maxConcurrency: UNKNOWN },
      { env: { PIMS_BASE_URL: "http://10.0.0.1" } },
    );
    expect(s.baseUrl).toBeUndefined();
    expect(s.maxConcurrency).toBeUndefined();
  });

  it("the scheduler takes its settings in one place; unset ones keep its defaults", () => {
    const scheduler = new Scheduler();
    configureScheduler(readSettings({ rateLimitTimeoutMs: "1000" }, { env: {} }), scheduler);
    expect(scheduler.settings).toMatchObject({ maxConcurrency: 8, rateLimitTimeoutMs: 1000 });
  });

  it("missing credentials are reported before any other problem", () => {
    const err = thrown(() =>
      clientFor({}, {}, { env: { PIMS_BASE_URL: "http://10.0.0.1", PIMS_MAX_CONCURRENCY: "x" } }),
    );
    expect(err).toBeInstanceOf(MissingCredentialsError);
  });
});

describe("plain http to another machine", () => {
  it.each(["localhost", "LOCALHOST", "127.0.0.1", "127.255.3.4", "[::1]"])("%s is this machine", (h) =>
    expect(isLoopbackHost(h)).toBe(true),
  );
  it.each(["10.0.0.1", "128.0.0.1", "localhost.example.com", "127.0.0.1.example.com", "[::2]", "pims"])(
    "%s is another machine",
    (h) => expect(isLoopbackHost(h)).toBe(false),
  );

  it("is refused naming where the address was set, the rule and the way out; https and loopback are not", () => {
    const err = thrown(() => readSettings({ baseUrl: "http://pims.internal:8080/v2" }, { env: {} }));
    expect(err).toBeInstanceOf(InvalidBaseUrlError);
    expect(err.message).toBe(
      "pulumi-pims is not configured correctly: pims:baseUrl uses plain http to pims.internal:8080, another machine " +
        '(got "http://pims.internal:8080"): the token and every new service-account token would cross the network ' +
        "unencrypted. Use an https:// address; or, on a private network or behind a proxy that terminates TLS, allow " +
        "plain http with pims:allowInsecureHttp set to true (or PIMS_ALLOW_INSECURE_HTTP=true, or a pims.Provider's " +
        "argument)",
    );
    expect(thrown(() => readSettings({}, { env: { PIMS_BASE_URL: "http://10.1.2.3" } })).message).toContain(
      "PIMS_BASE_URL uses plain http to 10.1.2.3",
    );
    const cli = thrown(() => readSettings({ baseUrl: "http://10.1.2.3" }, { audience: "cli", env: {} })).message;
    expect(cli).toContain("--base-url uses plain http to 10.1.2.3");
    expect(cli).toMatch(/allow plain http with PIMS_ALLOW_INSECURE_HTTP=true$/);
    for (const ok of ["https://pims.example.com", "http://localhost:1234", "http://127.0.0.1:9", "http://[::1]:9"])
      expect(readSettings({ baseUrl: ok }, { env: {} }).baseUrl).toBe(ok);
  });

  it("is allowed by pims:allowInsecureHttp or PIMS_ALLOW_INSECURE_HTTP", () => {
    expect(readSettings({ baseUrl: "http://10.1.2.3", allowInsecureHttp: "true" }, { env: {} }).baseUrl).toBe(
      "http://10.1.2.3",
    );
    expect(
      readSettings({}, { env: { PIMS_BASE_URL: "http://10.1.2.3", PIMS_ALLOW_INSECURE_HTTP: "1" } }).allowInsecureHttp,
    ).toBe(true);
    // config wins: false in the stack config is not overridden by the environment
    expect(() =>
      readSettings(
        { baseUrl: "http://10.1.2.3", allowInsecureHttp: "false" },
        { env: { PIMS_ALLOW_INSECURE_HTTP: "true" } },
      ),
    ).toThrow(InvalidBaseUrlError);
  });

  it("a provider's configure refuses it at preview, before any request, and every later call repeats it", async () => {
    const p = new ProjectProvider();
    const request = configureRequest({ "pims:token": TOKEN, "pims:baseUrl": "http://192.0.2.10" });
    await expect(p.configure(request)).rejects.toThrow("pims:baseUrl uses plain http to 192.0.2.10");
    await expect(p.create({ name: "app" })).rejects.toThrow("pims:baseUrl uses plain http to 192.0.2.10");
    const allowed = configureRequest({ "pims:baseUrl": "http://192.0.2.10", "pims:allowInsecureHttp": "true" });
    await expect(new ProjectProvider().configure(allowed)).resolves.toBeUndefined();
  });

  it("pims.Provider refuses a plain argument at once, and sends allowInsecureHttp as text when given", async () => {
    const err = thrown(() => new Provider("plain", { baseUrl: "http://10.9.8.7:80" }));
    expect(err).toBeInstanceOf(ProviderArgumentError);
    expect(err.message).toContain('pims.Provider "plain" has an invalid argument: baseUrl uses plain http to 10.9.8.7');
    expect(err.message).toContain("allowInsecureHttp: true");
    const p = new Provider("private", { baseUrl: "http://10.9.8.7", allowInsecureHttp: true, token: TOKEN });
    await outputValue(p.urn);
    expect(registered.find((r) => r.name === "private")?.object).toMatchObject({
      "pims:baseUrl": "http://10.9.8.7",
      "pims:allowInsecureHttp": "true",
    });
    expect(await outputValue(p.callSettings())).toMatchObject({ allowInsecureHttp: true });
    pulumi.runtime.setAllConfig({ "pims:allowInsecureHttp": "true" });
    expect(() => new Provider("config-allows", { baseUrl: "http://10.9.8.7" })).not.toThrow();
  });
});

describe("where the token came from, as a 401 or 403 says it", () => {
  it("stack config, environment, or what the caller names", () => {
    expect(readSettings({ token: TOKEN }, { env: {} }).tokenSource).toBe("pims:token");
    expect(readSettings({}, { env: { PIMS_TOKEN: TOKEN } }).tokenSource).toBe("PIMS_TOKEN");
    expect(readSettings({ token: TOKEN }, { tokenSource: "the token option", env: {} }).tokenSource).toBe(
      "the token option",
    );
    expect(readSettings({ token: " " }, { tokenSource: "x", env: { PIMS_TOKEN: TOKEN } }).tokenSource).toBe(
      "PIMS_TOKEN",
    );
  });

  it("a 401 names the source and what to check, a 403 the grants; the service's message stays first", () => {
    const init = { action: 'creating project "app"', method: "POST", path: "/v2/projects", tokenSource: "pims:token" };
    const e401 = errorForStatus({ ...init, status: 401, serverMessage: "invalid or missing bearer token" });
    expect(e401).toBeInstanceOf(AuthError);
    expect(e401.message).toBe(
      'creating project "app": 401 invalid or missing bearer token (the token set in pims:token was refused: check ' +
        "that it is the whole token of a live service account of this service and that it has not expired)",
    );
    const e403 = errorForStatus({ ...init, status: 403, serverMessage: "no grant for p-1" });
    expect(e403.message).toContain("403 no grant for p-1 (the token set in pims:token is valid but not allowed");
    expect(errorForStatus({ ...init, status: 500, serverMessage: "boom" }).message).toBe(
      'creating project "app": 500 boom',
    );
    expect(errorForStatus({ ...init, tokenSource: undefined, status: 401, serverMessage: "x" }).message).toBe(
      'creating project "app": 401 x',
    );
  });
});
