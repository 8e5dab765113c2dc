import * as pulumi from "@pulumi/pulumi";
import { SERVICE_ACCOUNT_OUTPUT_KEYS, type ServiceAccountInputs, type ServiceAccountOutputs } from "../provider/serviceAccount";
import { resourceProps, type Inputs, type OutputProps } from "./inputs";
import { providerShim } from "./shim";

/** Arguments of {@link ServiceAccount}: the inputs documented on `ServiceAccountInputs`, each a `pulumi.Input`. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- an interface (not an alias) keeps the name in docs and errors
export interface ServiceAccountArgs extends Inputs<ServiceAccountInputs> {}

/** The outputs of {@link ServiceAccount} (documented on `ServiceAccountOutputs`), merged into the class. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-unsafe-declaration-merging -- types the outputs the Resource constructor creates from the props given to super
export interface ServiceAccount extends OutputProps<ServiceAccountOutputs> {}

/**
 * A PIMS service account and its token.
 *
 * Creating the resource creates a service account in `projectId` with access to the `grants` projects, and
 * stores the account's token in the `token` output. The service returns the token's secret only once, in the
 * creation response: this resource keeps it in the stack's state as a Pulumi secret (encrypted, and masked in
 * the CLI), so read it from `token` — it cannot be fetched from the service again.
 *
 * **Changes replace.** The service cannot update an account, so changing any argument it receives (all but
 * `rotateBeforeExpiry`) creates a new account (with a new token) and then deletes the old one. The new one is
 * created first, so anything that consumes `token` (e.g. an `AppSecrets` resource) is switched to the new token
 * before the old one stops working. Do not set `deleteBeforeReplace` on this resource.
 *
 * **Rotation.** Change `rotationTrigger` to rotate on demand, or set `rotateBeforeExpiry` to rotate
 * automatically: once the token's expiry minus that many seconds has passed, the next `pulumi up` (and
 * `pulumi preview`) shows a replacement. Changing `rotateBeforeExpiry` alone is an in-place update that keeps
 * the account and its token, unless the new window is already reached. A token created with `expiresIn: 0`
 * never expires and is never rotated by `rotateBeforeExpiry`.
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
 * **Refresh** (`pulumi refresh`) keeps the stored outputs as they are, token included: the service has no
 * way to read an account.
 *
 * **No import.** `pulumi import` and the `import` resource option do not work for dynamic resources, and an
 * existing account could not be adopted anyway: its token cannot be read again. Create a new ServiceAccount
 * instead and delete the old account once nothing uses it.
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
 * export const ciToken = ci.token;      // a secret output
 * ```
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- see the interface above
export class ServiceAccount extends pulumi.dynamic.Resource {
  /**
   * @param name The unique name of the resource (Pulumi's logical name, not the account's name).
   * @param args The account's arguments.
   * @param opts Resource options. `additionalSecretOutputs: ["token"]` is always added.
   */
  constructor(name: string, args: ServiceAccountArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      providerShim("ServiceAccount"),
      name,
      resourceProps(args, SERVICE_ACCOUNT_OUTPUT_KEYS),
      pulumi.mergeOptions(opts, { additionalSecretOutputs: ["token"] }),
      "pims",
      "ServiceAccount",
    );
  }
}
