/**
 * ServiceAccount pieces that need no network: which create failures are ambiguous, how accounts are read from API
 * keys (possible orphans, `pims service-accounts list`), the goneProjects setting, the serialized provider, and the
 * SDK class under pulumi mocks.
 */
import * as pulumi from "@pulumi/pulumi";
import {
  AuthError,
  NetworkError,
  NotFoundError,
  PimsError,
  RateLimitError,
  ServerError,
  TimeoutError,
  UnreadableTokenError,
  ValidationError,
  type ApiKey,
} from "../../../provider/client";
import { accountsFromKeys, orphanCandidates } from "../../../provider/serviceAccount/listing";
import { createFailureKind } from "../../../provider/client/retry";
import { parseList as parseGoneProjects } from "../../../provider/client/values";
import { UncertainCreateError } from "../../../provider/serviceAccount/create";
import { ServiceAccount } from "../../../sdk/nodejs/serviceAccount";
import { providerShim } from "../../../sdk/nodejs/shim";
import { ServiceAccountProvider } from "../../../provider/serviceAccount";
import { captureRegistrations, outputValue } from "../../kit/provider/mocks";
import { configureRequest } from "../../kit/provider/provider";
import { restoreEnvAfter } from "../../kit/env";

// ---- which failures are ambiguous -------------------------------------------------------------------------------

describe("what a failed create proves (answered: look, maybe repeat; lost: watch, never repeat; none: nothing)", () => {
  const init = {
    action: 'creating service account "x" in project p-1',
    method: "POST",
    path: "/v2/projects/p-1/service-accounts",
  };
  const cases: Array<[string, "answered" | "lost" | "none", unknown]> = [
    ["a timeout", "lost", new TimeoutError({ ...init, code: "ECONNABORTED" })],
    ["a dropped connection (ECONNRESET)", "lost", new NetworkError({ ...init, code: "ECONNRESET" })],
    ["a network error without a code", "lost", new NetworkError({ ...init })],
    ["ECONNREFUSED (never sent)", "none", new NetworkError({ ...init, code: "ECONNREFUSED" })],
    ["ENOTFOUND (never sent)", "none", new NetworkError({ ...init, code: "ENOTFOUND" })],
    ["EAI_AGAIN (never sent)", "none", new NetworkError({ ...init, code: "EAI_AGAIN" })],
    ["EHOSTUNREACH (never sent)", "none", new NetworkError({ ...init, code: "EHOSTUNREACH" })],
    ["ENETUNREACH (never sent)", "none", new NetworkError({ ...init, code: "ENETUNREACH" })],
    ["a 500", "answered", new ServerError({ ...init, status: 500 })],
    ["a 503", "answered", new ServerError({ ...init, status: 503 })],
    [
      "a 2xx whose body could not be read (the token was lost)",
      "answered",
      new PimsError({ ...init, status: 201, serverMessage: "unexpected response" }),
    ],
    ["a 422", "none", new ValidationError({ ...init, status: 422 })],
    ["a 404", "none", new NotFoundError({ ...init, status: 404 })],
    ["a 401", "none", new AuthError({ ...init, status: 401 })],
    ["a 429 (the service did nothing)", "none", new RateLimitError({ ...init, status: 429 })],
    ["a plain Error", "none", new Error("boom")],
    ["a string", "none", "boom"],
  ];
  test.each(cases)("%s → %s", (_label, expected, e) => {
    expect(createFailureKind(e)).toBe(expected);
  });

  test("an unreadable token (a 2xx naming the account) is answered too; create handles it first (deletes it)", () => {
    expect(
      createFailureKind(new UnreadableTokenError({ ...init, status: 201, accountId: "sa-1", members: ["x"] })),
    ).toBe("answered");
  });
});

// ---- accounts seen through API keys --------------------------------------------------------------------------------

