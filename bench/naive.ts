/**
 * The baseline of the benchmark: dynamic providers written the way Pulumi's documentation shows them — one object
 * literal per resource type with check/diff/create/update/delete methods that call the service with axios
 * directly, and the credentials read once, at module load, into module-level constants.
 *
 * They make the same HTTP calls as pulumi-pims (one per create/update/delete where the service has an operation)
 * and nothing else: no validation, no retries, no error mapping. They are deliberately naive in the ways the
 * design rules warn about: the token is captured by the closure, so it is serialized into every
 * resource's `__provider` in plaintext, and the provider's code is frozen into state.
 *
 * `NaiveSecretServiceAccount` is the exception a careful author would make: its token is a secret output.
 * `NaiveTypedServiceAccount` goes one step further, as a typed class does: it also declares every output key.
 *
 * Load this module only after PIMS_TOKEN and PIMS_BASE_URL are set (the constants are read at load time).
 */
import * as pulumi from "@pulumi/pulumi";
import { SERVICE_ACCOUNT } from "../provider/serviceAccount/kind";

// A plain require, as the docs' JavaScript examples do: the closure serializer turns a captured module object
// into `require("axios")` in the serialized text (a TypeScript default import with esModuleInterop would capture
// a wrapper object instead and serialize axios by value).
const axios = require("axios") as typeof import("axios").default;
// The same for crypto (tokenFingerprint below).
const crypto = require("node:crypto") as typeof import("node:crypto");

const token = process.env.PIMS_TOKEN ?? "";
const baseUrl = process.env.PIMS_BASE_URL ?? "";
const headers = { Authorization: `Bearer ${token}`, "Content-Type": "application/json" };

type Props = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export const naiveProjectProvider: pulumi.dynamic.ResourceProvider = {
  async check(_olds: Props, news: Props) {
    return { inputs: news };
  },
  async diff(_id: string, olds: Props, news: Props) {
    const changed = olds.name !== news.name;
    return { changes: changed, replaces: changed ? ["name"] : [] };
  },
  async create(inputs: Props) {
    const res = await axios.post(`${baseUrl}/v2/projects`, { name: inputs.name }, { headers });
    const id = String(res.data).trim();
    return { id, outs: { name: inputs.name, projectId: id } };
  },
  async update(_id: string, olds: Props) {
    return { outs: olds };
  },
  async delete() {
    // the service has no delete operation for projects
  },
};

export const naiveServiceAccountProvider: pulumi.dynamic.ResourceProvider = {
  async check(_olds: Props, news: Props) {
    return { inputs: news };
  },
  async diff(_id: string, olds: Props, news: Props) {
    const keys = ["projectId", "name", "description", "grants", "expiresIn"];
    const replaces = keys.filter((k) => JSON.stringify(olds[k]) !== JSON.stringify(news[k]));
    return { changes: replaces.length > 0, replaces };
  },
  async create(inputs: Props) {
    const res = await axios.post(
      `${baseUrl}/v2/projects/${inputs.projectId}/service-accounts`,
      { name: inputs.name, description: inputs.description ?? "", grants: inputs.grants, expiresIn: inputs.expiresIn },
      { headers },
    );
    return { id: res.data.id, outs: { ...inputs, serviceAccountId: res.data.id, token: res.data.token.secret } };
  },
  async update(_id: string, olds: Props) {
    return { outs: olds };
  },
  async delete(id: string, props: Props) {
    await axios.delete(`${baseUrl}/v2/projects/${props.projectId}/service-accounts/${id}`, { headers });
  },
};

/**
 * The same ServiceAccount provider with the outputs pulumi-pims also keeps (`createdAt`, `createdByUserId`, `tokenId`,
 * `tokenExpiresAt`, `tokenHeld`, `tokenFingerprint`): 13 outputs instead of 7, the state pulumi-pims writes for a
 * new account (tests/sim/tooling/benchBaseline.test.ts compares the two). The provider of P7's baseline
 * ({@link NaiveTypedServiceAccount}) and of the P7 preview probe's 11-output variants.
 */
export const naiveServiceAccountProviderAllOutputs: pulumi.dynamic.ResourceProvider = {
  ...naiveServiceAccountProvider,
  async create(inputs: Props) {
    const res = await axios.post(
      `${baseUrl}/v2/projects/${inputs.projectId}/service-accounts`,
      { name: inputs.name, description: inputs.description ?? "", grants: inputs.grants, expiresIn: inputs.expiresIn },
      { headers },
    );
    return { id: res.data.id, outs: naiveServiceAccountOutputs(inputs, res.data) };
  },
};

/**
 * The 13 outputs of {@link naiveServiceAccountProviderAllOutputs}' create, from the inputs and the service's answer
 * to `POST /v2/projects/{project_id}/service-accounts`. The engine's floor (bench/floor.ts) returns the same from an
 * answer it makes up (tests/unit/tooling/bench.test.ts compares the two).
 */
export function naiveServiceAccountOutputs(inputs: Props, created: Props): Props {
  const { id, createdAt, createdByUserId, token } = created;
  return {
    ...inputs,
    serviceAccountId: id,
    createdAt,
    createdByUserId,
    tokenId: token.id,
    tokenExpiresAt: token.expiresAt,
    token: token.secret,
    tokenHeld: true,
    // What pulumi-pims keeps to identify a token without holding it: the first 16 hex digits of its SHA-256.
    tokenFingerprint: crypto.createHash("sha256").update(token.secret, "utf8").digest("hex").slice(0, 16),
  };
}

