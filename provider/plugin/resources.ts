/**
 * The four resources of the plugin, one entry per kind (provider/kinds.ts), read by the schema (./schema), the
 * resource methods (./lifecycle) and the secret marking alike: each resource's description, property types
 * (./schemaProperties), inputs, required properties, secret properties (the lists the SDK classes pass as
 * `additionalSecretOutputs`), replace-on-change inputs, and the outputs only a create or an update knows (unknown in a
 * preview). The lifecycle itself is the provider classes' (../index), shared with the dynamic host. Each entry is
 * typed by its kind's Inputs and Outputs ({@link typed}): the compiler refuses a list naming a member they lack, and
 * `inputs` missing one; tests/unit/plugin/schema.test.ts checks the lists against `diff` for every kind.
 */
import { APP_SECRETS_SECRET_OUTPUTS, type AppSecretsInputs, type AppSecretsOutputs } from "../appSecrets";
import type { ResourceKind } from "../kinds";
import type { ProjectInputs, ProjectOutputs } from "../project";
import type { ServiceAccountInputs, ServiceAccountOutputs } from "../serviceAccount";
import type { VolumeSizeInputs, VolumeSizeOutputs } from "../volumeSize";
import {
  SERVICE_ACCOUNT_CURRENT_KEYS,
  SERVICE_ACCOUNT_PREVIOUS_KEYS,
  SERVICE_ACCOUNT_SECRET_OUTPUTS,
} from "../serviceAccount/outputs";
import * as P from "./schemaProperties";

/** What the plugin knows of a resource beyond its lifecycle. */
export interface NativeResource {
  description: string;
  properties: P.PropertyTable;
  /** The inputs (all other properties are outputs only). */
  inputs: readonly string[];
  requiredInputs: readonly string[];
  /** Outputs always present after a create. */
  required: readonly string[];
  /** Inputs and outputs stored and returned as secrets, whatever the program passed. */
  secret: readonly string[];
  /** Inputs whose change always replaces the resource (whatever else is set). */
  replaceOnChanges: readonly string[];
  /** Outputs a create computes (unknown in the preview of a create). */
  computedOnCreate: readonly string[];
  /** Outputs an update may change beyond the inputs (unknown in the preview of an update). */
  computedOnUpdate: readonly string[];
  /** Map inputs whose change a preview shows member by member (names; a secret map's values stay `[secret]`). */
  memberDiffs?: readonly string[];
}

/** Names of members of `T`. */
type Names<T> = readonly (keyof T & string)[];

/**
 * An entry as written, checked against the kind's TypeScript types: `inputs` holds every member of the Inputs type
 * `I` once (a record, so the compiler refuses one missing or extra), each other list only members of `I` or of the
 * Outputs type `O`.
 */
interface TypedResource<I, O> extends Omit<NativeResource, "inputs"> {
  inputs: Record<keyof Required<I>, true>;
  requiredInputs: Names<I>;
  required: Names<O>;
  secret: Names<O>;
  replaceOnChanges: Names<I>;
  computedOnCreate: Names<O>;
  computedOnUpdate: Names<O>;
  memberDiffs?: Names<I>;
}

/** The entry of a kind whose inputs are `I` and outputs `O`, its lists checked by the compiler. */
const typed = <I, O extends I>(r: TypedResource<I, O>): NativeResource => ({ ...r, inputs: Object.keys(r.inputs) });

// Object.keys of ../serviceAccount/outputs's key records, which the compiler checks against ServiceAccountOutputs.
const [CURRENT_KEYS, PREVIOUS_KEYS] = [SERVICE_ACCOUNT_CURRENT_KEYS, SERVICE_ACCOUNT_PREVIOUS_KEYS] as Array<
  Names<ServiceAccountOutputs>
>;

const YAML_PROJECT = ["```yaml", "resources:", "  project:", "    type: pims:index:Project", "    properties:"];

