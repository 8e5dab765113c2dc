/**
 * The plugin keeps its own copies of Pulumi's wire constants (the executable must not carry the `@pulumi/pulumi`
 * runtime: provider/plugin never imports it). This test pins each copy to the library's own value, so an upgrade of
 * `@pulumi/pulumi` that changed one fails here instead of in a user's preview.
 */
import * as pulumi from "@pulumi/pulumi";
import { UNKNOWN } from "../../../provider/checks";
import { LEGACY_PROVIDER_KEY, SECRET_SIG, SECRET_VALUE, isSecret, secret } from "../../../provider/plugin/values";

describe("Pulumi's wire constants, as the plugin copies them", () => {
  it("the unknown sentinel is the runtime's unknownValue", () => {
    expect(UNKNOWN).toBe(pulumi.runtime.unknownValue);
  });

  it("the secret envelope's key and value are the runtime's specialSigKey and specialSecretSig", () => {
    expect(SECRET_SIG).toBe(pulumi.runtime.specialSigKey);
    expect(SECRET_VALUE).toBe(pulumi.runtime.specialSecretSig);
    const envelope = { [pulumi.runtime.specialSigKey]: pulumi.runtime.specialSecretSig, value: "s3cret" };
    expect(isSecret(envelope)).toBe(true);
    expect(secret("s3cret")).toEqual(envelope);
  });

  it("the dynamic host's reserved provider key is the one the runtime refuses as a dynamic resource's input", () => {
    // The runtime does not export it; it refuses it by name before registering anything.
    class Dynamic extends pulumi.dynamic.Resource {}
    const provider: pulumi.dynamic.ResourceProvider = { create: () => Promise.resolve({ id: "x" }) };
    expect(() => new Dynamic(provider, "r", { [LEGACY_PROVIDER_KEY]: 1 })).toThrow(
      `A dynamic resource must not define the ${LEGACY_PROVIDER_KEY} key`,
    );
  });
});
