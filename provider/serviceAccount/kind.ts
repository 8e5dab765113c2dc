/**
 * ServiceAccount's one declaration (provider/kindDeclaration.ts), as both hosts, the schema and the SDK read it
 * (provider/kinds.ts lists it): its provider class (./index), the schema type of every output (./outputs describes
 * them), its inputs, secrets, replace rule, the outputs a preview leaves unknown, and `pulumi import` (./adopt).
 */
import { nativeToken } from "../identity";
import { BOOL, declareKind, INT, STR, STR_LIST } from "../kindDeclaration";
import { ServiceAccountProvider } from ".";
import type { ServiceAccountInputs } from "./inputs";
import { SERVICE_ACCOUNT_LIST_INPUTS } from "./list";
import {
  SERVICE_ACCOUNT_CURRENT_KEYS,
  SERVICE_ACCOUNT_PREVIOUS_KEYS,
  SERVICE_ACCOUNT_SECRET_OUTPUTS,
  type ServiceAccountOutputs,
} from "./outputs";

type Names = readonly (keyof ServiceAccountOutputs)[];
// Object.keys of ./outputs's key records, which the compiler checks against ServiceAccountOutputs.
const [CURRENT_KEYS, PREVIOUS_KEYS] = [SERVICE_ACCOUNT_CURRENT_KEYS, SERVICE_ACCOUNT_PREVIOUS_KEYS] as Names[];
/** `tokenDelivery`'s object type (provider/plugin/schemaProperties.ts OBJECT_TYPES: `pims:index:TokenDelivery`). */
const TOKEN_DELIVERY_REF = { $ref: `#/types/${nativeToken("TokenDelivery")}` };

export const SERVICE_ACCOUNT = declareKind<
  "ServiceAccount",
  ServiceAccountInputs,
  ServiceAccountOutputs,
  ServiceAccountProvider
>({
  kind: "ServiceAccount",
  provider: ServiceAccountProvider,
  capabilities: (p) => ({ importable: p, listable: p }),
  listInputs: SERVICE_ACCOUNT_LIST_INPUTS,
  pluginDoc: [
    "Import: `pulumi import pims:index:ServiceAccount <name> <projectId>/<serviceAccountId>` (or `pims",
    "service-accounts import-file <projectId>` and `pulumi import --file` for a whole project) takes an account made",
    "elsewhere, as the project's API-key listing shows it (refused when it does not). The service cannot tell its",
    "grants or its token: `tokenHeld` is false, and declaring `grants` changes nothing. Its first rotation (set or",
    "change `rotationTrigger`, or the expiry window) creates the successor, whose token is held; with",
    "`keepPreviousToken: true` the imported account stays valid as the previous one until the next rotation.",
    "`pulumi import` gives the provider the id alone, never `tokenDelivery`: a token the listing proves is held until",
    "the next `pulumi up` with `tokenDelivery` delivers it and drops it from the state. To never hold it, declare the",
    "account with `adoptServiceAccountId` and `tokenDelivery`: the proven token is delivered like a new one.",
    "A token you have: give it in the import file's `outputs` (`projectId`, `token` as a secret; the entry's id",
    "`<projectId>/<serviceAccountId>`; Pulumi 3.254.0 or later). The engine stores them without asking the provider;",
    "the next `pulumi up` proves the token (the listing shows the account's key matching it, the service accepts it)",
    "with no write and holds it, or refuses it, naming the check that failed.",
    "",
    "List: `pulumi do pims:ServiceAccount list --project-id <projectId>` prints the project's accounts as the API-key",
    "listing shows them (`--count N`: the first N), each `id` ready for `pulumi import`.",
  ].join("\n"),
  example: { scenario: "rotation", title: "Overlapping rotation, on demand and before expiry" },
  tsdoc: "ServiceAccountOutputs",
  properties: {
    projectId: STR,
    name: STR,
    description: STR,
    grants: STR_LIST,
    expiresIn: INT,
    rotationTrigger: STR,
    rotateBeforeExpiry: INT,
    keepPreviousToken: BOOL,
    adoptServiceAccountId: STR,
    adoptToken: STR,
    tokenDelivery: TOKEN_DELIVERY_REF,
    serviceAccountId: STR,
    createdAt: STR,
    createdByUserId: STR,
    tokenId: STR,
    tokenExpiresAt: STR,
    token: STR,
    tokenHeld: BOOL,
    tokenFingerprint: STR,
    tokenDeliveredTo: STR,
    sealedToken: STR,
    clockSkewMs: INT,
    previousServiceAccountId: STR,
    previousTokenId: STR,
    previousTokenExpiresAt: STR,
    previousToken: STR,
    previousTokenFingerprint: STR,
    previousSealedToken: STR,
    retiredServiceAccountIds: STR_LIST,
    unreadInputs: STR_LIST,
  },
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
    adoptToken: true,
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
});