describe("accounts and possible orphans from API keys", () => {
  const key = (k: Partial<ApiKey>): ApiKey => ({
    id: "k",
    name: "ci",
    description: "",
    apiKey: "pims_live_key_value_never_shown",
    projectId: "p-1",
    source: "service_account",
    status: "active",
    createdAt: "2025-01-01T00:00:00Z",
    updatedAt: "2025-01-01T00:00:00Z",
    expiresAt: "never",
    ...k,
  });

  test("candidates: same name and a principalId only, one per account, newest first, no key value", () => {
    const keys = [
      key({ principalId: "sa-old", createdAt: "2025-01-01T00:00:00Z" }),
      key({ principalId: "sa-new", createdAt: "2025-03-01T00:00:00Z" }),
      key({ principalId: "sa-new", createdAt: "2025-04-01T00:00:00Z" }), // a second key of the same account
      key({ principalId: "sa-other", name: "ci-2" }), // another name
      key({ principalId: "sa-case", name: "CI" }), // names are compared exactly
      key({}), // a user key: no principal
    ];
    const candidates = orphanCandidates(keys, "ci");
    expect(candidates).toEqual([
      { id: "sa-new", createdAt: "2025-03-01T00:00:00Z" },
      { id: "sa-old", createdAt: "2025-01-01T00:00:00Z" },
    ]);
    expect(JSON.stringify(candidates)).not.toContain("pims_live_key_value_never_shown");
    expect(orphanCandidates(keys, "nobody")).toEqual([]);
  });

  test("since: only accounts created at or after it (service clock), and those whose time cannot be read", () => {
    const keys = [
      key({ principalId: "sa-before", createdAt: "2025-01-01T00:00:00Z" }),
      key({ principalId: "sa-at", createdAt: "2025-01-01T00:00:10Z" }),
      key({ principalId: "sa-after", createdAt: "2025-01-01T00:00:11Z" }),
      key({ principalId: "sa-unknown-time", createdAt: "" }),
    ];
    const since = Date.parse("2025-01-01T00:00:10Z");
    expect(orphanCandidates(keys, "ci", { since }).map((c) => c.id)).toEqual(["sa-after", "sa-at", "sa-unknown-time"]);
    expect(orphanCandidates(keys, "ci", { since, exclude: new Set(["sa-at"]) }).map((c) => c.id)).toEqual([
      "sa-after",
      "sa-unknown-time",
    ]);
  });

  test("accountsFromKeys (pims service-accounts list): a row per account, by name then age, never a key value", () => {
    const rows = accountsFromKeys([
      key({ principalId: "sa-b2", name: "b", createdAt: "2025-02-01T00:00:00Z", status: "expired" }),
      key({ principalId: "sa-a", name: "a", createdAt: "2025-03-01T00:00:00Z" }),
      key({ principalId: "sa-b1", name: "b", createdAt: "2025-01-01T00:00:00Z" }),
      key({ principalId: "sa-b1", name: "b", createdAt: "2025-05-01T00:00:00Z" }), // a second key of sa-b1
      key({ name: "user-key" }), // no principal: not an account
    ]);
    expect(rows).toEqual([
      { id: "sa-a", name: "a", status: "active", createdAt: "2025-03-01T00:00:00Z", expiresAt: "never" },
      { id: "sa-b1", name: "b", status: "active", createdAt: "2025-01-01T00:00:00Z", expiresAt: "never" },
      { id: "sa-b2", name: "b", status: "expired", createdAt: "2025-02-01T00:00:00Z", expiresAt: "never" },
    ]);
    expect(JSON.stringify(rows)).not.toContain("pims_live_key_value_never_shown");
  });

  test("the uncertain-create message names each candidate, how to delete one, and keeps the first error first", () => {
    const original = new ServerError({
      action: 'creating service account "ci" in project p-1',
      method: "POST",
      path: "/v2/projects/p-1/service-accounts",
      status: 503,
      serverMessage: "busy",
    });
    const many = Array.from({ length: 12 }, (_, i) => ({ id: `sa-${i}`, createdAt: "2025-01-01T00:00:00Z" }));
    const err = new UncertainCreateError(original, {
      projectId: "p-1",
      name: "ci",
      startedAt: 0,
      look: { kind: "found", candidates: many },
    });
    const lines = err.message.split("\n");
    expect(lines[0]).toBe('creating service account "ci" in project p-1: 503 busy');
    expect(lines[1]).toMatch(
      /Project p-1 has 12 live service accounts named "ci" created since this create started that this stack does not hold/,
    );
    expect(lines.filter((l) => /^ {2}sa-\d+ \(created /.test(l))).toHaveLength(10);
    expect(err.message).toContain("…and 2 more: pims service-accounts list p-1");
    expect(err.message).toContain("pims service-accounts delete p-1 <id>");
    expect(err.cause).toBe(original);
  });

  test("a lost create that showed nothing or could not be checked: may still exist, how to check (never none)", () => {
    const original = new TimeoutError({
      action: 'creating service account "ci" in project p-1',
      method: "POST",
      path: "/v2/projects/p-1/service-accounts",
      code: "ECONNABORTED",
    });
    const none = new UncertainCreateError(original, {
      projectId: "p-1",
      name: "ci",
      startedAt: Date.UTC(2026, 0, 2),
      look: { kind: "none", looks: 4 },
      watchedMs: 20_000,
    });
    expect(none.message).toMatch(
      /may still create the account: no account named "ci" appeared in project p-1 within 20s \(4 looks at GET \/v2\/projects\/p-1\/api-keys\)/,
    );
    expect(none.message).toContain("created after 2026-01-02T00:00:00.000Z");
    expect(none.message).toContain("`pims service-accounts list p-1`");
    expect(none.message).toContain("`pims service-accounts delete p-1 <id>`");
    const unchecked = new UncertainCreateError(original, {
      projectId: "p-1",
      name: "ci",
      startedAt: 0,
      look: { kind: "unchecked", looks: 3, error: "connect ECONNREFUSED" },
    });
    expect(unchecked.message).toMatch(
      /may have created the account anyway, and that could not be checked: GET \/v2\/projects\/p-1\/api-keys failed \(connect ECONNREFUSED; 3 tries\)/,
    );
    expect([none.look, unchecked.look, none.candidates.length]).toEqual(["none", "unchecked", 0]);
  });
});

// ---- pims:goneProjects -------------------------------------------------------------------------------------------

describe("parseGoneProjects", () => {
  test.each<[string | undefined, string[]]>([
    [undefined, []],
    ["", []],
    ["p-1", ["p-1"]],
    ["p-1, p-2,,", ["p-1", "p-2"]],
    ['["p-1","p-2"]', ["p-1", "p-2"]],
    ['[ "p-3" ]', ["p-3"]],
    ['["p-1", 7]', ["p-1"]],
  ])("%j → %j", (raw, ids) => {
    expect([...parseGoneProjects(raw)]).toEqual(ids);
  });
});

// ---- the serialized provider ------------------------------------------------------------------------------------

describe("serialized provider", () => {
  restoreEnvAfter("all", ["PIMS_TOKEN"]);

  test("holds no token and stays small", async () => {
    const envToken = `pims_env_${"7f3a".repeat(10)}`;
    process.env.PIMS_TOKEN = envToken;
    // A provider configured with a stack-config token in the same process: the shim must not capture it either.
    const configToken = `pims_cfg_${"5e2b".repeat(10)}`;
    await new ServiceAccountProvider().configure(
      configureRequest({ "pims:token": configToken, "pims:baseUrl": "http://127.0.0.1:9" }),
    );
    // What dynamic.Resource stores in state as __provider: serializeFunction(() => provider), a closure over the
    // shim object (pulumi/dynamic: serializeProvider). The mocks test below checks the real __provider too.
    const shim = providerShim("ServiceAccount");
    const stored = await pulumi.runtime.serializeFunction(() => shim, { allowSecrets: true });
    // The form the issue names: a closure over the providerShim *function*, which also serializes the factory
    // and the shim module's exports. It is never stored, so only its content is asserted; its size is printed.
    const asWritten = await pulumi.runtime.serializeFunction(() => providerShim("ServiceAccount"));
    process.stdout.write(
      `serialized shim, as stored (() => shim): ${Buffer.byteLength(stored.text)} bytes; ` +
        `as the issue words it (() => providerShim("ServiceAccount")): ${Buffer.byteLength(asWritten.text)} bytes\n`,
    );
    for (const s of [stored, asWritten]) {
      expect(s.text).not.toContain(envToken);
      expect(s.text).not.toContain(configToken);
      expect(s.text).not.toMatch(/PIMS_TOKEN|process\.env/);
      expect(s.containsSecrets).toBe(false);
      expect(s.text).toContain("pulumi-pims/bin/provider");
    }
    expect(Buffer.byteLength(stored.text)).toBeLessThan(1500);
    expect(Buffer.byteLength(asWritten.text)).toBeLessThan(3000);
  });
});

// ---- the SDK class under pulumi mocks ---------------------------------------------------------------------------

describe("ServiceAccount class (pulumi mocks)", () => {
  const newResourceArgs: pulumi.runtime.MockResourceArgs[] = [];
  // The mock API's newResource does not receive resource options: `registered` holds the RegisterResourceRequests
  // the SDK sends to the (mock) resource monitor, which carry additionalSecretOutputs as the engine sees them.
  const registered = captureRegistrations({
    newResource: (args) => {
      newResourceArgs.push(args);
      return {
        id: "sa-mock",
        state: { ...args.inputs, serviceAccountId: "sa-mock", token: "pims_sa_mocked_token_value" },
      };
    },
    call: (args) => args.inputs,
  });

  test("registers pulumi-nodejs:dynamic/pims:ServiceAccount with additionalSecretOutputs [token]", async () => {
    const envToken = `pims_env_${"9c1d".repeat(10)}`;
    const savedToken = process.env.PIMS_TOKEN;
    process.env.PIMS_TOKEN = envToken;
    const sa = new ServiceAccount(
      "ci",
      { projectId: "p-1", name: "ci", grants: ["p-1"], expiresIn: 3600 },
      { additionalSecretOutputs: ["tokenId"] },
    );
    const [urn, token] = await Promise.all([outputValue(sa.urn), outputValue(sa.token)]);

    expect(registered).toHaveLength(1);
    expect(registered[0].type).toBe("pulumi-nodejs:dynamic/pims:ServiceAccount");
    expect(registered[0].additionalSecretOutputs).toContain("token");
    expect(registered[0].additionalSecretOutputs).toContain("tokenId"); // the user's options are merged, not replaced
    expect(urn).toMatch(/::pulumi-nodejs:dynamic\/pims:ServiceAccount::ci$/);
    expect(newResourceArgs[0].type).toBe("pulumi-nodejs:dynamic/pims:ServiceAccount");
    expect(newResourceArgs[0].inputs).toMatchObject({ projectId: "p-1", name: "ci", grants: ["p-1"], expiresIn: 3600 });
    if (savedToken === undefined) delete process.env.PIMS_TOKEN;
    else process.env.PIMS_TOKEN = savedToken;
    // __provider is exactly what the state stores: no credential, small.
    const stored: unknown = newResourceArgs[0].inputs.__provider;
    expect(typeof stored).toBe("string");
    expect(stored).not.toContain(envToken);
    expect(Buffer.byteLength(stored as string)).toBeLessThan(1500);
    expect(token).toBe("pims_sa_mocked_token_value"); // the seeded output key is populated from the state
  });
});