export const naiveVolumeSizeProvider: pulumi.dynamic.ResourceProvider = {
  async check(_olds: Props, news: Props) {
    return { inputs: news };
  },
  async diff(_id: string, olds: Props, news: Props) {
    const replaces = ["projectId", "volumeId"].filter((k) => olds[k] !== news[k]);
    return { changes: replaces.length > 0 || olds.sizeGb !== news.sizeGb, replaces };
  },
  async create(inputs: Props) {
    await axios.patch(
      `${baseUrl}/v2/projects/${inputs.projectId}/volumes/${inputs.volumeId}/resize`,
      { newSizeGb: inputs.sizeGb },
      { headers },
    );
    return { id: `${inputs.projectId}/${inputs.volumeId}`, outs: inputs };
  },
  async update(_id: string, _olds: Props, news: Props) {
    await axios.patch(
      `${baseUrl}/v2/projects/${news.projectId}/volumes/${news.volumeId}/resize`,
      { newSizeGb: news.sizeGb },
      { headers },
    );
    return { outs: news };
  },
  async delete() {
    // volumes cannot shrink and the service has no delete operation
  },
};

export const naiveAppSecretsProvider: pulumi.dynamic.ResourceProvider = {
  async check(_olds: Props, news: Props) {
    return { inputs: news };
  },
  async diff(_id: string, olds: Props, news: Props) {
    const replaces = ["projectId", "appId"].filter((k) => olds[k] !== news[k]);
    return { changes: replaces.length > 0 || JSON.stringify(olds.secrets) !== JSON.stringify(news.secrets), replaces };
  },
  async create(inputs: Props) {
    await axios.patch(`${baseUrl}/v2/projects/${inputs.projectId}/apps/${inputs.appId}/secrets`, inputs.secrets, {
      headers,
    });
    return { id: `${inputs.projectId}/${inputs.appId}`, outs: inputs };
  },
  async update(_id: string, _olds: Props, news: Props) {
    await axios.patch(`${baseUrl}/v2/projects/${news.projectId}/apps/${news.appId}/secrets`, news.secrets, { headers });
    return { outs: news };
  },
  async delete() {
    // the service has no delete operation for secrets
  },
};

export const naiveProviders = {
  Project: naiveProjectProvider,
  ServiceAccount: naiveServiceAccountProvider,
  VolumeSize: naiveVolumeSizeProvider,
  AppSecrets: naiveAppSecretsProvider,
} as const;

/** A docs-style resource class: `new NaiveResource(provider, name, props)`. */
export class NaiveResource extends pulumi.dynamic.Resource {
  constructor(
    provider: pulumi.dynamic.ResourceProvider,
    name: string,
    props: pulumi.Inputs,
    opts?: pulumi.CustomResourceOptions,
  ) {
    super(provider, name, props, opts);
  }
}

/**
 * The docs-style ServiceAccount as any careful hand-written provider declares it: the token is a secret output
 * (`additionalSecretOutputs`), so it is encrypted in the state, as pulumi-pims does. The fair baseline of P7; the
 * plaintext one (`NaiveResource` with `naiveServiceAccountProvider`) stays as the docs show it.
 */
export class NaiveSecretServiceAccount extends pulumi.dynamic.Resource {
  constructor(
    name: string,
    props: pulumi.Inputs,
    opts?: pulumi.CustomResourceOptions,
    provider = naiveServiceAccountProvider,
  ) {
    super(provider, name, props, pulumi.mergeOptions(opts, { additionalSecretOutputs: ["token"] }));
  }
}

/**
 * The output keys of pulumi-pims' `ServiceAccount` class, as a typed hand-written class declares them: read from the
 * kind's one declaration (provider/serviceAccount/kind.ts), so a new output of the kind is a new declared key of the
 * baseline too (P7's self-check, `p7BaselineProblems` of bench/p7-scale.ts, also runs in
 * tests/unit/tooling/bench.test.ts).
 */
export const TYPED_SERVICE_ACCOUNT_OUTPUT_KEYS: readonly string[] = SERVICE_ACCOUNT.outputKeys;
/** Its secret outputs (`additionalSecretOutputs`), the kind's. */
export const TYPED_SERVICE_ACCOUNT_SECRETS: readonly string[] = SERVICE_ACCOUNT.secret;

/**
 * P7's baseline: the docs-style ServiceAccount with its token secret (`additionalSecretOutputs`) and the same
 * declared outputs as pulumi-pims' class. The Node SDK gives a dynamic resource an output property (`sa.token`, …)
 * only for the keys in its props, so a typed class passes every output key, `undefined` where it is not an input, as
 * Pulumi's documentation shows for outputs of dynamic providers. Its provider returns the 13 outputs pulumi-pims
 * stores for a new account ({@link naiveServiceAccountProviderAllOutputs}); the engine's floor (bench/floor.ts) gives
 * it a provider that makes no request.
 */
export class NaiveTypedServiceAccount extends pulumi.dynamic.Resource {
  constructor(
    name: string,
    args: Props,
    opts?: pulumi.CustomResourceOptions,
    provider = naiveServiceAccountProviderAllOutputs,
  ) {
    const props: Props = {};
    for (const k of TYPED_SERVICE_ACCOUNT_OUTPUT_KEYS) props[k] = args[k];
    super(
      provider,
      name,
      props,
      pulumi.mergeOptions(opts, { additionalSecretOutputs: [...TYPED_SERVICE_ACCOUNT_SECRETS] }),
    );
  }
}
