import * as pulumi from "@pulumi/pulumi";
import {
  SERVICE_ACCOUNT_OUTPUT_KEYS,
  SERVICE_ACCOUNT_SECRET_OUTPUTS,
  type ServiceAccountInputs,
  type ServiceAccountOutputs,
} from "../../provider/serviceAccount";
import { resourceProps, type Inputs, type OutputProps } from "./inputs";
import { providerShim } from "./shim";

/** Arguments of {@link ServiceAccount}: the inputs documented on `ServiceAccountInputs`, each a `pulumi.Input`. */
export interface ServiceAccountArgs extends Inputs<ServiceAccountInputs> {}

/** The outputs of {@link ServiceAccount} (documented on `ServiceAccountOutputs`), merged into the class. */
export interface ServiceAccount extends OutputProps<ServiceAccountOutputs> {}

/**
 * A PIMS service account and its token.
 *
 * Creating the resource creates a service account in `projectId` with access to the `grants` projects, and
 * stores the account's token in the `token` output. The service returns the token's secret only once, in the
 * creation response: this resource keeps it in the stack's state as a Pulumi secret (encrypted, and masked in
 * the CLI), so read it from `token` — it cannot be fetched from the service again.
 *
 * **Changes need a new account.** The service cannot update an account, so changing any argument it receives (all
 * but `rotateBeforeExpiry` and `keepPreviousToken`) creates a new account (with a new token). By default that is a
 * replacement: the new account is created first, anything that consumes `token` in the stack (e.g. an `AppSecrets`
 * resource) is switched to it, and the old account is deleted at the end of the same `pulumi up`. Do not set
 * `deleteBeforeReplace` on this resource.
 *
 * **Rotation.** Change `rotationTrigger` to rotate on demand, or set `rotateBeforeExpiry` to rotate
 * automatically: once the token's expiry minus that many seconds has passed, the next `pulumi up` (and
 * `pulumi preview`) shows the rotation. Changing `rotateBeforeExpiry` alone is an in-place update that keeps
 * the account and its token, unless the new window is already reached. A token created with `expiresIn: 0`
 * never expires and is never rotated by `rotateBeforeExpiry`.
 *
 * **Overlapping rotation (`keepPreviousToken: true`).** Consumers outside the stack (running app instances, other
 * stacks, CI jobs) still hold the token they read before a rotation. With this option a rotation is an in-place
 * update that keeps the old account live as the previous one: `token` is the newest token and `previousToken` (a
 * secret, with `previousServiceAccountId` and `previousTokenExpiresAt`) the one before it, both valid until the next
 * rotation, which deletes only the account two rotations old. `rotateBeforeExpiry` must then be at least half of
 * `expiresIn`, so the previous token outlives its successor's rotation. A new `projectId` still replaces (both
 * accounts of the old project are deleted at the end of that update).
 *
 * **Keeping the token out of the state (`tokenDelivery`).** Set `tokenDelivery` to seal each new token to age
 * recipients (`ageRecipients`: the state keeps only `sealedToken`, which `age -d -i <identity>` opens), hand it to a
 * command on its standard input (`command`, e.g. `["gh", "secret", "set", "PIMS_TOKEN"]`), or write it to a file
 * (`file`, mode 0600). `token` and `previousToken` are then "" (still declared secret outputs), and
 * `tokenFingerprint` (in every mode) and `tokenDeliveredTo` tell which token went where. The token is delivered before
 * the create or rotation returns; a delivery that fails deletes the new account and fails the update, leaving the
 * previous account and the state as they were (docs/keeping-tokens-out-of-state.md).
 *
 * **Failed creates.** When a create fails in a way that may have created the account anyway (a 5xx, a timeout, a
 * dropped connection), the project's API keys decide: if no account with that name appeared, the create is sent
 * again; if one did, the error names it and how to delete it (`pims service-accounts delete <project> <id>`). A
 * create answer whose token cannot be read makes the provider delete that account at once and fail.
 *
 * **Delete.** A 404 counts as "already deleted" only when the project's API keys confirm the account is gone.
 * When the project itself answers 404 (deleted outside Pulumi, or a wrong `pims:baseUrl`), the delete fails
 * until you fix the base address or name the project in `pims:goneProjects` (stack config: a JSON list or
 * comma-separated ids; or `PIMS_GONE_PROJECTS`): its accounts are then dropped from the state with a warning.
 *
 * **Refresh** (`pulumi refresh`, `pulumi up --refresh`) checks the account against the project's API-key listing
 * (one listing per project per run): an account the listing no longer shows leaves the state, and the next
 * `pulumi up` creates a new one; an account still listed keeps its stored outputs exactly, token included. A
 * listing that fails or cannot see, or an account created moments ago, keeps everything and says why
 * (docs/interrupted-runs.md).
 *
 * **Interrupted runs.** Refreshing, rotating, replacing or deleting the resource warns about live accounts with its
 * name that no state of the run holds (left by a run killed mid-create), with their delete command; they are never
 * deleted or adopted.
 *
 * **Adopting an existing account.** Set `adoptServiceAccountId` to the id of an account made in the web console: the
 * create checks it in the project's API-key listing (with the declared `name` and `description`) and sends no POST. Its
 * token cannot be read (`tokenHeld` is false) unless you give it in `adoptToken`, which is proven against the listing
 * and the service before it is held (refused otherwise, nothing adopted); without it, its first rotation
 * (`rotationTrigger`) creates a successor whose token is held, and with `keepPreviousToken` the adopted account stays
 * valid until the rotation after (docs/resources.md).
 *
 * @remarks
 * `pulumi import` and the `import` resource option cannot reach a dynamic resource: adopt an existing account
 * with `adoptServiceAccountId`.
 *
 * @example
 * ```ts
 * import * as pims from "pulumi-pims";
 *
 * const ci = new pims.ServiceAccount("ci", {
 *   projectId: project.id,
 *   name: "ci-deployer",
 *   description: "Deploys from CI",
 *   grants: [project.id],
 *   expiresIn: 90 * 24 * 3600,         // 90 days
 *   rotateBeforeExpiry: 14 * 24 * 3600, // new token once fewer than 14 days are left
 * });
 *
 * // Two valid tokens at every moment: a 90-day token rotated every 30 days, the previous one kept until the next
 * // rotation.
 * const app = new pims.ServiceAccount("app", {
 *   projectId: project.id,
 *   name: "app",
 *   grants: [project.id],
 *   expiresIn: 90 * 24 * 3600,
 *   rotateBeforeExpiry: 60 * 24 * 3600,
 *   keepPreviousToken: true,
 * });
 * export const ciToken = ci.token;      // a secret output
 * ```
 */
export class ServiceAccount extends pulumi.dynamic.Resource {
  /**
   * @param name The unique name of the resource (Pulumi's logical name, not the account's name).
   * @param args The account's arguments.
   * @param opts Resource options. `additionalSecretOutputs: ["token", "previousToken", "adoptToken"]` is always added.
   */
  constructor(name: string, args: ServiceAccountArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      providerShim("ServiceAccount"),
      name,
      // the given token of an adoption is a secret input however the program gave it
      resourceProps(
        args.adoptToken === undefined ? args : { ...args, adoptToken: pulumi.secret(args.adoptToken) },
        SERVICE_ACCOUNT_OUTPUT_KEYS,
      ),
      pulumi.mergeOptions(opts, { additionalSecretOutputs: SERVICE_ACCOUNT_SECRET_OUTPUTS }),
      "pims",
      "ServiceAccount",
    );
  }
}
