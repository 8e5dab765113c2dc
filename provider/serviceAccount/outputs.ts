/**
 * ServiceAccount's outputs: what the state holds after a create, an update or a rotation (the inputs, the current
 * account and token, with `keepPreviousToken` the previous ones, and accounts retired but not deleted yet), and the
 * key lists the SDK class, the plugin's schema and the secret marking read. The TSDoc here is the description of each
 * output in every language's docs (`npm run schema` copies it into provider/schema.json).
 */
import type { ServiceAccountInputs } from "./inputs";

/** What the state holds (and what `diff` receives as `olds`): the inputs plus what the creates returned. */
export interface ServiceAccountOutputs extends ServiceAccountInputs {
  /** The current account's id. (With `keepPreviousToken` the resource's own id stays that of the first account.) */
  serviceAccountId: string;
  /** When the current account was created, RFC 3339. */
  createdAt: string;
  /** Id of the user who created the current account. */
  createdByUserId: string;
  /** Id of the current token. */
  tokenId: string;
  /** When the current token expires, RFC 3339, or `never`. */
  tokenExpiresAt: string;
  /**
   * The current token's secret, sent as `Authorization: Bearer <token>`. Issued once; a secret output. "" with
   * `tokenDelivery` (the token went where it says, `tokenDeliveredTo`) and for an account adopted without its token
   * (`tokenHeld` false).
   */
  token: string;
  /**
   * Whether the state holds the current account's token (in `token`): true for an account the stack created without
   * `tokenDelivery`; false when the token was delivered (`tokenDeliveredTo` says where) and for an imported or adopted
   * account whose token the service could not give (its first rotation creates a successor). Absent from states
   * written before this output existed.
   */
  tokenHeld?: boolean;
  /**
   * The first 16 hex digits of the SHA-256 of the current token (its UTF-8 bytes), in every mode: compare it with the
   * fingerprint of the token a consumer holds to know it holds this one. Never the token. "" when the token is not
   * known (adopted without it).
   */
  tokenFingerprint?: string;
  /**
   * Where the current token was delivered (`tokenDelivery`): `age:<n> recipient(s) <first recipient's first 12
   * characters>…`, `command:<program> <first argument> …` or `file:<absolute path>`. Absent when the state holds the
   * token (the default) or it was never delivered.
   */
  tokenDeliveredTo?: string;
  /**
   * With `tokenDelivery.ageRecipients`: the current token encrypted to those recipients, ASCII-armored age (`age -d -i
   * <identity>` opens it). Not a secret: only an identity opens it.
   */
  sealedToken?: string;
  /**
   * The service's clock minus this machine's, in milliseconds, as the service's `Date` header showed it when the
   * current account was created; present only when they differed by a minute or more. The rotation window
   * (`rotateBeforeExpiry`) is judged on the service's clock with it, since `tokenExpiresAt` is the service's time.
   */
  clockSkewMs?: number;
  /**
   * For an imported account: the inputs the service could not tell (e.g. `grants`). Declaring them in the program
   * changes nothing in the service and never replaces the account on its own; the first rotation creates an account
   * with the declared values, and this list goes away. Normally absent.
   */
  unreadInputs?: string[];
  /** With `keepPreviousToken`, after a rotation: the previous account's id. */
  previousServiceAccountId?: string;
  /** With `keepPreviousToken`, after a rotation: the previous token's id. */
  previousTokenId?: string;
  /** With `keepPreviousToken`, after a rotation: when the previous token expires, RFC 3339, or `never`. */
  previousTokenExpiresAt?: string;
  /**
   * With `keepPreviousToken`, after a rotation: the previous token's secret, valid until the next rotation. A secret
   * output.
   */
  previousToken?: string;
  /** With `keepPreviousToken`, after a rotation: the previous token's fingerprint (see `tokenFingerprint`). */
  previousTokenFingerprint?: string;
  /** With `keepPreviousToken` and sealed delivery, after a rotation: the previous token's `sealedToken`. */
  previousSealedToken?: string;
  /**
   * Accounts of this resource that a rotation retired but could not delete yet (their ids, in `projectId`). The next
   * `pulumi up` (or `destroy`) deletes them. Normally absent.
   */
  retiredServiceAccountIds?: string[];
}

/** Every output key, once (the compiler rejects a missing or unknown one): the SDK class seeds each. */
const INPUT_KEYS = {
  projectId: 1,
  name: 1,
  description: 1,
  grants: 1,
  expiresIn: 1,
  rotationTrigger: 1,
  rotateBeforeExpiry: 1,
  keepPreviousToken: 1,
  adoptServiceAccountId: 1,
  adoptToken: 1,
  tokenDelivery: 1,
} as const;
const CURRENT = {
  serviceAccountId: 1,
  createdAt: 1,
  createdByUserId: 1,
  tokenId: 1,
  tokenExpiresAt: 1,
  token: 1,
  tokenHeld: 1,
  tokenFingerprint: 1,
  tokenDeliveredTo: 1,
  sealedToken: 1,
  clockSkewMs: 1,
} as const;
const PREVIOUS = {
  previousServiceAccountId: 1,
  previousTokenId: 1,
  previousTokenExpiresAt: 1,
  previousToken: 1,
  previousTokenFingerprint: 1,
  previousSealedToken: 1,
} as const;
export const SERVICE_ACCOUNT_OUTPUT_KEYS = Object.keys({
  ...INPUT_KEYS,
  ...CURRENT,
  ...PREVIOUS,
  retiredServiceAccountIds: 1,
  unreadInputs: 1,
} satisfies Record<keyof ServiceAccountOutputs, 1>);
/** The current account's outputs (what a create computes) and the previous account's (what a rotation moves). */
export const [SERVICE_ACCOUNT_CURRENT_KEYS, SERVICE_ACCOUNT_PREVIOUS_KEYS] = [
  Object.keys(CURRENT),
  Object.keys(PREVIOUS),
];
/**
 * The outputs that hold a token's secret (`additionalSecretOutputs` of the SDK class), and `adoptToken`, the input
 * that does (secret in the state's inputs however the program gave it; never an output itself).
 */
export const SERVICE_ACCOUNT_SECRET_OUTPUTS = ["token", "previousToken", "adoptToken"] satisfies Array<
  keyof ServiceAccountOutputs
>;

/** The current account, as a create returns it. */
export type Account = Pick<ServiceAccountOutputs, keyof typeof CURRENT>;
export type Previous = Pick<ServiceAccountOutputs, keyof typeof PREVIOUS>;