/** The four resources, by kind (`pims:index:<Kind>`). */
export const RESOURCES: Record<ResourceKind, NativeResource> = {
  Project: typed<ProjectInputs, ProjectOutputs>({
    description: [
      "A PIMS project, created with `POST /v2/projects`.",
      "",
      "The service has no operation to read, rename or delete a project: a `name` change **replaces** the project",
      "(the new one is created first, the old one stays in the service); refresh keeps the state as it is; deleting",
      "the resource removes it from the stack only, with a warning that it still exists.",
      "",
      "Import: `pulumi import pims:index:Project <name> <projectId>` takes an existing project once its API-key",
      "listing answers (refused otherwise). The service cannot tell its name: a declared name is never sent and never",
      "replaces an imported project.",
      "",
      ...YAML_PROJECT,
      "      name: my-project",
      "```",
    ].join("\n"),
    properties: P.PROJECT,
    inputs: { name: true },
    requiredInputs: ["name"],
    required: ["name", "projectId"],
    secret: [],
    replaceOnChanges: ["name"],
    computedOnCreate: ["projectId"],
    computedOnUpdate: [],
  }),
  ServiceAccount: typed<ServiceAccountInputs, ServiceAccountOutputs>({
    description: [
      "A PIMS service account and its token (`POST` and `DELETE` under",
      "`/v2/projects/{project_id}/service-accounts`). The service returns the token's secret only once, when the",
      "account is created: the provider keeps it in the state as a **secret** (`token`), and it cannot be read again.",
      "",
      "The service cannot update an account, so a change of any input it receives (`projectId`, `name`,",
      "`description`, `grants`, `expiresIn`, `rotationTrigger`) or a reached rotation window (`rotateBeforeExpiry`)",
      "needs a new account. By default that is a **replacement**: the new account is created first, resources that",
      "use `token` are updated, and the old account is deleted at the end of the same `pulumi up`. With",
      "`keepPreviousToken: true` it is an in-place update instead (overlapping rotation): the old account stays live",
      "as `previousToken` (also a secret) until the next rotation; only a new `projectId` still replaces.",
      "Changing `rotateBeforeExpiry` or `keepPreviousToken` alone never mints a token.",
      "",
      "With `tokenDelivery` (exactly one of `ageRecipients`, `command`, `file`) the token never reaches the state:",
      "each new token is sealed to age recipients (the ciphertext is `sealedToken`), handed to a command on its",
      "standard input, or written to a file (mode 0600), before the create or rotation returns; `token` and",
      '`previousToken` are then "", and `tokenFingerprint` and `tokenDeliveredTo` say which token went where. A',
      "delivery that fails deletes the new account and fails the update, the state unchanged. Setting it on an",
      "account whose token the state holds delivers that token and drops it (no new account).",
      "",
      'A 404 on delete counts as "already deleted" only when the project\'s API keys confirm it; when the project',
      "itself is gone, name it in the `goneProjects` setting. Refresh checks the account against the project's",
      "API-key listing: an account deleted outside the stack leaves the state (the next `pulumi up` creates a new",
      "one); an account still listed, or one the listing cannot tell about, keeps its outputs exactly.",
      "",
      "Import: `pulumi import pims:index:ServiceAccount <name> <projectId>/<serviceAccountId>` (or `pims",
      "service-accounts import-file <projectId>` and `pulumi import --file` for a whole project) takes an account made",
      "elsewhere, as the project's API-key listing shows it (refused when it does not). The service cannot tell its",
      "grants or its token: `tokenHeld` is false, and declaring `grants` changes nothing. Its first rotation (set or",
      "change `rotationTrigger`, or the expiry window) creates the successor, whose token is held; with",
      "`keepPreviousToken: true` the imported account stays valid as the previous one until the next rotation.",
      "",
      "```yaml",
      "resources:",
      "  deployer:",
      "    type: pims:index:ServiceAccount",
      "    properties:",
      "      projectId: ${project.projectId}",
      "      name: ci-deployer",
      '      grants: ["${project.projectId}"]',
      "      expiresIn: 7776000        # 90 days",
      "      rotateBeforeExpiry: 5184000",
      "      keepPreviousToken: true",
      "outputs:",
      "  deployerToken: ${deployer.token} # a secret",
      "```",
    ].join("\n"),
    properties: P.SERVICE_ACCOUNT,
    inputs: {
      projectId: true,
      name: true,
      description: true,
      grants: true,
      expiresIn: true,
      rotationTrigger: true,
      rotateBeforeExpiry: true,
      keepPreviousToken: true,
      adoptServiceAccountId: true,
      tokenDelivery: true,
    },
    requiredInputs: ["projectId", "name", "grants", "expiresIn"],
    required: [
      "projectId",
      "name",
      "description",
      "grants",
      "expiresIn",
      "serviceAccountId",
      "createdAt",
      "createdByUserId",
      "tokenId",
      "tokenExpiresAt",
      "token",
      "tokenFingerprint",
    ],
    secret: SERVICE_ACCOUNT_SECRET_OUTPUTS,
    replaceOnChanges: ["projectId"],
    computedOnCreate: CURRENT_KEYS,
    // A rotation with keepPreviousToken mints a new account: the current and previous ones may both change.
    computedOnUpdate: [...CURRENT_KEYS, ...PREVIOUS_KEYS, "retiredServiceAccountIds", "unreadInputs"],
  }),
  VolumeSize: typed<VolumeSizeInputs, VolumeSizeOutputs>({
    description: [
      "The size of an existing volume, set with `PATCH /v2/projects/{project_id}/volumes/{volume_id}/resize`.",
      "",
      "The service cannot create, read or delete a volume: this resource manages only its size. A volume only",
      "grows (a smaller `sizeGb` fails at preview); above 1024 GB only protected projects may. Another `projectId`",
      "or `volumeId` replaces the resource. Deleting it leaves the volume at its size, with a warning.",
      "",
      "```yaml",
      "resources:",
      "  data:",
      "    type: pims:index:VolumeSize",
      "    properties:",
      "      projectId: p-1a2b3c4d",
      "      volumeId: default-us-east-1",
      "      sizeGb: 100",
      "```",
    ].join("\n"),
    properties: P.VOLUME_SIZE,
    inputs: { projectId: true, volumeId: true, sizeGb: true },
    requiredInputs: ["projectId", "volumeId", "sizeGb"],
    required: ["projectId", "volumeId", "sizeGb"],
    secret: [],
    replaceOnChanges: ["projectId", "volumeId"],
    computedOnCreate: [],
    computedOnUpdate: [],
  }),
  AppSecrets: typed<AppSecretsInputs, AppSecretsOutputs>({
    description: [
      "Secrets of a PIMS app, set with `PATCH /v2/projects/{project_id}/apps/{app_id}/secrets`.",
      "",
      "Create and every update send the **full** map. The API cannot read or delete secrets: a name removed from",
      "`secrets` may stay in the app with its last value (the update warns, naming it), and deleting the resource",
      "leaves the secrets in the app (with a warning naming them). `secrets` is a **secret** in the state; values",
      "never appear in messages. Another `projectId` or `appId` replaces the resource.",
      "",
      "```yaml",
      "resources:",
      "  webSecrets:",
      "    type: pims:index:AppSecrets",
      "    properties:",
      "      projectId: p-1a2b3c4d",
      "      appId: p-1a2b3c4d-web",
      "      secrets:",
      "        PIMS_TOKEN: ${deployer.token}",
      "```",
    ].join("\n"),
    properties: P.APP_SECRETS,
    inputs: { projectId: true, appId: true, secrets: true },
    requiredInputs: ["projectId", "appId", "secrets"],
    required: ["projectId", "appId", "secrets", "secretNames"],
    secret: APP_SECRETS_SECRET_OUTPUTS,
    replaceOnChanges: ["projectId", "appId"],
    computedOnCreate: ["secretNames"],
    computedOnUpdate: ["secretNames"],
    // A reviewer sees which secret names are added, changed or removed, never a value.
    memberDiffs: ["secrets"],
  }),
};
