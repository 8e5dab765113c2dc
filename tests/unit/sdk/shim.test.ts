/**
 * The `__provider` text Pulumi stores in every resource's state (what dynamic.Resource serializes: the shim object
 * of sdk/nodejs/shim.ts): small, naming the installed package it loads, and holding no credential even when one is in
 * the environment at serialization time. The path the dynamic-provider host takes with that text is in
 * tests/sim/sdk/shim.test.ts.
 */
import * as pulumi from "@pulumi/pulumi";
import { RESOURCE_KINDS } from "../../../provider/kinds";
import { providerShim, type ResourceKind } from "../../../sdk/nodejs/shim";
import { newProvider } from "../../../provider";
import { configureRequest } from "../../kit/provider/provider";
import { expectNoPlaintextSecrets } from "../../kit/secrets/secrets";

// What dynamic.Resource stores: serializeFunction(() => provider), provider being the shim object.
async function storedProviderText(kind: ResourceKind): Promise<string> {
  const shim = providerShim(kind);
  const sf = await pulumi.runtime.serializeFunction(() => shim, { allowSecrets: true });
  return sf.text;
}

const KINDS = RESOURCE_KINDS;

describe("serialized provider shim", () => {
  const envToken = "pims_env_token_must_not_be_serialized_0123456789";
  const configToken = "pims_config_token_must_not_be_serialized_9876543210";
  const savedEnv = { ...process.env };

  afterAll(() => {
    process.env = savedEnv;
  });

  test.each(KINDS)("%s: stored text is small and holds no token", async (kind) => {
    process.env.PIMS_TOKEN = envToken;
    process.env.PIMS_BASE_URL = "http://127.0.0.1:9";
    // a configured real provider lives in this process too: nothing of it may be captured
    await newProvider(kind).configure?.(
      configureRequest({ "pims:token": configToken, "pims:baseUrl": "http://127.0.0.1:9" }),
    );
    const text = await storedProviderText(kind);
    expectNoPlaintextSecrets(text, [envToken, configToken], `${kind} __provider`);
    expect(text).toContain("pulumi-pims/bin/provider");
    expect(text.length).toBeLessThan(1500);
    // stored twice per resource and rewritten at every checkpoint: no comment rides along in the body
    expect(text).not.toContain("//");
  });
});
